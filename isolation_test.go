package engram_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// agentData is what seed stores for one agent.
type agentData struct {
	semantic, episode, procedure, session string
}

func seed(t *testing.T, m *engram.Memory, word string) agentData {
	t.Helper()
	ctx := context.Background()
	var d agentData
	var err error
	d.semantic, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: word + " fact", Importance: 0.9, Tags: []string{"shared"}})
	require.NoError(t, err)
	d.episode, err = m.Episodic().Log(ctx, engram.Episode{Content: word + " event", TaskID: "task-1", SessionID: "session-1"})
	require.NoError(t, err)
	d.procedure, err = m.Procedural().Store(ctx, engram.Procedure{Name: "shared-name", Tags: []string{"shared"}, SuccessRate: 0.5})
	require.NoError(t, err)
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: d.episode, TargetID: d.semantic, Type: engram.LinkSupports}))
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: d.semantic, TargetID: d.procedure, Type: engram.LinkElaborates}))
	d.session = "session-1"
	require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{SessionID: d.session, Summary: word + " session"}))
	return d
}

func TestTwoAgentsInOneFileAreIsolated(t *testing.T) {
	path := newDB(t)
	alice := openOn(t, path, "alice", engram.Tier1)
	bob := openOn(t, path, "bob", engram.Tier1)
	ctx := context.Background()
	a := seed(t, alice, "alice")
	b := seed(t, bob, "bob")

	for _, tc := range []struct {
		name  string
		m     *engram.Memory
		own   agentData
		other agentData
		word  string
	}{{"alice", alice, a, b, "alice"}, {"bob", bob, b, a, "bob"}} {
		t.Run(tc.name, func(t *testing.T) {
			m, other := tc.m, tc.other
			_, err := m.Semantic().Get(ctx, other.semantic)
			assert.ErrorIs(t, err, engram.ErrNotFound)
			_, err = m.Episodic().Get(ctx, other.episode)
			assert.ErrorIs(t, err, engram.ErrNotFound)
			_, err = m.Procedural().Get(ctx, other.procedure)
			assert.ErrorIs(t, err, engram.ErrNotFound)

			list, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000})
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, tc.word+" fact", list[0].Content)

			recent, err := m.Episodic().Recent(ctx, 100)
			require.NoError(t, err)
			assert.Equal(t, []string{tc.word + " event"}, contents(recent))
			today, err := m.Episodic().Today(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{tc.word + " event"}, contents(today))
			byTask, err := m.Episodic().ByTask(ctx, "task-1")
			require.NoError(t, err)
			assert.Equal(t, []string{tc.word + " event"}, contents(byTask))
			rng, err := m.Episodic().Range(ctx, time.Time{}, time.Now().Add(time.Hour))
			require.NoError(t, err)
			assert.Equal(t, []string{tc.word + " event"}, contents(rng))

			procs, err := m.Procedural().FindByTags(ctx, []string{"shared"}, 0)
			require.NoError(t, err)
			require.Len(t, procs, 1)
			assert.Equal(t, tc.own.procedure, procs[0].ID)
			active, err := m.Procedural().ListActive(ctx, 0)
			require.NoError(t, err)
			require.Len(t, active, 1)
			assert.Equal(t, tc.own.procedure, active[0].ID)
			byName, err := m.Procedural().GetByName(ctx, "shared-name")
			require.NoError(t, err)
			assert.Equal(t, tc.own.procedure, byName.ID)

			snap, err := m.Episodic().LatestSnapshot(ctx, "session-1")
			require.NoError(t, err)
			assert.Equal(t, tc.word+" session", snap.Summary)
			snap, err = m.Episodic().LatestSnapshot(ctx, "")
			require.NoError(t, err)
			assert.Equal(t, tc.word+" session", snap.Summary)
			snaps, err := m.Episodic().Snapshots(ctx, "session-1")
			require.NoError(t, err)
			assert.Len(t, snaps, 1)

			trav, err := m.Links().Traverse(ctx, tc.own.semantic, 8)
			require.NoError(t, err)
			assert.ElementsMatch(t, []engram.LinkedMemory{
				{ID: tc.own.episode, Type: engram.TypeEpisodic, Depth: 1},
				{ID: tc.own.procedure, Type: engram.TypeProcedural, Depth: 1},
			}, trav)
			_, err = m.Links().Traverse(ctx, other.semantic, 8)
			assert.ErrorIs(t, err, engram.ErrNotFound)
			links, err := m.Links().For(ctx, other.semantic)
			require.NoError(t, err)
			assert.Empty(t, links)

			// Writes naming the other agent's IDs change nothing.
			_, err = m.Semantic().Update(ctx, other.semantic, engram.SemanticPatch{Content: new("hijacked")})
			assert.ErrorIs(t, err, engram.ErrNotFound)
			assert.ErrorIs(t, m.Semantic().Delete(ctx, other.semantic), engram.ErrNotFound)
			assert.ErrorIs(t, m.Semantic().RecordAccess(ctx, other.semantic), engram.ErrNotFound)
			assert.ErrorIs(t, m.Episodic().Delete(ctx, other.episode), engram.ErrNotFound)
			_, err = m.Procedural().RecordOutcome(ctx, other.procedure, false)
			assert.ErrorIs(t, err, engram.ErrNotFound)
			assert.ErrorIs(t, m.Procedural().Delete(ctx, other.procedure), engram.ErrNotFound)
			assert.ErrorIs(t, m.Links().Add(ctx, engram.Link{SourceID: tc.own.semantic, TargetID: other.semantic, Type: engram.LinkSimilar}), engram.ErrNotFound)
			assert.ErrorIs(t, m.Links().Remove(ctx, other.episode, other.semantic, engram.LinkSupports), engram.ErrNotFound)
		})
	}

	// Each agent still has exactly what it stored, untouched.
	for _, m := range []*engram.Memory{alice, bob} {
		st, err := m.Stats(ctx)
		require.NoError(t, err)
		assert.Equal(t, engram.Stats{Semantic: 1, Episodes: 1, Snapshots: 1, Procedures: 1, Links: 2}, st, m.AgentID())
	}
	got, err := bob.Semantic().Get(ctx, b.semantic)
	require.NoError(t, err)
	assert.Equal(t, "bob fact", got.Content)
	assert.Zero(t, got.AccessCount)
	p, err := bob.Procedural().Get(ctx, b.procedure)
	require.NoError(t, err)
	assert.Zero(t, p.UseCount)

	// Same caller-chosen ID in both agents: no conflict, no leak.
	_, err = alice.Semantic().Store(ctx, engram.SemanticEntry{ID: "same-id", Content: "alice's", Importance: 0.5})
	require.NoError(t, err)
	_, err = bob.Semantic().Store(ctx, engram.SemanticEntry{ID: "same-id", Content: "bob's", Importance: 0.5})
	require.NoError(t, err)
	got, err = alice.Semantic().Get(ctx, "same-id")
	require.NoError(t, err)
	assert.Equal(t, "alice's", got.Content)

	// Deleting alice's entry leaves bob's links alone.
	require.NoError(t, alice.Semantic().Delete(ctx, a.semantic))
	st, _ := bob.Stats(ctx)
	assert.Equal(t, 2, st.Links)

	// memory.md projections are per agent.
	ra, err := alice.Bootstrap(ctx)
	require.NoError(t, err)
	assert.NotContains(t, ra.SemanticContext, "bob")
}

// TestLifecycleIsIsolated: compaction, decay, consolidation, the archive
// and extraction rules of one agent never touch another's.
func TestLifecycleIsIsolated(t *testing.T) {
	path := newDB(t)
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 1
	alice := openOn(t, path, "alice", engram.Tier1, engram.WithConfig(cfg))
	bob := openOn(t, path, "bob", engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()
	var bobs []string
	for i := range 3 {
		for _, m := range []*engram.Memory{alice, bob} {
			id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("shared words number %d", i), Importance: 0.1})
			require.NoError(t, err)
			if m == bob {
				bobs = append(bobs, id)
			}
		}
	}
	require.NoError(t, bob.Rules().Add(ctx, engram.ExtractionRule{Name: "likes", Pattern: `like .+`, Type: engram.TypeSemantic, Importance: 0.5, Active: true}))

	rep, err := alice.Compact(ctx, engram.CompactProgressive)
	require.NoError(t, err)
	for _, a := range rep.Actions {
		assert.NotContains(t, bobs, a.ID)
	}
	_, err = alice.Consolidate(ctx)
	require.NoError(t, err)
	st, err := bob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Semantic, "alice's compaction left bob's memories alone")
	assert.Zero(t, st.Archived)

	_, err = bob.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	for _, id := range bobs[:2] {
		assert.ErrorIs(t, alice.Restore(ctx, id), engram.ErrNotFound, "bob's archive is not alice's")
	}
	n, err := alice.PurgeArchive(ctx, 0)
	require.NoError(t, err)
	st, err = bob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Archived, "alice purged %d of her own, none of bob's", n)

	rules, err := alice.Rules().List(ctx)
	require.NoError(t, err)
	assert.Empty(t, rules)
	res, err := alice.Extract(ctx, []engram.Message{{Role: "user", Content: "I like green tea a lot"}})
	require.NoError(t, err)
	assert.Empty(t, res.Items, "bob's rule does not run for alice")
	assert.ErrorIs(t, alice.Rules().Remove(ctx, "likes"), engram.ErrNotFound)
}

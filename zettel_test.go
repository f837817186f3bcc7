package engram_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func TestLinksAddForRemove(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	fact, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "deploys need a green CI", Importance: 0.8})
	require.NoError(t, err)
	event, err := m.Episodic().Log(ctx, engram.Episode{Content: "deploy failed: CI red", Type: engram.EventTaskFailed})
	require.NoError(t, err)
	proc, err := m.Procedural().Store(ctx, engram.Procedure{Name: "deploy"})
	require.NoError(t, err)

	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: event, TargetID: fact, Type: engram.LinkSupports, Strength: 0.6}))
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: fact, TargetID: proc, Type: engram.LinkElaborates}))
	// Adding again updates the strength.
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: event, TargetID: fact, Type: engram.LinkSupports, Strength: 0.7}))

	links, err := m.Links().For(ctx, fact)
	require.NoError(t, err)
	require.Len(t, links, 2)
	assert.Equal(t, proc, links[0].TargetID, "strongest first (zero strength means 1)")
	assert.Equal(t, 1.0, links[0].Strength)
	assert.Equal(t, engram.TypeProcedural, links[0].TargetType)
	assert.Equal(t, event, links[1].SourceID)
	assert.Equal(t, engram.TypeEpisodic, links[1].SourceType)
	assert.Equal(t, 0.7, links[1].Strength)

	assert.ErrorIs(t, m.Links().Add(ctx, engram.Link{SourceID: fact, TargetID: "nope", Type: engram.LinkSimilar}), engram.ErrNotFound)
	assert.ErrorIs(t, m.Links().Add(ctx, engram.Link{SourceID: fact, TargetID: fact, Type: engram.LinkSimilar}), engram.ErrInvalid)
	assert.ErrorIs(t, m.Links().Add(ctx, engram.Link{SourceID: fact, TargetID: proc, Type: "likes"}), engram.ErrInvalid)
	assert.ErrorIs(t, m.Links().Add(ctx, engram.Link{SourceID: fact, TargetID: proc, Type: engram.LinkCausal, Strength: 1.1}), engram.ErrInvalid)
	assert.ErrorIs(t, m.Links().Add(ctx, engram.Link{SourceID: fact, TargetID: proc, Type: engram.LinkCausal, SourceType: engram.TypeEpisodic}), engram.ErrNotFound,
		"a SourceType that does not hold the ID")

	require.NoError(t, m.Links().Remove(ctx, fact, proc, engram.LinkElaborates))
	assert.ErrorIs(t, m.Links().Remove(ctx, fact, proc, engram.LinkElaborates), engram.ErrNotFound)
	links, err = m.Links().For(ctx, fact)
	require.NoError(t, err)
	assert.Len(t, links, 1)
}

func TestLinksAmbiguousIDNeedsType(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "same", Content: "a fact", Importance: 0.5})
	require.NoError(t, err)
	_, err = m.Episodic().Log(ctx, engram.Episode{ID: "same", Content: "an event"})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{ID: "other", Content: "b", Importance: 0.5})
	require.NoError(t, err)

	err = m.Links().Add(ctx, engram.Link{SourceID: "same", TargetID: "other", Type: engram.LinkSimilar})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: "same", SourceType: engram.TypeEpisodic, TargetID: "other", Type: engram.LinkSimilar}))
	// Two memories sharing an ID are different nodes.
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: "same", SourceType: engram.TypeEpisodic, TargetID: "same", TargetType: engram.TypeSemantic, Type: engram.LinkSimilar}))
}

// chain stores n semantic entries and links them i -> i+1.
func chain(t *testing.T, m *engram.Memory, n int) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for i := range n {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: string(rune('a' + i)), Content: "node", Importance: 0.5})
		require.NoError(t, err)
		out = append(out, id)
		if i > 0 {
			require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: out[i-1], TargetID: id, Type: engram.LinkSequential}))
		}
	}
	return out
}

// noAutoLink turns auto-linking off, for tests that count explicit links.
func noAutoLink() engram.Option {
	c := engram.DefaultConfig()
	c.Zettelkasten.Enabled = false
	return engram.WithConfig(c)
}

func TestTraverseBothDirectionsAndCycles(t *testing.T) {
	m := newMemory(t, engram.Tier1, noAutoLink())
	ctx := context.Background()
	n := chain(t, m, 5) // a -> b -> c -> d -> e
	// Close a cycle e -> a, and a back-edge c -> a.
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: "e", TargetID: "a", Type: engram.LinkCausal}))
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: "c", TargetID: "a", Type: engram.LinkSupports}))

	got, err := m.Links().Traverse(ctx, n[2], 1) // from c
	require.NoError(t, err)
	assert.Equal(t, []engram.LinkedMemory{
		{ID: "a", Type: engram.TypeSemantic, Depth: 1},
		{ID: "b", Type: engram.TypeSemantic, Depth: 1},
		{ID: "d", Type: engram.TypeSemantic, Depth: 1},
	}, got, "incoming and outgoing links both count")

	got, err = m.Links().Traverse(ctx, "c", 8)
	require.NoError(t, err)
	assert.Equal(t, []engram.LinkedMemory{
		{ID: "a", Type: engram.TypeSemantic, Depth: 1},
		{ID: "b", Type: engram.TypeSemantic, Depth: 1},
		{ID: "d", Type: engram.TypeSemantic, Depth: 1},
		{ID: "e", Type: engram.TypeSemantic, Depth: 2},
	}, got, "each node once, at its shortest distance, start excluded")

	lonely, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "alone", Importance: 0.5})
	require.NoError(t, err)
	got, err = m.Links().Traverse(ctx, lonely, 3)
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = m.Links().Traverse(ctx, "missing", 2)
	assert.ErrorIs(t, err, engram.ErrNotFound)
	_, err = m.Links().Traverse(ctx, "a", 0)
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Links().Traverse(ctx, "a", engram.MaxTraverseDepth+1)
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func TestLinksDisappearWithEitherEnd(t *testing.T) {
	m := newMemory(t, engram.Tier1, noAutoLink())
	ctx := context.Background()
	chain(t, m, 3) // a -> b -> c
	ev, err := m.Episodic().Log(ctx, engram.Episode{Content: "event"})
	require.NoError(t, err)
	pr, err := m.Procedural().Store(ctx, engram.Procedure{Name: "p"})
	require.NoError(t, err)
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: ev, TargetID: "b", Type: engram.LinkCausal}))
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: "b", TargetID: pr, Type: engram.LinkElaborates}))
	st, _ := m.Stats(ctx)
	require.Equal(t, 4, st.Links)

	require.NoError(t, m.Semantic().Delete(ctx, "b"))
	st, _ = m.Stats(ctx)
	assert.Equal(t, 0, st.Links, "every link touching b is gone")

	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: ev, TargetID: pr, Type: engram.LinkCausal}))
	require.NoError(t, m.Episodic().Delete(ctx, ev))
	st, _ = m.Stats(ctx)
	assert.Equal(t, 0, st.Links)
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: "a", TargetID: pr, Type: engram.LinkCausal}))
	require.NoError(t, m.Procedural().Delete(ctx, pr))
	st, _ = m.Stats(ctx)
	assert.Equal(t, 0, st.Links)
}

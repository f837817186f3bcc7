package engram_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func TestAutoLinkOnStore(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	a, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The production database runs Postgres 16 on port 6432", Importance: 0.5})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Lunch is served at noon in the cafeteria", Importance: 0.5})
	require.NoError(t, err)
	b, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The production database runs Postgres 16 on port 6432.", Importance: 0.5})
	require.NoError(t, err)

	links, err := m.Links().For(ctx, b)
	require.NoError(t, err)
	require.Len(t, links, 1, "only the near-duplicate is similar enough")
	assert.Equal(t, b, links[0].SourceID)
	assert.Equal(t, a, links[0].TargetID)
	assert.Equal(t, engram.LinkSimilar, links[0].Type)
	assert.InDelta(t, 1.0, links[0].Strength, 1e-9, "same words: cosine 1")

	c, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The production database runs Postgres 16 on port 5432 with replicas", Importance: 0.5})
	require.NoError(t, err)
	links, err = m.Links().For(ctx, c)
	require.NoError(t, err)
	for _, l := range links {
		assert.GreaterOrEqual(t, l.Strength, 0.85, "linking threshold")
		assert.Less(t, l.Strength, 1.0, "different words: cosine below 1")
	}
}

func TestAutoLinkRespectsLimitAndThreshold(t *testing.T) {
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.MaxLinksPerEntry = 2
	cfg.Zettelkasten.LinkingThreshold = 0.5
	m := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()
	for range 5 {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "deploy the service behind a feature flag", Importance: 0.5})
		require.NoError(t, err)
	}
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "deploy the service behind a feature flag today", Importance: 0.5})
	require.NoError(t, err)
	made, err := m.Links().AutoLink(ctx, id)
	require.NoError(t, err)
	assert.Len(t, made, 2, "MaxLinksPerEntry")
	for _, l := range made {
		assert.GreaterOrEqual(t, l.Strength, 0.5)
	}
	_, err = m.Links().AutoLink(ctx, "missing")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	ep, err := m.Episodic().Log(ctx, engram.Episode{Content: "deploy the service behind a feature flag"})
	require.NoError(t, err)
	_, err = m.Links().AutoLink(ctx, ep)
	assert.ErrorIs(t, err, engram.ErrNotFound, "auto-linking is for semantic entries")
}

func TestAutoLinksNeverCrossAgents(t *testing.T) {
	path := newDB(t)
	alice := openOn(t, path, "alice", engram.Tier1)
	bob := openOn(t, path, "bob", engram.Tier1)
	ctx := context.Background()
	text := "The staging cluster lives in eu-west-1 and deploys every hour"
	_, err := alice.Semantic().Store(ctx, engram.SemanticEntry{Content: text, Importance: 0.5})
	require.NoError(t, err)
	id, err := bob.Semantic().Store(ctx, engram.SemanticEntry{Content: text, Importance: 0.5})
	require.NoError(t, err)
	links, err := bob.Links().For(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, links, "alice's identical entry is not bob's to link to")
	st, err := alice.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Links)
}

func TestFlushAutoLinksKeptItems(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	fact, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The billing service retries failed card payments three times", Importance: 0.5})
	require.NoError(t, err)
	_, err = m.Working().Add(engram.WorkingItem{ID: "w", Content: "The billing service retries failed card payments three times daily", Importance: 0.9})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	links, err := m.Links().For(ctx, "w")
	require.NoError(t, err)
	require.Len(t, links, 1, "a kept working item is linked like a stored entry")
	assert.Equal(t, fact, links[0].TargetID)
}

// linkedTo returns the IDs the entry id links to.
func linkedTo(t *testing.T, m *engram.Memory, id string) []string {
	t.Helper()
	links, err := m.Links().For(context.Background(), id)
	require.NoError(t, err)
	var out []string
	for _, l := range links {
		if l.SourceID == id {
			out = append(out, l.TargetID)
		} else {
			out = append(out, l.SourceID)
		}
	}
	return out
}

// Auto-linking keeps an index of stems in memory; these tests change the
// entries behind its back in each way it has to notice.
func TestAutoLinkFollowsUpdatesAndDeletes(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	store := func(text string) string {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: text, Importance: 0.5})
		require.NoError(t, err)
		return id
	}
	old := "The nightly backup job copies the orders database to cold storage"
	newText := "Grafana dashboards for checkout latency live in the observability folder"
	e := store(old) // builds the index
	_, err := m.Semantic().Update(ctx, e, engram.SemanticPatch{Content: new(newText)})
	require.NoError(t, err)
	assert.Empty(t, linkedTo(t, m, store(old)), "the entry no longer says this")
	assert.Equal(t, []string{e}, linkedTo(t, m, store(newText+".")), "found under its new words")

	gone := store("Rotate the signing keys for the payments gateway every quarter")
	require.NoError(t, m.Semantic().Delete(ctx, gone))
	assert.Empty(t, linkedTo(t, m, store("Rotate the signing keys for the payments gateway every quarter!")))
}

func TestAutoLinkSeesOtherHandlesWrites(t *testing.T) {
	path := newDB(t)
	a := openOn(t, path, "default", engram.Tier1)
	b := openOn(t, path, "default", engram.Tier1)
	ctx := context.Background()
	_, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: "Feature flags are managed in LaunchDarkly", Importance: 0.5})
	require.NoError(t, err) // b's index is built now
	text := "Customer invoices are generated on the first business day of each month"
	fromA, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: text, Importance: 0.5})
	require.NoError(t, err)
	fromB, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: text + ".", Importance: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{fromA}, linkedTo(t, b, fromB), "b sees the entry a stored after b built its index")
}

func TestAutoLinkIgnoresRolledBackEntries(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "taken", Content: "Standup is at nine thirty", Importance: 0.5})
	require.NoError(t, err)
	lost := "The VPN certificate for contractors expires in March"
	_, err = m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{
		{Content: "Office plants are watered on Fridays", Importance: 0.5},
		{ID: "lost", Content: lost, Importance: 0.5},
		{ID: "taken", Content: "a second entry with a taken ID fails the batch", Importance: 0.5},
	})
	require.ErrorIs(t, err, engram.ErrExists)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Lunch orders close at eleven", Importance: 0.5})
	require.NoError(t, err)
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: lost + ".", Importance: 0.5})
	require.NoError(t, err)
	assert.Empty(t, linkedTo(t, m, id), "the entry it resembles was never stored")
}

// Entries stored in one batch link to each other in Tier 2 as in Tier 1,
// whether or not the vector index was loaded before the batch (the
// batch's own vectors reach the index only when it commits).
func TestAutoLinkWithinABatch(t *testing.T) {
	h, err := engram.NewHashingEmbedder(256)
	require.NoError(t, err)
	for name, m := range map[string]*engram.Memory{"tier 1": newMemory(t, engram.Tier1), "tier 2": newMemory(t, engram.Tier2, engram.WithEmbedder(h))} {
		ctx := context.Background()
		for _, c := range []string{"lunch is served at noon", "the office closes at six"} {
			_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c})
			require.NoError(t, err, name)
		}
		ids, err := m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{
			{Content: "The production database runs Postgres 16 on port 6432"},
			{Content: "The production database runs Postgres 16 on port 6432."},
		})
		require.NoError(t, err, name)
		links, err := m.Links().For(ctx, ids[1])
		require.NoError(t, err, name)
		require.Len(t, links, 1, name)
		assert.Equal(t, ids[0], links[0].TargetID, name)
	}
}

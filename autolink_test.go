package engram_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

func TestAutoLinkOnStore(t *testing.T) {
	m := testutil.Open(t)
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
	m := testutil.Open(t, engram.WithConfig(cfg))
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
	path := testutil.TempDB(t)
	alice := testutil.OpenPath(t, path, "alice")
	bob := testutil.OpenPath(t, path, "bob")
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
	m := testutil.Open(t)
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

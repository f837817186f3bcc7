package engram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// storeMany stores n semantic entries made by content(i), in one batch.
func storeMany(t *testing.T, m *engram.Memory, n int, entry func(i int) engram.SemanticEntry) {
	t.Helper()
	batch := make([]engram.SemanticEntry, n)
	for i := range batch {
		batch[i] = entry(i)
	}
	_, err := m.Semantic().StoreBatch(context.Background(), batch)
	require.NoError(t, err)
}

// A busy neighbour in a shared file: agent a stores more entries with a
// word than the posting budget, and agent b, which holds one, must still
// find it, through a fresh handle (no cached counts) as through an old
// one, and with a query whose other word a holds too.
func TestSearchIsNotCrowdedOutByAnotherAgent(t *testing.T) {
	path := newDB(t)
	ctx := context.Background()
	b := openOn(t, path, "b", engram.Tier1)
	_, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: "the deploy runs from the blue pipeline", Importance: 0.5})
	require.NoError(t, err)
	_, err = b.Episodic().Log(ctx, engram.Episode{Content: "we moved the deploy to friday"})
	require.NoError(t, err)

	a := openOn(t, path, "a", engram.Tier1)
	budget := engram.DefaultConfig().Search.PostingBudget
	storeMany(t, a, budget+200, func(i int) engram.SemanticEntry {
		return engram.SemanticEntry{Content: fmt.Sprintf("deploy number %d went out", i), Importance: 0.9}
	})
	for i := range budget + 50 {
		_, err := a.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("deploy %d from the pipeline", i)})
		require.NoError(t, err)
	}

	fresh := openOn(t, path, "b", engram.Tier1)
	for name, m := range map[string]*engram.Memory{"fresh": fresh, "old": b} {
		for _, q := range []string{"deploy", "deploy pipeline", "Where does the deploy run from?"} {
			res, err := m.Search(ctx, engram.SearchOptions{Query: q})
			require.NoError(t, err, "%s %q", name, q)
			got := contentsOf(res)
			assert.Contains(t, got, "the deploy runs from the blue pipeline", "%s %q", name, q)
			if q == "deploy" {
				assert.ElementsMatch(t, []string{"the deploy runs from the blue pipeline", "we moved the deploy to friday"}, got, "%s %q", name, q)
			}
		}
	}
}

// Filters apply before the posting budget's cut, not after: a tagged or
// older match is found however many newer matches fail the filter.
func TestSearchFiltersApplyBeforeTheBudget(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the deploy key rotates monthly", Importance: 0.5, Tags: []string{"ops"}})
	require.NoError(t, err)
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: "first deploy of the year"})
	require.NoError(t, err)
	clock.Advance(time.Hour)
	cut := clock.Now()
	budget := engram.DefaultConfig().Search.PostingBudget
	storeMany(t, m, budget+200, func(i int) engram.SemanticEntry {
		return engram.SemanticEntry{Content: fmt.Sprintf("deploy %d is untagged", i), Importance: 0.9}
	})
	for i := range budget + 200 {
		_, err := m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("another deploy %d", i)})
		require.NoError(t, err)
	}

	res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy", Tags: []string{"ops"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"the deploy key rotates monthly"}, contentsOf(res))

	res, err = m.Search(ctx, engram.SearchOptions{Query: "deploy", Until: cut})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"the deploy key rotates monthly", "first deploy of the year"}, contentsOf(res))
}

func contentsOf(res []engram.Result) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Content
	}
	return out
}

// Users of one agent are isolated as agents are: u1's memories (every
// text of which holds the word "alphamark") never answer a search
// (through the in-memory index, through FTS5, by vector and hybrid), a
// listing, a context block, a recall or an export scoped to u2, though
// both users share words, sessions, tags, metadata and IDs' shapes.
func TestUserIsolation(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 32)))
	for _, u := range []string{"u1", "u2"} {
		mark := "bravomark"
		if u == "u1" {
			mark = "alphamark"
		}
		for i := range 30 {
			session := fmt.Sprint("s", i%3)
			meta := map[string]any{"topic": "deploy", "n": float64(i)}
			_, err := m.Semantic().Store(ctx, engram.SemanticEntry{UserID: u, SessionID: session, Tags: []string{"ops"}, Metadata: meta,
				Content: fmt.Sprintf("%s the deploy runs from the blue pipeline, step %d", mark, i)})
			require.NoError(t, err)
			_, err = m.Episodic().Log(ctx, engram.Episode{UserID: u, SessionID: session, Metadata: map[string]string{"topic": "deploy"},
				Content: fmt.Sprintf("%s deployed build %d through the pipeline", mark, i)})
			require.NoError(t, err)
		}
		_, err := m.Procedural().Store(ctx, engram.Procedure{UserID: u, SessionID: "s1", Name: u + " deploy", Description: mark + " how to deploy the pipeline",
			Tags: []string{"ops"}, Metadata: map[string]any{"topic": "deploy"}})
		require.NoError(t, err)
	}
	// Searched again until the in-memory index answers, then once more.
	scoped := func(f engram.Filter) *engram.Filter {
		f.UserID = "u2"
		return &f
	}
	filters := []*engram.Filter{scoped(engram.Filter{}), scoped(engram.Filter{SessionID: "s1"}), scoped(engram.Filter{Tags: []string{"ops"}}),
		scoped(engram.Filter{Metadata: engram.MetaEq("topic", "deploy")}), scoped(engram.Filter{Types: []engram.MemoryType{engram.TypeEpisodic}})}
	leaks := func(what string, s string) {
		t.Helper()
		assert.NotContains(t, s, "alphamark", what)
	}
	for _, f := range filters {
		for _, mode := range []engram.SearchMode{engram.SearchText, engram.SearchVector, engram.SearchHybrid} {
			for range 3 {
				res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy pipeline alphamark bravomark", Mode: mode, Limit: 100, Filter: f})
				require.NoError(t, err)
				assert.NotEmpty(t, res)
				for _, r := range res {
					leaks(fmt.Sprintf("search %s %+v", mode, *f), r.Content)
				}
			}
		}
		listed, err := m.List(ctx, engram.MemoryQuery{Limit: 1000, Filter: f})
		require.NoError(t, err)
		assert.NotEmpty(t, listed.Records)
		for _, r := range listed.Records {
			b, err := json.Marshal(r)
			require.NoError(t, err)
			leaks("list", string(b))
		}
		sem, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000, Filter: f})
		require.NoError(t, err)
		for _, e := range sem {
			leaks("semantic list", e.Content)
		}
		block, err := m.Context(ctx, engram.ContextOptions{Query: "deploy pipeline alphamark", MaxTokens: 50000, Filter: f})
		require.NoError(t, err)
		assert.Contains(t, block.Text, "bravomark")
		leaks("context", block.Text)
		rec, err := m.RecallWith(ctx, engram.RecallOptions{Query: "deploy pipeline alphamark", Filter: f})
		require.NoError(t, err)
		assert.NotEmpty(t, rec.ByKind)
		for _, list := range rec.ByKind {
			for _, r := range list {
				leaks("recall", r.Content)
			}
		}
		var buf bytes.Buffer
		require.NoError(t, m.Export(ctx, &buf, engram.ExportOptions{Vectors: true, History: true, Filter: f}))
		leaks("export", buf.String())
		assert.Contains(t, buf.String(), "bravomark")
	}
	// Recall put u2's memories in the working set; a search scoped to a
	// user never shows the working set.
	res, err := m.Search(ctx, engram.SearchOptions{Query: "bravomark deploy", Types: []engram.MemoryType{engram.TypeWorking}, Filter: &engram.Filter{UserID: "u2"}})
	require.NoError(t, err)
	assert.Empty(t, res)
}

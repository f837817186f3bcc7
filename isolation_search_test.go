package engram_test

import (
	"context"
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
	path := testutil.TempDB(t)
	ctx := context.Background()
	b := testutil.OpenPath(t, path, "b")
	_, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: "the deploy runs from the blue pipeline", Importance: 0.5})
	require.NoError(t, err)
	_, err = b.Episodic().Log(ctx, engram.Episode{Content: "we moved the deploy to friday"})
	require.NoError(t, err)

	a := testutil.OpenPath(t, path, "a")
	budget := engram.DefaultConfig().Search.PostingBudget
	storeMany(t, a, budget+200, func(i int) engram.SemanticEntry {
		return engram.SemanticEntry{Content: fmt.Sprintf("deploy number %d went out", i), Importance: 0.9}
	})
	for i := range budget + 50 {
		_, err := a.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("deploy %d from the pipeline", i)})
		require.NoError(t, err)
	}

	fresh := testutil.OpenPath(t, path, "b")
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
	m := testutil.Open(t, engram.WithClock(clock.Now))
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

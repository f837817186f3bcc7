package engram_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

func TestSemanticStoreGet(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()

	tags := []string{"ops", "deploy"}
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{
		Content:    "The deploy runs from CI only.\nNever deploy from a laptop.",
		Importance: 0.9,
		Tags:       tags,
		Source:     "user",
	})
	require.NoError(t, err)
	assert.Len(t, id, 26, "a generated ID is a 26-character ULID")
	tags[0] = "changed by caller"

	got, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, got.ID)
	assert.Equal(t, "The deploy runs from CI only.", got.Summary, "summary is the first line")
	assert.Equal(t, []string{"ops", "deploy"}, got.Tags, "tags are copied on the way in")
	assert.Equal(t, 0.9, got.Importance)
	assert.Equal(t, "user", got.Source)
	assert.True(t, got.CreatedAt.Equal(t0), "CreatedAt = %v, want the clock's %v", got.CreatedAt, t0)
	assert.True(t, got.UpdatedAt.Equal(t0))
	assert.True(t, got.LastAccessedAt.Equal(t0))
	assert.Zero(t, got.AccessCount)

	got.Tags[0] = "changed by caller"
	again, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "ops", again.Tags[0], "tags are copied on the way out")

	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: "other", Importance: 0.1})
	assert.ErrorIs(t, err, engram.ErrExists)

	_, err = m.Semantic().Get(ctx, "no-such-id")
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

func TestSemanticIDsAreTimeOrdered(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var prev string
	for i := range 20 {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "fact", Importance: 0.5})
		require.NoError(t, err)
		assert.Greater(t, id, prev, "ID %d", i)
		prev = id
		if i%3 == 0 {
			clock.Advance(time.Millisecond)
		}
	}
}

func TestSemanticUpdate(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Postgres runs on port 5432", Importance: 0.5, Tags: []string{"db"}})
	require.NoError(t, err)

	clock.Advance(time.Hour)
	got, err := m.Semantic().Update(ctx, id, engram.SemanticPatch{
		Content:  new("Postgres runs on port 6432 behind pgbouncer"),
		Verified: new(true),
	})
	require.NoError(t, err)
	assert.Equal(t, "Postgres runs on port 6432 behind pgbouncer", got.Content)
	assert.Equal(t, "Postgres runs on port 6432 behind pgbouncer", got.Summary, "summary follows new content")
	assert.True(t, got.Verified)
	assert.Equal(t, 0.5, got.Importance, "unpatched fields keep their value")
	assert.Equal(t, []string{"db"}, got.Tags)
	assert.True(t, got.UpdatedAt.Equal(t0.Add(time.Hour)))
	assert.True(t, got.CreatedAt.Equal(t0))

	stored, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, got, stored)

	_, err = m.Semantic().Update(ctx, id, engram.SemanticPatch{Importance: new(1.5)})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Semantic().Update(ctx, "missing", engram.SemanticPatch{Importance: new(0.5)})
	assert.ErrorIs(t, err, engram.ErrNotFound)

	got, err = m.Semantic().Update(ctx, id, engram.SemanticPatch{Summary: new("pgbouncer: 6432"), Tags: &[]string{"db", "pool"}})
	require.NoError(t, err)
	assert.Equal(t, "pgbouncer: 6432", got.Summary)
	assert.Equal(t, []string{"db", "pool"}, got.Tags)
}

func TestSemanticDeleteAndList(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var ids []string
	for i, imp := range []float64{0.2, 0.9, 0.5, 0.9} {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "fact " + string(rune('a'+i)), Importance: imp})
		require.NoError(t, err)
		ids = append(ids, id)
		clock.Advance(time.Minute)
	}
	list, err := m.Semantic().List(ctx, engram.ListOptions{})
	require.NoError(t, err)
	var order []string
	for _, e := range list {
		order = append(order, e.ID)
	}
	// Importance first; among the two 0.9s the more recent first.
	assert.Equal(t, []string{ids[3], ids[1], ids[2], ids[0]}, order)

	page, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 2, Offset: 1})
	require.NoError(t, err)
	require.Len(t, page, 2)
	assert.Equal(t, ids[1], page[0].ID)

	_, err = m.Semantic().List(ctx, engram.ListOptions{Limit: -1})
	assert.ErrorIs(t, err, engram.ErrInvalid)

	require.NoError(t, m.Semantic().Delete(ctx, ids[1]))
	_, err = m.Semantic().Get(ctx, ids[1])
	assert.ErrorIs(t, err, engram.ErrNotFound)
	assert.ErrorIs(t, m.Semantic().Delete(ctx, ids[1]), engram.ErrNotFound)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Semantic)
}

func TestSemanticRecordAccess(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	a, _ := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "a", Importance: 0.5})
	b, _ := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "b", Importance: 0.5})

	clock.Advance(time.Hour)
	require.NoError(t, m.Semantic().RecordAccess(ctx, a, b, a))
	for _, id := range []string{a, b} {
		e, err := m.Semantic().Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, 1, e.AccessCount, "a repeated ID counts once per call")
		assert.True(t, e.LastAccessedAt.Equal(t0.Add(time.Hour)))
	}

	err := m.Semantic().RecordAccess(ctx, a, "missing")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	e, _ := m.Semantic().Get(ctx, a)
	assert.Equal(t, 1, e.AccessCount, "a failed RecordAccess changes nothing")
}

func TestSemanticStoreBatchIsAllOrNothing(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	entries := []engram.SemanticEntry{
		{Content: "one", Importance: 0.1},
		{Content: "two", Importance: 0.2},
		{ID: "fixed", Content: "three", Importance: 0.3},
	}
	ids, err := m.Semantic().StoreBatch(ctx, entries)
	require.NoError(t, err)
	require.Len(t, ids, 3)
	assert.Equal(t, "fixed", ids[2])

	// A duplicate ID in the middle of a batch: nothing of it is stored.
	_, err = m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{
		{Content: "four", Importance: 0.4},
		{ID: "fixed", Content: "dup", Importance: 0.4},
	})
	assert.ErrorIs(t, err, engram.ErrExists)

	// An invalid entry is named by its index.
	_, err = m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{Content: "ok", Importance: 0.4}, {Content: "", Importance: 0.4}})
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "entries[1].Content", ie.Field)

	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Semantic)
}

func TestSummaryIsDerivedAndBounded(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	long := "\n\n   " + strings.Repeat("word ", 100) + "\nsecond line"
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: long, Importance: 0.5})
	require.NoError(t, err)
	e, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.LessOrEqual(t, len([]rune(e.Summary)), 200)
	assert.True(t, strings.HasPrefix(e.Summary, "word word"), "summary %q", e.Summary)
	assert.True(t, strings.HasSuffix(e.Summary, "…"))
	assert.NotContains(t, e.Summary, "second line")
}

func TestErrorsAreClassified(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	_, err := m.Semantic().Store(context.Background(), engram.SemanticEntry{Content: "x", Importance: 2})
	var ie *engram.InvalidError
	require.True(t, errors.As(err, &ie))
	assert.Equal(t, "entry.Importance", ie.Field)
	assert.Contains(t, err.Error(), "Importance")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "x", Importance: 0.5})
	assert.ErrorIs(t, err, context.Canceled)
}

package engram_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// ops lists the operations of a memory's history, in order.
func ops(t *testing.T, m *engram.Memory, id string) []engram.HistoryOp {
	t.Helper()
	h, err := m.History(context.Background(), id)
	require.NoError(t, err)
	var out []engram.HistoryOp
	for _, e := range h {
		assert.Equal(t, id, e.ID)
		out = append(out, e.Op)
	}
	return out
}

// field reads one field of a history entry's JSON.
func field(t *testing.T, raw json.RawMessage, name string) any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m[name]
}

func TestHistoryRecordsEveryOperation(t *testing.T) {
	m, clock := compactionMemory(t, func(c *engram.Config) {
		c.Zettelkasten.Enabled = false
		c.Compaction.MaxEntries = 100
	})
	ctx := context.Background()

	// create, update, delete.
	a := storeSemantic(t, m, engram.SemanticEntry{Content: "The deploy runs from CI only", Importance: 0.6, Tags: []string{"ops"}})
	imp := 0.9
	_, err := m.Semantic().Update(ctx, a, engram.SemanticPatch{Importance: &imp})
	require.NoError(t, err)
	require.NoError(t, m.Semantic().RecordAccess(ctx, a)) // a read, not a change
	require.NoError(t, m.Semantic().Delete(ctx, a))
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpUpdate, engram.OpDelete}, ops(t, m, a))
	h, err := m.History(ctx, a)
	require.NoError(t, err)
	assert.Nil(t, h[0].Before)
	assert.Equal(t, "The deploy runs from CI only", field(t, h[0].After, "content"))
	assert.Equal(t, []any{"ops"}, field(t, h[0].After, "tags"), "JSON fields stay JSON")
	assert.Equal(t, 0.6, field(t, h[1].Before, "importance"))
	assert.Equal(t, 0.9, field(t, h[1].After, "importance"))
	assert.Equal(t, "The deploy runs from CI only", field(t, h[2].Before, "content"))
	assert.Nil(t, h[2].After)
	assert.Less(t, h[0].Seq, h[1].Seq)
	assert.Equal(t, "default", h[0].Actor, "the agent, without WithActor")
	assert.Equal(t, day0, h[0].At)

	// merge (compaction) and archive, then restore.
	clock.Advance(time.Hour)
	b := storeSemantic(t, m, engram.SemanticEntry{Content: "The payments service retries declined cards three times", Importance: 0.5})
	c := storeSemantic(t, m, engram.SemanticEntry{Content: "The payments service retries declined cards three times.", Importance: 0.8})
	_, err = m.Compact(ctx, engram.CompactSemantic)
	require.NoError(t, err)
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpArchive}, ops(t, m, b))
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpMerge}, ops(t, m, c))
	h, err = m.History(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, "semantic", h[1].Reason, "compaction's step says why")
	require.NoError(t, m.Restore(ctx, b))
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpArchive, engram.OpRestore}, ops(t, m, b))

	// decay: recorded when resonance falls into a lower tenth, not every run.
	d := storeSemantic(t, m, engram.SemanticEntry{Content: "Lunch is at noon", Importance: 0.55})
	clock.Advance(24 * time.Hour)
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	n := len(ops(t, m, d))
	_, err = m.Decay(ctx) // the same day: resonance unchanged
	require.NoError(t, err)
	assert.Len(t, ops(t, m, d), n, "a decay that changes nothing records nothing")
	clock.Advance(60 * 24 * time.Hour)
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	hd, err := m.History(ctx, d)
	require.NoError(t, err)
	last := hd[len(hd)-1]
	assert.Equal(t, engram.OpDecay, last.Op)
	assert.Greater(t, field(t, last.Before, "resonance"), field(t, last.After, "resonance"))
	assert.Equal(t, "decay", last.Reason)

	// facts: create, merge, supersede.
	f := m.Facts()
	lon, err := f.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "London", ValidFrom: day0})
	require.NoError(t, err)
	_, err = f.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "London"})
	require.NoError(t, err)
	_, err = f.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "Paris"})
	require.NoError(t, err)
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpMerge, engram.OpSupersede}, ops(t, m, lon.Fact.ID))
	hf, err := m.History(ctx, lon.Fact.ID)
	require.NoError(t, err)
	assert.Nil(t, field(t, hf[1].Before, "valid_to"))
	assert.NotNil(t, field(t, hf[2].After, "valid_to"), "superseded: it ends")
	require.NoError(t, m.CheckIntegrity(ctx))
}

func TestHistoryActorAndReason(t *testing.T) {
	m := newMemory(t, engram.Tier1, engram.WithActor("support-bot"))
	ctx := context.Background()
	a, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Prefers tabs", Importance: 0.5})
	require.NoError(t, err)
	uctx := engram.ContextWithReason(engram.ContextWithActor(ctx, "ada@example.com"), "the user corrected it")
	content := "Prefers spaces"
	_, err = m.Semantic().Update(uctx, a, engram.SemanticPatch{Content: &content})
	require.NoError(t, err)
	h, err := m.History(ctx, a)
	require.NoError(t, err)
	require.Len(t, h, 2)
	assert.Equal(t, "support-bot", h[0].Actor)
	assert.Equal(t, "", h[0].Reason)
	assert.Equal(t, "ada@example.com", h[1].Actor)
	assert.Equal(t, "the user corrected it", h[1].Reason)

	// A bad actor is refused before anything is written.
	_, err = m.Semantic().Store(engram.ContextWithActor(ctx, "two\nlines"), engram.SemanticEntry{Content: "x", Importance: 0.5})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Semantic().Store(engram.ContextWithReason(ctx, "\xff"), engram.SemanticEntry{Content: "x", Importance: 0.5})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Semantic)
	_, err = engram.New(engram.Tier1, engram.InMemory(), engram.WithActor(string(make([]byte, 2000))))
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func TestHistoryRollsBackWithTheWrite(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	// The second entry of the batch is invalid: nothing is stored, and
	// nothing is recorded.
	_, err := m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{Content: "kept?", Importance: 0.5}, {Content: "bad", Importance: 2}})
	require.ErrorIs(t, err, engram.ErrInvalid)
	got, err := m.Changes(ctx, engram.ChangeQuery{})
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestChangesPagesThroughTheAgentsHistory(t *testing.T) {
	path := newDB(t)
	clock := testutil.NewClock(day0)
	m := openOn(t, path, "ada", engram.Tier1, engram.WithClock(clock.Now))
	other := openOn(t, path, "bob", engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var ids []string
	for i := range 7 {
		clock.Advance(time.Duration(i%2) * time.Minute) // some share a time
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "entry " + string(rune('a'+i)), Importance: 0.5})
		require.NoError(t, err)
		ids = append(ids, id)
		_, err = other.Semantic().Store(ctx, engram.SemanticEntry{Content: "bob's entry", Importance: 0.5})
		require.NoError(t, err)
	}
	var seen []string
	q := engram.ChangeQuery{Limit: 3}
	for {
		page, err := m.Changes(ctx, q)
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			seen = append(seen, e.ID)
		}
		q.Since, q.AfterSeq = page[len(page)-1].At, page[len(page)-1].Seq
	}
	assert.Equal(t, ids, seen, "every change once, in order, none of bob's")

	later, err := m.Changes(ctx, engram.ChangeQuery{Since: day0.Add(2 * time.Minute)})
	require.NoError(t, err)
	for _, e := range later {
		assert.False(t, e.At.Before(day0.Add(2*time.Minute)))
	}
	assert.NotEmpty(t, later)

	h, err := other.History(ctx, ids[0])
	require.NoError(t, err)
	assert.Empty(t, h, "another agent's history is not bob's")

	_, err = m.Changes(ctx, engram.ChangeQuery{Limit: 10_001})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Changes(ctx, engram.ChangeQuery{AfterSeq: -1})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.History(ctx, "")
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func TestHistoryRetentionAndDisabled(t *testing.T) {
	m, clock := compactionMemory(t, func(c *engram.Config) { c.History.Retention = 7 * 24 * time.Hour })
	ctx := context.Background()
	old := storeSemantic(t, m, engram.SemanticEntry{Content: "an old entry", Importance: 0.9})
	clock.Advance(8 * 24 * time.Hour)
	recent := storeSemantic(t, m, engram.SemanticEntry{Content: "a recent entry", Importance: 0.9})
	rep, err := m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.HistoryPruned)
	assert.Empty(t, ops(t, m, old), "older than the retention")
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate}, ops(t, m, recent))

	cfg := engram.DefaultConfig()
	cfg.History.Enabled = false
	off := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
	id, err := off.Semantic().Store(ctx, engram.SemanticEntry{Content: "unrecorded", Importance: 0.5})
	require.NoError(t, err)
	assert.Empty(t, ops(t, off, id))

	cfg = engram.DefaultConfig()
	cfg.History.Retention = 0
	assert.ErrorIs(t, cfg.Validate(), engram.ErrInvalid)
}

func TestChangesNewestReadsBackFromTheLatest(t *testing.T) {
	clock := testutil.NewClock(day0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		clock.Advance(time.Duration(i%2) * time.Minute) // some share a time
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "entry " + string(rune('a'+i))})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	newest, err := m.Changes(ctx, engram.ChangeQuery{Limit: 2, Newest: true})
	require.NoError(t, err)
	require.Len(t, newest, 2)
	assert.Equal(t, []string{ids[4], ids[3]}, []string{newest[0].ID, newest[1].ID}, "the newest two, newest first")

	since, err := m.Changes(ctx, engram.ChangeQuery{Since: day0.Add(time.Minute), Limit: 10, Newest: true})
	require.NoError(t, err)
	var got []string
	for _, e := range since {
		got = append(got, e.ID)
	}
	assert.Equal(t, []string{ids[4], ids[3], ids[2], ids[1]}, got, "Since still bounds the feed")

	_, err = m.Changes(ctx, engram.ChangeQuery{Newest: true, AfterSeq: 3})
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func TestChangesPagesBackFromTheNewestByActor(t *testing.T) {
	clock := testutil.NewClock(day0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var ids []string
	for i := range 7 {
		clock.Advance(time.Duration(i%2) * time.Minute) // some share a time
		actor := "agent"
		if i%3 == 0 {
			actor = "console"
		}
		id, err := m.Semantic().Store(engram.ContextWithActor(ctx, actor), engram.SemanticEntry{Content: "entry " + string(rune('a'+i))})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	// Pages of 3, newest first, each read from the last of the one before.
	var got []string
	cq := engram.ChangeQuery{Limit: 3, Newest: true}
	for range 4 {
		page, err := m.Changes(ctx, cq)
		require.NoError(t, err)
		for _, e := range page {
			got = append(got, e.ID)
		}
		if len(page) == 0 {
			break
		}
		last := page[len(page)-1]
		cq.Until, cq.BeforeSeq = last.At, last.Seq
	}
	assert.Equal(t, []string{ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}, got, "every entry once, newest first")

	byConsole, err := m.Changes(ctx, engram.ChangeQuery{Newest: true, Actor: "console"})
	require.NoError(t, err)
	got = nil
	for _, e := range byConsole {
		assert.Equal(t, "console", e.Actor)
		got = append(got, e.ID)
	}
	assert.Equal(t, []string{ids[6], ids[3], ids[0]}, got, "the console's changes only")

	for _, bad := range []engram.ChangeQuery{
		{BeforeSeq: -1, Until: day0},
		{BeforeSeq: 3},
		{Actor: "two\nlines"},
	} {
		_, err := m.Changes(ctx, bad)
		assert.ErrorIs(t, err, engram.ErrInvalid, "%+v", bad)
	}
}

package engram_test

import (
	"context"
	"database/sql"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// Day counts are bounded, so that no time arithmetic wraps around: a
// Prune or a RetainDays past the bound is refused instead of deleting or
// archiving everything.
func TestDayCountsAreBounded(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Episodic().Log(ctx, engram.Episode{Content: "kept"})
	require.NoError(t, err)
	for _, days := range []int{engram.MaxDays + 1, 106752, math.MaxInt, -1} {
		n, err := m.Episodic().Prune(ctx, days)
		assert.ErrorIs(t, err, engram.ErrInvalid, "Prune(%d)", days)
		assert.Zero(t, n)
	}
	n, err := m.Episodic().Prune(ctx, engram.MaxDays)
	require.NoError(t, err)
	assert.Zero(t, n)
	recent, err := m.Episodic().Recent(ctx, 10)
	require.NoError(t, err)
	assert.Len(t, recent, 1)

	cfg := engram.DefaultConfig()
	cfg.Episodic.RetainDays = math.MaxInt
	_, err = engram.New(engram.Tier1, engram.InMemory(), engram.WithConfig(cfg))
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

// Every numeric setting has a range: its bounds pass and what lies just
// outside them does not.
func TestConfigRanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     func(c *engram.Config, v float64)
		lo, hi  float64
		integer bool
	}{
		{"Episodic.RetainDays", func(c *engram.Config, v float64) { c.Episodic.RetainDays = int(v) }, 1, engram.MaxDays, true},
		{"Episodic.MaxSnapshotsPerSession", func(c *engram.Config, v float64) { c.Episodic.MaxSnapshotsPerSession = int(v) }, 1, 10_000, true},
		{"Compaction.MaxEntries", func(c *engram.Config, v float64) { c.Compaction.MaxEntries = int(v) }, 1, 100_000_000, true},
		{"Consolidation.PromoteEvery", func(c *engram.Config, v float64) { c.Consolidation.PromoteEvery = int(v) }, 1, 1_000_000, true},
		{"Consolidation.RecurDays", func(c *engram.Config, v float64) { c.Consolidation.RecurDays = int(v) }, 2, engram.MaxDays, true},
		{"Zettelkasten.MaxLinksPerEntry", func(c *engram.Config, v float64) { c.Zettelkasten.MaxLinksPerEntry = int(v) }, 0, 1000, true},
		{"Search.PostingBudget", func(c *engram.Config, v float64) { c.Search.PostingBudget = int(v) }, 1, 100_000_000, true},
		{"Search.RRFConstant", func(c *engram.Config, v float64) { c.Search.RRFConstant = v }, 0, 1e6, false},
		{"Search.TextWeight", func(c *engram.Config, v float64) { c.Search.TextWeight = v }, 0, 1000, false},
		{"Decay.SemanticRate", func(c *engram.Config, v float64) { c.Decay.SemanticRate = v }, 0, 1, false},
		{"Compaction.Interval (days)", func(c *engram.Config, v float64) { c.Compaction.Interval = time.Duration(v * float64(24*time.Hour)) }, engram.MaxDays * 1e-6, engram.MaxDays, false}, // (0, MaxDays]: lo - step is 0
		{"Storage.BusyTimeout (s)", func(c *engram.Config, v float64) { c.Storage.BusyTimeout = time.Duration(v * float64(time.Second)) }, 0, 3600, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step := 1.0
			if !tc.integer {
				step = math.Max(1e-6, tc.hi*1e-6)
			}
			for _, v := range []float64{tc.lo, tc.hi} {
				c := engram.DefaultConfig()
				tc.set(&c, v)
				assert.NoError(t, c.Validate(), "%v", v)
			}
			for _, v := range []float64{tc.lo - step, tc.hi + step} {
				c := engram.DefaultConfig()
				tc.set(&c, v)
				assert.ErrorIs(t, c.Validate(), engram.ErrInvalid, "%v", v)
			}
			if !tc.integer {
				c := engram.DefaultConfig()
				tc.set(&c, math.NaN())
				assert.ErrorIs(t, c.Validate(), engram.ErrInvalid, "NaN")
			}
		})
	}
}

// The Unix epoch is a time like any other, and times past the supported
// range are refused rather than stored wrong.
func TestTimesRoundTrip(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	epoch := time.Unix(0, 0).UTC()

	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "a fact from 1970", Importance: 0.5, CreatedAt: epoch})
	require.NoError(t, err)
	e, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.True(t, e.CreatedAt.Equal(epoch), "semantic CreatedAt %v", e.CreatedAt)

	id, err = m.Episodic().Log(ctx, engram.Episode{Content: "an event in 1970", CreatedAt: epoch})
	require.NoError(t, err)
	ep, err := m.Episodic().Get(ctx, id)
	require.NoError(t, err)
	assert.True(t, ep.CreatedAt.Equal(epoch), "episode CreatedAt %v", ep.CreatedAt)

	id, err = m.Procedural().Store(ctx, engram.Procedure{Name: "old way", SuccessRate: 0.5, CreatedAt: epoch})
	require.NoError(t, err)
	pr, err := m.Procedural().Get(ctx, id)
	require.NoError(t, err)
	assert.True(t, pr.CreatedAt.Equal(epoch), "procedure CreatedAt %v", pr.CreatedAt)

	require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s", StartedAt: epoch, EndedAt: epoch.Add(time.Hour)}))
	snap, err := m.Episodic().LatestSnapshot(ctx, "s")
	require.NoError(t, err)
	assert.True(t, snap.StartedAt.Equal(epoch), "snapshot StartedAt %v", snap.StartedAt)

	far := time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "from the far future", Importance: 0.5, CreatedAt: far})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: "from the far future", CreatedAt: far})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Search(ctx, engram.SearchOptions{Query: "future", Until: far})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Episodic().Range(ctx, time.Time{}, far)
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "before year 1", Importance: 0.5, CreatedAt: time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)})
	assert.ErrorIs(t, err, engram.ErrInvalid)

	// A zero time is still "now".
	id, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "stored now", Importance: 0.5})
	require.NoError(t, err)
	e, err = m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), e.CreatedAt, time.Hour)
}

// A memory stored without an importance gets the default, and decay
// does not archive it for want of one.
func TestUnsetImportanceIsTheDefault(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada's timezone is Europe/London"})
	require.NoError(t, err)
	e, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, engram.DefaultImportance, e.Importance)

	clock.Advance(120 * 24 * time.Hour)
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	_, err = m.Semantic().Get(ctx, id)
	assert.NoError(t, err, "the fact is still there after 120 days of decay")
}

// New and decayed memories are on one scale: a memory stored just after
// a decay run ranks as one stored just before it.
func TestNewAndDecayedMemoriesRankAlike(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "before", Content: "the payments service runs in Frankfurt", Importance: 0.8})
	require.NoError(t, err)
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{ID: "after", Content: "the payments service runs in Frankfurt too", Importance: 0.8})
	require.NoError(t, err)
	before, err := m.Semantic().Get(ctx, "before")
	require.NoError(t, err)
	after, err := m.Semantic().Get(ctx, "after")
	require.NoError(t, err)
	assert.InDelta(t, before.Resonance, after.Resonance, 1e-9)

	res, err := m.Search(ctx, engram.SearchOptions{Query: "payments Frankfurt"})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.InDelta(t, res[0].Parts.Importance, res[1].Parts.Importance, 1e-9)
}

// A compaction step that fails is rolled back, and the report does not
// claim what it did not do.
func TestCompactionReportsOnlyWhatWasCommitted(t *testing.T) {
	sqliteOnly(t, "a trigger made with raw SQL fails the write")
	path := newDB(t)
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 1
	m := openOn(t, path, engram.DefaultAgent, engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()
	for _, c := range []string{"first fact", "second fact", "third fact"} {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c, Importance: 0.2})
		require.NoError(t, err)
	}
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`CREATE TRIGGER test_no_archive BEFORE INSERT ON archive BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`)
	require.NoError(t, err)

	rep, err := m.Compact(ctx, engram.CompactCount)
	require.Error(t, err)
	assert.Empty(t, rep.Actions, "nothing was archived")
	list, err := m.Semantic().List(ctx, engram.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list, 3)

	_, err = db.Exec(`DROP TRIGGER test_no_archive`)
	require.NoError(t, err)
	rep, err = m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Count(engram.ActionArchive))
}

// Config is a value: the caller's slices are not shared with the Memory.
func TestConfigIsCopied(t *testing.T) {
	cfg := engram.DefaultConfig()
	cfg.NeverDecayTags = []string{"keep"}
	m := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
	cfg.NeverDecayTags[0] = "changed"
	assert.Equal(t, []string{"keep"}, m.Config().NeverDecayTags)
	got := m.Config()
	got.NeverDecayTags[0] = "changed again"
	assert.Equal(t, []string{"keep"}, m.Config().NeverDecayTags)
}

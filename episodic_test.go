package engram_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

func contents(eps []engram.Episode) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.Content
	}
	return out
}

func TestEpisodicLogAndQueries(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	ep := m.Episodic()

	// Day 1: two events of task T1. Day 2: one of T2 and one without task.
	id1, err := ep.Log(ctx, engram.Episode{Content: "started T1", Type: engram.EventTaskStarted, TaskID: "T1",
		Metadata: map[string]string{"repo": "engram"}})
	require.NoError(t, err)
	clock.Advance(time.Hour)
	_, err = ep.Log(ctx, engram.Episode{Content: "finished T1", Type: engram.EventTaskCompleted, TaskID: "T1",
		Cost: 0.25, Duration: 90 * time.Second})
	require.NoError(t, err)
	clock.Advance(24 * time.Hour)
	_, err = ep.Log(ctx, engram.Episode{Content: "started T2", Type: engram.EventTaskStarted, TaskID: "T2"})
	require.NoError(t, err)
	clock.Advance(time.Minute)
	_, err = ep.Log(ctx, engram.Episode{Content: "noticed the disk is 90% full"})
	require.NoError(t, err)

	got, err := ep.Get(ctx, id1)
	require.NoError(t, err)
	assert.Equal(t, engram.EventTaskStarted, got.Type)
	assert.Equal(t, map[string]string{"repo": "engram"}, got.Metadata)
	assert.Equal(t, "2026-03-14", got.Day())

	recent, err := ep.Recent(ctx, 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"noticed the disk is 90% full", "started T2", "finished T1"}, contents(recent))
	assert.Equal(t, engram.EventObservation, recent[0].Type, "empty Type means observation")
	assert.Equal(t, 0.25, recent[2].Cost)
	assert.Equal(t, 90*time.Second, recent[2].Duration)

	today, err := ep.Today(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"noticed the disk is 90% full", "started T2"}, contents(today))

	byTask, err := ep.ByTask(ctx, "T1")
	require.NoError(t, err)
	assert.Equal(t, []string{"started T1", "finished T1"}, contents(byTask), "oldest first")

	rng, err := ep.Range(ctx, t0.Add(30*time.Minute), t0.Add(25*time.Hour+30*time.Second))
	require.NoError(t, err)
	assert.Equal(t, []string{"finished T1", "started T2"}, contents(rng))
	all, err := ep.Range(ctx, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Len(t, all, 4)
	_, err = ep.Range(ctx, t0, t0)
	assert.ErrorIs(t, err, engram.ErrInvalid)

	_, err = ep.Log(ctx, engram.Episode{Content: "x", Type: "party"})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = ep.Log(ctx, engram.Episode{ID: id1, Content: "dup"})
	assert.ErrorIs(t, err, engram.ErrExists)

	require.NoError(t, ep.Delete(ctx, id1))
	assert.ErrorIs(t, ep.Delete(ctx, id1), engram.ErrNotFound)
}

func TestEpisodicPrune(t *testing.T) {
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	for d := range 10 {
		_, err := m.Episodic().Log(ctx, engram.Episode{Content: "day", CreatedAt: t0.Add(time.Duration(d) * 24 * time.Hour)})
		require.NoError(t, err)
	}
	clock.Set(t0.Add(9 * 24 * time.Hour)) // cutoff: day 6, exclusive
	n, err := m.Episodic().Prune(ctx, 3)
	require.NoError(t, err)
	assert.Equal(t, 6, n, "days 0..5 are older than the cutoff; day 6 is on it")
	st, _ := m.Stats(ctx)
	assert.Equal(t, 4, st.Episodes)
	_, err = m.Episodic().Prune(ctx, -1)
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func TestEpisodicLogBatch(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	ids, err := m.Episodic().LogBatch(ctx, []engram.Episode{{Content: "a"}, {Content: "b"}})
	require.NoError(t, err)
	assert.Len(t, ids, 2)
	_, err = m.Episodic().LogBatch(ctx, []engram.Episode{{Content: "c"}, {Content: "d", Type: "bogus"}})
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "episodes[1].Type", ie.Field)
	st, _ := m.Stats(ctx)
	assert.Equal(t, 2, st.Episodes)
}

func TestSnapshotsKeepNewestPerSession(t *testing.T) {
	clock := testutil.NewClock(t0)
	cfg := engram.DefaultConfig()
	cfg.Episodic.MaxSnapshotsPerSession = 2
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now), engram.WithConfig(cfg))
	ctx := context.Background()

	for i := range 4 {
		clock.Advance(time.Minute)
		require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{
			SessionID:    "s1",
			Messages:     []engram.Message{{Role: "user", Content: "hello", Time: clock.Now()}, {Role: "assistant", Content: "hi"}},
			Summary:      "round " + string(rune('0'+i)),
			KeyDecisions: []string{"use sqlite"},
			TaskIDs:      []string{"T1"},
			TotalTokens:  100 * (i + 1),
			TotalCost:    0.5,
		}))
	}
	_, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s2", Summary: "other session"})
	require.NoError(t, err)

	snaps, err := m.Episodic().Snapshots(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, snaps, 2, "only MaxSnapshotsPerSession are kept")
	assert.Equal(t, "round 3", snaps[0].Summary)
	assert.Equal(t, "round 2", snaps[1].Summary)

	latest, err := m.Episodic().LatestSnapshot(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "round 3", latest.Summary)
	assert.Equal(t, 400, latest.TotalTokens)
	require.Len(t, latest.Messages, 2)
	assert.Equal(t, "hello", latest.Messages[0].Content)
	assert.True(t, latest.Messages[0].Time.Equal(t0.Add(4*time.Minute)))
	assert.Equal(t, []string{"use sqlite"}, latest.KeyDecisions)
	assert.Equal(t, []string{"T1"}, latest.TaskIDs)

	any, err := m.Episodic().LatestSnapshot(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "other session", any.Summary)
	assert.Nil(t, any.Messages)

	_, err = m.Episodic().LatestSnapshot(ctx, "s3")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{})
	assert.ErrorIs(t, err, engram.ErrInvalid, "SessionID is required")
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s", StartedAt: t0.Add(time.Hour), EndedAt: t0})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s", Messages: []engram.Message{{Content: "no role"}}})
	assert.ErrorIs(t, err, engram.ErrInvalid)

	st, _ := m.Stats(ctx)
	assert.Equal(t, 3, st.Snapshots)
}

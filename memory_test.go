package engram_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
	"github.com/engram-go/engram/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestNewRejectsBadOptionsBeforeTouchingDisk(t *testing.T) {
	sqliteOnly(t, "New's locations (WithDir, WithPath, InMemory) touch no disk when refused")
	base := t.TempDir()
	cases := map[string][]engram.Option{
		"dotdot agent":     {engram.WithDir(base), engram.WithAgent("../x")},
		"slash agent":      {engram.WithDir(base), engram.WithAgent("a/b")},
		"space agent":      {engram.WithDir(base), engram.WithAgent("A B")},
		"empty agent":      {engram.WithDir(base), engram.WithAgent("")},
		"dot agent":        {engram.WithDir(base), engram.WithAgent(".hidden")},
		"colon agent":      {engram.WithDir(base), engram.WithAgent("a:b")},
		"star agent":       {engram.WithDir(base), engram.WithAgent("a*")},
		"long agent":       {engram.WithDir(base), engram.WithAgent(strings.Repeat("a", 129))},
		"capacity 0":       {engram.WithDir(base), engram.WithWorkingCapacity(0)},
		"bad eviction":     {engram.WithDir(base), engram.WithEviction("random")},
		"nil clock":        {engram.WithDir(base), engram.WithClock(nil)},
		"nil logger":       {engram.WithDir(base), engram.WithLogger(nil)},
		"memory and dir":   {engram.WithDir(base), engram.InMemory()},
		"path and dir":     {engram.WithDir(base), engram.WithPath(filepath.Join(base, "x.db"))},
		"question mark":    {engram.WithPath(filepath.Join(base, "a?b.db"))},
		"empty dir":        {engram.WithDir("")},
		"bad config":       {engram.WithDir(base), engram.WithConfig(engram.Config{})},
		"threshold is NaN": {engram.WithDir(base), engram.WithConfig(func() engram.Config { c := engram.DefaultConfig(); c.Semantic.ImportanceThreshold = nan(); return c }())},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := engram.New(engram.Tier1, opts...)
			assert.ErrorIs(t, err, engram.ErrInvalid)
			assert.Nil(t, m)
		})
	}
	entries, err := os.ReadDir(base)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file or directory is created for a rejected option")

	_, err = engram.New(engram.Tier(7), engram.InMemory())
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = engram.New(engram.Tier2, engram.WithDir(base))
	assert.ErrorIs(t, err, engram.ErrInvalid, "Tier 2 needs an embedder")
	hashing, err := engram.NewHashingEmbedder(64)
	require.NoError(t, err)
	_, err = engram.New(engram.Tier1, engram.WithDir(base), engram.WithEmbedder(hashing))
	assert.ErrorIs(t, err, engram.ErrInvalid, "Tier 1 takes no embedder")
	_, err = engram.New(engram.Tier2, engram.WithDir(base), engram.WithEmbedder(nil))
	assert.ErrorIs(t, err, engram.ErrInvalid)
	entries, _ = os.ReadDir(base)
	assert.Empty(t, entries)
}

func TestDefaultConfigIsValidAndFresh(t *testing.T) {
	c := engram.DefaultConfig()
	require.NoError(t, c.Validate())
	assert.Equal(t, 7, c.Working.Capacity)
	assert.Equal(t, 200, c.Semantic.MaxMarkdownLines)
	assert.Equal(t, 0.7, c.Semantic.ImportanceThreshold)
	assert.Equal(t, 30, c.Episodic.RetainDays)
	assert.Equal(t, 3, c.Episodic.MaxSnapshotsPerSession)
	assert.Equal(t, engram.CompactProgressive, c.Compaction.Strategy)
	assert.Equal(t, 0.92, c.Compaction.SimilarityThreshold)
	assert.Equal(t, 0.85, c.Zettelkasten.LinkingThreshold)
	c.Working.Capacity = 99
	assert.Equal(t, 7, engram.DefaultConfig().Working.Capacity, "each call returns a new value")
}

func TestFilesLiveUnderAgentDirectory(t *testing.T) {
	sqliteOnly(t, "the directory layout")
	base := t.TempDir()
	m, err := engram.New(engram.Tier1, engram.WithDir(base), engram.WithAgent("researcher"))
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, filepath.Join(base, "researcher", "memory.db"), m.Path())
	assert.Equal(t, filepath.Join(base, "researcher", "memory.md"), m.MarkdownPath())
	assert.Equal(t, "researcher", m.AgentID())
	assert.Equal(t, engram.Tier1, m.Tier())
	require.NoError(t, m.Flush(context.Background()))
	_, err = os.Stat(m.MarkdownPath())
	assert.NoError(t, err)
}

func TestReopenKeepsEverything(t *testing.T) {
	db := newDB(t)
	ctx := context.Background()
	m := openOn(t, db, engram.DefaultAgent, engram.Tier1)
	sem, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the sky is blue", Importance: 0.8, Tags: []string{"color"}})
	require.NoError(t, err)
	ep, err := m.Episodic().Log(ctx, engram.Episode{Content: "looked up", TaskID: "T"})
	require.NoError(t, err)
	pr, err := m.Procedural().Store(ctx, engram.Procedure{Name: "look", SuccessRate: 0.5})
	require.NoError(t, err)
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: ep, TargetID: sem, Type: engram.LinkSupports}))
	require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s", Summary: "sky"}))
	before, err := m.Stats(ctx)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "Close twice is fine")

	m2 := openOn(t, db, engram.DefaultAgent, engram.Tier1)
	after, err := m2.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	got, err := m2.Semantic().Get(ctx, sem)
	require.NoError(t, err)
	assert.Equal(t, "the sky is blue", got.Content)
	_, err = m2.Procedural().Get(ctx, pr)
	require.NoError(t, err)
	trav, err := m2.Links().Traverse(ctx, sem, 1)
	require.NoError(t, err)
	assert.Equal(t, []engram.LinkedMemory{{ID: ep, Type: engram.TypeEpisodic, Depth: 1}}, trav)
	snap, err := m2.Episodic().LatestSnapshot(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, "sky", snap.Summary)
}

// TestEveryCallAfterCloseReturnsErrClosed closes a Memory from New, and
// one from a Store whose database stays open for another agent.
func TestEveryCallAfterCloseReturnsErrClosed(t *testing.T) {
	ctx := context.Background()
	for _, from := range []string{"New", "Store"} {
		t.Run(from, func(t *testing.T) {
			var m *engram.Memory
			var err error
			if from == "New" {
				m = newMemory(t, engram.Tier1)
			} else {
				st := newStore(t, engram.Tier1)
				_, err = st.Agent("other")
				require.NoError(t, err)
				m, err = st.Agent("ada")
			}
			require.NoError(t, err)
			id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "x", Importance: 0.5})
			require.NoError(t, err)
			require.NoError(t, m.Close())
			for name, call := range callsAfterClose(ctx, m, id) {
				assert.ErrorIs(t, call(), engram.ErrClosed, name)
			}
			assert.Equal(t, 0, m.Working().Len())
		})
	}
}

// callsAfterClose returns calls of m's public methods, by name.
func callsAfterClose(ctx context.Context, m *engram.Memory, id string) map[string]func() error {
	dir := os.TempDir()
	return map[string]func() error{
		"Search":         func() error { _, err := m.Search(ctx, engram.SearchOptions{Query: "x"}); return err },
		"Find":           func() error { _, err := m.Find(ctx, engram.SearchOptions{Query: "x"}); return err },
		"Recall":         func() error { _, err := m.Recall(ctx, "x"); return err },
		"Context":        func() error { _, err := m.Context(ctx, engram.ContextOptions{Query: "x"}); return err },
		"Summary":        func() error { _, err := m.Summary(ctx); return err },
		"History":        func() error { _, err := m.History(ctx, id); return err },
		"Changes":        func() error { _, err := m.Changes(ctx, engram.ChangeQuery{}); return err },
		"Export":         func() error { return m.Export(ctx, io.Discard, engram.ExportOptions{}) },
		"Import":         func() error { _, err := m.Import(ctx, strings.NewReader(""), engram.ImportOptions{}); return err },
		"Backup":         func() error { return m.Backup(ctx, filepath.Join(dir, "never-made.db")) },
		"Forget":         func() error { return m.Forget(ctx, id) },
		"ForgetAgent":    func() error { return m.ForgetAgent(ctx) },
		"Compact":        func() error { _, err := m.Compact(ctx); return err },
		"Decay":          func() error { _, err := m.Decay(ctx); return err },
		"Restore":        func() error { return m.Restore(ctx, id) },
		"ExportMarkdown": func() error { _, err := m.ExportMarkdown(ctx); return err },
		"Ingest":         func() error { _, err := m.Ingest(ctx, dir, engram.IngestOptions{}); return err },
		"Facts.Assert": func() error {
			_, err := m.Facts().Assert(ctx, engram.Fact{Subject: "a", Predicate: "b", Object: "c"})
			return err
		},
		"Facts.Current":  func() error { _, err := m.Facts().Current(ctx, engram.FactQuery{}); return err },
		"Rules.List":     func() error { _, err := m.Rules().List(ctx); return err },
		"Bootstrap":      func() error { _, err := m.Bootstrap(ctx); return err },
		"Flush":          func() error { return m.Flush(ctx) },
		"Snapshot":       func() error { return m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s"}) },
		"Stats":          func() error { _, err := m.Stats(ctx); return err },
		"CheckIntegrity": func() error { return m.CheckIntegrity(ctx) },
		"Semantic.Store": func() error {
			_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "x", Importance: 0.5})
			return err
		},
		"Semantic.StoreBatch": func() error {
			_, err := m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{Content: "x", Importance: 0.5}})
			return err
		},
		"Semantic.Get":    func() error { _, err := m.Semantic().Get(ctx, id); return err },
		"Semantic.Update": func() error { _, err := m.Semantic().Update(ctx, id, engram.SemanticPatch{}); return err },
		"Semantic.Delete": func() error { return m.Semantic().Delete(ctx, id) },
		"Semantic.List":   func() error { _, err := m.Semantic().List(ctx, engram.ListOptions{}); return err },
		"Semantic.RecordAccess": func() error {
			return m.Semantic().RecordAccess(ctx, id)
		},
		"Episodic.Log":      func() error { _, err := m.Episodic().Log(ctx, engram.Episode{Content: "x"}); return err },
		"Episodic.LogBatch": func() error { _, err := m.Episodic().LogBatch(ctx, []engram.Episode{{Content: "x"}}); return err },
		"Episodic.Get":      func() error { _, err := m.Episodic().Get(ctx, id); return err },
		"Episodic.Today":    func() error { _, err := m.Episodic().Today(ctx); return err },
		"Episodic.Recent":   func() error { _, err := m.Episodic().Recent(ctx, 5); return err },
		"Episodic.ByTask":   func() error { _, err := m.Episodic().ByTask(ctx, "t"); return err },
		"Episodic.Range":    func() error { _, err := m.Episodic().Range(ctx, time.Time{}, time.Time{}); return err },
		"Episodic.Delete":   func() error { return m.Episodic().Delete(ctx, id) },
		"Episodic.Prune":    func() error { _, err := m.Episodic().Prune(ctx, 1); return err },
		"Episodic.SaveSnapshot": func() error {
			_, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s"})
			return err
		},
		"Episodic.LatestSnapshot": func() error { _, err := m.Episodic().LatestSnapshot(ctx, ""); return err },
		"Episodic.Snapshots":      func() error { _, err := m.Episodic().Snapshots(ctx, "s"); return err },
		"Procedural.Store":        func() error { _, err := m.Procedural().Store(ctx, engram.Procedure{Name: "p"}); return err },
		"Procedural.Get":          func() error { _, err := m.Procedural().Get(ctx, id); return err },
		"Procedural.GetByName":    func() error { _, err := m.Procedural().GetByName(ctx, "p"); return err },
		"Procedural.Update":       func() error { _, err := m.Procedural().Update(ctx, id, engram.ProcedurePatch{}); return err },
		"Procedural.RecordOutcome": func() error {
			_, err := m.Procedural().RecordOutcome(ctx, id, true)
			return err
		},
		"Procedural.ListActive": func() error { _, err := m.Procedural().ListActive(ctx, 0); return err },
		"Procedural.FindByTags": func() error { _, err := m.Procedural().FindByTags(ctx, []string{"a"}, 0); return err },
		"Procedural.Delete":     func() error { return m.Procedural().Delete(ctx, id) },
		"Links.Add": func() error {
			return m.Links().Add(ctx, engram.Link{SourceID: id, TargetID: "y", Type: engram.LinkSimilar})
		},
		"Links.Remove":   func() error { return m.Links().Remove(ctx, id, "y", engram.LinkSimilar) },
		"Links.For":      func() error { _, err := m.Links().For(ctx, id); return err },
		"Links.Traverse": func() error { _, err := m.Links().Traverse(ctx, id, 2); return err },
		"Working.Add": func() error {
			_, err := m.Working().Add(engram.WorkingItem{Content: "x", Importance: 0.5})
			return err
		},
		"Working.Get":    func() error { _, err := m.Working().Get("x"); return err },
		"Working.Find":   func() error { _, err := m.Working().Find("x"); return err },
		"Working.Items":  func() error { _, err := m.Working().Items(); return err },
		"Working.Remove": func() error { return m.Working().Remove("x") },
		"Working.Evict":  func() error { _, err := m.Working().Evict(); return err },
		"Working.Clear":  func() error { return m.Working().Clear() },
	}
}

func TestSchemaTooNewIsRefused(t *testing.T) {
	sqliteOnly(t, "raw SQL sets the schema version")
	path := newDB(t)
	m, err := engram.New(engram.Tier1, engram.WithPath(path.file(t)))
	require.NoError(t, err)
	require.NoError(t, m.Close())

	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA user_version = 999")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = engram.New(engram.Tier1, engram.WithPath(path.file(t)))
	assert.ErrorIs(t, err, engram.ErrSchemaTooNew)
}

func TestInMemoryMode(t *testing.T) {
	sqliteOnly(t, "SQLite's database in memory (engram.InMemory)")
	m, err := engram.New(engram.Tier1, engram.InMemory())
	require.NoError(t, err)
	defer m.Close()
	ctx := context.Background()
	assert.Empty(t, m.Path())
	assert.Empty(t, m.MarkdownPath())
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "in RAM", Importance: 0.9})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	res, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Contains(t, res.SemanticContext, "in RAM", "memory.md is rendered even without a file")
	require.NoError(t, m.CheckIntegrity(ctx))
}

func TestBootstrapFlushSnapshotLifecycle(t *testing.T) {
	needs(t, enginetest.CapAgentDir) // memory.md in the agent's directory
	clock := testutil.NewClock(t0)
	ctx := context.Background()
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))

	res, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Equal(t, "default", res.AgentID)
	assert.Equal(t, engram.Tier1, res.Tier)
	assert.Contains(t, res.SemanticContext, "Nothing is known yet")
	assert.Empty(t, res.RecentEpisodes)
	assert.True(t, res.BootstrappedAt.Equal(t0))

	w := m.Working()
	_, err = w.Add(engram.WorkingItem{ID: "w1", Content: "the user prefers tabs", Importance: 0.9, Tags: []string{"prefs"}})
	require.NoError(t, err)
	_, err = w.Add(engram.WorkingItem{ID: "w2", Content: "scratch: 2+2", Importance: 0.1})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the user prefers tabs", Importance: 0.5})
	require.NoError(t, err) // same content stored independently
	_, err = w.Add(engram.WorkingItem{ID: "w3", Content: "the repo uses Go 1.26", Importance: 0.8})
	require.NoError(t, err)
	for i := range 25 {
		clock.Advance(time.Second)
		_, err := m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("step %d", i)})
		require.NoError(t, err)
	}
	_, err = m.Procedural().Store(ctx, engram.Procedure{Name: "ship", SuccessRate: 0.8})
	require.NoError(t, err)

	require.NoError(t, m.Flush(ctx))
	require.NoError(t, m.Flush(ctx), "a second flush adds nothing")
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Semantic, "w3 is kept; w1's content was known; w2 is below the threshold")
	got, err := m.Semantic().Get(ctx, "w3")
	require.NoError(t, err, "a kept item keeps its ID")
	assert.Equal(t, 0.8, got.Importance)

	// A changed item is updated, not duplicated.
	_, err = w.Add(engram.WorkingItem{ID: "w3", Content: "the repo uses Go 1.26.8", Importance: 0.8})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	got, err = m.Semantic().Get(ctx, "w3")
	require.NoError(t, err)
	assert.Equal(t, "the repo uses Go 1.26.8", got.Content)
	st, _ = m.Stats(ctx)
	assert.Equal(t, 2, st.Semantic)

	md, err := os.ReadFile(m.MarkdownPath())
	require.NoError(t, err)
	assert.Contains(t, string(md), "the repo uses Go 1.26.8")
	assert.Contains(t, string(md), "<!-- id:w3 -->")

	require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s1", Summary: "set up the repo"}))

	// The next session sees what the first one left.
	m2 := reopen(t, m, engram.WithClock(clock.Now))
	res, err = m2.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Equal(t, string(md), res.SemanticContext)
	require.Len(t, res.RecentEpisodes, 20, "Bootstrap.RecentEpisodes")
	assert.Equal(t, "step 24", res.RecentEpisodes[0].Content)
	require.Len(t, res.ActiveProcedures, 1)
	assert.Empty(t, res.Working, "the working set is per process")

	// A deleted memory.md is regenerated from the database.
	require.NoError(t, os.Remove(m2.MarkdownPath()))
	res, err = m2.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Equal(t, string(md), res.SemanticContext)
	again, err := os.ReadFile(m2.MarkdownPath())
	require.NoError(t, err)
	assert.Equal(t, md, again)
}

func TestFlushWritesMarkdownOnlyWhenChanged(t *testing.T) {
	needs(t, enginetest.CapAgentDir) // memory.md in the agent's directory
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "fact", Importance: 0.5})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(m.MarkdownPath(), old, old))
	require.NoError(t, m.Flush(ctx))
	fi, err := os.Stat(m.MarkdownPath())
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old), "an unchanged memory.md is not rewritten")

	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "another fact", Importance: 0.6})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	fi, err = os.Stat(m.MarkdownPath())
	require.NoError(t, err)
	assert.False(t, fi.ModTime().Equal(old))
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(m.MarkdownPath()), ".*tmp"))
	assert.Empty(t, matches, "no temporary file is left behind")
}

// TestMarkdownGolden pins memory.md's format: highest importance first,
// then most recent, capped, each line carrying its ID.
func TestMarkdownGolden(t *testing.T) {
	clock := testutil.NewClock(t0)
	cfg := engram.DefaultConfig()
	cfg.Semantic.MaxMarkdownLines = 10
	md := filepath.Join(t.TempDir(), "memory.md")
	m := newAgentMemory(t, "golden", engram.Tier1, engram.WithConfig(cfg), engram.WithClock(clock.Now), withMarkdownPath(t, md))
	ctx := context.Background()
	entries := []engram.SemanticEntry{
		{ID: "e01", Content: "The deploy runs from CI only", Importance: 0.9, Tags: []string{"ops", "deploy"}, Verified: true},
		{ID: "e02", Content: "Postgres listens on 6432\nvia pgbouncer", Importance: 0.7, Tags: []string{"db"}},
		{ID: "e03", Content: "Prefers   tabs\tover spaces", Importance: 0.7},
		{ID: "e04", Content: "An HTML comment --> must not end the ID comment <!-- here", Importance: 0.5},
		{ID: "e05", Content: "Lunch is at noon", Importance: 0.1},
		{ID: "e06", Content: "The staging cluster is eu-west-1", Importance: 0.6, Summary: "staging: eu-west-1"},
		{ID: "e07", Content: "Too unimportant to fit", Importance: 0.05},
		{ID: "e08", Content: "Also too unimportant to fit", Importance: 0.01},
	}
	for _, e := range entries {
		clock.Advance(time.Minute)
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	require.NoError(t, m.Flush(ctx))
	got, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(got), "\n"), cfg.Semantic.MaxMarkdownLines)

	golden := filepath.Join("testdata", "memory.golden.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test -run TestMarkdownGolden -update to create it")
	assert.Equal(t, string(want), string(got))
}

func TestLoggerReceivesDebugEvents(t *testing.T) {
	needs(t, enginetest.CapAgentDir) // memory.md in the agent's directory
	var buf strings.Builder
	logger := newTextLogger(&buf)
	m := newMemory(t, engram.Tier1, engram.WithLogger(logger))
	require.NoError(t, m.Flush(context.Background()))
	assert.Contains(t, buf.String(), "wrote memory.md")
}

func TestDatabaseErrorIsTyped(t *testing.T) {
	sqliteOnly(t, "a file that is not a database")
	// A directory where the database file should be makes SQLite fail.
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	require.NoError(t, os.Mkdir(path, 0o755))
	_, err := engram.New(engram.Tier1, engram.WithPath(path))
	var de *engram.DatabaseError
	require.True(t, errors.As(err, &de), "got %T: %v", err, err)
	assert.Equal(t, "open", de.Op)
	assert.False(t, de.Busy())
}

package engram

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// textIndexPair opens two Memories of one agent on one file with the
// same clock and configuration, except that fts never keeps an in-memory
// text index: what one finds through FTS5, the other finds through its
// index.
func textIndexPair(t *testing.T, cfg Config, now time.Time) (fts, idx *Memory) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	clock := WithClock(func() time.Time { return now })
	off := cfg.clone()
	off.Search.IndexMax = 0
	fts, err := New(Tier1, WithPath(path), WithConfig(off), clock)
	if err != nil {
		t.Fatal(err)
	}
	fts.fullText = true // FTS5's answers, whatever the suite's mode
	idx, err = New(Tier1, WithPath(path), WithConfig(cfg), clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		idx.Close()
		fts.Close()
	})
	return fts, idx
}

// indexReady searches m until its text index answers, and fails the
// test if it never does.
func indexReady(t *testing.T, m *Memory) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		opts := SearchOptions{Query: "anything at all"}
		if err := m.validateSearch(&opts); err != nil {
			t.Fatal(err)
		}
		f, err := m.find(ctx, opts, opts.Limit)
		if err != nil {
			t.Fatal(err)
		}
		if f.search.fromIndex {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the text index never answered")
}

// sameFinds runs the query on both Memories with need limit and fails
// the test unless the first limit results agree to the last bit: IDs,
// scores and their parts, and the matches context and dialogue came
// with. It returns whether idx answered from its index.
func sameFinds(t *testing.T, fts, idx *Memory, opts SearchOptions) bool {
	t.Helper()
	ctx := context.Background()
	if err := fts.validateSearch(&opts); err != nil {
		t.Fatal(err)
	}
	want, err := fts.find(ctx, opts, opts.Limit)
	if err != nil {
		t.Fatal(err)
	}
	got, err := idx.find(ctx, opts, opts.Limit)
	if err != nil {
		t.Fatal(err)
	}
	if want.search.fromIndex {
		t.Fatal("a Memory with IndexMax 0 searched an index")
	}
	w, g := want.ranked[:min(opts.Limit, len(want.ranked))], got.ranked[:min(opts.Limit, len(got.ranked))]
	if len(w) != len(g) {
		t.Fatalf("%+v: %d results, want %d (index: %v)", opts, len(g), len(w), got.search.fromIndex)
	}
	for i := range w {
		if w[i].ID != g[i].ID || w[i].Score != g[i].Score || w[i].Parts != g[i].Parts || w[i].ContextOf != g[i].ContextOf || w[i].DialogueWith != g[i].DialogueWith {
			t.Fatalf("%+v (index: %v): result %d is %s %v %+v via %q, want %s %v %+v via %q", opts, got.search.fromIndex, i,
				g[i].ID, g[i].Score, g[i].Parts, g[i].ContextOf, w[i].ID, w[i].Score, w[i].Parts, w[i].ContextOf)
		}
	}
	return got.search.fromIndex
}

// A text search answered from the in-memory index finds exactly what
// FTS5 finds, in every kind, with the plans a small posting budget makes
// for common words, with session context, under every limit, after
// rows are added (which a search adds to the index), and after rows are
// deleted and changed (which make it build the index again).
func TestTextIndexAgreesWithFTS(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	cfg := DefaultConfig()
	cfg.Search.PostingBudget = 40 // common words exceed it: windows and the AND plan
	cfg.Search.Candidates = 12
	t.Run("default weights", func(t *testing.T) { textIndexAgrees(t, cfg) })
	// Importance and recency weigh more: the bounds readRanked prunes
	// by matter more.
	cfg.Search.TextWeight, cfg.Search.ImportanceWeight, cfg.Search.RecencyWeight = 0.4, 0.3, 0.3
	cfg.Search.RecencyHalfLife = 10 * 24 * time.Hour
	t.Run("importance and recency", func(t *testing.T) { textIndexAgrees(t, cfg) })
}

func textIndexAgrees(t *testing.T, cfg Config) {
	words := strings.Fields(`kayak garage river tent stove lantern map compass boots rope trail summit lake cabin fire
		deploy pipeline rollback canary migrate schema index vacuum backup restore token secret`)
	common := []string{"the", "and", "of"}
	rng := rand.New(rand.NewPCG(15, 15))
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, idx := textIndexPair(t, cfg, now)
	ctx := context.Background()
	text := func(n int) string {
		w := make([]string, n)
		for j := range w {
			if rng.IntN(3) == 0 {
				w[j] = common[rng.IntN(len(common))]
			} else {
				w[j] = words[rng.IntN(len(words))]
			}
		}
		return strings.Join(w, " ")
	}
	var semantic []string
	add := func(n int) {
		t.Helper()
		var entries []SemanticEntry
		var eps []Episode
		for i := range n {
			entries = append(entries, SemanticEntry{Content: text(3 + rng.IntN(8)), Importance: float64(rng.IntN(101)) / 100,
				Tags: []string{words[rng.IntN(len(words))]}})
			eps = append(eps, Episode{Content: asking(rng, text(2+rng.IntN(10))), SessionID: fmt.Sprint("s", rng.IntN(12)),
				CreatedAt: now.Add(-time.Duration(rng.IntN(300)) * time.Hour)})
			if i%10 == 0 {
				if _, err := idx.Procedural().Store(ctx, Procedure{Name: fmt.Sprint("p", rng.Uint64()), Description: text(6), SuccessRate: rng.Float64()}); err != nil {
					t.Fatal(err)
				}
				if _, err := idx.Facts().Assert(ctx, Fact{Subject: words[rng.IntN(len(words))], Predicate: "uses", Object: text(2)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		ids, err := idx.Semantic().StoreBatch(ctx, entries)
		if err != nil {
			t.Fatal(err)
		}
		semantic = append(semantic, ids...)
		if _, err := idx.Episodic().LogBatch(ctx, eps); err != nil {
			t.Fatal(err)
		}
	}
	check := func(stage string, queries int) (fromIndex int) {
		t.Helper()
		for range queries {
			q := text(1 + rng.IntN(5))
			var types []MemoryType
			if rng.IntN(3) == 0 {
				types = []MemoryType{[]MemoryType{TypeSemantic, TypeEpisodic, TypeProcedural, TypeFact}[rng.IntN(4)]}
			}
			for _, limit := range []int{1, 5, 10, 25} {
				if sameFinds(t, fts, idx, SearchOptions{Query: q, Limit: limit, Types: types}) {
					fromIndex++
				}
			}
		}
		t.Logf("%s: %d searches from the index", stage, fromIndex)
		return fromIndex
	}

	add(300)
	if err := idx.Snapshot(ctx, SessionSnapshot{SessionID: "s1", Summary: text(12), KeyDecisions: []string{text(4)}}); err != nil {
		t.Fatal(err)
	}
	indexReady(t, idx)
	if check("built", 60) == 0 {
		t.Fatal("no search used the index")
	}
	add(40) // inserts only: the next search adds them to the index
	if check("rows added", 40) == 0 {
		t.Fatal("no search used the index after rows were added")
	}
	for _, id := range semantic[:20] {
		if err := fts.Semantic().Delete(ctx, id); err != nil { // through the other connection
			t.Fatal(err)
		}
	}
	changed := text(9)
	if _, err := fts.Semantic().Update(ctx, semantic[30], SemanticPatch{Content: &changed}); err != nil {
		t.Fatal(err)
	}
	check("rows deleted and changed", 20) // through FTS5 until the index is built again
	indexReady(t, idx)
	if check("built again", 40) == 0 {
		t.Fatal("no search used the index after it was built again")
	}
	// Importance raised through the other connection: the index's is
	// stale (the search bounds by the kinds' most) until it is read again.
	one := 1.0
	for _, id := range semantic[40:140] {
		if _, err := fts.Semantic().Update(ctx, id, SemanticPatch{Importance: &one}); err != nil {
			t.Fatal(err)
		}
	}
	check("importance raised", 40)
	// Lowered: ranks does not move, and the index's importance, higher
	// than the rows', still bounds it.
	indexReady(t, idx)
	zero := 0.0
	for _, id := range semantic[40:140] {
		if _, err := fts.Semantic().Update(ctx, id, SemanticPatch{Importance: &zero}); err != nil {
			t.Fatal(err)
		}
	}
	if check("importance lowered", 40) == 0 {
		t.Fatal("no search used the index after importance was lowered")
	}
}

// Episodes are touched only when logged, which the index knows: the
// bound a search prunes by holds their own recency, and with recency
// weighing most the results are still FTS5's.
func TestTextIndexBoundsEpisodesByRecency(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	cfg := DefaultConfig()
	cfg.Search.TextWeight, cfg.Search.ImportanceWeight, cfg.Search.RecencyWeight = 0.3, 0.1, 0.6
	cfg.Search.RecencyHalfLife = 3 * 24 * time.Hour
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, idx := textIndexPair(t, cfg, now)
	words := strings.Fields("kayak garage river tent stove lantern map compass boots rope")
	rng := rand.New(rand.NewPCG(16, 16))
	var eps []Episode
	for i := range 600 {
		w := make([]string, 2+rng.IntN(6))
		for j := range w {
			w[j] = words[rng.IntN(len(words))]
		}
		eps = append(eps, Episode{Content: strings.Join(w, " "), SessionID: fmt.Sprint("s", i/30),
			CreatedAt: now.Add(-time.Duration(rng.IntN(500)) * time.Hour)})
	}
	if _, err := idx.Episodic().LogBatch(context.Background(), eps); err != nil {
		t.Fatal(err)
	}
	indexReady(t, idx)
	for range 100 {
		q := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
		for _, limit := range []int{1, 3, 10} {
			if !sameFinds(t, fts, idx, SearchOptions{Query: q, Limit: limit}) {
				t.Fatal("the index did not answer")
			}
		}
	}
}

// Searches run while this Memory adds rows (which they add to the index)
// and another connection deletes and changes some (which make it build
// again): under the race detector, every search answers, and once the
// writes stop the index finds exactly what FTS5 finds.
func TestTextIndexConcurrentWritesAndSearches(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Search.PostingBudget = 40
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, idx := textIndexPair(t, cfg, now)
	words := strings.Fields("kayak garage river tent stove lantern map compass boots rope the and of")
	ctx := context.Background()
	text := func(rng *rand.Rand, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	rng := rand.New(rand.NewPCG(19, 19))
	var ids []string
	for range 4 {
		var batch []SemanticEntry
		for range 50 {
			batch = append(batch, SemanticEntry{Content: text(rng, 6), Importance: rng.Float64()})
		}
		got, err := idx.Semantic().StoreBatch(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got...)
	}
	done := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	run := func(seed uint64, f func(rng *rand.Rand) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, seed))
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := f(rng); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	run(1, func(rng *rand.Rand) error { // adds rows
		_, err := idx.Episodic().Log(ctx, Episode{Content: text(rng, 5), SessionID: fmt.Sprint("s", rng.IntN(5))})
		return err
	})
	run(2, func(rng *rand.Rand) error { // changes rows through the other connection
		id := ids[rng.IntN(len(ids))]
		c := text(rng, 7)
		_, err := fts.Semantic().Update(ctx, id, SemanticPatch{Content: &c})
		time.Sleep(2 * time.Millisecond)
		return err
	})
	for seed := uint64(3); seed < 5; seed++ {
		run(seed, func(rng *rand.Rand) error {
			rs, err := idx.Search(ctx, SearchOptions{Query: text(rng, 2)})
			for _, r := range rs {
				if r.ID == "" || r.Content == "" {
					return fmt.Errorf("result %+v has no ID or content", r)
				}
			}
			return err
		})
	}
	time.Sleep(1500 * time.Millisecond)
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	indexReady(t, idx)
	for range 30 {
		if !sameFinds(t, fts, idx, SearchOptions{Query: text(rng, 3), Limit: 10}) {
			t.Fatal("the index did not answer once the writes stopped")
		}
	}
}

// Filtered by user and session, a text search still answers from the
// in-memory index, and finds exactly what FTS5 finds with the filter in
// SQL: with the plans a small posting budget makes, and with session
// context, whose neighbours of another user are left out alike (the
// users share sessions here). A metadata condition is searched through
// FTS5 by both.
func TestTextIndexAgreesWithFTSUnderFilters(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	cfg := DefaultConfig()
	cfg.Search.PostingBudget = 30
	cfg.Search.Candidates = 10
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, idx := textIndexPair(t, cfg, now)
	ctx := context.Background()
	words := strings.Fields(`kayak garage river tent stove lantern map compass boots rope the and of`)
	rng := rand.New(rand.NewPCG(33, 33))
	text := func(n int) string {
		w := make([]string, n)
		for j := range w {
			w[j] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	users := []string{"", "u1", "u2", "u3"}
	sessions := []string{"", "s1", "s2", "s3", "s4"}
	var entries []SemanticEntry
	var eps []Episode
	for i := range 400 {
		u, s := users[rng.IntN(len(users))], sessions[rng.IntN(len(sessions))]
		entries = append(entries, SemanticEntry{Content: text(3 + rng.IntN(6)), Importance: float64(rng.IntN(101)) / 100,
			UserID: u, SessionID: s, Metadata: map[string]any{"n": float64(i % 7)}})
		eps = append(eps, Episode{Content: asking(rng, text(2+rng.IntN(8))), UserID: users[rng.IntN(len(users))], SessionID: sessions[1+rng.IntN(len(sessions)-1)],
			CreatedAt: now.Add(-time.Duration(rng.IntN(300)) * time.Hour)})
		if i%8 == 0 {
			if _, err := idx.Procedural().Store(ctx, Procedure{Name: fmt.Sprint("p", i), Description: text(5), SuccessRate: rng.Float64(), UserID: u, SessionID: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := idx.Semantic().StoreBatch(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := idx.Episodic().LogBatch(ctx, eps); err != nil {
		t.Fatal(err)
	}
	indexReady(t, idx)
	filters := []Filter{{UserID: "u1"}, {UserID: "u2", SessionID: "s3"}, {SessionID: "s2"}, {UserID: "nobody"}, {SessionID: "none"},
		{UserID: "u3", Types: []MemoryType{TypeEpisodic}}}
	fromIndex := 0
	for range 40 {
		q := text(1 + rng.IntN(4))
		for _, f := range filters {
			for _, limit := range []int{1, 5, 20} {
				if sameFinds(t, fts, idx, SearchOptions{Query: q, Limit: limit, Filter: &f}) {
					fromIndex++
				}
			}
		}
		if sameFinds(t, fts, idx, SearchOptions{Query: q, Limit: 10, Filter: &Filter{UserID: "u1", Metadata: MetaGte("n", 3)}}) {
			t.Fatal("a metadata condition was answered from the index")
		}
	}
	if want := 40 * len(filters) * 3; fromIndex != want {
		t.Fatalf("%d of %d filtered searches answered from the index", fromIndex, want)
	}
}

// A Memory's own writes catch its text index up as they commit, with no
// search in between; a write that rolls back leaves it as it was; and
// what the index then finds is what FTS5 finds.
func TestTextIndexFollowsOwnWrites(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, idx := textIndexPair(t, DefaultConfig(), now)
	ctx := context.Background()
	var batch []SemanticEntry
	for i := range 50 {
		batch = append(batch, SemanticEntry{Content: fmt.Sprintf("kayak lantern note %d", i)})
	}
	if _, err := idx.Semantic().StoreBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	indexReady(t, idx)
	settle(idx)
	version := func() (index, rows int64) {
		t.Helper()
		idx.text.mu.RLock()
		if idx.text.data != nil {
			index = idx.text.data.version
		}
		idx.text.mu.RUnlock()
		err := idx.db.Read(ctx, "test", func(q store.Tx) error {
			return q.QueryRow(`SELECT version FROM text_stats WHERE agent_id = ?1`, []any{idx.agent}, &rows)
		})
		if err != nil {
			t.Fatal(err)
		}
		return index, rows
	}
	for i := range 3 {
		if _, err := idx.Episodic().Log(ctx, Episode{Content: fmt.Sprintf("kayak trip %d", i), SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := idx.Semantic().Store(ctx, SemanticEntry{Content: fmt.Sprintf("lantern fuel %d", i)}); err != nil {
			t.Fatal(err)
		}
		if index, rows := version(); index != rows {
			t.Fatalf("write %d: the index is at version %d, the rows at %d", i, index, rows)
		}
	}
	// A write that inserts a row and then fails rolls back: the index
	// stays where the rows are.
	before, _ := version()
	boom := errors.New("boom")
	err := idx.db.Write(ctx, "test", func(q store.Tx) error {
		row, err := idx.Semantic().prepare("entry", SemanticEntry{Content: "kayak paddle"}, now)
		if err != nil {
			return err
		}
		if _, err := idx.Semantic().insert(q, row); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the failing write returned %v", err)
	}
	if index, rows := version(); index != before || rows != before {
		t.Fatalf("after a rolled back write: index %d, rows %d, before %d", index, rows, before)
	}
	// The same with the failure after the transaction's end began: a
	// callback before COMMIT fails once the index's catch-up is read.
	err = idx.db.Write(ctx, "test", func(q store.Tx) error {
		row, err := idx.Semantic().prepare("entry", SemanticEntry{Content: "kayak paddle"}, now)
		if err != nil {
			return err
		}
		if _, err := idx.Semantic().insert(q, row); err != nil {
			return err
		}
		q.BeforeCommit(func(q store.Tx) error {
			q.BeforeCommit(func(store.Tx) error { return boom })
			return nil
		})
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the write failing before COMMIT returned %v", err)
	}
	if index, rows := version(); index != before || rows != before {
		t.Fatalf("after a write failing before COMMIT: index %d, rows %d, before %d", index, rows, before)
	}
	for _, q := range []string{"kayak", "lantern fuel", "kayak trip", "note 7"} {
		if !sameFinds(t, fts, idx, SearchOptions{Query: q}) {
			t.Errorf("%q: the index and FTS5 disagree", q)
		}
	}
}

// A build of the text index in an agent's own file reads each kind's
// rows straight through its table, in pk order: no statement it runs
// sorts the agent's rows or reaches them through an index on agent_id
// (which cost most of a build at 100K memories: a lookup per row, then a
// sort of them all). In a file shared with another agent, it reads the
// agent's rows alone, and the index agrees with FTS5 either way.
func TestTextIndexBuildReadsTablesInOrder(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	m, err := New(Tier1, WithDir(filepath.Dir(path)))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	seedLoop(t, m, 60)
	settle(m)
	forgetStatements(t, sqliteDB(t, m))
	d, err := loadText(ctx, m)
	if err != nil || d == nil {
		t.Fatal(err, d == nil)
	}
	_, reads := preparedStatements(t, sqliteDB(t, m))
	builds := 0
	for _, stmt := range reads {
		if !strings.Contains(stmt, "t.terms") || !strings.HasSuffix(stmt, "ORDER BY t.pk") {
			continue
		}
		builds++
		plan, err := queryPlan(ctx, m.db.Read, stmt)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range plan {
			if strings.Contains(step, "TEMP B-TREE") || strings.Contains(step, "USING INDEX") {
				t.Errorf("a build reads %s\n\t%s", flat(stmt), strings.Join(plan, "\n\t"))
			}
		}
	}
	if builds == 0 {
		t.Fatal("no statement of the build was found")
	}
	for i, src := range ftsSources {
		want := 0
		err := m.db.Read(ctx, "test", func(q store.Tx) error {
			return q.QueryRow(`SELECT count(*) FROM `+src.Table+` WHERE agent_id = ?`, []any{m.agent}, &want)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(d.kinds[i].docs); got != want {
			t.Errorf("%s: %d rows indexed, the table holds %d of the agent's", src.Table, got, want)
		}
	}
	// Another agent in a file of its own (WithPath: it may be shared)
	// with the first agent's rows in it: its index holds its rows alone.
	other, err := New(Tier1, WithPath(filepath.Join(filepath.Dir(path), "shared.db")), WithAgent("other"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	first, err := New(Tier1, WithPath(filepath.Join(filepath.Dir(path), "shared.db")), WithAgent("first"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	seedLoop(t, first, 30)
	if _, err := other.Semantic().Store(ctx, SemanticEntry{Content: "the kayak rests in the garage"}); err != nil {
		t.Fatal(err)
	}
	od, err := loadText(ctx, other)
	if err != nil || od == nil {
		t.Fatal(err, od == nil)
	}
	n := 0
	for _, k := range od.kinds {
		n += len(k.docs)
	}
	if n != 1 {
		t.Errorf("the other agent's index holds %d rows, want its 1", n)
	}
}

// A build of the text index reads every page of the agent's tables
// once, and leaves no more of them in SQLite's page caches than
// textBuildCacheKiB: the caches of a process's connections are one pool
// (modernc's SQLite is built with SQLITE_ENABLE_MEMORY_MANAGEMENT) as
// large as their sizes added up, which a build on a reader of
// Storage.CacheMiB would fill with pages no search needs (here all of
// them, 9 MiB). The reader's cache_size is set back after.
func TestTextIndexBuildLeavesPageCacheSmall(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	cfg.Storage.CacheMiB = 64 // above textBuildCacheKiB, as a caller may set it
	m, err := New(Tier1, WithDir(t.TempDir()), WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	words := strings.Fields("kayak garage river tent stove lantern compass boots rope trail summit lake cabin")
	batch := make([]SemanticEntry, 2000)
	for i := range batch {
		text := make([]string, 600)
		for j := range text {
			text[j] = words[(i*7+j*13+j/len(words))%len(words)]
		}
		batch[i] = SemanticEntry{Content: fmt.Sprintf("entry %d %s", i, strings.Join(text, " "))}
	}
	if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	settle(m)
	// No reader open: the build opens one.
	if err := sqliteDB(t, m).CloseIdleReaders(); err != nil {
		t.Fatal(err)
	}
	before, _, _, err := sqliteDB(t, m).CacheUsed()
	if err != nil {
		t.Fatal(err)
	}
	d, err := loadText(ctx, m)
	if err != nil || d == nil || len(d.kinds[0].docs) != len(batch) {
		t.Fatal(err, d == nil)
	}
	writer, grown, readers, err := sqliteDB(t, m).CacheUsed()
	if err != nil {
		t.Fatal(err)
	}
	if readers != 1 {
		t.Fatalf("%d readers after a build, want its 1", readers)
	}
	grown += writer - before
	if grown > 2*textBuildCacheKiB<<10 {
		t.Errorf("the page caches hold %d KiB more after a build, want at most %d", grown>>10, 2*textBuildCacheKiB)
	}
	var size int
	if err := m.db.Read(ctx, "test", func(q store.Tx) error { return q.QueryRow("PRAGMA cache_size", nil, &size) }); err != nil {
		t.Fatal(err)
	}
	if want := -cfg.Storage.CacheMiB * 1024; size != want {
		t.Errorf("the reader's cache_size is %d after a build, want %d", size, want)
	}
}

// By default a reader's page cache is SQLite's own default, 2 MiB: the
// operating system caches the file's pages anyway, and 64 MiB per reader
// was most of a process's resident memory at 100K memories, with
// searches no faster (BENCHMARKS.md, session 18).
func TestReaderPageCacheSmallByDefault(t *testing.T) {
	m, err := New(Tier1, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var size int
	if err := m.db.Read(context.Background(), "test", func(q store.Tx) error { return q.QueryRow("PRAGMA cache_size", nil, &size) }); err != nil {
		t.Fatal(err)
	}
	if size != -2048 {
		t.Errorf("a reader's cache_size is %d by default, want -2048 (2 MiB)", size)
	}
}

// asking returns text, made a question (ending in "?", maybe with spaces
// after) one time in four, so that searches score questions and their
// answers (SearchConfig.QuestionPenalty and AnswerWeight).
func asking(rng *rand.Rand, text string) string {
	switch rng.IntN(8) {
	case 0:
		return text + "?"
	case 1:
		return text + "? "
	}
	return text
}

package engram_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

// Benchmarks use a fixed seed, so every run stores the same text.

var benchWords = strings.Fields(`agent deploy database memory search index vector
	kubernetes cluster postgres latency error budget release rollback pipeline build test
	cache query user session token cost model prompt context window summary decision
	incident alert metric trace log span queue worker retry timeout network storage disk
	backup restore schema migration feature flag review merge branch commit tag version`)

func sentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[rng.IntN(len(benchWords))]
	}
	return strings.Join(w, " ")
}

// benchEntries returns n entries of text shaped like natural text (see
// benchdata.NewCorpus); seed picks which.
func benchEntries(seed uint64, n int) []engram.SemanticEntry {
	rng := rand.New(rand.NewPCG(seed, 1))
	docs := benchdata.NewCorpus(n + int(seed)).Docs
	out := make([]engram.SemanticEntry, n)
	for i := range out {
		out[i] = engram.SemanticEntry{
			Content:    docs[i],
			Importance: float64(rng.IntN(101)) / 100,
			Tags:       []string{benchWords[rng.IntN(len(benchWords))]},
		}
	}
	return out
}

func benchEpisodes(seed uint64, n int, start time.Time) []engram.Episode {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]engram.Episode, n)
	for i := range out {
		out[i] = engram.Episode{
			Content:   sentence(rng, 8+rng.IntN(12)),
			Type:      engram.EventObservation,
			TaskID:    fmt.Sprintf("task-%d", rng.IntN(200)),
			CreatedAt: start.Add(time.Duration(i) * time.Minute),
		}
	}
	return out
}

// openBench opens a memory in a temporary directory holding nSem semantic
// entries and nEp episodes, flushed once so memory.md exists.
func openBench(b *testing.B, dir string, nSem, nEp int) *engram.Memory {
	b.Helper()
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false // setup only; the timed loops choose
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	entries := benchEntries(1, nSem)
	for len(entries) > 0 {
		n := min(len(entries), 1000)
		if _, err := m.Semantic().StoreBatch(ctx, entries[:n]); err != nil {
			b.Fatal(err)
		}
		entries = entries[n:]
	}
	eps := benchEpisodes(2, nEp, time.Now().Add(-time.Duration(nEp)*time.Minute))
	for len(eps) > 0 {
		n := min(len(eps), 1000)
		if _, err := m.Episodic().LogBatch(ctx, eps[:n]); err != nil {
			b.Fatal(err)
		}
		eps = eps[n:]
	}
	for i := range 20 {
		if _, err := m.Procedural().Store(ctx, engram.Procedure{Name: fmt.Sprintf("proc-%d", i), SuccessRate: float64(i) / 20}); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkBootstrap(b *testing.B) {
	m := openBench(b, b.TempDir(), 10_000, 10_000)
	defer m.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := m.Bootstrap(ctx)
		if err != nil || len(res.RecentEpisodes) != 20 {
			b.Fatal(err, len(res.RecentEpisodes))
		}
	}
}

func BenchmarkColdStart(b *testing.B) {
	dir := b.TempDir()
	openBench(b, dir, 10_000, 10_000).Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m, err := engram.New(engram.Tier1, engram.WithDir(dir))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Bootstrap(ctx); err != nil {
			b.Fatal(err)
		}
		if err := m.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreSemantic stores one entry per transaction with 10K
// present, with auto-linking off and on (the default).
func BenchmarkStoreSemantic(b *testing.B) { benchStoreSemantic(b, openTier1Dir) }

// openTier1Dir opens a Tier 1 memory of configuration cfg under dir.
func openTier1Dir(b *testing.B, dir string, cfg engram.Config) *engram.Memory {
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// benchStoreSemantic stores one entry per transaction, with auto-linking
// off and on, into the memory open opens on a directory holding 10K
// entries.
func benchStoreSemantic(b *testing.B, open func(b *testing.B, dir string, cfg engram.Config) *engram.Memory) {
	for _, autolink := range []bool{false, true} {
		b.Run(fmt.Sprintf("autolink=%v", autolink), func(b *testing.B) {
			cfg := engram.DefaultConfig()
			cfg.Zettelkasten.Enabled = autolink
			benchStoreOne(b, open, cfg)
		})
	}
}

// benchStoreOne stores one entry per transaction into the memory of
// configuration cfg that open opens on a directory holding 10K entries.
func benchStoreOne(b *testing.B, open func(b *testing.B, dir string, cfg engram.Config) *engram.Memory, cfg engram.Config) {
	dir := b.TempDir()
	openBench(b, dir, 10_000, 0).Close()
	m := open(b, dir, cfg)
	defer m.Close()
	ctx := context.Background()
	entries := benchEntries(3, 1<<16)
	// A running agent's Memory has stored before: the first store starts
	// the build of auto-linking's index in the background, which ends
	// outside the timed loop.
	if _, err := m.Semantic().Store(ctx, entries[len(entries)-1]); err != nil {
		b.Fatal(err)
	}
	engram.AwaitLinkIndex(m)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := m.Semantic().Store(ctx, entries[i%len(entries)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

var firstStoreSizes = flag.String("firststore.sizes", "10000,100000",
	"the sizes of BenchmarkStoreSemanticFirst's memories, comma-separated (300000 takes minutes to build)")

// BenchmarkStoreSemanticFirst stores one entry in a Memory just opened on
// the search benchmarks' memory of each size (see searchDir), with
// auto-linking on (the default): the first store of a session, which
// must not cost in proportion to what memory holds. The entry is a stored
// entry with a word added, so that it links to it. Opening the Memory,
// and deleting the entry again so that every op finds the same memory,
// are not timed.
func BenchmarkStoreSemanticFirst(b *testing.B) {
	for _, f := range strings.Split(*firstStoreSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-firststore.sizes: %v", err)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			dir := searchDir(b, n)
			docs := benchdata.NewCorpus(n).Docs
			rng := rand.New(rand.NewPCG(12, 12))
			ctx := context.Background()
			links := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				m, err := engram.New(engram.Tier1, engram.WithDir(dir))
				if err != nil {
					b.Fatal(err)
				}
				e := engram.SemanticEntry{Content: docs[rng.IntN(n)] + " zettel", Importance: 0.5}
				b.StartTimer()
				id, err := m.Semantic().Store(ctx, e)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				// Its links wait for auto-linking's index, which builds in
				// the background (see Semantic.Store).
				engram.AwaitLinkIndex(m)
				ls, err := m.Links().For(ctx, id)
				if err != nil {
					b.Fatal(err)
				}
				links += len(ls)
				if err := m.Semantic().Delete(ctx, id); err != nil {
					b.Fatal(err)
				}
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(links)/float64(b.N), "links/op")
		})
	}
}

// BenchmarkStoreSemanticBatch stores 1,000 entries per transaction, with
// auto-linking off and on (the default).
func BenchmarkStoreSemanticBatch(b *testing.B) {
	for _, autolink := range []bool{false, true} {
		b.Run(fmt.Sprintf("autolink=%v", autolink), func(b *testing.B) {
			cfg := engram.DefaultConfig()
			cfg.Zettelkasten.Enabled = autolink
			benchStoreBatch(b, cfg)
		})
	}
}

// benchStoreBatch stores batches of 1,000 semantic entries into an empty
// memory of the configuration cfg, and reports entries/s.
func benchStoreBatch(b *testing.B, cfg engram.Config) {
	m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	entries := benchEntries(4, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(entries))/b.Elapsed().Seconds(), "entries/s")
}

func BenchmarkSnapshot(b *testing.B) {
	m := openBench(b, b.TempDir(), 0, 0)
	defer m.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 5))
	msgs := make([]engram.Message, 20)
	for i := range msgs {
		msgs[i] = engram.Message{Role: []string{"user", "assistant"}[i%2], Content: sentence(rng, 30)}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		err := m.Snapshot(ctx, engram.SessionSnapshot{
			SessionID:    fmt.Sprintf("s%d", i%100),
			Messages:     msgs,
			Summary:      "worked on the deploy pipeline",
			KeyDecisions: []string{"roll back on red", "page on-call"},
			TaskIDs:      []string{"t1"},
			TotalTokens:  1200,
		})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkFlush changes one entry and flushes, so every op rebuilds
// memory.md and writes it.
func BenchmarkFlush(b *testing.B) {
	m := openBench(b, b.TempDir(), 10_000, 0)
	defer m.Close()
	ctx := context.Background()
	top, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	id := top[0].ID
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := m.Semantic().Update(ctx, id, engram.SemanticPatch{Summary: new(fmt.Sprintf("top fact, version %d", i))}); err != nil {
			b.Fatal(err)
		}
		if err := m.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkWorkingAdd(b *testing.B) {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	w := m.Working()
	items := make([]engram.WorkingItem, 64)
	for i := range items {
		items[i] = engram.WorkingItem{ID: fmt.Sprintf("item-%d", i), Content: fmt.Sprintf("thought number %d", i), Importance: float64(i%10) / 10, AddedAt: time.Unix(int64(i), 0)}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := w.Add(items[i%len(items)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkWorkingGet(b *testing.B) {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	w := m.Working()
	var ids []string
	for i := range w.Capacity() {
		id := fmt.Sprintf("item-%d", i)
		ids = append(ids, id)
		if _, err := w.Add(engram.WorkingItem{ID: id, Content: "thought", Importance: 0.5, Tags: []string{"t"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := w.Get(ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkBaselineInsertFTS measures the bare driver: a prepared INSERT
// into a table with the same FTS5 triggers as engram's semantic table,
// through database/sql and modernc.org/sqlite with the same pragmas, one
// row per transaction and 1,000 per transaction. It is the yardstick for
// BenchmarkStoreSemantic and BenchmarkStoreSemanticBatch.
//
// rows=1/vec0 also writes each row's vector (384 dimensions, embedded
// before the loop) to a vec0 table laid out as Tier 2's, in the row's
// transaction, and rows=1/vec0+embed embeds it with the hashing embedder
// first: the floor under BenchmarkStoreSemanticTier2 for any design that
// writes vectors to vec0 with their rows.
func BenchmarkBaselineInsertFTS(b *testing.B) {
	h, err := engram.NewHashingEmbedder(benchDims)
	if err != nil {
		b.Fatal(err)
	}
	embed := func(text string) []byte {
		v, err := h.Embed(context.Background(), []string{text})
		if err != nil {
			b.Fatal(err)
		}
		return engram.EncodeVector(v[0])
	}
	b.Run("rows=1", func(b *testing.B) { baselineInsertOne(b, embed, false, false) })
	b.Run("rows=1/vec0", func(b *testing.B) { baselineInsertOne(b, embed, true, false) })
	b.Run("rows=1/vec0+embed", func(b *testing.B) { baselineInsertOne(b, embed, true, true) })
	b.Run("rows=1000", baselineInsertBatch)
}

// baselineDB is a database of BenchmarkBaselineInsertFTS with its prepared
// inserts: ins of a row, vec of a row's vector (nil without vectors).
type baselineDB struct {
	db       *sql.DB
	ins, vec *sql.Stmt
}

// openBaseline opens a new database of BenchmarkBaselineInsertFTS, with
// engram's pragmas, benchdata.BaselineDDL's schema and 10K rows (embedded with
// embed, used only with vectors).
func openBaseline(b *testing.B, vectors bool, embed func(string) []byte) baselineDB {
	path := filepath.Join(b.TempDir(), "baseline.db")
	db, err := sql.Open("sqlite", path+benchdata.BaselineDSN)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range benchdata.BaselineDDL(vectors, benchDims) {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	var bl baselineDB
	bl.db = db
	if bl.ins, err = db.Prepare(`INSERT INTO t (id, agent_id, content, summary, importance, tags, created_at) VALUES (?, 'default', ?, ?, ?, ?, ?)`); err != nil {
		b.Fatal(err)
	}
	if vectors {
		if bl.vec, err = db.Prepare(`INSERT INTO t_vec (rowid, embedding) VALUES (?, ?)`); err != nil {
			b.Fatal(err)
		}
	}
	bl.fill(b, vectors, embed)
	return bl
}

// fill inserts the 10K rows present, as for BenchmarkStoreSemantic, in
// one transaction, each with its vector (from embed) with vectors.
func (bl baselineDB) fill(b *testing.B, vectors bool, embed func(string) []byte) {
	tx, _ := bl.db.Begin()
	for i, e := range benchEntries(1, 10_000) {
		res, err := tx.Stmt(bl.ins).Exec(fmt.Sprintf("pre-%d", i), e.Content, e.Content, e.Importance, `["x"]`, i)
		if err != nil {
			b.Fatal(err)
		}
		if vectors {
			pk, _ := res.LastInsertId()
			if _, err := tx.Stmt(bl.vec).Exec(pk, embed(e.Content)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// baselineInsertOne times BenchmarkBaselineInsertFTS's rows=1 forms: one
// row per transaction, with vectors also its vector, which embedInLoop
// embeds (with embed) in the loop and otherwise takes from 4,096 embedded
// before it.
func baselineInsertOne(b *testing.B, embed func(string) []byte, vectors, embedInLoop bool) {
	bl := openBaseline(b, vectors, embed)
	defer bl.db.Close()
	entries := benchEntries(3, 1<<16)
	var vecs [][]byte
	if vectors && !embedInLoop {
		for _, e := range entries[:4096] {
			vecs = append(vecs, embed(e.Content))
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e := entries[i%len(entries)]
		var blob []byte
		switch {
		case embedInLoop:
			blob = embed(e.Content)
		case vectors:
			blob = vecs[i%len(vecs)]
		}
		tx, err := bl.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		res, err := tx.Stmt(bl.ins).Exec(fmt.Sprintf("id-%d", i), e.Content, e.Content, e.Importance, `["x"]`, i)
		if err != nil {
			b.Fatal(err)
		}
		if vectors {
			pk, _ := res.LastInsertId()
			if _, err := tx.Stmt(bl.vec).Exec(pk, blob); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// baselineInsertBatch times BenchmarkBaselineInsertFTS's rows=1000: 1,000
// rows per transaction, without vectors, reporting rows/s.
func baselineInsertBatch(b *testing.B) {
	bl := openBaseline(b, false, nil)
	defer bl.db.Close()
	entries := benchEntries(4, 1000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		tx, err := bl.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		s := tx.Stmt(bl.ins)
		for _, e := range entries {
			if _, err := s.Exec(fmt.Sprintf("id-%d", n), e.Content, e.Content, e.Importance, `["x"]`, n); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCompact runs progressive compaction (count, time, semantic
// merge, decay) over 10K semantic entries and 10K episodes, within the
// limits: the steady-state cost of keeping a memory of that size healthy,
// which every run pays. The first run, outside the loop, builds the
// in-memory index the merge step uses and merges the near-duplicates
// already there.
func BenchmarkCompact(b *testing.B) {
	dir := b.TempDir()
	openBench(b, dir, 10_000, 10_000).Close()
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 20_000
	cfg.Compaction.Interval = time.Nanosecond // the time step runs every time
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Compact(ctx, engram.CompactProgressive); err != nil {
		b.Fatal(err)
	}
	lat := make(latencies, 0, 64)
	for b.Loop() {
		start := time.Now()
		if _, err := m.Compact(ctx, engram.CompactProgressive); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	lat.report(b)
}

// BenchmarkExtractRules applies 20 rules to one 200-word user message.
// match is the rules' own cost (Rules.Match: the active rules, checked
// against a version counter, applied to every sentence); extract is a
// whole Extract whose matches memory already holds, so that it adds the
// deduplicating read but no write.
func BenchmarkExtractRules(b *testing.B) {
	m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	verbs := []string{"prefer", "like", "want", "need", "remember", "use", "avoid", "hate", "love", "call",
		"email", "visit", "deploy", "book", "order", "watch", "read", "buy", "sell", "keep"}
	for i, v := range verbs {
		if err := m.Rules().Add(ctx, engram.ExtractionRule{Name: fmt.Sprintf("rule-%02d", i),
			Pattern: `\b` + v + `s? ([a-z]+ ){1,4}[a-z]+`, Type: engram.TypeSemantic, Importance: 0.7,
			Tags: []string{"rule"}, Active: true}); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(8, 8))
	var words []string
	for len(words) < 200 {
		words = append(words, strings.Fields(sentence(rng, 12))...)
		words = append(words, verbs[rng.IntN(len(verbs))]+" the blue "+benchWords[rng.IntN(len(benchWords))]+".")
	}
	msgs := []engram.Message{{Role: "user", Content: strings.Join(words[:200], " ")}}
	first, err := m.Extract(ctx, msgs)
	if err != nil || len(first.Items) == 0 {
		b.Fatalf("%v, %d items", err, len(first.Items))
	}
	b.Run("match", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			found, err := m.Rules().Match(ctx, msgs)
			if err != nil || len(found) == 0 {
				b.Fatal(err, len(found))
			}
		}
		b.ReportMetric(float64(len(first.Items)), "matches")
	})
	b.Run("extract", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := m.Extract(ctx, msgs)
			if err != nil || len(res.Items) != 0 {
				b.Fatal(err, len(res.Items))
			}
		}
	})
}

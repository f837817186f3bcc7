package engram_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/stmtlist"
)

// Search benchmarks store text shaped like natural text and ask questions
// made of its words (see internal/benchdata).

var (
	searchDBMu sync.Mutex
	searchDBs  = map[int]string{} // N → directory holding a built store
	searchRoot string
)

// searchDir returns a directory holding a memory with n semantic entries,
// built once per process and shared by the benchmarks.
func searchDir(b testing.TB, n int) string {
	b.Helper()
	searchDBMu.Lock()
	defer searchDBMu.Unlock()
	if dir, ok := searchDBs[n]; ok {
		return dir
	}
	if searchRoot == "" {
		var err error
		if searchRoot, err = os.MkdirTemp("", "engram-search-bench"); err != nil {
			b.Fatal(err)
		}
	}
	dir := filepath.Join(searchRoot, fmt.Sprint(n))
	m, err := engram.New(engram.Tier1, engram.WithDir(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	if err := fillSearch(context.Background(), m, searchEntries(n)); err != nil {
		b.Fatal(err)
	}
	searchDBs[n] = dir
	return dir
}

// searchEntries returns the search benchmarks' corpus of n texts as
// semantic entries (fixed seeds): each with an importance and one of the
// corpus's users.
func searchEntries(n int) []engram.SemanticEntry {
	c := benchdata.NewCorpus(n)
	rng := rand.New(rand.NewPCG(3, 3))
	out := make([]engram.SemanticEntry, n)
	for i, d := range c.Docs[:n] {
		out[i] = engram.SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100, UserID: benchdata.User(i)}
	}
	return out
}

// fillSearch stores entries into m, 1,000 per StoreBatch, then merges
// its full-text indexes, as searchDir builds the search benchmarks'
// memories.
func fillSearch(ctx context.Context, m *engram.Memory, entries []engram.SemanticEntry) error {
	for start := 0; start < len(entries); start += 1000 {
		if _, err := m.Semantic().StoreBatch(ctx, entries[start:min(len(entries), start+1000)]); err != nil {
			return err
		}
	}
	// A memory in use is compacted daily, which merges its full-text
	// indexes (see Memory.Optimize); written in batches, this one would
	// otherwise keep a few segments per index.
	return m.Optimize(ctx)
}

func TestMain(m *testing.M) {
	flag.Parse()
	// Every test checks that the writes report each change of a memory
	// row, as SQLite's hook sees it; the benchmarks measure without.
	bench := false
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		engram.CheckChangeLog(true)
	} else {
		bench = true
	}
	// ENGRAM_TEST_NOFTS=1 runs the suite as a store without FTS5 would:
	// every search from engram's in-memory indexes.
	if os.Getenv("ENGRAM_TEST_NOFTS") == "1" {
		engram.SearchWithoutFTS(true)
	}
	// The tests under the default engine check that every statement they
	// run is in the list the PostgreSQL engine's tests prepare.
	engine := os.Getenv(engineEnv)
	finish := stmtlist.Start(stmtlist.Golden, !bench && (engine == "" || engine == defaultEngine))
	code := finish(m.Run())
	if err := stopPostgres(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	for _, dir := range []string{searchRoot, vectorRoot, factRoot} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// latencies records each op's duration and reports p50 and p99.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	b.ReportMetric(float64(l[len(l)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(l[len(l)*99/100].Microseconds()), "p99-µs")
}

func BenchmarkSearchText(b *testing.B) {
	benchAsk(b, []int{1_000, 10_000, 100_000}, func(ctx context.Context, m *engram.Memory, q string) error {
		res, err := m.Search(ctx, engram.SearchOptions{Query: q})
		if err == nil && len(res) == 0 {
			err = errors.New("no results")
		}
		return err
	})
}

// BenchmarkSearchFiltered is BenchmarkSearchText limited to one user of
// the corpus's hundred (1% of the memories; see benchdata.User): its p50
// should stay within twice the unfiltered search's.
func BenchmarkSearchFiltered(b *testing.B) {
	f := &engram.Filter{UserID: benchdata.User(7)}
	benchAsk(b, []int{10_000, 100_000}, func(ctx context.Context, m *engram.Memory, q string) error {
		_, err := m.Search(ctx, engram.SearchOptions{Query: q, Filter: f})
		return err
	})
}

// BenchmarkBaselineFTSOr runs the raw query engram's search improves on:
// the same compiled, ORed terms passed to FTS5 MATCH, joined to the table,
// ordered by rank, on the same file, with the same queries.
func BenchmarkBaselineFTSOr(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			dir := searchDir(b, n)
			db, err := sql.Open("sqlite", filepath.Join(dir, "default", "memory.db")+"?_pragma=query_only(1)")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			st, err := db.Prepare(`SELECT s.id, s.content FROM semantic_fts JOIN semantic_memory s ON s.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ? ORDER BY rank LIMIT 10`)
			if err != nil {
				b.Fatal(err)
			}
			qs := benchdata.NewCorpus(n).Questions(512)
			exprs := make([]string, len(qs))
			for i, q := range qs {
				exprs[i], _ = query.Compile(q)
			}
			lat := make(latencies, 0, 4096)
			i := 0
			for b.Loop() {
				start := time.Now()
				rows, err := st.Query(exprs[i%len(exprs)])
				if err != nil {
					b.Fatal(err)
				}
				k := 0
				for rows.Next() {
					var id, content string
					if err := rows.Scan(&id, &content); err != nil {
						b.Fatal(err)
					}
					k++
				}
				rows.Close()
				if k == 0 {
					b.Fatalf("no results for %s", exprs[i%len(exprs)])
				}
				lat = append(lat, time.Since(start))
				i++
			}
			lat.report(b)
		})
	}
}

// BenchmarkRecall recalls on the search benchmark's memories with the
// same questions: a search of every kind, the gate, the working set. Its
// ratio to BenchmarkSearchText in one run is what Recall adds.
func BenchmarkRecall(b *testing.B) {
	benchAsk(b, []int{10_000, 100_000}, func(ctx context.Context, m *engram.Memory, q string) error {
		r, err := m.Recall(ctx, q)
		if err == nil && len(r.Admitted) == 0 {
			err = errors.New("nothing admitted")
		}
		return err
	})
}

// BenchmarkContext builds a 2,000-token context block for the same
// questions on the same memories.
func BenchmarkContext(b *testing.B) {
	benchAsk(b, []int{10_000, 100_000}, func(ctx context.Context, m *engram.Memory, q string) error {
		c, err := m.Context(ctx, engram.ContextOptions{Query: q, MaxTokens: 2000})
		if err == nil && c.Tokens == 0 {
			err = errors.New("an empty block")
		}
		return err
	})
}

// benchAsk times ask on the search benchmark's memories of each size
// (the copies kept in -opentext.keep, if given: see openTextDir), with
// its questions, and reports the latencies.
func benchAsk(b *testing.B, sizes []int, ask func(ctx context.Context, m *engram.Memory, q string) error) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m, err := engram.New(engram.Tier1, engram.WithDir(openTextDir(b, n)))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			qs := benchdata.NewCorpus(n).Questions(512)
			ctx := context.Background()
			lat := make(latencies, 0, 4096)
			i := 0
			for b.Loop() {
				start := time.Now()
				if err := ask(ctx, m, qs[i%len(qs)]); err != nil {
					b.Fatalf("%q: %v", qs[i%len(qs)], err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			lat.report(b)
		})
	}
}

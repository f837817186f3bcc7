package engram

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// A search that leaves out the session neighbours that cannot reach its
// first Limit results (see contextWorth) returns exactly what it would
// with every neighbour: the same memories in the same order with the same
// scores, whatever the weights, importance and age of the memories.
func TestContextPruningKeepsTheResults(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	words := strings.Fields("kayak garage river tent stove lantern map compass boots rope trail summit lake cabin fire")
	rng := rand.New(rand.NewPCG(5, 5))
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	weights := []SearchConfig{
		DefaultConfig().Search,
		{TextWeight: 0.5, ImportanceWeight: 0.3, RecencyWeight: 0.2, RecencyHalfLife: 24 * time.Hour, ContextWeight: 0.9},
		{TextWeight: 1, ContextWeight: 0.3},
	}
	for wi, sc := range weights {
		cfg := DefaultConfig()
		d := cfg.Search
		sc.Candidates, sc.PostingBudget, sc.RRFConstant = d.Candidates, d.PostingBudget, d.RRFConstant
		sc.HybridTextWeight, sc.HybridVectorWeight, sc.BM25K1, sc.BM25B = d.HybridTextWeight, d.HybridVectorWeight, d.BM25K1, d.BM25B
		if sc.RecencyHalfLife == 0 {
			sc.RecencyHalfLife = d.RecencyHalfLife
		}
		cfg.Search = sc
		m, err := New(Tier1, InMemory(), WithConfig(cfg), WithClock(func() time.Time { return now }))
		if err != nil {
			t.Fatal(err)
		}
		var eps []Episode
		for i := range 400 {
			w := make([]string, 3+rng.IntN(6))
			for j := range w {
				w[j] = words[rng.IntN(len(words))]
			}
			eps = append(eps, Episode{
				Content:   strings.Join(w, " "),
				SessionID: fmt.Sprint("s", i/25),
				CreatedAt: now.Add(-time.Duration(400-i) * time.Hour),
			})
		}
		ctx := context.Background()
		if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
			t.Fatal(err)
		}
		for qi := range 40 {
			q := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			for _, limit := range []int{1, 5, 10, 25} {
				opts := SearchOptions{Query: q, Limit: limit}
				if err := m.validateSearch(&opts); err != nil {
					t.Fatal(err)
				}
				all, err := m.find(ctx, opts, 0)
				if err != nil {
					t.Fatal(err)
				}
				pruned, err := m.find(ctx, opts, limit)
				if err != nil {
					t.Fatal(err)
				}
				want, got := all.ranked[:min(limit, len(all.ranked))], pruned.ranked[:min(limit, len(pruned.ranked))]
				if len(want) != len(got) {
					t.Fatalf("weights %d, query %d %q, limit %d: %d results, want %d", wi, qi, q, limit, len(got), len(want))
				}
				for i := range want {
					if want[i].ID != got[i].ID || want[i].Score != got[i].Score || want[i].ContextOf != got[i].ContextOf || want[i].DialogueWith != got[i].DialogueWith {
						t.Fatalf("weights %d, query %q, limit %d: result %d is %s (%v, via %q), want %s (%v, via %q)", wi, q, limit, i,
							got[i].ID, got[i].Score, got[i].ContextOf, want[i].ID, want[i].Score, want[i].ContextOf)
					}
				}
			}
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The SQL scoring functions answer only for a search under way: another
// handle is an error, not a score.
func TestScoringFunctionsNeedTheirSearch(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for _, query := range []string{`SELECT engram_bm25(?1, x'00', 1)`, `SELECT engram_bm25_text(?1, 'some text')`} {
		err := m.db.Read(ctx, "test", func(q store.Tx) error {
			var score float64
			return q.QueryRow(query, []any{int64(1 << 40)}, &score)
		})
		if err == nil || !strings.Contains(err.Error(), errNoScorer.Error()) {
			t.Errorf("%s with an unknown handle: %v, want %v", query, err, errNoScorer)
		}
	}
	if n := len(scorers.byHandle); n != 0 {
		t.Errorf("%d scorers registered with no search under way", n)
	}
}

// A search through the text index with session context allocates about
// what its results hold, not a candidate for every match and neighbour
// it looks at: under 80 KB a search of limit 25 on 600 episodes where
// each query word is held by ~120 of them (54 KB; 168 KB when each
// search made its own candidate buffers, each kind's best a second time
// and its snippets' tokens). Not parallel: it reads the process's
// allocation count.
func TestIndexSearchAllocates(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector changes what allocates")
	}
	words := strings.Fields("kayak garage river tent stove lantern map compass boots rope trail summit lake cabin fire")
	rng := rand.New(rand.NewPCG(6, 6))
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	m, err := New(Tier1, InMemory(), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var eps []Episode
	for i := range 600 {
		w := make([]string, 3+rng.IntN(6))
		for j := range w {
			w[j] = words[rng.IntN(len(words))]
		}
		eps = append(eps, Episode{Content: strings.Join(w, " "), SessionID: fmt.Sprint("s", i/25),
			CreatedAt: now.Add(-time.Duration(600-i) * time.Hour)})
	}
	ctx := context.Background()
	if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
		t.Fatal(err)
	}
	indexReady(t, m)
	search := func(i int) {
		q := words[i%len(words)] + " " + words[(i*7+3)%len(words)]
		if res, err := m.Episodic().Search(ctx, SearchOptions{Query: q, Limit: 25}); err != nil || len(res) != 25 {
			t.Fatalf("%q: %d results, %v", q, len(res), err)
		}
	}
	for i := range 20 {
		search(i) // warm: the statements, the stems, the buffers
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		search(i)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 80<<10 {
		t.Fatalf("a search allocates %d bytes, want under %d", per, 80<<10)
	}
}

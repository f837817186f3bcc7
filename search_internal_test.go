package engram

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
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

// addContext scores the same whatever order the session neighbours come
// in: SQLite and PostgreSQL return them in orders of their own, and a
// match made context for another (see SearchConfig.DialogueWeight) once
// lent that score, not its own, to the neighbours that came after it.
func TestAddContextIgnoresTheNeighboursOrder(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	ep := func(id string, pk int64, text float64, held uint64, asks bool) candidate {
		return candidate{Result: Result{Type: TypeEpisodic, ID: id, CreatedAt: at.Add(time.Duration(pk) * time.Second)},
			pk: pk, text: text, held: held, session: "s1", asks: asks}
	}
	// Turns 1 to 5 of a session: 2, 3 and 4 match, 3 asks a question;
	// 2 holds fewer of the query's terms, and its share of 3's score is
	// more than its own: it becomes 3's context.
	matches := []candidate{ep("t2", 2, 5.1, 1, false), ep("t3", 3, 8.4, 3, true), ep("t4", 4, 9.9, 3, false)}
	near := func(id string, pk int64, of string) candidate {
		c := ep(id, pk, 0, 0, false)
		c.ContextOf, c.partial = of, true
		return c
	}
	found := []candidate{near("t1", 1, "t2"), near("t3", 3, "t2"), near("t2", 2, "t3"), near("t4", 4, "t3"),
		near("t3", 3, "t4"), near("t5", 5, "t4")}
	var want []candidate
	for n := range 20 {
		order := slices.Clone(found)
		rand.New(rand.NewPCG(uint64(n), 7)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		got := m.addContext(&search{}, slices.Clone(matches), 0.7, order)
		slices.SortFunc(got, func(a, b candidate) int { return cmp.Compare(a.ID, b.ID) })
		if want == nil {
			if i := slices.IndexFunc(got, func(c candidate) bool { return c.ID == "t2" }); got[i].ContextOf != "t3" {
				t.Fatalf("t2 is context of %q, want t3's", got[i].ContextOf)
			}
			want = got
			continue
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.ID != w.ID || g.text != w.text || g.ContextOf != w.ContextOf || g.DialogueWith != w.DialogueWith || g.dialogue != w.dialogue {
				t.Fatalf("order %d: %s text %v context of %q with %q, want %s %v %q %q", n, g.ID, g.text, g.ContextOf, g.DialogueWith, w.ID, w.text, w.ContextOf, w.DialogueWith)
			}
		}
	}
}

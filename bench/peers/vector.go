package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/vecdata"
	"github.com/philippgille/chromem-go"
)

// The vector section uses the data set of engram's vector benchmarks
// (vector_bench_test.go): 384-dimension unit vectors from a fixed seed,
// clustered (1,000 random unit centres, each vector the normalised sum of
// a centre and a Gaussian offset of norm 0.6), one per corpus sentence,
// and 200 questions with their own vectors. A table embedder hands
// engram each text's vector; chromem-go and the exact scan get the same
// vectors directly.

const (
	dims            = 384
	vectorQuestions = 200
	topK            = 10
)

var benchEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// vectorSet is the data: stored texts and vectors, questions and theirs.
type vectorSet struct {
	docs    []string
	vecs    [][]float32
	queries []string
	qvecs   [][]float32
}

func newVectorSet(n int) (*vectorSet, error) {
	c := benchdata.NewCorpus(n)
	s := &vectorSet{docs: c.Docs, queries: c.Questions(vectorQuestions)}
	d := vecdata.NewClustered(21, 1000, dims)
	s.vecs, s.qvecs = d.Vectors(n), d.Vectors(len(s.queries))
	// A table embedder maps text to vector, so each text must be stored
	// once; with these seeds none repeats, and this says so if that
	// changes.
	seen := make(map[string]bool, n+len(s.queries))
	for _, t := range append(slices.Clip(s.docs), s.queries...) {
		if seen[t] {
			return nil, fmt.Errorf("vector data set N=%d: text %q occurs twice", n, t)
		}
		seen[t] = true
	}
	return s, nil
}

// tableEmbedder is an engram Embedder that looks texts up in a table.
type tableEmbedder struct{ vecs map[string][]float32 }

var _ engram.Embedder = (*tableEmbedder)(nil)

func (s *vectorSet) embedder() *tableEmbedder {
	e := &tableEmbedder{vecs: make(map[string][]float32, len(s.docs)+len(s.queries))}
	for i, d := range s.docs {
		e.vecs[d] = s.vecs[i]
	}
	for i, q := range s.queries {
		e.vecs[q] = s.qvecs[i]
	}
	return e
}

func (e *tableEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vecs[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}
func (e *tableEmbedder) Dimensions() int { return dims }
func (e *tableEmbedder) Model() string   { return "table-clustered" }

// vectorResult is what the vector section reports for one size.
type vectorResult struct {
	n       int
	build   map[string]time.Duration
	recall  map[string]float64
	timings []timing
}

// runVector stores the data set of n vectors in engram (Tier 2, semantic
// memories, on disk), in a chromem-go in-memory collection and in a flat
// slice for an exact scan, and asks each the questions' top 10, reps
// times, interleaved. Recall@10 is against an exact sort of all cosines.
func runVector(ctx context.Context, dir string, n, reps int) (*vectorResult, error) {
	res := &vectorResult{n: n, build: map[string]time.Duration{}, recall: map[string]float64{}}
	set, err := newVectorSet(n)
	if err != nil {
		return nil, err
	}
	emb := set.embedder()

	start := time.Now()
	path := filepath.Join(dir, "engram.db")
	ids, err := buildEngramVectors(ctx, path, set, emb)
	if err != nil {
		return nil, fmt.Errorf("engram: %w", err)
	}
	m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(emb),
		engram.WithClock(func() time.Time { return benchEpoch }))
	if err != nil {
		return nil, err
	}
	defer m.Close()
	res.build["engram"] = time.Since(start)
	at := make(map[string]int, n) // engram ID → index of the vector
	for i, id := range ids {
		at[id] = i
	}

	start = time.Now()
	col, err := buildChromem(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("chromem-go: %w", err)
	}
	res.build["chromem-go"] = time.Since(start)

	start = time.Now()
	flat := make([]float32, 0, n*dims)
	for _, v := range set.vecs {
		flat = append(flat, v...)
	}
	res.build["exact scan"] = time.Since(start)
	logf("vector N=%d: built engram in %s, chromem-go in %s", n, res.build["engram"].Round(time.Millisecond), res.build["chromem-go"].Round(time.Millisecond))

	found := map[string][][]int{}
	for _, name := range []string{"engram", "chromem-go", "exact scan"} {
		found[name] = make([][]int, len(set.queries))
	}
	cs := []contender{
		{name: "engram", ask: func(i int) error {
			rs, err := m.Search(ctx, engram.SearchOptions{Query: set.queries[i], Mode: engram.SearchVector,
				Types: []engram.MemoryType{engram.TypeSemantic}, Limit: topK})
			if err != nil {
				return err
			}
			got := make([]int, len(rs))
			for j, r := range rs {
				k, ok := at[r.ID]
				if !ok {
					return fmt.Errorf("unknown result %s", r.ID)
				}
				got[j] = k
			}
			found["engram"][i] = got
			return nil
		}},
		{name: "chromem-go", ask: func(i int) error {
			rs, err := col.QueryEmbedding(ctx, set.qvecs[i], topK, nil, nil)
			if err != nil {
				return err
			}
			got := make([]int, len(rs))
			for j, r := range rs {
				if got[j], err = strconv.Atoi(r.ID); err != nil {
					return err
				}
			}
			found["chromem-go"][i] = got
			return nil
		}},
		{name: "exact scan", ask: func(i int) error {
			found["exact scan"][i] = exactScan(flat, set.qvecs[i], n, topK)
			return nil
		}},
	}
	readRecall := func() error {
		start := time.Now()
		truth := make([][]int, len(set.qvecs))
		var wg sync.WaitGroup
		workers := runtime.GOMAXPROCS(0)
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(truth); i += workers {
					truth[i] = exactTop(set.vecs, set.qvecs[i], topK)
				}
			})
		}
		wg.Wait()
		for name, f := range found {
			hit := 0
			for i, want := range truth {
				if len(f[i]) != topK {
					return fmt.Errorf("vector N=%d %s: %d results for query %d, want %d", n, name, len(f[i]), i, topK)
				}
				for _, k := range f[i] {
					if slices.Contains(want, k) {
						hit++
					}
				}
			}
			res.recall[name] = float64(hit) / float64(topK*len(set.qvecs))
		}
		logf("vector N=%d: recall read in %s", n, time.Since(start).Round(time.Millisecond))
		return nil
	}
	if res.timings, err = measure(fmt.Sprintf("vector N=%d", n), reps, len(set.queries), cs, readRecall); err != nil {
		return nil, err
	}
	return res, nil
}

// buildEngramVectors stores the set's texts as semantic memories at path
// in batches of 2,000, at one instant and of equal importance (so that
// the ranking is by similarity alone), with auto-linking off to save time,
// and merges the indexes, as vector_bench_test.go's vectorDB does. It
// returns the IDs in the order of the texts.
func buildEngramVectors(ctx context.Context, path string, set *vectorSet, emb engram.Embedder) (ids []string, err error) {
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(emb),
		engram.WithConfig(cfg), engram.WithClock(func() time.Time { return benchEpoch }))
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, m.Close()) }()
	for lo := 0; lo < len(set.docs); lo += 2000 {
		batch := make([]engram.SemanticEntry, 0, 2000)
		for _, d := range set.docs[lo:min(len(set.docs), lo+2000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: 0.5})
		}
		got, err := m.Semantic().StoreBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(got) != len(batch) {
			return nil, fmt.Errorf("StoreBatch returned %d IDs for %d entries", len(got), len(batch))
		}
		ids = append(ids, got...)
	}
	return ids, m.Optimize(ctx)
}

// buildChromem adds the set's texts with their vectors to a new in-memory
// chromem-go collection, its ID the vector's index.
func buildChromem(ctx context.Context, set *vectorSet) (*chromem.Collection, error) {
	db := chromem.NewDB()
	noEmbed := func(context.Context, string) ([]float32, error) {
		return nil, errors.New("every document and query comes with its embedding")
	}
	col, err := db.CreateCollection("bench", nil, noEmbed)
	if err != nil {
		return nil, err
	}
	docs := make([]chromem.Document, len(set.docs))
	for i, d := range set.docs {
		docs[i] = chromem.Document{ID: strconv.Itoa(i), Content: d, Embedding: set.vecs[i]}
	}
	if err := col.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	if col.Count() != len(docs) {
		return nil, fmt.Errorf("collection holds %d documents, want %d", col.Count(), len(docs))
	}
	return col, nil
}

// exactTop returns the indexes of the k vectors most similar to q, the
// reference recall is measured against: every cosine in float64, the k
// best kept in order, equal ones by index.
func exactTop(vecs [][]float32, q []float32, k int) []int {
	type scored struct {
		sim float64
		i   int
	}
	top := make([]scored, 0, k+1)
	for i, v := range vecs {
		var s float64
		for j := range q {
			s += float64(q[j]) * float64(v[j])
		}
		if len(top) == k && s <= top[k-1].sim {
			continue
		}
		at := sort.Search(len(top), func(j int) bool { return top[j].sim < s })
		top = slices.Insert(top, at, scored{s, i})
		if len(top) > k {
			top = top[:k]
		}
	}
	out := make([]int, len(top))
	for j, t := range top {
		out[j] = t.i
	}
	return out
}

// exactScan is the baseline of engram's BenchmarkBaselineExactScan: a
// pure-Go scan of the n float32 vectors held flat in memory, on
// GOMAXPROCS goroutines, each keeping its k best, then merged.
func exactScan(flat, q []float32, n, k int) []int {
	workers := runtime.GOMAXPROCS(0)
	tops := make([][]vecdata.Scored, workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := range workers {
		wg.Go(func() {
			lo, hi := w*chunk, min(n, (w+1)*chunk)
			tops[w] = vecdata.ScanTop(flat, q, dims, lo, hi, k)
		})
	}
	wg.Wait()
	var all []vecdata.Scored
	for _, t := range tops {
		all = append(all, t...)
	}
	slices.SortFunc(all, func(a, b vecdata.Scored) int { return cmp.Compare(b.Sim, a.Sim) })
	out := make([]int, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.I)
	}
	return out
}

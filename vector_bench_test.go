package engram_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/procmem"
	"github.com/engram-go/engram/internal/vecdata"
)

// Vector benchmarks run on the two data sets of 384-dimension unit
// vectors, from fixed seeds: clustered (1,000 random centres, each vector
// the normalised sum of a centre and a Gaussian offset of norm 0.6) and
// uniform over the sphere. Each stored entry's text is a corpus sentence;
// a tableEmbedder maps it (and each query) to its vector.

const benchDims = 384

// vectorSet is a data set: the stored vectors, the texts they belong to,
// and queries with their vectors.
type vectorSet struct {
	name    string
	docs    []string
	vecs    [][]float32
	queries []string
	qvecs   [][]float32
}

func newVectorSet(name string, n int) *vectorSet {
	c := benchdata.NewCorpus(n)
	s := &vectorSet{name: name, docs: c.Docs, queries: c.Questions(200)}
	switch name {
	case "clustered":
		d := vecdata.NewClustered(21, 1000, benchDims)
		s.vecs, s.qvecs = d.Vectors(n), d.Vectors(len(s.queries))
	default:
		s.vecs, s.qvecs = vecdata.Uniform(22, n, benchDims), vecdata.Uniform(23, len(s.queries), benchDims)
	}
	return s
}

// embedder maps the set's texts to their vectors.
func (s *vectorSet) embedder() *tableEmbedder {
	e := &tableEmbedder{model: "table-" + s.name, vecs: make(map[string][]float32, len(s.docs)+len(s.queries))}
	for i, d := range s.docs {
		if _, dup := e.vecs[d]; !dup {
			e.vecs[d] = s.vecs[i]
		}
	}
	for i, q := range s.queries {
		e.vecs[q] = s.qvecs[i]
	}
	return e
}

// tableEmbedder is an Embedder that looks texts up in a table.
type tableEmbedder struct {
	model string
	vecs  map[string][]float32
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
func (e *tableEmbedder) Dimensions() int { return benchDims }
func (e *tableEmbedder) Model() string   { return e.model }

var (
	vectorDBMu sync.Mutex
	vectorDBs  = map[string]string{} // set/N → database file
	vectorSets = map[string]*vectorSet{}
	vectorRoot string
)

var benchEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// vectorDB returns the set and a database file holding its n entries
// (semantic, equal importance, stored at one instant so that the blend
// ranks by similarity alone), built once per process.
func vectorDB(b *testing.B, name string, n int) (*vectorSet, string) {
	b.Helper()
	vectorDBMu.Lock()
	defer vectorDBMu.Unlock()
	key := fmt.Sprintf("%s/%d", name, n)
	if path, ok := vectorDBs[key]; ok {
		return vectorSets[key], path
	}
	set := vectorSets[key]
	if set == nil {
		set = newVectorSet(name, n)
		vectorSets[key] = set
	}
	if vectorRoot == "" {
		var err error
		if vectorRoot, err = os.MkdirTemp("", "engram-vector-bench"); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(vectorRoot, name+fmt.Sprint(n)+".db")
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(set.embedder()),
		engram.WithConfig(cfg), engram.WithClock(func() time.Time { return benchEpoch }))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for lo := 0; lo < n; lo += 2000 {
		batch := make([]engram.SemanticEntry, 0, 2000)
		for i, d := range set.docs[lo:min(n, lo+2000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: 0.5, Tags: []string{shardTag(lo + i)}})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	vectorDBs[key] = path
	return set, path
}

var truthCache sync.Map // *vectorSet → [][]int

// openVectorBench opens the memory of vectorDB's data set, on its clock.
func openVectorBench(b *testing.B, name string, n int) (*vectorSet, *engram.Memory) {
	set, path := vectorDB(b, name, n)
	m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(set.embedder()),
		engram.WithClock(func() time.Time { return benchEpoch }))
	if err != nil {
		b.Fatal(err)
	}
	return set, m
}

// exactAnswers returns the exact 10 nearest of each of the set's queries.
func exactAnswers(set *vectorSet) [][]int {
	if t, ok := truthCache.Load(set); ok {
		return t.([][]int)
	}
	out := make([][]int, len(set.qvecs))
	for i, q := range set.qvecs {
		out[i] = exactTop(set.vecs, q, 10)
	}
	truthCache.Store(set, out)
	return out
}

// exactTop returns the indexes of the k vectors most similar to q.
func exactTop(vecs [][]float32, q []float32, k int) []int {
	idx := make([]int, len(vecs))
	sims := make([]float32, len(vecs))
	for i, v := range vecs {
		idx[i], sims[i] = i, vecdata.Dot(q, v)
	}
	sort.Slice(idx, func(a, b int) bool { return sims[idx[a]] > sims[idx[b]] })
	return idx[:k]
}

// BenchmarkSearchVector measures vector search (Mode SearchVector, limit
// 10) and reports its recall@10 against an exact cosine scan, with p50 and
// p99 latencies.
func BenchmarkSearchVector(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, name := range []string{"clustered", "uniform"} {
			b.Run(fmt.Sprintf("N=%d/%s", n, name), func(b *testing.B) {
				set, m := openVectorBench(b, name, n)
				defer m.Close()
				// The exact answers are computed once per data set.
				truths := exactAnswers(set)
				benchVectorSearch(b, set, m, nil, func(i int) []int { return truths[i] })
			})
		}
	}
}

// shardTag is the tag of the i-th entry of a vector data set: one of
// shards, in turn, so that a filter on one passes 1/shards of the entries.
func shardTag(i int) string { return fmt.Sprintf("shard-%d", i%shards) }

const shards = 100

// BenchmarkSearchVectorFiltered measures vector search (limit 10) with a
// tag filter that 1% of the entries pass, so that few or none of the
// nearest neighbours do and the search must look further, and reports its
// recall@10 against an exact cosine scan of the entries that pass.
func BenchmarkSearchVectorFiltered(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d/clustered", n), func(b *testing.B) {
			set, m := openVectorBench(b, "clustered", n)
			defer m.Close()
			truth := func(i int) []int {
				var idx []int
				var vecs [][]float32
				for j := i % shards; j < len(set.vecs); j += shards {
					idx, vecs = append(idx, j), append(vecs, set.vecs[j])
				}
				var out []int
				for _, t := range exactTop(vecs, set.qvecs[i], 10) {
					out = append(out, idx[t])
				}
				return out
			}
			benchVectorSearch(b, set, m, shardTag, truth)
		})
	}
}

// benchVectorSearch times vector searches (limit 10) for the set's
// queries in turn, the i-th filtered by the tag tag(i) when tag is not
// nil, and reports p50 and p99 latencies and recall@10 against truth(i),
// the indexes of the i-th query's exact 10 nearest entries.
func benchVectorSearch(b *testing.B, set *vectorSet, m *engram.Memory, tag func(i int) string, truth func(i int) []int) {
	ctx := context.Background()
	at := make(map[string]int, len(set.docs))
	for i, d := range set.docs {
		if _, dup := at[d]; !dup {
			at[d] = i
		}
	}
	search := func(i int) []engram.Result {
		opts := engram.SearchOptions{Query: set.queries[i%len(set.queries)], Mode: engram.SearchVector,
			Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 10}
		if tag != nil {
			opts.Tags = []string{tag(i)}
		}
		res, err := m.Search(ctx, opts)
		if err != nil || len(res) != 10 {
			b.Fatal(err, len(res))
		}
		return res
	}
	search(0) // loads the index, as the first search of a session does
	// Recall, over all queries, outside the timing.
	hit := 0
	for i := range set.qvecs {
		want := truth(i)
		for _, r := range search(i) {
			if slices.Contains(want, at[r.Content]) {
				hit++
			}
		}
	}
	recall := float64(hit) / float64(10*len(set.queries))
	lat := make(latencies, 0, 4096)
	i := 0
	for b.Loop() {
		start := time.Now()
		search(i)
		lat = append(lat, time.Since(start))
		i++
	}
	b.ReportMetric(recall, "recall@10")
	lat.report(b)
}

// BenchmarkSearchHybrid measures the Tier 2 default: text and vector
// search fused by reciprocal rank, on the corpus questions.
func BenchmarkSearchHybrid(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			set, m := openVectorBench(b, "clustered", n)
			defer m.Close()
			ctx := context.Background()
			if _, err := m.Search(ctx, engram.SearchOptions{Query: set.queries[0]}); err != nil {
				b.Fatal(err)
			}
			lat := make(latencies, 0, 4096)
			i := 0
			for b.Loop() {
				start := time.Now()
				res, err := m.Search(ctx, engram.SearchOptions{Query: set.queries[i%len(set.queries)]})
				if err != nil || len(res) == 0 {
					b.Fatal(err, len(res))
				}
				lat = append(lat, time.Since(start))
				i++
			}
			lat.report(b)
		})
	}
}

// BenchmarkBaselineExactScan is the exact search engram's index is
// measured against: a pure-Go scan of the float32 vectors in memory, on
// two goroutines, keeping the 10 best.
func BenchmarkBaselineExactScan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, name := range []string{"clustered", "uniform"} {
			b.Run(fmt.Sprintf("N=%d/%s", n, name), func(b *testing.B) {
				vectorDBMu.Lock()
				key := fmt.Sprintf("%s/%d", name, n)
				set := vectorSets[key]
				if set == nil {
					set = newVectorSet(name, n)
					vectorSets[key] = set
				}
				vectorDBMu.Unlock()
				flat := make([]float32, 0, n*benchDims)
				for _, v := range set.vecs {
					flat = append(flat, v...)
				}
				workers := runtime.GOMAXPROCS(0)
				i := 0
				for b.Loop() {
					q := set.qvecs[i%len(set.qvecs)]
					tops := make([][]vecdata.Scored, workers)
					var wg sync.WaitGroup
					chunk := (n + workers - 1) / workers
					for w := range workers {
						wg.Go(func() {
							lo, hi := w*chunk, min(n, (w+1)*chunk)
							tops[w] = vecdata.ScanTop(flat, q, benchDims, lo, hi, 10)
						})
					}
					wg.Wait()
					var all []vecdata.Scored
					for _, t := range tops {
						all = append(all, t...)
					}
					slices.SortFunc(all, func(a, b vecdata.Scored) int { return cmp.Compare(b.Sim, a.Sim) })
					if len(all) < 10 {
						b.Fatal(len(all))
					}
					i++
				}
			})
		}
	}
}

// BenchmarkStoreSemanticTier2 stores one entry per transaction with the
// hashing embedder (384 dimensions) into a memory of 10K entries:
// embedding, row, full-text and vec0 rows, and auto-linking by cosine,
// as a Tier 2 agent stores by default.
func BenchmarkStoreSemanticTier2(b *testing.B) {
	benchStoreSemantic(b, func(b *testing.B, dir string, cfg engram.Config) *engram.Memory {
		h, err := engram.NewHashingEmbedder(benchDims)
		if err != nil {
			b.Fatal(err)
		}
		m, err := engram.New(engram.Tier2, engram.WithDir(dir), engram.WithConfig(cfg), engram.WithEmbedder(h))
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Reindex(context.Background(), nil); err != nil { // the 10K stored at Tier 1
			b.Fatal(err)
		}
		return m
	})
}

// BenchmarkOpenSearchVector measures what a server pays to answer an agent
// it has not opened yet: a new Memory on vectorDB's file, then one vector
// search (limit 10), which loads the agent's vectors into the index. The
// reported ms/op is that open and search; Close is not timed. ms/open
// is the open alone. rss-peak-MB and rss-after-MB are the process's
// peak resident memory during the op and its resident memory after the
// search, less what it held before the open (see
// BenchmarkOpenSearchText).
func BenchmarkOpenSearchVector(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			set, path := vectorDB(b, "clustered", n)
			emb := set.embedder()
			ctx := context.Background()
			var total, open time.Duration
			var peak, rss []float64
			i := 0
			for b.Loop() {
				b.StopTimer()
				debug.FreeOSMemory()
				base, rerr := procmem.ResetPeak()
				hasRSS := rerr == nil
				b.StartTimer()
				start := time.Now()
				m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(emb),
					engram.WithClock(func() time.Time { return benchEpoch }))
				if err != nil {
					b.Fatal(err)
				}
				opened := time.Now()
				res, err := m.Search(ctx, engram.SearchOptions{Query: set.queries[i%len(set.queries)], Mode: engram.SearchVector,
					Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 10})
				if err != nil || len(res) != 10 {
					b.Fatal(err, len(res))
				}
				total += time.Since(start)
				open += opened.Sub(start)
				b.StopTimer()
				if hasRSS {
					if now, hwm, err := procmem.Resident(); err == nil {
						peak, rss = append(peak, float64(hwm-base)/(1<<20)), append(rss, float64(now-base)/(1<<20))
					}
				}
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				i++
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(i), "ms/op")
			b.ReportMetric(float64(open.Microseconds())/1000/float64(i), "ms/open")
			if len(peak) > 0 {
				b.ReportMetric(median(peak), "rss-peak-MB")
				b.ReportMetric(median(rss), "rss-after-MB")
			}
		})
	}
}

// BenchmarkTier2FileSize reports the size of vectorDB's file (database and
// WAL, once closed) per memory, its ratio to the raw vectors (4 bytes a
// dimension), and how much more than a Tier 1 file of the same memories
// it takes, as a ratio to the raw vectors. It times nothing.
func BenchmarkTier2FileSize(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			set, path := vectorDB(b, "clustered", n)
			tier2 := fileSize(b, path)
			tier1Path := filepath.Join(b.TempDir(), "memory.db")
			cfg := engram.DefaultConfig()
			cfg.Zettelkasten.Enabled = false
			m, err := engram.New(engram.Tier1, engram.WithPath(tier1Path), engram.WithConfig(cfg),
				engram.WithClock(func() time.Time { return benchEpoch }))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for lo := 0; lo < n; lo += 2000 {
				batch := make([]engram.SemanticEntry, 0, 2000)
				for i, d := range set.docs[lo:min(n, lo+2000)] {
					batch = append(batch, engram.SemanticEntry{Content: d, Importance: 0.5, Tags: []string{shardTag(lo + i)}})
				}
				if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			if err := m.Optimize(ctx); err != nil {
				b.Fatal(err)
			}
			if err := m.Close(); err != nil {
				b.Fatal(err)
			}
			tier1 := fileSize(b, tier1Path)
			raw := float64(n * benchDims * 4)
			for b.Loop() {
			}
			b.ReportMetric(float64(tier2)/float64(n), "bytes/memory")
			b.ReportMetric(float64(tier1)/float64(n), "tier1-bytes/memory")
			b.ReportMetric(float64(tier2)/raw, "x-raw")
			b.ReportMetric(float64(tier2-tier1)/raw, "over-tier1-x-raw")
		})
	}
}

// fileSize returns the size of a database file with its WAL.
func fileSize(b *testing.B, path string) int64 {
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		st, err := os.Stat(p)
		if err == nil {
			size += st.Size()
		} else if !os.IsNotExist(err) {
			b.Fatal(err)
		}
	}
	return size
}

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/vecdata"
)

// The data are the root benchmarks' (search_bench_test.go, bench_test.go,
// vector_bench_test.go), at n entries: the Tier 1 file is built as
// searchDir builds the text-search file, the Tier 2 file as vectorDB builds
// the "clustered" vector file, and the entries stored one at a time are
// benchEntries(3, 1<<16)'s.

const (
	dims        = 384
	vecQueries  = 200 // the vector benchmarks' query count
	textQueries = 512 // the text benchmarks' query count
	shards      = 100 // the vector benchmarks' tag shards
	storeSeed   = 3   // benchEntries' seed in benchStoreSemantic
	storeTexts  = 1 << 16
)

// benchEpoch is the vector benchmarks' clock: every entry of the Tier 2
// file is stored at one instant, so that the blend ranks by similarity
// alone and recall@10 measures the index.
var benchEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// benchWords is bench_test.go's vocabulary of tags.
var benchWords = []string{"agent", "deploy", "database", "memory", "search", "index", "vector",
	"kubernetes", "cluster", "postgres", "latency", "error", "budget", "release", "rollback", "pipeline", "build", "test",
	"cache", "query", "user", "session", "token", "cost", "model", "prompt", "context", "window", "summary", "decision",
	"incident", "alert", "metric", "trace", "log", "span", "queue", "worker", "retry", "timeout", "network", "storage", "disk",
	"backup", "restore", "schema", "migration", "feature", "flag", "review", "merge", "branch", "commit", "tag", "version"}

// storeEntries returns bench_test.go's benchEntries(3, 1<<16): the entries
// BenchmarkStoreSemantic stores one at a time.
func storeEntries() []engram.SemanticEntry {
	rng := rand.New(rand.NewPCG(storeSeed, 1))
	docs := benchdata.NewCorpus(storeTexts + storeSeed).Docs
	out := make([]engram.SemanticEntry, storeTexts)
	for i := range out {
		out[i] = engram.SemanticEntry{
			Content:    docs[i],
			Importance: float64(rng.IntN(101)) / 100,
			Tags:       []string{benchWords[rng.IntN(len(benchWords))]},
		}
	}
	return out
}

// shardTag is the tag of the i-th entry of the Tier 2 file.
func shardTag(i int) string { return fmt.Sprintf("shard-%d", i%shards) }

// vectorSet is the Tier 2 data set: the stored texts and their vectors,
// the queries and theirs, and vectors for the texts stored one at a time.
type vectorSet struct {
	docs    []string
	vecs    [][]float32
	queries []string
	qvecs   [][]float32
	store   [][]float32 // for storeEntries()[i], the i-th
}

// newVectorSet makes vector_bench_test.go's "clustered" set on the
// corpus c (benchdata.NewCorpus(n) for n entries), and then vectors for
// nStore texts stored one at a time, from the same generator.
func newVectorSet(c benchdata.Corpus, nStore int) *vectorSet {
	s := &vectorSet{docs: c.Docs, queries: c.Questions(vecQueries)}
	d := vecdata.NewClustered(21, 1000, dims)
	s.vecs, s.qvecs = d.Vectors(len(c.Docs)), d.Vectors(len(s.queries))
	s.store = d.Vectors(nStore)
	return s
}

// embedder maps the set's texts, and the first len(s.store) of stored
// (the texts stored one at a time), to their vectors.
func (s *vectorSet) embedder(stored []engram.SemanticEntry) *tableEmbedder {
	e := &tableEmbedder{vecs: make(map[string][]float32, len(s.docs)+len(s.queries)+len(s.store))}
	for i, d := range s.docs {
		if _, dup := e.vecs[d]; !dup {
			e.vecs[d] = s.vecs[i]
		}
	}
	for i, q := range s.queries {
		e.vecs[q] = s.qvecs[i]
	}
	for i, v := range s.store {
		if _, dup := e.vecs[stored[i].Content]; !dup {
			e.vecs[stored[i].Content] = v
		}
	}
	return e
}

// tableEmbedder is an Embedder that looks texts up in a table, as the
// vector benchmarks' does (same model name, so a file built by either is
// the same).
type tableEmbedder struct {
	vecs map[string][]float32
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

var _ engram.Embedder = (*tableEmbedder)(nil)

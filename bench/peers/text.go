package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	index "github.com/blevesearch/bleve_index_api"
	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

// textQuestions is the number of questions asked of each corpus, as in
// engram's search benchmarks.
const textQuestions = 512

// textResult is what the text section reports for one corpus size.
type textResult struct {
	n        int
	build    map[string]time.Duration
	buildCPU map[string]time.Duration // the process's CPU time during each build
	rss      map[string]rssFigures    // each contender's resident memory, measured alone (see measureRSS)
	timings  []timing
}

// runText builds the synthetic corpus of n entries into engram (Tier 1,
// semantic memories of one agent, on disk, as engram's search benchmark
// fixture does) and into a bleve index, and asks both the same questions
// (limit 10), reps times, interleaved.
func runText(ctx context.Context, dir string, n, reps int) (*textResult, error) {
	res := &textResult{n: n, build: map[string]time.Duration{}, buildCPU: map[string]time.Duration{}}
	c := benchdata.NewCorpus(n)
	qs := c.Questions(textQuestions)

	start, cpu := time.Now(), cpuTime()
	edir := filepath.Join(dir, "engram")
	if err := buildEngramText(ctx, edir, c.Docs); err != nil {
		return nil, fmt.Errorf("engram: %w", err)
	}
	res.build["engram"], res.buildCPU["engram"] = time.Since(start), cpuTime()-cpu
	m, err := engram.New(engram.Tier1, engram.WithDir(edir))
	if err != nil {
		return nil, err
	}
	closed := false // by the end, before measureRSS
	defer func() {
		if !closed {
			m.Close()
		}
	}()

	start, cpu = time.Now(), cpuTime()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	idx, err := buildBleve(filepath.Join(dir, "bleve"), index.BM25Scoring, ids, c.Docs)
	if err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	defer func() {
		if !closed {
			idx.Close()
		}
	}()
	res.build["bleve BM25"], res.buildCPU["bleve BM25"] = time.Since(start), cpuTime()-cpu
	logf("text N=%d: built engram in %s (CPU %s), bleve in %s (CPU %s)", n,
		res.build["engram"].Round(time.Millisecond), res.buildCPU["engram"].Round(time.Millisecond),
		res.build["bleve BM25"].Round(time.Millisecond), res.buildCPU["bleve BM25"].Round(time.Millisecond))

	cs := []contender{
		{name: "engram", ask: func(i int) error {
			rs, err := m.Search(ctx, engram.SearchOptions{Query: qs[i]})
			if err == nil && len(rs) == 0 {
				err = fmt.Errorf("no results for %q", qs[i])
			}
			return err
		}},
		{name: "bleve BM25", ask: func(i int) error {
			ids, err := bleveSearch(idx, qs[i], 10, false)
			if err == nil && len(ids) == 0 {
				err = fmt.Errorf("no results for %q", qs[i])
			}
			return err
		}},
	}
	if res.timings, err = measure(fmt.Sprintf("text N=%d", n), reps, len(qs), cs, nil); err != nil {
		return nil, err
	}
	// Each contender's resident memory is measured in a process of its
	// own, on the stores closed here (bleve locks its index).
	closed = true
	if err := errors.Join(m.Close(), idx.Close()); err != nil {
		return nil, err
	}
	if res.rss, err = measureRSS(dir, n); err != nil {
		return nil, err
	}
	return res, nil
}

// buildEngramText stores docs as semantic memories of the default agent
// under dir, with importances from a fixed seed, in batches of 1,000, and
// merges the full-text index, exactly as search_bench_test.go's searchDir
// does.
func buildEngramText(ctx context.Context, dir string, docs []string) (err error) {
	m, err := engram.New(engram.Tier1, engram.WithDir(dir))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.Close()) }()
	rng := rand.New(rand.NewPCG(3, 3))
	for start := 0; start < len(docs); start += 1000 {
		batch := make([]engram.SemanticEntry, 0, 1000)
		for _, d := range docs[start:min(len(docs), start+1000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			return err
		}
	}
	return m.Optimize(ctx)
}

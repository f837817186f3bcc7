package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	index "github.com/blevesearch/bleve_index_api"
	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/vecdata"
	"github.com/philippgille/chromem-go"
)

// The loop section runs an agent's loop instead of questions on a
// memory that stands still: every turn writes one memory, then searches.
// engram (Tier 1, on the text section's corpus) logs an episode and
// searches every kind; bleve (on the same corpus) indexes a document and
// runs a match query, its hits in bleve's own order; chromem-go (on the
// vector section's vectors) adds a document with its vector and queries
// the top 10. What is written is a corpus text with the turn's number
// (and, for chromem-go, the next vector of the data set's stream); what
// is asked is the text section's questions in turn.

// loopTurns is how many turns each contender runs per repetition: each
// adds a memory, so the stores grow by loopTurns*(reps+1).
const loopTurns = 256

// loopSteps are the steps of a turn, in order.
var loopSteps = []string{"write", "search"}

// loopContender runs turn i of its loop, one step at a time.
type loopContender struct {
	name  string
	steps [2]func(i int) error // as loopSteps
}

// loopTiming is what one contender measured: per step, each
// repetition's p50, p90 and p99.
type loopTiming struct {
	name string
	p    [2][3][]time.Duration // [step][percentile][repetition]
}

// loopResult is what the loop section reports for one size.
type loopResult struct {
	n       int
	timings []loopTiming
}

// runLoop builds the text section's corpus of n entries into engram and
// bleve and the vector section's n vectors into chromem-go, then runs
// loopTurns turns of each contender's loop, reps times, round-robin, after
// an untimed repetition.
func runLoop(ctx context.Context, dir string, n, reps int) (*loopResult, error) {
	c := benchdata.NewCorpus(n)
	qs := c.Questions(textQuestions)
	start := time.Now()
	edir := filepath.Join(dir, "engram")
	if err := buildEngramText(ctx, edir, c.Docs); err != nil {
		return nil, fmt.Errorf("engram: %w", err)
	}
	m, err := engram.New(engram.Tier1, engram.WithDir(edir))
	if err != nil {
		return nil, err
	}
	defer m.Close()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	idx, err := buildBleve(filepath.Join(dir, "bleve"), index.BM25Scoring, ids, c.Docs)
	if err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	defer idx.Close()
	// The vector section's vectors, then those of the documents the loop
	// adds and of its queries, from the same stream.
	vs := vecdata.NewClustered(21, 1000, dims)
	set := &vectorSet{docs: c.Docs, vecs: vs.Vectors(n)}
	added := vs.Vectors(loopTurns * (reps + 1))
	qvecs := vs.Vectors(textQuestions)
	col, err := buildChromem(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("chromem-go: %w", err)
	}
	logf("loop N=%d: built in %s", n, time.Since(start).Round(time.Millisecond))

	text := func(i int) string { return c.Docs[(i*7919)%n] + " turn " + strconv.Itoa(i) }
	cs := []loopContender{
		{name: "engram", steps: [2]func(int) error{
			func(i int) error {
				_, err := m.Episodic().Log(ctx, engram.Episode{Content: text(i)})
				return err
			},
			func(i int) error {
				rs, err := m.Search(ctx, engram.SearchOptions{Query: qs[i%len(qs)]})
				if err == nil && len(rs) == 0 {
					err = fmt.Errorf("no results for %q", qs[i%len(qs)])
				}
				return err
			},
		}},
		{name: "bleve BM25", steps: [2]func(int) error{
			func(i int) error { return idx.Index("turn-"+strconv.Itoa(i), bleveDoc{Text: text(i)}) },
			func(i int) error {
				ids, err := bleveSearch(idx, qs[i%len(qs)], 10, false)
				if err == nil && len(ids) == 0 {
					err = fmt.Errorf("no results for %q", qs[i%len(qs)])
				}
				return err
			},
		}},
		{name: "chromem-go", steps: [2]func(int) error{
			func(i int) error {
				return col.AddDocument(ctx, chromem.Document{ID: "turn-" + strconv.Itoa(i), Content: text(i), Embedding: added[i]})
			},
			func(i int) error {
				rs, err := col.QueryEmbedding(ctx, qvecs[i%len(qvecs)], topK, nil, nil)
				if err == nil && len(rs) != topK {
					err = fmt.Errorf("%d results, want %d", len(rs), topK)
				}
				return err
			},
		}},
	}
	timings, err := measureLoop(fmt.Sprintf("loop N=%d", n), reps, cs)
	if err != nil {
		return nil, err
	}
	return &loopResult{n: n, timings: timings}, nil
}

// measureLoop runs loopTurns turns of each contender, once untimed (which
// loads what first writes and searches load), then reps times timed,
// round-robin as measure does; turn numbers go on from one repetition to
// the next, so that every write is new.
func measureLoop(label string, reps int, cs []loopContender) ([]loopTiming, error) {
	out := make([]loopTiming, len(cs))
	for j, c := range cs {
		out[j].name = c.name
	}
	lat := [2][]time.Duration{make([]time.Duration, loopTurns), make([]time.Duration, loopTurns)}
	for r := range reps + 1 {
		for k := range cs {
			j := (r + k) % len(cs)
			c := cs[j]
			runtime.GC()
			for t := range loopTurns {
				for s, step := range c.steps {
					start := time.Now()
					err := step(r*loopTurns + t)
					lat[s][t] = time.Since(start)
					if err != nil {
						return nil, fmt.Errorf("%s %s: turn %d, %s: %w", label, c.name, r*loopTurns+t, loopSteps[s], err)
					}
				}
			}
			if r == 0 {
				continue // untimed
			}
			for s := range lat {
				for p, v := range loopPercentiles(lat[s]) {
					out[j].p[s][p] = append(out[j].p[s][p], v)
				}
			}
		}
		if r > 0 {
			logf("%s: repetition %d/%d done", label, r, reps)
		}
	}
	return out, nil
}

// loopPercentiles returns the p50, p90 and p99 of lat (nearest rank),
// sorting a copy.
func loopPercentiles(lat []time.Duration) [3]time.Duration {
	s := slices.Clone(lat)
	slices.Sort(s)
	return [3]time.Duration{s[len(s)/2], s[len(s)*9/10], s[len(s)*99/100]}
}

func loopTable(rs []*loopResult, reps int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Agent loop: write, then search, %d turns per repetition\n\n", loopTurns)
	b.WriteString("Each turn writes one memory, then searches, as an agent does: the corpus and questions of the text section, ")
	fmt.Fprintf(&b, "each store growing by %s documents over the run. ", count(loopTurns*(reps+1)))
	b.WriteString("engram: Tier 1, `Episodic().Log`, then `Memory.Search` of every kind (limit 10). ")
	b.WriteString("bleve: `Index` of one document, then a match query (BM25, size 10, stored text loaded), hits in bleve's default order. ")
	b.WriteString("chromem-go: `AddDocument` with the next vector of the vector section's data set, then `QueryEmbedding` (top 10): ")
	b.WriteString("a vector search, beside for scale. p50, p90 and p99 are medians over repetitions; engram/peer compares the same step's p50.\n\n")
	b.WriteString("| N | contender | step | p50 | p90 | p99 | engram/peer p50 |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		var eng loopTiming
		for _, t := range r.timings {
			if t.name == "engram" {
				eng = t
			}
		}
		for _, t := range r.timings {
			for s, step := range loopSteps {
				cell := ""
				if t.name != "engram" {
					cell = ratioCell(timing{name: "engram", p50: eng.p[s][0]}, timing{name: t.name, p50: t.p[s][0]})
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", count(r.n), label(t.name), step,
					ms(median(t.p[s][0])), ms(median(t.p[s][1])), ms(median(t.p[s][2])), cell)
			}
		}
	}
	return b.String()
}

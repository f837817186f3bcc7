package engram_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

var loopSizes = flag.String("agentloop.sizes", "10000,100000",
	"the sizes of BenchmarkAgentLoop's memories, comma-separated (1000000 builds a memory of a million entries first, which takes many minutes)")

// BenchmarkAgentLoop runs an agent's loop on a copy of the search
// benchmarks' memory of each size (see searchDir), with the default
// configuration: an agent does not search a memory that stands still,
// every turn it writes, then reads. Each op of turn is one turn: log an
// episode (and every fifth turn store a semantic entry and assert a
// fact), then Search, Recall and a 2,000-token Context with one of the
// corpus's questions; each step's p50, p90 and p99 are reported.
// search-after-write, on the same memory, logs an episode (not timed),
// then asks two questions, each once: one right after the write, one
// with no write before it (after/no-write: what a write costs the search
// after it); then asks the first again at once (after/again: a repeated
// question finds the processor's caches warm with its postings and rows,
// a gain no write takes away, so that ratio is larger). The Memory has
// searched and stored before the timed loop, as a running agent's has.
func BenchmarkAgentLoop(b *testing.B) {
	for _, n := range parseSizes(b, "agentloop.sizes", *loopSizes) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m, err := engram.New(engram.Tier1, engram.WithDir(copyDir(b, searchDir(b, n))))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			c := benchdata.NewCorpus(n)
			l := &agentLoop{m: m, docs: c.Docs, qs: c.Questions(512), rng: rand.New(rand.NewPCG(13, 13)),
				facts: benchdata.FactGraph(1<<14, 13, factGraphStart)}
			l.warm(b)
			b.Run("turn", l.turns)
			b.Run("search-after-write", l.searchAfterWrite)
		})
	}
}

// agentLoop is an agent's loop over one Memory.
type agentLoop struct {
	m     *engram.Memory
	docs  []string // what the agent logs and stores: the corpus's texts
	qs    []string // what it asks
	facts []benchdata.Triple
	rng   *rand.Rand
	turn  int
}

// warm searches and stores once, so that the text index and the stem
// index of auto-linking are built, and waits for both.
func (l *agentLoop) warm(b testing.TB) {
	ctx := context.Background()
	if _, err := l.m.Search(ctx, engram.SearchOptions{Query: l.qs[0]}); err != nil {
		b.Fatal(err)
	}
	if _, err := l.m.Semantic().Store(ctx, engram.SemanticEntry{Content: l.docs[0] + " warm", Importance: 0.5}); err != nil {
		b.Fatal(err)
	}
	engram.AwaitTextIndex(l.m)
	engram.AwaitLinkIndex(l.m)
}

// log logs the next episode.
func (l *agentLoop) log(ctx context.Context) error {
	_, err := l.m.Episodic().Log(ctx, engram.Episode{Content: l.docs[l.rng.IntN(len(l.docs))],
		SessionID: fmt.Sprintf("session-%d", l.turn/50), TaskID: fmt.Sprintf("task-%d", l.turn/10)})
	return err
}

// search searches for q and fails on no result.
func (l *agentLoop) search(ctx context.Context, q string) error {
	res, err := l.m.Search(ctx, engram.SearchOptions{Query: q})
	if err == nil && len(res) == 0 {
		err = errors.New("no results")
	}
	return err
}

// turns times turns of the loop, each step apart.
func (l *agentLoop) turns(b *testing.B) {
	ctx := context.Background()
	lat := make(map[string]latencies, len(loopSteps))
	for b.Loop() {
		l.step(b, ctx, lat)
	}
	for _, step := range loopSteps {
		lat[step].percentiles(b, step)
	}
}

// loopSteps are the steps of a turn of the agent's loop.
var loopSteps = []string{"log", "store", "assert", "search", "recall", "context"}

// step runs one turn of the loop, adding each step's latency to lat.
func (l *agentLoop) step(b testing.TB, ctx context.Context, lat map[string]latencies) {
	timed := func(step string, f func() error) {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatalf("turn %d, %s: %v", l.turn, step, err)
		}
		lat[step] = append(lat[step], time.Since(start))
	}
	q := l.qs[l.turn%len(l.qs)]
	timed("log", func() error { return l.log(ctx) })
	if l.turn%5 == 0 {
		timed("store", func() error {
			_, err := l.m.Semantic().Store(ctx, engram.SemanticEntry{Content: l.docs[l.rng.IntN(len(l.docs))] + fmt.Sprintf(" turn %d", l.turn),
				Importance: float64(l.rng.IntN(101)) / 100})
			return err
		})
		tr := l.facts[(l.turn/5)%len(l.facts)]
		timed("assert", func() error {
			_, err := l.m.Facts().Assert(ctx, engram.Fact{Subject: tr.Subject, Predicate: tr.Predicate, Object: tr.Object})
			return err
		})
	}
	timed("search", func() error { return l.search(ctx, q) })
	timed("recall", func() error {
		r, err := l.m.Recall(ctx, q)
		if err == nil && len(r.Admitted) == 0 {
			err = errors.New("nothing admitted")
		}
		return err
	})
	timed("context", func() error {
		c, err := l.m.Context(ctx, engram.ContextOptions{Query: q, MaxTokens: 2000})
		if err == nil && c.Tokens == 0 {
			err = errors.New("an empty block")
		}
		return err
	})
	l.turn++
}

// searchAfterWrite times a search just after a write and one after
// another search, alternately.
func (l *agentLoop) searchAfterWrite(b *testing.B) {
	ctx := context.Background()
	var after, idle, again latencies
	for b.Loop() {
		// Two questions a turn, each asked once with cold caches: one
		// right after a write, one with none before it; then the first
		// again, at once.
		q, p := l.qs[(2*l.turn)%len(l.qs)], l.qs[(2*l.turn+1)%len(l.qs)]
		if err := l.log(ctx); err != nil {
			b.Fatal(err)
		}
		for _, s := range []struct {
			into *latencies
			q    string
		}{{&after, q}, {&idle, p}, {&again, q}} {
			start := time.Now()
			if err := l.search(ctx, s.q); err != nil {
				b.Fatalf("%q: %v", s.q, err)
			}
			*s.into = append(*s.into, time.Since(start))
		}
		l.turn++
	}
	after.percentiles(b, "after-write")
	idle.percentiles(b, "no-write")
	again.percentiles(b, "again")
	b.ReportMetric(after.at(50)/idle.at(50), "after/no-write-p50")
	b.ReportMetric(after.at(50)/again.at(50), "after/again-p50")
}

// percentiles reports the p50, p90 and p99 of the latencies, in
// microseconds, named after step.
func (l latencies) percentiles(b *testing.B, step string) {
	if len(l) == 0 {
		return
	}
	for _, p := range []int{50, 90, 99} {
		b.ReportMetric(l.at(p), fmt.Sprintf("%s-p%d-µs", step, p))
	}
}

// at returns the p-th percentile of the latencies in microseconds,
// sorting them.
func (l latencies) at(p int) float64 {
	slices.Sort(l)
	return float64(l[len(l)*p/100]) / float64(time.Microsecond)
}

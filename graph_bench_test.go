package engram_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

// Graph benchmarks ask a synthetic knowledge graph whose degrees follow a
// power law (see benchdata.FactGraph) about entities drawn as its facts
// draw them: hubs often, ordinary entities mostly.

var factSizes = flag.String("facts.sizes", "1000,10000,100000",
	"the sizes of the graph benchmarks' fact graphs, comma-separated")

var (
	factsDBMu sync.Mutex
	factsDBs  = map[int]string{} // N → database file holding a built graph
	factsRoot string
)

// factStart is when the benchmark graphs' first fact starts.
var factStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// factsNow is the clock of a graph of n facts: after the last starts.
func factsNow(n int) time.Time { return factStart.Add(time.Duration(n)*time.Minute + time.Hour) }

// factsDB returns a database file holding benchdata.FactGraph(n, 16, …)
// asserted in batches of 1,000, built once per process and shared.
func factsDB(b testing.TB, n int) string {
	b.Helper()
	factsDBMu.Lock()
	defer factsDBMu.Unlock()
	if path, ok := factsDBs[n]; ok {
		return path
	}
	if factsRoot == "" {
		var err error
		if factsRoot, err = os.MkdirTemp("", "engram-facts-bench"); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(factsRoot, fmt.Sprintf("%d.db", n))
	now := factsNow(n)
	m, err := engram.New(engram.Tier1, engram.WithPath(path), engram.WithClock(func() time.Time { return now }))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	triples := benchdata.FactGraph(n, 16, factStart)
	for start := 0; start < n; start += 1000 {
		batch := make([]engram.Fact, 0, 1000)
		for _, tr := range triples[start:min(n, start+1000)] {
			batch = append(batch, engram.Fact{Subject: tr.Subject, Predicate: tr.Predicate, Object: tr.Object, ValidFrom: tr.ValidFrom})
		}
		if _, err := m.Facts().AssertAll(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	factsDBs[n] = path
	return path
}

// openFacts opens the graph of n facts with its clock.
func openFacts(b *testing.B, n int) *engram.Memory {
	path := factsDB(b, n)
	now := factsNow(n)
	m, err := engram.New(engram.Tier1, engram.WithPath(path), engram.WithClock(func() time.Time { return now }))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	return m
}

// zipfEntities draws k entities of the graph of n facts as FactGraph
// draws its facts' ends, from a fixed seed, keeping those that some fact
// names.
func zipfEntities(n, k int, seed uint64) []string {
	named := map[string]bool{}
	for _, tr := range benchdata.FactGraph(n, 16, factStart) {
		named[tr.Subject], named[tr.Object] = true, true
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9a7))
	z := rand.NewZipf(r, 1.1, 1, uint64(benchdata.FactEntities(n)-1))
	out := make([]string, 0, k)
	for len(out) < k {
		if e := benchdata.Entity(int(z.Uint64())); named[e] {
			out = append(out, e)
		}
	}
	return out
}

func factBenchSizes(b *testing.B) []int {
	var sizes []int
	for _, f := range strings.Split(*factSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-facts.sizes: %v", err)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// reportLatency reports the median and 90th percentile of times, in
// milliseconds.
func reportLatency(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.9), "p90-ms")
}

// BenchmarkGraphNeighbours lists the neighbours (the first 100, the
// default) of entities drawn by the graph's own Zipf distribution, so
// that about one call in seven asks about the largest hub.
func BenchmarkGraphNeighbours(b *testing.B) {
	for _, n := range factBenchSizes(b) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m := openFacts(b, n)
			ctx := context.Background()
			sample := zipfEntities(n, 500, 7)
			var times []time.Duration
			found, hops := 0, 0
			i := 0
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				ns, err := m.Facts().Neighbours(ctx, engram.FactQuery{Entity: sample[i%len(sample)]})
				times = append(times, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				found += len(ns)
				for _, n := range ns {
					hops += len(n.Hops)
				}
				i++
			}
			reportLatency(b, times)
			b.ReportMetric(float64(found)/float64(len(times)), "neighbours/op")
			b.ReportMetric(float64(hops)/float64(len(times)), "facts/op")
		})
	}
}

// BenchmarkGraphPaths finds the paths of up to three hops between pairs
// of entities drawn by the graph's own Zipf distribution: hub to hub,
// hub to ordinary entity and ordinary to ordinary, as often as a graph
// of this shape would be asked about them.
func BenchmarkGraphPaths(b *testing.B) {
	for _, n := range factBenchSizes(b) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m := openFacts(b, n)
			ctx := context.Background()
			ends := zipfEntities(n, 1000, 11)
			var pairs [][2]string
			for i := 0; i+1 < len(ends); i += 2 {
				if ends[i] != ends[i+1] {
					pairs = append(pairs, [2]string{ends[i], ends[i+1]})
				}
			}
			var times []time.Duration
			found, empty := 0, 0
			i := 0
			b.ResetTimer()
			for b.Loop() {
				p := pairs[i%len(pairs)]
				start := time.Now()
				paths, err := m.Facts().Paths(ctx, p[0], p[1], 3)
				times = append(times, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				found += len(paths)
				if len(paths) == 0 {
					empty++
				}
				i++
			}
			reportLatency(b, times)
			b.ReportMetric(float64(found)/float64(len(times)), "paths/op")
			b.ReportMetric(float64(empty)/float64(len(times)), "none/op")
		})
	}
}

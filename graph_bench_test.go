package engram_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

// Graph benchmarks ask a synthetic knowledge graph whose degrees follow a
// power law (see benchdata.FactGraph) about entities drawn as its facts
// draw them: hubs often, ordinary entities mostly.

// openFacts opens the benchmarks' graph of n facts (see factDir) with a
// clock an hour after its last fact starts.
func openFacts(b *testing.B, n int) *engram.Memory {
	now := factGraphStart.Add(time.Duration(n)*time.Minute + time.Hour)
	m, err := engram.New(engram.Tier1, engram.WithDir(factDir(b, n)), engram.WithClock(func() time.Time { return now }))
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
	for _, tr := range benchdata.FactGraph(n, factGraphSeed, factGraphStart) {
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

// BenchmarkGraphNeighbours lists the neighbours (the first 100, the
// default) of entities drawn by the graph's own Zipf distribution, so
// that about one call in seven asks about the largest hub.
func BenchmarkGraphNeighbours(b *testing.B) {
	for _, n := range parseSizes(b, "facts.sizes", *factSizes) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m := openFacts(b, n)
			ctx := context.Background()
			sample := zipfEntities(n, 500, 7)
			var times latencies
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
			times.report(b)
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
	for _, n := range parseSizes(b, "facts.sizes", *factSizes) {
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
			var times latencies
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
			times.report(b)
			b.ReportMetric(float64(found)/float64(len(times)), "paths/op")
			b.ReportMetric(float64(empty)/float64(len(times)), "none/op")
		})
	}
}

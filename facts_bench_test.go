package engram_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

// Facts benchmarks assert the synthetic knowledge graph of
// internal/benchdata (power-law degrees, slots with histories) and time
// one more assertion, or a question of what held at a date.

var factSizes = flag.String("facts.sizes", "1000,10000,100000",
	"the sizes of the facts benchmarks' graphs, comma-separated")

// factGraphStart is when the benchmark graphs' first fact starts: their
// facts are a minute apart from there, all in the past.
var factGraphStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	factDBMu sync.Mutex
	factDBs  = map[int]string{} // N → directory holding the graph
	factRoot string
)

// factGraphSeed is the seed of the benchmarks' graphs.
const factGraphSeed = 7

// factDir returns a directory holding a memory with the n assertions of
// benchdata.FactGraph(n, factGraphSeed, factGraphStart), built once per
// process and shared by the facts and graph benchmarks.
func factDir(b testing.TB, n int) string {
	b.Helper()
	factDBMu.Lock()
	defer factDBMu.Unlock()
	if dir, ok := factDBs[n]; ok {
		return dir
	}
	if factRoot == "" {
		var err error
		if factRoot, err = os.MkdirTemp("", "engram-facts-bench"); err != nil {
			b.Fatal(err)
		}
	}
	dir := filepath.Join(factRoot, fmt.Sprint(n))
	m, err := engram.New(engram.Tier1, engram.WithDir(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	graph := benchdata.FactGraph(n, factGraphSeed, factGraphStart)
	for lo := 0; lo < n; lo += 1000 {
		batch := make([]engram.Fact, 0, 1000)
		for _, tr := range graph[lo:min(n, lo+1000)] {
			batch = append(batch, engram.Fact{Subject: tr.Subject, Predicate: tr.Predicate, Object: tr.Object, ValidFrom: tr.ValidFrom})
		}
		if _, err := m.Facts().AssertAll(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	factDBs[n] = dir
	return dir
}

// copyDir copies the memory in directory src to a new directory, so that
// a benchmark that writes starts from the same memory every run.
func copyDir(b *testing.B, src string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	return dst
}

func parseSizes(b *testing.B, flagName, list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-%s: %v", flagName, err)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkFactAssert asserts one fact per transaction, with
// consolidation, into a graph of N facts (op=assert), beside a Tier 1
// semantic Store of one entry into the search benchmarks' memory of N
// entries, with auto-linking on (the default) and off (op=store,
// op=store-nolink): the target is assert ≤ 1.5 × store, read
// from one run. Each assertion is a fact of the same graph's shape
// (another seed): its subject and object drawn by the same power law, so
// it lands in slots of realistic size and history, starting now, after
// every fact of the graph.
func BenchmarkFactAssert(b *testing.B) {
	for _, n := range parseSizes(b, "facts.sizes", *factSizes) {
		b.Run(fmt.Sprintf("N=%d/op=assert", n), func(b *testing.B) {
			m, err := engram.New(engram.Tier1, engram.WithDir(copyDir(b, factDir(b, n))))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			more := benchdata.FactGraph(n, 8, factGraphStart)
			ctx := context.Background()
			lat := make(latencies, 0, 4096)
			actions := map[engram.FactAction]int{}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				tr := more[i%len(more)]
				start := time.Now()
				a, err := m.Facts().Assert(ctx, engram.Fact{Subject: tr.Subject, Predicate: tr.Predicate, Object: tr.Object})
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				actions[a.Action]++
				i++
			}
			lat.report(b)
			b.ReportMetric(float64(actions[engram.FactSuperseded])/float64(i), "supersede/op")
			b.ReportMetric(float64(actions[engram.FactMerged])/float64(i), "merge/op")
		})
		for _, autolink := range []bool{true, false} {
			op := "store"
			if !autolink {
				op = "store-nolink"
			}
			b.Run(fmt.Sprintf("N=%d/op=%s", n, op), func(b *testing.B) {
				cfg := engram.DefaultConfig()
				cfg.Zettelkasten.Enabled = autolink
				m, err := engram.New(engram.Tier1, engram.WithDir(copyDir(b, searchDir(b, n))), engram.WithConfig(cfg))
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				ctx := context.Background()
				entries := benchEntries(3, 1<<14)
				// As in BenchmarkStoreSemantic: a running agent has stored
				// before, and auto-linking's index is built.
				if _, err := m.Semantic().Store(ctx, entries[len(entries)-1]); err != nil {
					b.Fatal(err)
				}
				engram.AwaitLinkIndex(m)
				lat := make(latencies, 0, 4096)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					start := time.Now()
					if _, err := m.Semantic().Store(ctx, entries[i%len(entries)]); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
					i++
				}
				lat.report(b)
			})
		}
	}
}

// BenchmarkFactAsOf asks what held at a random date of the graph's span
// for one entity, drawn by the graph's power law (hubs are asked about
// most, as they are talked about most): every fact into or out of it
// then, at most 100.
func BenchmarkFactAsOf(b *testing.B) {
	for _, n := range parseSizes(b, "facts.sizes", *factSizes) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m, err := engram.New(engram.Tier1, engram.WithDir(factDir(b, n)))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			rng := rand.New(rand.NewPCG(9, 9))
			z := rand.NewZipf(rng, 1.1, 1, uint64(benchdata.FactEntities(n)-1))
			span := time.Duration(n) * time.Minute
			ctx := context.Background()
			lat := make(latencies, 0, 4096)
			found := 0
			b.ReportAllocs()
			for b.Loop() {
				entity := benchdata.Entity(int(z.Uint64()))
				at := factGraphStart.Add(time.Duration(rng.Int64N(int64(span))))
				start := time.Now()
				got, err := m.Facts().AsOf(ctx, at, engram.FactQuery{Entity: entity})
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				found += len(got)
			}
			lat.report(b)
			b.ReportMetric(float64(found)/float64(len(lat)), "facts/op")
		})
	}
}

package engram

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/engram-go/engram/internal/benchdata"
)

// BenchmarkTextIndexBuild builds the in-memory text index of a memory of
// N semantic entries (the corpus of BenchmarkSearchText) and reports how
// long it takes and the heap it keeps per memory.
func BenchmarkTextIndexBuild(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m, err := New(Tier1, WithPath(filepath.Join(b.TempDir(), "memory.db")))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			ctx := context.Background()
			docs := benchdata.NewCorpus(n).Docs
			rng := rand.New(rand.NewPCG(3, 3))
			for start := 0; start < n; start += 1000 {
				batch := make([]SemanticEntry, 0, 1000)
				for _, d := range docs[start:min(n, start+1000)] {
					batch = append(batch, SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100})
				}
				if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			var before, after runtime.MemStats
			var keep *textData
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				runtime.ReadMemStats(&before)
				d, err := loadText(ctx, m)
				if err != nil || d == nil {
					b.Fatal(err, d == nil)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				keep = d
			}
			b.StopTimer()
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "heap-B/memory")
			runtime.KeepAlive(keep)
		})
	}
}

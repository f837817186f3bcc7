package engram

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/query"
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

// BenchmarkSearchWithoutFTS searches a memory of 10,000 semantic
// entries (the corpus of BenchmarkSearchText, stored without auto-linking
// so that it builds in seconds) through two Memories on its file, one
// with FTS5 and one without (see Memory.fullText), alternately, with the
// same questions: plain, filtered by time (which FTS5 answers) and as an
// Advanced expression; each op is one search of each, and the p50 of
// each is reported.
func BenchmarkSearchWithoutFTS(b *testing.B) {
	const n = 10_000
	path := filepath.Join(b.TempDir(), "memory.db")
	cfg := DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := New(Tier1, WithPath(path), WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c := benchdata.NewCorpus(n)
	rng := rand.New(rand.NewPCG(3, 3))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 0; start < n; start += 1000 {
		batch := make([]SemanticEntry, 0, 1000)
		for i, d := range c.Docs[start:min(n, start+1000)] {
			batch = append(batch, SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100,
				CreatedAt: base.Add(time.Duration(start+i) * time.Minute)})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	m.Close()
	fts, err := New(Tier1, WithPath(path), WithConfig(cfg), withFullText(true))
	if err != nil {
		b.Fatal(err)
	}
	defer fts.Close()
	nofts, err := New(Tier1, WithPath(path), WithConfig(cfg), withFullText(false))
	if err != nil {
		b.Fatal(err)
	}
	defer nofts.Close()
	qs := c.Questions(512)
	since := base.Add(n / 2 * time.Minute)
	for _, form := range []struct {
		name string
		opts func(q string) SearchOptions
	}{
		{"plain", func(q string) SearchOptions { return SearchOptions{Query: q} }},
		{"since", func(q string) SearchOptions { return SearchOptions{Query: q, Since: since} }},
		{"advanced", func(q string) SearchOptions {
			return SearchOptions{Query: strings.Join(query.Terms(q)[:min(2, len(query.Terms(q)))], " OR "), Advanced: true}
		}},
	} {
		b.Run(form.name, func(b *testing.B) {
			for _, m := range []*Memory{fts, nofts} { // the index built, the file's pages warm
				for _, q := range qs[:32] {
					if _, err := m.Search(ctx, form.opts(q)); err != nil {
						b.Fatal(err)
					}
				}
				m.text.ctl.wg.Wait()
			}
			var withFTS, without []time.Duration
			i := 0
			for b.Loop() {
				q := form.opts(qs[i%len(qs)])
				for _, m := range []*Memory{fts, nofts} {
					start := time.Now()
					if _, err := m.Search(ctx, q); err != nil {
						b.Fatal(err)
					}
					if m == fts {
						withFTS = append(withFTS, time.Since(start))
					} else {
						without = append(without, time.Since(start))
					}
				}
				i++
			}
			slices.Sort(withFTS)
			slices.Sort(without)
			b.ReportMetric(float64(withFTS[len(withFTS)/2].Microseconds()), "fts-p50-µs")
			b.ReportMetric(float64(without[len(without)/2].Microseconds()), "nofts-p50-µs")
		})
	}
}

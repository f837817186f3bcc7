package engram_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/procmem"
)

var (
	openTextSizes = flag.String("opentext.sizes", "10000,100000",
		"the sizes of BenchmarkOpenSearchText's memories, comma-separated")
	openTextWindow = flag.Duration("opentext.window", 2*time.Second,
		"how long BenchmarkOpenSearchText searches after the first search of each opening")
	openTextKeep = flag.String("opentext.keep", "",
		"a directory where BenchmarkOpenSearchText and the search benchmarks keep the memories they build, for later runs (by default each run builds them again)")
)

// openTextDir returns a directory holding the search benchmarks' memory
// of n entries: searchDir's, or with -opentext.keep a copy of it kept
// there, made once.
func openTextDir(b *testing.B, n int) string {
	if *openTextKeep == "" {
		return searchDir(b, n)
	}
	dir := filepath.Join(*openTextKeep, fmt.Sprint(n))
	if _, err := os.Stat(dir + ".done"); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(searchDir(b, n))); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dir+".done", nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkOpenSearchText measures the first text searches of a Memory
// just opened on the search benchmarks' memory of each size (see
// searchDir): what an agent's first turns pay after a start. Each op
// opens a new Memory, searches once (first-ms: the open and that search,
// open-ms: the open alone), then searches back to back for
// -opentext.window with the corpus's questions (after-p50-µs,
// after-p99-µs and after-max-ms: those searches, whatever index answers
// them); Close is not timed. rss-peak-MB and rss-after-MB are the
// process's peak resident memory during the op and its resident memory
// at the window's end, less what it held before the open (read from
// /proc/self/status, the peak reset through /proc/self/clear_refs; not
// reported where those are missing).
func BenchmarkOpenSearchText(b *testing.B) {
	for _, n := range parseSizes(b, "opentext.sizes", *openTextSizes) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			dir := openTextDir(b, n)
			qs := benchdata.NewCorpus(n).Questions(512)
			ctx := context.Background()
			var first, open time.Duration
			var after latencies
			var peak, rss []float64
			i := 0
			for b.Loop() {
				b.StopTimer()
				debug.FreeOSMemory()
				base, rerr := procmem.ResetPeak()
				hasRSS := rerr == nil
				b.StartTimer()
				start := time.Now()
				m, err := engram.New(engram.Tier1, engram.WithDir(dir))
				if err != nil {
					b.Fatal(err)
				}
				opened := time.Now()
				search := func() {
					res, err := m.Search(ctx, engram.SearchOptions{Query: qs[i%len(qs)]})
					if err == nil && len(res) == 0 {
						err = errors.New("no results")
					}
					if err != nil {
						b.Fatalf("%q: %v", qs[i%len(qs)], err)
					}
					i++
				}
				search()
				first += time.Since(start)
				open += opened.Sub(start)
				b.StopTimer()
				for end := time.Now().Add(*openTextWindow); time.Now().Before(end); {
					t := time.Now()
					search()
					after = append(after, time.Since(t))
				}
				if hasRSS {
					if now, hwm, err := procmem.Resident(); err == nil {
						peak, rss = append(peak, float64(hwm-base)/(1<<20)), append(rss, float64(now-base)/(1<<20))
					}
				}
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "first-ms")
			b.ReportMetric(float64(open.Microseconds())/1000/float64(b.N), "open-ms")
			if len(after) > 0 {
				slices.Sort(after)
				b.ReportMetric(float64(after[len(after)/2].Microseconds()), "after-p50-µs")
				b.ReportMetric(float64(after[len(after)*99/100].Microseconds()), "after-p99-µs")
				b.ReportMetric(float64(after[len(after)-1].Microseconds())/1000, "after-max-ms")
			}
			if len(peak) > 0 {
				b.ReportMetric(median(peak), "rss-peak-MB")
				b.ReportMetric(median(rss), "rss-after-MB")
			}
		})
	}
}

// median returns the middle of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

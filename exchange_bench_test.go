package engram_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/engram-go/engram"
)

var exchangeSizes = flag.String("exchange.sizes", "10000",
	"the sizes of BenchmarkExchange's memories, comma-separated (100000 builds for minutes: run it with -benchtime 1x)")

// BenchmarkExchange measures, for memories of semantic entries of each
// size (benchEntries, a fixed seed), in one run so that their ratios are
// measured alike: an export (records/s), the import of that file into an
// empty memory, and StoreBatch of the same entries into an empty memory
// in one call, with auto-linking on (the default) and off (entries/s).
// Opening and closing the memories are not timed.
func BenchmarkExchange(b *testing.B) {
	for _, f := range strings.Split(*exchangeSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-exchange.sizes: %v", err)
		}
		ctx := context.Background()
		entries := benchEntries(17, n)
		open := func(b *testing.B, autolink bool) *engram.Memory {
			cfg := engram.DefaultConfig()
			cfg.Zettelkasten.Enabled = autolink
			m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()), engram.WithConfig(cfg))
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
		src := open(b, false)
		for i := 0; i < n; i += 10000 {
			if _, err := src.Semantic().StoreBatch(ctx, entries[i:min(n, i+10000)]); err != nil {
				b.Fatal(err)
			}
		}
		var file bytes.Buffer
		if err := src.Export(ctx, &file, engram.ExportOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("N=%d/op=export", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := src.Export(ctx, io.Discard, engram.ExportOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*(n+2))/b.Elapsed().Seconds(), "records/s")
		})
		// each runs op on an empty memory per iteration, timing op only.
		each := func(b *testing.B, autolink bool, op func(m *engram.Memory) error) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				m := open(b, autolink)
				b.StartTimer()
				if err := op(m); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "entries/s")
		}
		b.Run(fmt.Sprintf("N=%d/op=import", n), func(b *testing.B) {
			each(b, true, func(m *engram.Memory) error {
				_, err := m.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{})
				return err
			})
		})
		for _, autolink := range []bool{true, false} {
			b.Run(fmt.Sprintf("N=%d/op=storebatch/autolink=%v", n, autolink), func(b *testing.B) {
				each(b, autolink, func(m *engram.Memory) error {
					_, err := m.Semantic().StoreBatch(ctx, entries)
					return err
				})
			})
		}
		if err := src.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

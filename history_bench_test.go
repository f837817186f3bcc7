package engram_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/engram-go/engram"
)

// BenchmarkHistoryCost stores semantic entries with history off and on,
// one per transaction (op=store, into a memory of 10K entries) and in
// batches of 1,000 (op=batch), with auto-linking off: the price of
// recording every change, a trigger's insert per row.
func BenchmarkHistoryCost(b *testing.B) {
	for _, history := range []bool{false, true} {
		cfg := engram.DefaultConfig()
		cfg.Zettelkasten.Enabled = false
		cfg.History.Enabled = history
		b.Run(fmt.Sprintf("op=store/history=%v", history), func(b *testing.B) {
			dir := b.TempDir()
			openBench(b, dir, 10_000, 0).Close()
			m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithConfig(cfg))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			ctx := context.Background()
			entries := benchEntries(3, 1<<16)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := m.Semantic().Store(ctx, entries[i%len(entries)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("op=batch/history=%v", history), func(b *testing.B) { benchStoreBatch(b, cfg) })
	}
}

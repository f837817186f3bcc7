package engram_test

import (
	"context"
	"fmt"
	"io"
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
		b.Run(fmt.Sprintf("op=store/history=%v", history), func(b *testing.B) { benchStoreOne(b, openTier1Dir, cfg) })
		b.Run(fmt.Sprintf("op=batch/history=%v", history), func(b *testing.B) { benchStoreBatch(b, cfg) })
	}
}

// BenchmarkHistoryRead reads the history of a memory of 10K entries, a
// tenth of them updated twice: one entry's (op=history), the newest 1,000
// changes (op=changes) and an export with history (op=export): what
// putting entries written in the compact forms back together costs.
func BenchmarkHistoryRead(b *testing.B) {
	const n = 10_000
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	entries := benchEntries(17, n)
	var ids []string
	for i := 0; i < n; i += 1000 {
		got, err := m.Semantic().StoreBatch(ctx, entries[i:i+1000])
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, got...)
	}
	for i := 0; i < n; i += 10 {
		for _, tag := range []string{"first", "second"} {
			if _, err := m.Semantic().Update(ctx, ids[i], engram.SemanticPatch{Tags: &[]string{tag}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("op=history", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if h, err := m.History(ctx, ids[(i*10)%n]); err != nil || len(h) != 3 {
				b.Fatal(err, len(h))
			}
		}
	})
	b.Run("op=changes", func(b *testing.B) {
		for b.Loop() {
			if h, err := m.Changes(ctx, engram.ChangeQuery{Limit: 1000, Newest: true}); err != nil || len(h) != 1000 {
				b.Fatal(err, len(h))
			}
		}
	})
	b.Run("op=export", func(b *testing.B) {
		for b.Loop() {
			if err := m.Export(ctx, io.Discard, engram.ExportOptions{History: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

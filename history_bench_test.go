package engram_test

import (
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
		b.Run(fmt.Sprintf("op=store/history=%v", history), func(b *testing.B) { benchStoreOne(b, openTier1Dir, cfg) })
		b.Run(fmt.Sprintf("op=batch/history=%v", history), func(b *testing.B) { benchStoreBatch(b, cfg) })
	}
}

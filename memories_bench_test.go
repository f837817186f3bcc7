package engram_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/engram-go/engram"
)

// BenchmarkMemoryGetList reads memories of any kind from a memory of 10K
// semantic entries and 10K episodes: one by ID (op=get-semantic, found
// by the first kind Get looks in; op=get-episode, by the second), and the
// newest page of 50 of every kind (op=list).
func BenchmarkMemoryGetList(b *testing.B) {
	const n = 10_000
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	entries := benchEntries(23, n)
	var sem, eps []string
	for i := 0; i < n; i += 1000 {
		got, err := m.Semantic().StoreBatch(ctx, entries[i:i+1000])
		if err != nil {
			b.Fatal(err)
		}
		sem = append(sem, got...)
		batch := make([]engram.Episode, 1000)
		for j := range batch {
			batch[j] = engram.Episode{Content: fmt.Sprintf("event %d: %s", i+j, entries[i+j].Content), Type: engram.EventTaskCompleted}
		}
		got, err = m.Episodic().LogBatch(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		eps = append(eps, got...)
	}
	for _, c := range []struct {
		op  string
		ids []string
	}{{"get-semantic", sem}, {"get-episode", eps}} {
		b.Run("op="+c.op, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := m.Get(ctx, c.ids[(i*37)%n]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("op=list", func(b *testing.B) {
		for b.Loop() {
			if p, err := m.List(ctx, engram.MemoryQuery{}); err != nil || len(p.Records) != 50 {
				b.Fatal(err, len(p.Records))
			}
		}
	})
}

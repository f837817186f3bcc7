package engram_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

// BenchmarkStoreAgent times Store.Agent: getting an open agent's Memory
// (one of 1,000, in turn), making a new agent's file under a base
// directory, and opening an agent not open yet on a shared file (which
// then closes, so that every iteration opens one).
func BenchmarkStoreAgent(b *testing.B) {
	ctx := context.Background()
	b.Run("op=open-agent", func(b *testing.B) {
		st := openStore(b, engram.WithPath(filepath.Join(b.TempDir(), "memory.db")))
		ids := make([]string, 1000)
		for i := range ids {
			ids[i] = fmt.Sprintf("agent-%04d", i)
			if _, err := st.Agent(ids[i]); err != nil {
				b.Fatal(err)
			}
		}
		i := 0
		for b.Loop() {
			if _, err := st.Agent(ids[i%len(ids)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("op=new-agent-dir", func(b *testing.B) {
		// Under a base directory: every iteration makes a new agent's
		// file and opens it; past Storage.OpenFiles, the least recently
		// used file is parked.
		st := openStore(b, engram.WithDir(b.TempDir()))
		i := 0
		for b.Loop() {
			if _, err := st.Agent(fmt.Sprintf("agent-%d", i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("op=first-call", func(b *testing.B) {
		st := openStore(b, engram.WithPath(filepath.Join(b.TempDir(), "memory.db")))
		m, err := st.Agent("seeded")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the file has a schema and rows"}); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			m, err := st.Agent(fmt.Sprintf("agent-%d", i))
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := m.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			i++
		}
	})
}

// BenchmarkStoreSearch times the search benchmark's text search at 10K
// entries through New and through a Store over the same file (a copy of
// it) that has 100 other agents open, with rows of their own: the store's
// sharing must not slow an agent's search.
func BenchmarkStoreSearch(b *testing.B) {
	const n, others = 10_000, 100
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "memory.db")
	copyFile(b, filepath.Join(searchDir(b, n), engram.DefaultAgent, "memory.db"), path)
	st := openStore(b, engram.WithPath(path))
	for i := range others {
		m, err := st.Agent(fmt.Sprintf("other-%03d", i))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Semantic().StoreBatch(ctx, benchEntries(uint64(i), 10)); err != nil {
			b.Fatal(err)
		}
	}
	shared, err := st.Agent(engram.DefaultAgent)
	if err != nil {
		b.Fatal(err)
	}
	alone, err := engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		b.Fatal(err)
	}
	defer alone.Close()
	qs := benchdata.NewCorpus(n).Questions(512)
	for _, c := range []struct {
		name string
		m    *engram.Memory
	}{{"via=new", alone}, {"via=store", shared}} {
		b.Run(c.name, func(b *testing.B) {
			lat := make(latencies, 0, 4096)
			i := 0
			for b.Loop() {
				start := time.Now()
				res, err := c.m.Search(ctx, engram.SearchOptions{Query: qs[i%len(qs)]})
				if err == nil && len(res) == 0 {
					err = errors.New("no results")
				}
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			lat.report(b)
		})
	}
}

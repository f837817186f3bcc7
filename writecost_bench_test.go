package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
)

var writeSizes = flag.String("writecost.sizes", "100000",
	"the sizes of BenchmarkWriteCost's memories, comma-separated")

// BenchmarkWriteCost times one write of an agent's loop, each its own
// transaction, on a copy of the search benchmarks' memory of N entries
// (see searchDir), against the bare driver's FTS-indexed insert of the
// same texts into a table of N rows (op=bare: benchdata.BaselineDDL's
// table and trigger, engram's pragmas, a prepared INSERT), in one binary
// so that one run compares them: op=store is Semantic.Store with
// auto-linking on (the default) and off, op=log Episodic.Log. The Memory
// has searched and stored before the timed loop, as a running agent's
// has: its text index and auto-linking's index are built, and follow
// the writes.
func BenchmarkWriteCost(b *testing.B) {
	for _, n := range parseSizes(b, "writecost.sizes", *writeSizes) {
		texts := benchEntries(3, 1<<14)
		b.Run(fmt.Sprintf("N=%d/op=bare", n), func(b *testing.B) {
			db, ins := openBareN(b, n)
			defer db.Close()
			lat := make(latencies, 0, 4096)
			b.ReportAllocs()
			cpu := cpuTime()
			i := 0
			for b.Loop() {
				e := texts[i%len(texts)]
				start := time.Now()
				tx, err := db.Begin()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tx.Stmt(ins).Exec(fmt.Sprintf("id-%d", i), e.Content, e.Content, e.Importance, `["x"]`, i); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			lat.report(b)
			reportCPU(b, cpu)
		})
		for _, autolink := range []bool{true, false} {
			b.Run(fmt.Sprintf("N=%d/op=store/autolink=%v", n, autolink), func(b *testing.B) {
				m := openWarm(b, n, autolink)
				defer m.Close()
				ctx := context.Background()
				lat := make(latencies, 0, 4096)
				b.ReportAllocs()
				cpu := cpuTime()
				i := 0
				for b.Loop() {
					start := time.Now()
					if _, err := m.Semantic().Store(ctx, texts[i%len(texts)]); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
					i++
				}
				lat.report(b)
				reportCPU(b, cpu)
			})
		}
		b.Run(fmt.Sprintf("N=%d/op=log", n), func(b *testing.B) {
			m := openWarm(b, n, true)
			defer m.Close()
			ctx := context.Background()
			lat := make(latencies, 0, 4096)
			b.ReportAllocs()
			cpu := cpuTime()
			i := 0
			for b.Loop() {
				start := time.Now()
				_, err := m.Episodic().Log(ctx, engram.Episode{Content: texts[i%len(texts)].Content,
					SessionID: fmt.Sprintf("session-%d", i/50), TaskID: fmt.Sprintf("task-%d", i/10)})
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			lat.report(b)
			reportCPU(b, cpu)
		})
	}
}

// reportCPU reports the process's CPU time per op since cpu (a cpuTime
// reading), background work included.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

var bulkSize = flag.Int("bulk.size", 100_000, "the number of memories BenchmarkBulkBuild builds")

// BenchmarkBulkBuild builds a memory of the search benchmarks' corpus of
// bulk.size texts, as bench/peers' text section builds engram's (the
// yardstick there is bleve indexing the same texts): op=storebatch
// stores them as semantic entries with auto-linking on (the default),
// 1,000 per StoreBatch, then merges the full-text indexes (Optimize);
// op=import imports that memory's export into an empty memory;
// op=logbatch logs the texts as episodes, 1,000 per LogBatch. Each op
// builds a new memory; cpu-s/op is the process's CPU time. Run it with
// -benchtime 1x.
func BenchmarkBulkBuild(b *testing.B) {
	n := *bulkSize
	ctx := context.Background()
	docs := benchdata.NewCorpus(n).Docs
	entries := make([]engram.SemanticEntry, n)
	rng := rand.New(rand.NewPCG(3, 3))
	for i, d := range docs {
		entries[i] = engram.SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100}
	}
	var file []byte
	build := func(b *testing.B, op func(m *engram.Memory) error) {
		cpu := cpuTime()
		for b.Loop() {
			m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()))
			if err != nil {
				b.Fatal(err)
			}
			if err := op(m); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if file == nil {
				var buf bytes.Buffer
				if err := m.Export(ctx, &buf, engram.ExportOptions{}); err != nil {
					b.Fatal(err)
				}
				file = buf.Bytes()
			}
			if err := m.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "memories/s")
	}
	b.Run(fmt.Sprintf("N=%d/op=storebatch", n), func(b *testing.B) {
		build(b, func(m *engram.Memory) error {
			for i := 0; i < n; i += 1000 {
				if _, err := m.Semantic().StoreBatch(ctx, entries[i:min(n, i+1000)]); err != nil {
					return err
				}
			}
			return m.Optimize(ctx)
		})
	})
	b.Run(fmt.Sprintf("N=%d/op=import", n), func(b *testing.B) {
		if file == nil {
			b.Skip("op=storebatch makes the file")
		}
		build(b, func(m *engram.Memory) error {
			_, err := m.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
			return err
		})
	})
	b.Run(fmt.Sprintf("N=%d/op=logbatch", n), func(b *testing.B) {
		eps := make([]engram.Episode, n)
		for i, d := range docs {
			eps[i] = engram.Episode{Content: d, SessionID: fmt.Sprintf("session-%d", i/50)}
		}
		build(b, func(m *engram.Memory) error {
			for i := 0; i < n; i += 1000 {
				if _, err := m.Episodic().LogBatch(ctx, eps[i:min(n, i+1000)]); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// openWarm opens a copy of the search benchmarks' memory of n entries,
// with auto-linking on or off, and searches and stores once, so that the
// text index and (with auto-linking) its stem index are built.
func openWarm(b *testing.B, n int, autolink bool) *engram.Memory {
	b.Helper()
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = autolink
	m, err := engram.New(engram.Tier1, engram.WithDir(copyDir(b, searchDir(b, n))), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c := benchdata.NewCorpus(n)
	if _, err := m.Search(ctx, engram.SearchOptions{Query: c.Questions(1)[0]}); err != nil {
		b.Fatal(err)
	}
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c.Docs[0] + " warm", Importance: 0.5}); err != nil {
		b.Fatal(err)
	}
	engram.AwaitTextIndex(m)
	engram.AwaitLinkIndex(m)
	return m
}

// openBareN opens a new bare-driver database (see
// BenchmarkBaselineInsertFTS) holding the search benchmarks' corpus of n
// texts, and returns it with its prepared INSERT.
func openBareN(b *testing.B, n int) (*sql.DB, *sql.Stmt) {
	b.Helper()
	db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "bare.db")+benchdata.BaselineDSN)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range benchdata.BaselineDDL(false, 0) {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	ins, err := db.Prepare(`INSERT INTO t (id, agent_id, content, summary, importance, tags, created_at) VALUES (?, 'default', ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range benchdata.NewCorpus(n).Docs {
		if _, err := tx.Stmt(ins).Exec(fmt.Sprintf("pre-%d", i), d, d, 0.5, `["x"]`, i); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return db, ins
}

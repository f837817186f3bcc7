package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/locomodata"
	"github.com/engram-go/engram/internal/pgtest"
)

// dataPath is where CI finds the shared data: ../shared beside the
// repository.
const dataPath = "../../../../shared/data/locomo/locomo10.json"

// Recall the harness reached with the default configuration, minus one
// point: a change that loses more than that fails CI. Session 14 raised
// it by what scoring a match with the turn beside it gained out of
// sample on the half that gained least (R@5 +0.013, R@10 +0.006; see
// BENCHMARKS.md), not by its gain on the whole set; session 19 by what
// scoring sessions and questions gained so (R@5 +0.004, R@10 +0.010, on
// conversations 1–5 at the setting chosen on 6–10).
const (
	floorR5  = 0.627 - 0.01
	floorR10 = 0.712 - 0.01
)

func TestLoCoMoRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole LoCoMo benchmark")
	}
	d, err := locomodata.Load(dataPath)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have the LoCoMo data: %v", err)
		}
		t.Skipf("LoCoMo data not found: %v", err)
	}
	rep, err := run(context.Background(), d, nil, engram.DefaultConfig(), engram.Tier1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	o := rep.Overall()
	if o.Questions != 1536 {
		t.Errorf("questions = %d, want 1536", o.Questions)
	}
	if r := o.Recall; r[1] < floorR5 || r[2] < floorR10 {
		t.Errorf("R@5 = %.3f, R@10 = %.3f; want at least %.3f and %.3f", r[1], r[2], floorR5, floorR10)
	}
}

// BenchmarkSearch asks LoCoMo's questions, each of the ten conversations
// held by its own Memory as in the recall harness, the Limit being 10 as a
// peer's top-10 would be: one op is one question, in a fixed order. It
// reports the p50 and p90 per question.
func BenchmarkSearch(b *testing.B) {
	d, err := locomodata.Load(dataPath)
	if err != nil {
		b.Skipf("LoCoMo data not found: %v", err)
	}
	ctx := context.Background()
	type ask struct {
		m *engram.Memory
		q string
	}
	var asks []ask
	for _, c := range d {
		sessions, err := c.Sessions()
		if err != nil {
			b.Fatal(err)
		}
		m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithAgent("locomo"))
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		if _, err := m.Episodic().LogBatch(ctx, logged(locomodata.Episodes(sessions))); err != nil {
			b.Fatal(err)
		}
		for _, q := range c.QA {
			if q.Category >= 1 && q.Category <= 4 {
				asks = append(asks, ask{m, q.Question})
			}
		}
	}
	lat := make([]time.Duration, 0, len(asks))
	i := 0
	for b.Loop() {
		a := asks[i%len(asks)]
		i++
		start := time.Now()
		if _, err := a.m.Episodic().Search(ctx, engram.SearchOptions{Query: a.q, Limit: 10}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds()), "p90-µs")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pgtest.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestLoCoMoPostgres runs the harness on the first conversation with its
// memories on PostgreSQL (-postgres) and requires SQLite's figures, in
// Tier 1 (twice on one database: the first run's agents are erased) and
// in Tier 2, and refuses an agent that already has memories. It is
// skipped where PostgreSQL or the data is not installed.
func TestLoCoMoPostgres(t *testing.T) {
	d, err := locomodata.Load(dataPath)
	if err != nil {
		t.Skipf("LoCoMo data not found: %v", err)
	}
	ctx := context.Background()
	convs := []int{0}
	dsn := pgtest.NewDatabase(t).DSN
	defer func() { postgresDSN = "" }()
	for _, tier := range []engram.Tier{engram.Tier1, engram.Tier1, engram.Tier2} {
		postgresDSN = ""
		want, err := run(ctx, d, convs, engram.DefaultConfig(), tier)
		if err != nil {
			t.Fatal(err)
		}
		postgresDSN = dsn
		got, err := run(ctx, d, convs, engram.DefaultConfig(), tier)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("%s on PostgreSQL:\n%s\nin SQLite's memory:\n%s", tier, got, want)
		}
	}

	m, err := engram.New(engram.Tier1, engram.WithPostgres(postgresDSN), engram.WithAgent(agentOf(d[0])))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "left by a run that failed"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, d, convs, engram.DefaultConfig(), engram.Tier1); err == nil || !strings.Contains(err.Error(), "already has memories") {
		t.Fatalf("a conversation's agent with memories: %v, want an error saying so", err)
	}
}

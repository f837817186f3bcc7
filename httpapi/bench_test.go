package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/stmtlist"
)

// benchStore is a store of one agent, "bench", with 10,000 semantic
// entries of benchdata's corpus, built once per process.
var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

const benchN = 10_000

func TestMain(m *testing.M) {
	// The tests check that every statement they run is in the list the
	// PostgreSQL engine's tests prepare (see internal/stmtlist); the
	// benchmarks do not.
	bench := flag.Lookup("test.bench")
	finish := stmtlist.Start("../"+stmtlist.Golden, bench == nil || bench.Value.String() == "")
	code := finish(m.Run())
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchAgents is a provider of the agents under benchDir, one Memory each.
type benchAgents struct {
	mu sync.Mutex
	m  map[string]*engram.Memory
}

func (a *benchAgents) Agent(id string) (*engram.Memory, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.m[id]; m != nil {
		return m, nil
	}
	m, err := engram.New(engram.Tier1, engram.WithDir(benchDir), engram.WithAgent(id))
	if err == nil {
		a.m[id] = m
	}
	return m, err
}

func (a *benchAgents) Agents(ctx context.Context) ([]string, error) {
	return engram.ListAgents(ctx, engram.WithDir(benchDir))
}

func buildBench(b *testing.B) {
	benchOnce.Do(func() {
		if benchDir, benchErr = os.MkdirTemp("", "engram-httpapi-bench"); benchErr != nil {
			return
		}
		m, err := engram.New(engram.Tier1, engram.WithDir(benchDir), engram.WithAgent("bench"))
		if err != nil {
			benchErr = err
			return
		}
		defer m.Close()
		c := benchdata.NewCorpus(benchN)
		rng := rand.New(rand.NewPCG(3, 3))
		for start := 0; start < benchN; start += 1000 {
			batch := make([]engram.SemanticEntry, 0, 1000)
			for _, d := range c.Docs[start:min(benchN, start+1000)] {
				batch = append(batch, engram.SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100})
			}
			if _, benchErr = m.Semantic().StoreBatch(context.Background(), batch); benchErr != nil {
				return
			}
		}
		benchErr = m.Optimize(context.Background())
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
}

// BenchmarkSearchOverHTTP is a pair: the same searches of an agent of
// 10,000 memories in process (Memory.Search) and through the API (POST
// /v1/search, a plain search, over loopback HTTP, the answer decoded by
// the client). The difference of their p50s is what the API costs.
func BenchmarkSearchOverHTTP(b *testing.B) {
	buildBench(b)
	agents := &benchAgents{m: map[string]*engram.Memory{}}
	b.Cleanup(func() {
		for _, m := range agents.m {
			m.Close()
		}
	})
	m, err := agents.Agent("bench")
	if err != nil {
		b.Fatal(err)
	}
	api, err := httpapi.New(agents, httpapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	qs := benchdata.NewCorpus(benchN).Questions(500)
	ctx := context.Background()

	b.Run(fmt.Sprintf("in-process/N=%d", benchN), func(b *testing.B) {
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			res, err := m.Search(ctx, engram.SearchOptions{Query: qs[i%len(qs)]})
			lat = append(lat, time.Since(start))
			if err != nil || len(res) == 0 {
				b.Fatalf("search: %v, %d results", err, len(res))
			}
		}
		reportLatencies(b, lat)
	})
	b.Run(fmt.Sprintf("http/N=%d", benchN), func(b *testing.B) {
		client := srv.Client()
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			body, _ := json.Marshal(map[string]any{"profile": "bench", "query": qs[i%len(qs)], "recall": false})
			start := time.Now()
			resp, err := client.Post(srv.URL+"/v1/search", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			var got struct {
				Results []json.RawMessage `json:"results"`
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil {
				err = json.Unmarshal(data, &got)
			}
			lat = append(lat, time.Since(start))
			if err != nil || resp.StatusCode != http.StatusOK || len(got.Results) == 0 {
				b.Fatalf("POST /v1/search: %v, %d, %s", err, resp.StatusCode, data)
			}
		}
		reportLatencies(b, lat)
	})
}

// reportLatencies reports the p50 and p99 of the calls.
func reportLatencies(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

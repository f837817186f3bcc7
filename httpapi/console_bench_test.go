package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/benchdata"
)

// consoleCall is one API call a console page makes.
type consoleCall struct {
	method, path string
	body         any
}

// BenchmarkConsolePages measures the server time of the API calls each
// page of the web console makes (package console: the same calls, in
// the same order), over an agent of 10,000 memories: 8,000 semantic
// entries, 1,000 episodes and 1,000 facts, among them a hub entity with
// 200 neighbours and a slot whose value was superseded. A page's time is
// its calls' handler times added up (no network; the browser makes some
// of them at once, so what a person waits is less), reported as p50 and
// p99 per page.
func BenchmarkConsolePages(b *testing.B) {
	dir := b.TempDir()
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithAgent("console"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c := benchdata.NewCorpus(8000)
	for start := 0; start < len(c.Docs); start += 1000 {
		var batch []engram.SemanticEntry
		for _, d := range c.Docs[start:min(len(c.Docs), start+1000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: 0.5})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	var recs []engram.Record
	for i := range 1000 {
		recs = append(recs, engram.Record{Episode: &engram.Episode{Content: c.Docs[i] + " (asked again)", Type: engram.EventObservation}})
	}
	if _, err := m.AddAll(ctx, recs); err != nil {
		b.Fatal(err)
	}
	var facts []engram.Fact
	for i := range 200 {
		facts = append(facts, engram.Fact{Subject: "hub", Predicate: "connects", Object: fmt.Sprintf("node-%03d", i)})
	}
	for i := range 796 {
		facts = append(facts, engram.Fact{Subject: fmt.Sprintf("node-%03d", i%200), Predicate: "relates_to", Object: fmt.Sprintf("thing-%03d", i)})
	}
	facts = append(facts,
		engram.Fact{Subject: "Ada", Predicate: "lives_in", Object: "Paris", ValidFrom: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)},
		engram.Fact{Subject: "Ada", Predicate: "knows", Object: "hub"})
	if _, err := m.Facts().AssertAll(ctx, facts); err != nil {
		b.Fatal(err)
	}
	if _, err := m.Facts().Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives_in", Object: "Berlin", ValidFrom: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		b.Fatal(err)
	}
	if err := m.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	st, err := m.Stats(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// The corpus may repeat a text, which engram stores once.
	if n := st.Semantic + st.Episodes + st.Facts; n < 9_990 {
		b.Fatalf("the agent holds %d memories, not about 10,000", n)
	}
	m.Close()

	agents := &consoleAgents{dir: dir}
	b.Cleanup(agents.close)
	api, err := httpapi.New(agents, httpapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// A memory to show: the first search's best result.
	qs := c.Questions(200)
	var found struct {
		Results []struct{ ID string } `json:"results"`
	}
	serve(b, api, consoleCall{"POST", "/v1/search", map[string]any{"profile": "console", "query": qs[0], "recall": false}}, &found)
	if len(found.Results) == 0 {
		b.Fatal("the search found nothing")
	}
	id := url.PathEscape(found.Results[0].ID)

	pages := []struct {
		name  string
		calls func(i int) []consoleCall
	}{
		{"agents", func(int) []consoleCall {
			return []consoleCall{{"GET", "/v1/profiles", nil}, {"GET", "/v1/stats?profile=console", nil}}
		}},
		{"search", func(i int) []consoleCall {
			return []consoleCall{{"POST", "/v1/search", map[string]any{"profile": "console", "query": qs[i%len(qs)], "recall": false, "limit": 30}}}
		}},
		{"memory", func(int) []consoleCall {
			return []consoleCall{{"GET", "/v1/memories/" + id + "?profile=console", nil},
				{"GET", "/v1/memories/" + id + "/links?profile=console", nil},
				{"GET", "/v1/memory/" + id + "/history?profile=console", nil}}
		}},
		{"facts-hub", func(int) []consoleCall {
			return []consoleCall{{"GET", "/v1/facts?profile=console&entity=hub&limit=500", nil},
				{"GET", "/v1/graph/neighbors?profile=console&entity=hub&max_results=500", nil},
				{"GET", "/v1/facts?profile=console&entity=hub&predicate=connects&history=true", nil}}
		}},
		{"facts-as-of", func(int) []consoleCall {
			return []consoleCall{{"GET", "/v1/facts?profile=console&entity=Ada&limit=500&as_of=2022-06-01T23:59:59Z", nil},
				{"GET", "/v1/graph/neighbors?profile=console&entity=Ada&max_results=500", nil},
				{"GET", "/v1/facts?profile=console&entity=Ada&predicate=lives_in&history=true", nil}}
		}},
		{"context", func(i int) []consoleCall {
			return []consoleCall{{"POST", "/v1/context", map[string]any{"profile": "console", "query": qs[i%len(qs)], "max_tokens": 800}}}
		}},
		{"changes", func(int) []consoleCall {
			return []consoleCall{{"GET", "/v1/changes?profile=console&limit=25", nil}}
		}},
	}
	for _, p := range pages {
		b.Run(fmt.Sprintf("%s/N=10000", p.name), func(b *testing.B) {
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				var took time.Duration
				for _, call := range p.calls(i) {
					took += serve(b, api, call, nil)
				}
				lat = append(lat, took)
			}
			reportLatencies(b, lat)
		})
	}
}

// serve runs one call through the API's handler, fails on an answer that
// is not a success, decodes it into out when out is not nil, and returns
// the handler's time.
func serve(b *testing.B, api http.Handler, c consoleCall, out any) time.Duration {
	var body *bytes.Reader
	if c.body != nil {
		data, err := json.Marshal(c.body)
		if err != nil {
			b.Fatal(err)
		}
		body = bytes.NewReader(data)
	} else {
		body = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(c.method, "http://127.0.0.1:7077"+c.path, body)
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	start := time.Now()
	api.ServeHTTP(w, req)
	took := time.Since(start)
	if w.Code >= 300 {
		b.Fatalf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
	}
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			b.Fatal(err)
		}
	}
	return took
}

// consoleAgents opens the agents under dir, one Memory each.
type consoleAgents struct {
	dir string
	benchAgents
}

func (d *consoleAgents) Agent(id string) (*engram.Memory, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]*engram.Memory{}
	}
	if m := d.m[id]; m != nil {
		return m, nil
	}
	m, err := engram.New(engram.Tier1, engram.WithDir(d.dir), engram.WithAgent(id))
	if err == nil {
		d.m[id] = m
	}
	return m, err
}

func (d *consoleAgents) Agents(ctx context.Context) ([]string, error) {
	return engram.ListAgents(ctx, engram.WithDir(d.dir))
}

func (d *consoleAgents) close() {
	for _, m := range d.m {
		m.Close()
	}
}

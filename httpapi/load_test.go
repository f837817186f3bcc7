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
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/httpapi"
)

var (
	loadDuration = flag.Duration("load.duration", 3*time.Second, "how long TestConcurrentLoad runs (30s for the issue's figures)")
	loadMax      = flag.Int("load.max", 1_000_000, "the most requests TestConcurrentLoad sends")
)

// TestConcurrentLoad runs 32 clients on loopback against 10 agents for
// -load.duration (at most -load.max requests), mixing ingest, search
// (recall and plain) and graph calls. Every request must succeed, and
// every write acknowledged must be there at the end: each ingest's memory
// and fact, read back in process. It logs the p50 and p99 of each kind of
// call (figures, not assertions: speed is measured, not asserted).
func TestConcurrentLoad(t *testing.T) {
	const clients, nAgents = 32, 10
	e := newEnv(t, httpapi.Options{})
	agentName := func(i int) string { return fmt.Sprintf("load-%02d", i) }
	for i := range nAgents {
		require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule(agentName(i), "note")).Status)
		require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", likesRule(agentName(i))).Status)
	}

	type ack struct{ agent, memory, fact string }
	var (
		mu      sync.Mutex
		acks    []ack
		lat     = map[string][]time.Duration{}
		errs    []string
		sent    int
		stopped bool
	)
	record := func(op string, d time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		lat[op] = append(lat[op], d)
		if err != nil && len(errs) < 20 {
			errs = append(errs, fmt.Sprintf("%s: %v", op, err))
		}
	}
	next := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped || sent >= *loadMax {
			return false
		}
		sent++
		return true
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	call := func(method, path string, body any, out any) error {
		var rd io.Reader
		if body != nil {
			data, _ := json.Marshal(body)
			rd = bytes.NewReader(data)
		}
		req, _ := http.NewRequest(method, e.srv.URL+path, rd)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
		}
		if out != nil {
			return json.Unmarshal(data, out)
		}
		return nil
	}

	deadline := time.Now().Add(*loadDuration)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for n := 0; next(); n++ {
				if time.Now().After(deadline) {
					mu.Lock()
					stopped = true
					mu.Unlock()
					return
				}
				agent := agentName(rng.IntN(nAgents))
				word := fmt.Sprintf("w%d", rng.IntN(500))
				start := time.Now()
				switch op := rng.IntN(10); {
				case op < 4: // ingest: one memory and one fact, both acknowledged
					uniq := fmt.Sprintf("c%dn%d", c, n)
					var got struct {
						Items []struct{ ID string } `json:"items"`
						Facts []struct {
							Fact struct{ ID string } `json:"fact"`
						} `json:"facts"`
					}
					err := call("POST", "/v1/ingest", ingestBody(agent, "note: "+uniq+" about "+word+". "+uniq+" likes "+word), &got)
					if err == nil && (len(got.Items) != 1 || len(got.Facts) != 1) {
						err = fmt.Errorf("ingest stored %d memories and %d facts, want 1 and 1", len(got.Items), len(got.Facts))
					}
					record("ingest", time.Since(start), err)
					if err == nil {
						mu.Lock()
						acks = append(acks, ack{agent, got.Items[0].ID, got.Facts[0].Fact.ID})
						mu.Unlock()
					}
				case op < 6:
					err := call("POST", "/v1/search", map[string]any{"profile": agent, "query": "what about " + word + "?"}, nil)
					record("search-recall", time.Since(start), err)
				case op < 8:
					err := call("POST", "/v1/search", map[string]any{"profile": agent, "query": word, "recall": false}, nil)
					record("search-plain", time.Since(start), err)
				case op < 9:
					err := call("GET", "/v1/graph/triples?profile="+agent+"&entity="+word, nil, nil)
					record("graph-triples", time.Since(start), err)
				default:
					err := call("GET", "/v1/graph/neighbors?profile="+agent+"&entity="+word, nil, nil)
					record("graph-neighbors", time.Since(start), err)
				}
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs, "errors under load")

	// No lost writes: every acknowledged memory and fact is there.
	ctx := context.Background()
	for _, a := range acks {
		m, err := e.agents.Agent(a.agent)
		require.NoError(t, err)
		_, err = m.Semantic().Get(ctx, a.memory)
		require.NoError(t, err, "acknowledged memory %s of %s", a.memory, a.agent)
		_, err = m.Facts().Get(ctx, a.fact)
		require.NoError(t, err, "acknowledged fact %s of %s", a.fact, a.agent)
	}
	total := 0
	for op, ds := range lat {
		total += len(ds)
		slices.Sort(ds)
		t.Logf("%-16s %6d calls  p50 %8v  p99 %8v", op, len(ds), ds[len(ds)/2].Round(time.Microsecond), ds[len(ds)*99/100].Round(time.Microsecond))
	}
	t.Logf("%d requests in %v by %d clients on %d agents, 0 errors; %d writes acknowledged, all found", total, *loadDuration, clients, nAgents, len(acks))
	require.NotEmpty(t, acks)
}

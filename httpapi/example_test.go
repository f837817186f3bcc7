package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
)

// dirAgents hands out the agents of a base directory, one Memory each (an
// *engram.Store does this too).
type dirAgents struct {
	dir  string
	mu   sync.Mutex
	open map[string]*engram.Memory
}

func (d *dirAgents) Agent(id string) (*engram.Memory, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m := d.open[id]; m != nil {
		return m, nil
	}
	m, err := engram.New(engram.Tier1, engram.WithDir(d.dir), engram.WithAgent(id))
	if err == nil {
		d.open[id] = m
	}
	return m, err
}

func (d *dirAgents) Agents(ctx context.Context) ([]string, error) {
	return engram.ListAgents(ctx, engram.WithDir(d.dir))
}

// The API over a directory of agents, with a token. "engram serve" runs it
// with Server.ListenAndServe, which shuts down gracefully and flushes.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "engram-http-example")
	defer os.RemoveAll(dir)
	agents := &dirAgents{dir: dir, open: map[string]*engram.Memory{}}
	token := "a-long-random-secret-token"
	api, err := httpapi.New(agents, httpapi.Options{Tokens: []httpapi.Token{{Secret: token}}})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(api)
	defer srv.Close()

	call := func(method, path, body string, show func(map[string]any) any) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		fmt.Println(resp.StatusCode, show(out))
	}
	call("POST", "/v1/rules", `{"profile": "ada", "name": "employer", "type": "fact",
		"pattern": "\\bI work (?:at|for) (?P<object>[A-Z]\\w+)", "predicate": "works at"}`,
		func(v map[string]any) any { return v["rule"].(map[string]any)["name"] })
	call("POST", "/v1/ingest", `{"profile": "ada", "messages": [{"role": "user", "content": "I work at Acme."}]}`,
		func(v map[string]any) any { return v["stored"] })
	call("GET", "/v1/graph/neighbors?profile=ada&entity=User", "",
		func(v map[string]any) any { return v["neighbors"].([]any)[0].(map[string]any)["entity"] })
	call("GET", "/v1/summary?profile=nobody", "",
		func(v map[string]any) any { return v["summary"].([]any)[0] })
	call("GET", "/v1/summary?profile=Not%20An%20Agent", "",
		func(v map[string]any) any { return v["error"].(map[string]any)["code"] })
	for _, m := range agents.open {
		m.Close()
	}
	// Output:
	// 201 employer
	// 200 1
	// 200 Acme
	// 200 map[count:0 type:semantic]
	// 400 invalid_argument
}

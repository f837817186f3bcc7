package vocab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/internal/vocab"
	"github.com/engram-go/engram/mcpserver"
)

// offences walks a JSON schema (or a whole OpenAPI document) and returns
// what is wrong with its words, each naming transport and where: the
// property names of each object that Check refuses, and every enum value
// that names a kind of memory by an alias instead of its own name.
func offences(transport, where string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			names := slices.Sorted(func(yield func(string) bool) {
				for k := range props {
					if !yield(k) {
						return
					}
				}
			})
			out = append(out, verdicts(transport, where, names)...)
		}
		for _, key := range []string{"enum", "const"} {
			vals, ok := v[key].([]any)
			if s, one := v[key].(string); one {
				vals, ok = []any{s}, true
			}
			if !ok {
				continue
			}
			for _, val := range vals {
				s, _ := val.(string)
				if t, err := engram.ParseMemoryType(s); err == nil && engram.MemoryType(s) != t {
					out = append(out, fmt.Sprintf("%s: %s: the kind %q is an alias of %q: use %q", transport, where, s, t, t))
				}
			}
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			out = append(out, offences(transport, where+"/"+k, v[k])...)
		}
	case []any:
		for i, e := range v {
			out = append(out, offences(transport, fmt.Sprintf("%s/%d", where, i), e)...)
		}
	}
	return out
}

func verdicts(transport, where string, names []string) []string {
	var out []string
	for _, v := range vocab.Check(transport, names) {
		if v.Known {
			out = append(out, fmt.Sprintf("%s: %s: %q is an alias of %q, which is not beside it: use %q", transport, where, v.Name, v.Canonical, v.Canonical))
		} else {
			out = append(out, fmt.Sprintf("%s: %s: %q is not a word of internal/vocab: use the word there, or add it", transport, where, v.Name))
		}
	}
	return out
}

// TestOpenAPIUsesTheWords: every parameter and every property of the
// HTTP API's OpenAPI document is a word of the list, or an alias beside
// its word, and its enums name kinds by their own names.
func TestOpenAPIUsesTheWords(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(httpapi.OpenAPI(), &doc))
	shared := doc["components"].(map[string]any)["parameters"].(map[string]any)
	var bad []string
	paths := doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(func(yield func(string) bool) {
		for k := range paths {
			if !yield(k) {
				return
			}
		}
	}) {
		for method, op := range paths[path].(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok {
				continue
			}
			var names []string
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				p := p.(map[string]any)
				if ref, ok := p["$ref"].(string); ok {
					p = shared[strings.TrimPrefix(ref, "#/components/parameters/")].(map[string]any)
				}
				names = append(names, p["name"].(string))
			}
			where := strings.ToUpper(method) + " " + path
			bad = append(bad, verdicts("http", where+" parameters", names)...)
			bad = append(bad, offences("http", where, op)...)
		}
	}
	bad = append(bad, offences("http", "components", doc["components"])...)
	sort.Strings(bad)
	assert.Empty(t, bad, "the HTTP API's words:\n%s", strings.Join(bad, "\n"))
}

// TestMCPToolsUseTheWords: every argument of every MCP tool, read from
// the server's tool list, is a word of the list, or an alias beside its
// word, and its enums name kinds by their own names.
func TestMCPToolsUseTheWords(t *testing.T) {
	cs := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Tools)
	var bad []string
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema any
		require.NoError(t, json.Unmarshal(b, &schema))
		bad = append(bad, offences("mcp", "tool "+tool.Name, schema)...)
	}
	assert.Empty(t, bad, "the MCP tools' words:\n%s", strings.Join(bad, "\n"))
}

func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	s, err := mcpserver.New(testutil.NewAgents(t), mcpserver.Options{})
	require.NoError(t, err)
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// TestCheck: a word passes, an unknown word and an alias alone do not,
// an alias beside its word does; the command line spells in kebab-case
// and HTTP names the agent profile.
func TestCheck(t *testing.T) {
	assert.Empty(t, vocab.Check("mcp", []string{"id", "as_of", "known_at", "agent"}))
	assert.Equal(t, []vocab.Verdict{{Name: "asOf", Canonical: "as_of", Known: true}}, vocab.Check("http", []string{"asOf", "profile"}))
	assert.Empty(t, vocab.Check("http", []string{"as_of", "asOf", "profile", "profileId"}))
	assert.Equal(t, []vocab.Verdict{{Name: "agent"}}, vocab.Check("http", []string{"agent"}))
	assert.Equal(t, []vocab.Verdict{{Name: "profile"}}, vocab.Check("mcp", []string{"profile"}))
	assert.Equal(t, []vocab.Verdict{{Name: "asOf", Canonical: "as_of", Known: true}}, vocab.Check("mcp", []string{"asOf"}), "no alias is taken without its word")
	assert.Equal(t, []vocab.Verdict{{Name: "kinds", Canonical: "types", Known: true}}, vocab.Check("mcp", []string{"kinds"}))
	assert.Empty(t, vocab.Check("cli", []string{"known-at", "task-id", "task"}))
	assert.Equal(t, []vocab.Verdict{{Name: "known_at"}}, vocab.Check("cli", []string{"known_at"}))
	assert.Equal(t, []vocab.Verdict{{Name: "task", Canonical: "task-id", Known: true}}, vocab.Check("cli", []string{"task"}))
}

// TestWordsAreOneEach: each word is listed once, in snake_case, and no
// alias is another word's alias too.
func TestWordsAreOneEach(t *testing.T) {
	seen := map[string]bool{}
	aliases := map[string]string{}
	for _, w := range vocab.Words() {
		assert.False(t, seen[w.Name], "%q is listed twice", w.Name)
		seen[w.Name] = true
		assert.Equal(t, strings.ToLower(w.Name), w.Name, "%q is not snake_case", w.Name)
		assert.NotContains(t, w.Name, "-", "%q is not snake_case", w.Name)
		for _, a := range w.Aliases {
			if other, ok := aliases[a]; ok {
				t.Errorf("%q is an alias of %q and of %q", a, other, w.Name)
			}
			aliases[a] = w.Name
		}
	}
}

// TestHTTPBadKindListsTheKinds: a kind that is none, wherever a route
// takes one, is a 400 whose message lists the kinds the route takes.
func TestHTTPBadKindListsTheKinds(t *testing.T) {
	api, err := httpapi.New(testutil.NewAgents(t), httpapi.Options{})
	require.NoError(t, err)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/memories", `{"type": "bogus", "content": "x"}`},
		{"POST", "/v1/memories", `{"kind": "bogus", "content": "x"}`},
		{"POST", "/v1/memories", `{"memories": [{"type": "episode", "content": "x"}]}`},
		{"GET", "/v1/memories?type=bogus", ``},
		{"GET", "/v1/memories?kind=semantic,bogus", ``},
		{"POST", "/v1/search", `{"query": "x", "recall": false, "types": ["bogus"]}`},
		{"POST", "/v1/rules", `{"name": "r", "pattern": "x", "type": "bogus"}`},
	} {
		req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		what := c.method + " " + c.path + " " + c.body
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, "%s: %s", what, body)
		for _, k := range []string{"semantic", "episodic", "procedural", "fact"} {
			assert.Contains(t, string(body), k, "%s: the message lists the kinds", what)
		}
	}
}

// TestMCPBadKindListsTheKinds: a kind that is none is a tool error that
// lists the kinds.
func TestMCPBadKindListsTheKinds(t *testing.T) {
	cs := connect(t)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_memories", map[string]any{"types": []string{"bogus"}}},
		{"search", map[string]any{"query": "x", "types": []string{"bogus"}}},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"type": "bogus", "content": "x"}}}},
		{"list_recent", map[string]any{"type": "bogus"}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		text := ""
		if err != nil {
			text = err.Error()
		} else {
			require.True(t, res.IsError, c.tool)
			text = res.Content[0].(*mcp.TextContent).Text
		}
		for _, k := range []string{"semantic", "episodic", "procedural", "fact"} {
			assert.Contains(t, text, k, "%s: the error lists the kinds", c.tool)
		}
	}
}

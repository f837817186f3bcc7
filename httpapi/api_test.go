package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/mcpserver"
)

// TestOpenAPIDocument loads the document, validates it, and holds the
// server's routes and the document's operations to each other: every
// operation is served (neither an unknown route nor a wrong method), and
// a method the document does not list on a path is refused with 405.
func TestOpenAPIDocument(t *testing.T) {
	doc, _ := spec(t)
	e := newEnv(t, httpapi.Options{})
	served := e.do("GET", "/openapi.json", nil)
	require.Equal(t, http.StatusOK, served.Status)
	require.JSONEq(t, string(httpapi.OpenAPI()), string(served.Body))
	require.Equal(t, "3.1.0", doc.OpenAPI)

	ops := 0
	for path, item := range doc.Paths.Map() {
		concrete := strings.NewReplacer("{slug}", "nobody", "{id}", "no-such-id", "{name}", "no-such-rule", "{user_id}", "nobody").Replace(path)
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			r := e.do(method, concrete, nil)
			if item.GetOperation(method) == nil {
				requireError(t, r, http.StatusMethodNotAllowed, httpapi.CodeMethodNotAllowed)
				continue
			}
			ops++
			assert.NotEqual(t, http.StatusMethodNotAllowed, r.Status, "%s %s", method, path)
			if r.Status == http.StatusNotFound {
				assert.NotContains(t, string(r.Body), "no route", "%s %s", method, path)
			}
		}
	}
	require.Equal(t, 38, ops, "operations in the document")
}

func TestHealthAndUnknownRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	r := e.do("GET", "/health", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "ok", r.JSON(t)["status"])

	requireError(t, e.do("GET", "/v2/nothing", nil), http.StatusNotFound, httpapi.CodeNotFound)
	requireError(t, e.do("PATCH", "/v1/summary", nil), http.StatusMethodNotAllowed, httpapi.CodeMethodNotAllowed)
	requireError(t, e.do("GET", "/health?verbose=1", nil), http.StatusBadRequest, httpapi.CodeInvalidArgument)
}

// TestAuth: with tokens every route but /health and /openapi.json needs
// one; a missing or wrong token is unauthorized, a token limited to some
// agents is forbidden the others, and lists only its own.
func TestAuth(t *testing.T) {
	all, alice := "all-agents-token-0123456789", "alice-only-token-0123456789"
	e := newEnv(t, httpapi.Options{Tokens: []httpapi.Token{{Secret: all}, {Secret: alice, Agents: []string{"alice"}}}})

	require.Equal(t, http.StatusOK, e.do("GET", "/health", nil).Status)
	require.Equal(t, http.StatusOK, e.do("GET", "/openapi.json", nil).Status)

	r := e.do("GET", "/v1/summary", nil)
	requireError(t, r, http.StatusUnauthorized, httpapi.CodeUnauthorized)
	require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
	requireError(t, e.do("GET", "/v1/summary", nil, "Authorization", "Bearer "+all+"x"), http.StatusUnauthorized, httpapi.CodeUnauthorized)
	requireError(t, e.do("GET", "/v1/summary", nil, "Authorization", "Basic "+all), http.StatusUnauthorized, httpapi.CodeUnauthorized)
	requireError(t, e.do("GET", "/v1/summary", nil, "Authorization", "Bearer "), http.StatusUnauthorized, httpapi.CodeUnauthorized)

	e.token = all
	require.Equal(t, http.StatusOK, e.do("GET", "/v1/summary?profile=bob", nil).Status)
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("bob", "note")).Status)
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("alice", "note")).Status)
	require.ElementsMatch(t, []any{"alice", "bob"}, e.do("GET", "/v1/profiles", nil).JSON(t)["profiles"])

	e.token = alice
	require.Equal(t, http.StatusOK, e.do("GET", "/v1/summary?profile=alice", nil).Status)
	requireError(t, e.do("GET", "/v1/summary?profile=bob", nil), http.StatusForbidden, httpapi.CodeForbidden)
	requireError(t, e.do("GET", "/v1/summary", nil), http.StatusForbidden, httpapi.CodeForbidden) // the default agent
	requireError(t, e.do("POST", "/v1/search", map[string]any{"query": "x", "profile": "bob"}), http.StatusForbidden, httpapi.CodeForbidden)
	requireError(t, e.do("DELETE", "/v1/profiles/bob", nil), http.StatusForbidden, httpapi.CodeForbidden)
	require.Equal(t, []any{"alice"}, e.do("GET", "/v1/profiles", nil).JSON(t)["profiles"])

	_, err := httpapi.New(e.agents, httpapi.Options{Tokens: []httpapi.Token{{Secret: "short"}}})
	require.Error(t, err)
	_, err = httpapi.New(e.agents, httpapi.Options{Tokens: []httpapi.Token{{Secret: all, Agents: []string{"no such/agent"}}}})
	require.Error(t, err)
}

// TestMCPAuth: /mcp refuses a request as every other route does, with a
// JSON error of the same status and code (not the MCP SDK's plain text),
// and passes a valid token's agents on to the MCP handler as scopes.
func TestMCPAuth(t *testing.T) {
	all, alice := "all-agents-token-0123456789", "alice-only-token-0123456789"
	scopes := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var got []string
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			got = info.Scopes
		}
		json.NewEncoder(w).Encode(got)
	})
	mcpPost := func(e *env, header ...string) response {
		t.Helper()
		req, err := http.NewRequest("POST", e.srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			if header[i] == "Host" {
				req.Host = header[i+1]
			} else {
				req.Header.Set(header[i], header[i+1])
			}
		}
		resp, err := e.srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return response{resp.StatusCode, resp.Header, body}
	}

	e := newEnv(t, httpapi.Options{MCP: scopes, Tokens: []httpapi.Token{{Secret: all}, {Secret: alice, Agents: []string{"alice"}}}})
	r := mcpPost(e)
	requireError(t, r, http.StatusUnauthorized, httpapi.CodeUnauthorized)
	require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
	for _, h := range []string{"Bearer " + all + "x", "Basic " + all, "Bearer ", "Bearer " + all + " " + all} {
		requireError(t, mcpPost(e, "Authorization", h), http.StatusUnauthorized, httpapi.CodeUnauthorized)
	}
	r = mcpPost(e, "Authorization", "Bearer "+alice)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.JSONEq(t, fmt.Sprintf("[%q]", mcpserver.AgentScope("alice")), string(r.Body))
	r = mcpPost(e, "Authorization", "bearer  "+all)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.JSONEq(t, fmt.Sprintf("[%q]", mcpserver.AllAgentsScope), string(r.Body))

	// Without tokens, a host that is not a loopback name is forbidden.
	e = newEnv(t, httpapi.Options{MCP: scopes})
	require.Equal(t, http.StatusOK, mcpPost(e).Status)
	requireError(t, mcpPost(e, "Host", "attacker.example:7077"), http.StatusForbidden, httpapi.CodeForbidden)

	// A secret /mcp could not take (the SDK splits the header at spaces)
	// is refused for every route.
	for _, secret := range []string{"two words-0123456789", "tab\tin-0123456789ab", "0123456789abcdef "} {
		_, err := httpapi.New(e.agents, httpapi.Options{Tokens: []httpapi.Token{{Secret: secret}}})
		require.Error(t, err, "%q", secret)
	}
}

// TestLoopbackOnlyWithoutTokens: a server without tokens answers only
// requests for a loopback host name (a rebound DNS name is refused), and
// Serve refuses to listen beyond loopback.
func TestLoopbackOnlyWithoutTokens(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	require.Equal(t, http.StatusOK, e.do("GET", "/v1/summary", nil).Status)
	require.Equal(t, http.StatusOK, e.do("GET", "/v1/summary", nil, "Host", "localhost:7077").Status)
	requireError(t, e.do("GET", "/v1/summary", nil, "Host", "attacker.example:7077"), http.StatusForbidden, httpapi.CodeForbidden)

	err := e.api.Serve(context.Background(), fakeListener{addr: "10.1.2.3:7077"})
	require.ErrorIs(t, err, httpapi.ErrNoToken)
}

func TestBadRequests(t *testing.T) {
	e := newEnv(t, httpapi.Options{MaxBodyBytes: 4096})
	cases := []struct {
		name   string
		body   any
		header []string
		status int
		code   string
	}{
		{"invalid JSON", `{"query": `, nil, 400, httpapi.CodeInvalidArgument},
		{"not an object", `[1, 2]`, nil, 400, httpapi.CodeInvalidArgument},
		{"wrong type", `{"query": 42}`, nil, 400, httpapi.CodeInvalidArgument},
		{"wrong nested type", `{"query": "x", "recall": false, "limit": "ten"}`, nil, 400, httpapi.CodeInvalidArgument},
		{"unknown field", `{"query": "x", "profile_id": "a"}`, nil, 400, httpapi.CodeInvalidArgument},
		{"profile and profileId differ", `{"query": "x", "profile": "a", "profileId": "b"}`, nil, 400, httpapi.CodeInvalidArgument},
		{"two values", `{"query": "x"} {"query": "y"}`, nil, 400, httpapi.CodeInvalidArgument},
		{"empty body", ``, nil, 400, httpapi.CodeInvalidArgument},
		{"missing query", `{}`, nil, 400, httpapi.CodeInvalidArgument},
		{"invalid agent ID", `{"query": "x", "profile": "no such/agent"}`, nil, 400, httpapi.CodeInvalidArgument},
		{"options with recall", `{"query": "x", "limit": 3}`, nil, 400, httpapi.CodeInvalidArgument},
		{"bad mode", `{"query": "x", "recall": false, "mode": "psychic"}`, nil, 400, httpapi.CodeInvalidArgument},
		{"bad advanced query", `{"query": "\"unclosed", "recall": false, "advanced": true}`, nil, 400, httpapi.CodeInvalidArgument},
		{"oversized body", `{"query": "` + strings.Repeat("x", 5000) + `"}`, nil, 413, httpapi.CodeTooLarge},
		{"text/plain", `{"query": "x"}`, []string{"Content-Type", "text/plain"}, 415, httpapi.CodeUnsupportedMedia},
		{"no content type", `{"query": "x"}`, []string{"Content-Type", ""}, 415, httpapi.CodeUnsupportedMedia},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireError(t, e.do("POST", "/v1/search", c.body, c.header...), c.status, c.code)
		})
	}
	// Query parameters: unknown, repeated, out of range, of the wrong type.
	for _, path := range []string{
		"/v1/summary?profile_id=a",
		"/v1/summary?profileId=a&profile=b",
		"/v1/graph/triples?maxResults=0",
		"/v1/graph/triples?maxResults=5&max_results=6",
		"/v1/graph/visualization?includeHistory=maybe",
		"/v1/graph/paths?from=a&to=b&maxDepth=9",
		"/v1/summary?profile=a&profile=b",
		"/v1/summary?profile=no%20such%2Fagent",
		"/v1/graph/triples?max_results=0",
		"/v1/graph/triples?max_results=many",
		"/v1/graph/triples?direction=sideways",
		"/v1/graph/neighbors",
		"/v1/graph/paths?from=a",
		"/v1/graph/paths?from=a&to=b&max_depth=9",
		"/v1/graph/visualization?include_history=maybe",
		"/v1/changes?since=yesterday",
		"/v1/export?vectors=2",
	} {
		requireError(t, e.do("GET", path, nil), http.StatusBadRequest, httpapi.CodeInvalidArgument)
	}
	// The body's profile and the query's must agree.
	requireError(t, e.do("POST", "/v1/search?profile=a", map[string]any{"query": "x", "profile": "b"}), 400, httpapi.CodeInvalidArgument)
	requireError(t, e.do("POST", "/v1/search?profileId=a", map[string]any{"query": "x", "profileId": "b"}), 400, httpapi.CodeInvalidArgument)
	// Ingest needs a user message with content.
	for _, body := range []string{
		`{"messages": []}`,
		`{"messages": [{"role": "assistant", "content": "hello"}]}`,
		`{"messages": [{"role": "user", "content": "   "}]}`,
		`{"messages": [{"content": "no role"}]}`,
		`{"messages": [{"role": "user", "content": 7}]}`,
	} {
		requireError(t, e.do("POST", "/v1/ingest", body), http.StatusBadRequest, httpapi.CodeInvalidArgument)
	}
	// Nothing of it made an agent.
	ids, err := e.agents.Agents(context.Background())
	require.NoError(t, err)
	require.Empty(t, ids)
}

// TestReadsOfAnAgentWithNoMemory: every read of a valid agent with no
// memory answers as an empty memory does, and creates nothing: no
// directory, no database, no Memory opened.
func TestReadsOfAnAgentWithNoMemory(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	ghost := "?profile=ghost"
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		empty        string // a list that must be empty
	}{
		{"GET", "/v1/summary" + ghost, nil, 200, "keywords"},
		{"POST", "/v1/search", map[string]any{"query": "anything", "profile": "ghost"}, 200, "working_memory"},
		{"POST", "/v1/search", map[string]any{"query": "anything", "profile": "ghost", "recall": false}, 200, "results"},
		{"POST", "/v1/context", map[string]any{"query": "anything", "profile": "ghost"}, 200, ""},
		{"GET", "/v1/memory/01J00000000000000000000000/history" + ghost, nil, 200, "entries"},
		{"GET", "/v1/changes" + ghost, nil, 200, "entries"},
		{"GET", "/v1/rules" + ghost, nil, 200, "rules"},
		{"GET", "/v1/graph/triples" + ghost + "&entity=User", nil, 200, "triples"},
		{"GET", "/v1/graph/neighbors" + ghost + "&entity=User", nil, 200, "neighbors"},
		{"GET", "/v1/graph/paths" + ghost + "&from=User&to=Acme", nil, 200, "paths"},
		{"GET", "/v1/graph/visualization" + ghost, nil, 200, "nodes"},
		{"GET", "/v1/graph/visualization" + ghost + "&entity=User", nil, 200, "edges"},
		{"GET", "/v1/export" + ghost, nil, 200, ""},
		{"DELETE", "/v1/memory" + ghost, nil, 200, ""},
		{"DELETE", "/v1/profiles/ghost", nil, 200, ""},
		{"DELETE", "/v1/memory/01J00000000000000000000000" + ghost, nil, 404, ""},
		{"DELETE", "/v1/graph/triple/01J00000000000000000000000" + ghost, nil, 404, ""},
		{"DELETE", "/v1/rules/nothing" + ghost, nil, 404, ""},
		{"PUT", "/v1/memory/01J00000000000000000000000" + ghost, map[string]any{"content": "x"}, 404, ""},
	} {
		r := e.do(c.method, c.path, c.body)
		require.Equal(t, c.status, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		if c.empty != "" {
			require.Empty(t, r.JSON(t)[c.empty], "%s %s", c.method, c.path)
		}
		if strings.HasPrefix(c.path, "/v1/memory"+ghost) || c.path == "/v1/profiles/ghost" {
			require.EqualValues(t, 0, r.JSON(t)["deleted"])
		}
		if c.path == "/v1/export"+ghost {
			require.Equal(t, "application/x-ndjson", r.Header.Get("Content-Type"))
			require.Contains(t, string(r.Body), `"agent":"ghost"`)
		}
	}
	entries, err := os.ReadDir(e.agents.Dir)
	require.NoError(t, err)
	require.Empty(t, entries, "the reads made files")
	require.Zero(t, e.agents.Opened(), "the reads opened an agent's memory")
	require.Empty(t, e.do("GET", "/v1/profiles", nil).JSON(t)["profiles"])
}

// rule is a request for an extraction rule named name of agent profile:
// "note: <text>" becomes a semantic memory, "<x> likes <y>" a fact.
func rule(profile, name string) map[string]any {
	return map[string]any{"profile": profile, "name": name, "pattern": `\bnote: .+`, "type": "semantic", "importance": 0.8, "tags": []string{"note"}}
}

func likesRule(profile string) map[string]any {
	return map[string]any{"profile": profile, "name": "likes", "pattern": `(?P<subject>\w+) likes (?P<object>\w+)`, "type": "fact", "predicate": "likes"}
}

func ingestBody(profile string, texts ...string) map[string]any {
	var msgs []map[string]any
	for _, t := range texts {
		msgs = append(msgs, map[string]any{"role": "user", "content": t})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "noted"})
	return map[string]any{"profile": profile, "messages": msgs}
}

// TestMemoryRoutes walks an agent's life through the API: rules, ingest,
// search (recall and plain), context, summary, update, history, changes,
// delete.
func TestMemoryRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("ada", "note")).Status)
	requireError(t, e.do("POST", "/v1/rules", rule("ada", "note")), http.StatusConflict, httpapi.CodeConflict)
	requireError(t, e.do("POST", "/v1/rules", map[string]any{"profile": "ada", "name": "bad", "pattern": "(", "type": "semantic"}), 400, httpapi.CodeInvalidArgument)
	requireError(t, e.do("POST", "/v1/rules", map[string]any{"profile": "ada", "name": "x"}), 400, httpapi.CodeInvalidArgument)
	r := e.do("POST", "/v1/rules", likesRule("ada"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	rules := e.do("GET", "/v1/rules?profile=ada", nil).JSON(t)["rules"].([]any)
	require.Len(t, rules, 2)

	r = e.do("POST", "/v1/ingest", ingestBody("ada", "note: the deploy runs on Fridays. Ada likes tea"))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.EqualValues(t, 2, got["stored"], "%s", r.Body)
	require.Len(t, got["items"], 1)
	require.Len(t, got["facts"], 1)
	noteID := got["items"].([]any)[0].(map[string]any)["id"].(string)
	factID := got["facts"].([]any)[0].(map[string]any)["fact"].(map[string]any)["id"].(string)

	// Recall: gated into working memory, candidates per kind.
	r = e.do("POST", "/v1/search", map[string]any{"query": "when does the deploy run?", "profile": "ada"})
	require.Equal(t, http.StatusOK, r.Status)
	got = r.JSON(t)
	require.NotEmpty(t, got["working_memory"])
	require.Equal(t, noteID, got["working_memory"].([]any)[0].(map[string]any)["id"])
	require.Contains(t, got["per_kind"], "semantic")
	// A plain search.
	r = e.do("POST", "/v1/search", map[string]any{"query": "deploy", "profile": "ada", "recall": false, "types": []string{"semantic"}, "limit": 5})
	require.Equal(t, http.StatusOK, r.Status)
	got = r.JSON(t)
	require.Len(t, got["results"], 1)
	require.Equal(t, "text", got["mode"])
	require.Empty(t, got["working_memory"])

	r = e.do("POST", "/v1/context", map[string]any{"profile": "ada", "query": "deploy", "max_tokens": 500})
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, r.JSON(t)["text"], "Fridays")
	requireError(t, e.do("POST", "/v1/context", map[string]any{"profile": "ada", "max_tokens": -1}), 400, httpapi.CodeInvalidArgument)

	sum := e.do("GET", "/v1/summary?profile=ada", nil).JSON(t)
	counts := map[string]float64{}
	for _, k := range sum["summary"].([]any) {
		counts[k.(map[string]any)["type"].(string)] = k.(map[string]any)["count"].(float64)
	}
	require.Equal(t, 1.0, counts["semantic"])
	require.Equal(t, 1.0, counts["fact"])

	// Update: a semantic entry's content; nothing to change; both kinds of
	// fields; an importance out of range.
	r = e.do("PUT", "/v1/memory/"+noteID, map[string]any{"profile": "ada", "content": "note: the deploy runs on Thursdays", "importance": 0.9})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "semantic", r.JSON(t)["type"])
	requireError(t, e.do("PUT", "/v1/memory/"+noteID, map[string]any{"profile": "ada"}), 400, httpapi.CodeInvalidArgument)
	requireError(t, e.do("PUT", "/v1/memory/"+noteID, map[string]any{"profile": "ada", "content": "x", "pattern": "y"}), 400, httpapi.CodeInvalidArgument)
	requireError(t, e.do("PUT", "/v1/memory/"+noteID, map[string]any{"profile": "ada", "importance": 2}), 400, httpapi.CodeInvalidArgument)
	requireError(t, e.do("PUT", "/v1/memory/nope", map[string]any{"profile": "ada", "tags": []string{"x"}}), 404, httpapi.CodeNotFound)
	// A procedure, stored in process, is updated by its own fields.
	m, err := e.agents.Agent("ada")
	require.NoError(t, err)
	procID, err := m.Procedural().Store(context.Background(), engram.Procedure{Name: "deploy", Pattern: "test, build, ship"})
	require.NoError(t, err)
	r = e.do("PUT", "/v1/memory/"+procID+"?profile=ada", map[string]any{"pattern": "test, build, canary, ship"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "procedural", r.JSON(t)["type"])
	p, err := m.Procedural().Get(context.Background(), procID)
	require.NoError(t, err)
	require.Equal(t, "test, build, canary, ship", p.Pattern)

	hist := e.do("GET", "/v1/memory/"+noteID+"/history?profile=ada", nil).JSON(t)["entries"].([]any)
	require.Len(t, hist, 2, "create and update")
	require.Equal(t, "update", hist[1].(map[string]any)["op"])
	changes := e.do("GET", "/v1/changes?profile=ada&limit=100", nil).JSON(t)["entries"].([]any)
	require.GreaterOrEqual(t, len(changes), 4)
	// Without since or after_seq the newest come first, so a limit keeps
	// the latest: the procedure's update; from after_seq on, a feed goes
	// forward.
	latest := e.do("GET", "/v1/changes?profile=ada&limit=2", nil).JSON(t)["entries"].([]any)
	require.Len(t, latest, 2)
	require.Equal(t, changes[0], latest[0])
	require.Equal(t, procID, latest[0].(map[string]any)["id"])
	require.Greater(t, latest[0].(map[string]any)["seq"].(float64), latest[1].(map[string]any)["seq"].(float64))
	feed := e.do("GET", "/v1/changes?profile=ada&after_seq=1&limit=2", nil).JSON(t)["entries"].([]any)
	require.Len(t, feed, 2)
	require.Less(t, feed[0].(map[string]any)["seq"].(float64), feed[1].(map[string]any)["seq"].(float64))

	// Delete: the fact through the graph route, the note by ID, the rule.
	require.Equal(t, http.StatusOK, e.do("DELETE", "/v1/graph/triple/"+factID+"?profile=ada", nil).Status)
	requireError(t, e.do("DELETE", "/v1/graph/triple/"+factID+"?profile=ada", nil), 404, httpapi.CodeNotFound)
	requireError(t, e.do("DELETE", "/v1/graph/triple/"+noteID+"?profile=ada", nil), 404, httpapi.CodeNotFound) // not a fact
	require.Equal(t, http.StatusOK, e.do("DELETE", "/v1/memory/"+noteID+"?profile=ada", nil).Status)
	requireError(t, e.do("DELETE", "/v1/memory/never-was?profile=ada", nil), 404, httpapi.CodeNotFound)
	require.Equal(t, http.StatusOK, e.do("DELETE", "/v1/rules/note?profile=ada", nil).Status)
	requireError(t, e.do("DELETE", "/v1/rules/note?profile=ada", nil), 404, httpapi.CodeNotFound)
	_, err = m.Semantic().Get(context.Background(), noteID)
	require.ErrorIs(t, err, engram.ErrNotFound)
}

// TestProfiles: list, delete, the default agent protected, DELETE
// /v1/memory for the default.
func TestProfiles(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for _, p := range []string{"default", "bob", "carol"} {
		require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule(p, "note")).Status)
		require.Equal(t, http.StatusOK, e.do("POST", "/v1/ingest", ingestBody(p, "note: one", "note: two")).Status)
	}
	require.Equal(t, []any{"bob", "carol", "default"}, e.do("GET", "/v1/profiles", nil).JSON(t)["profiles"])
	requireError(t, e.do("DELETE", "/v1/profiles/default", nil), http.StatusForbidden, httpapi.CodeForbidden)
	requireError(t, e.do("DELETE", "/v1/profiles/no%20such", nil), http.StatusBadRequest, httpapi.CodeInvalidArgument)
	r := e.do("DELETE", "/v1/profiles/bob", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 2, r.JSON(t)["deleted"])
	require.Equal(t, []any{"carol", "default"}, e.do("GET", "/v1/profiles", nil).JSON(t)["profiles"])
	_, err := os.Stat(filepath.Join(e.agents.Dir, "bob"))
	require.ErrorIs(t, err, os.ErrNotExist)

	r = e.do("DELETE", "/v1/memory", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 2, r.JSON(t)["deleted"])
	require.Equal(t, []any{"carol"}, e.do("GET", "/v1/profiles", nil).JSON(t)["profiles"])
	// The default agent, forgotten, starts again on the next write.
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("default", "note")).Status)
	require.Equal(t, http.StatusOK, e.do("POST", "/v1/ingest", ingestBody("", "note: three")).Status)
	require.EqualValues(t, 1, e.do("POST", "/v1/search", map[string]any{"query": "three", "recall": false}).JSON(t)["pending"].(float64)+1)
	require.Len(t, e.do("POST", "/v1/search", map[string]any{"query": "three", "recall": false}).JSON(t)["results"], 1)
}

// TestGraphRoutes: triples, neighbours, paths and the visualization over
// facts asserted in process.
func TestGraphRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	m, err := e.agents.Agent("g")
	require.NoError(t, err)
	ctx := context.Background()
	for _, f := range [][3]string{{"Ada", "works at", "Acme"}, {"Acme", "is located in", "London"}, {"Ada", "likes", "tea"}} {
		_, err := m.Facts().Assert(ctx, engram.Fact{Subject: f[0], Predicate: f[1], Object: f[2]})
		require.NoError(t, err)
	}
	got := e.do("GET", "/v1/graph/triples?profile=g&entity=Ada&direction=outgoing", nil).JSON(t)
	require.EqualValues(t, 2, got["count"])
	got = e.do("GET", "/v1/graph/triples?profile=g&entity=Ada&predicate=works%20at", nil).JSON(t)
	require.EqualValues(t, 1, got["count"])
	got = e.do("GET", "/v1/graph/triples?profile=g&max_results=2", nil).JSON(t)
	require.EqualValues(t, 2, got["count"])

	got = e.do("GET", "/v1/graph/neighbors?profile=g&entity=Acme", nil).JSON(t)
	var names []string
	for _, n := range got["neighbors"].([]any) {
		names = append(names, n.(map[string]any)["entity"].(string))
	}
	slices.Sort(names)
	require.Equal(t, []string{"Ada", "London"}, names)
	require.Empty(t, e.do("GET", "/v1/graph/neighbors?profile=g&entity=Nobody", nil).JSON(t)["neighbors"])

	got = e.do("GET", "/v1/graph/paths?profile=g&from=Ada&to=London", nil).JSON(t)
	require.EqualValues(t, 1, got["count"])
	path := got["paths"].([]any)[0].(map[string]any)
	require.EqualValues(t, 2, path["depth"])
	requireError(t, e.do("GET", "/v1/graph/paths?profile=g&from=Ada&to=ada", nil), 400, httpapi.CodeInvalidArgument)

	got = e.do("GET", "/v1/graph/visualization?profile=g&entity=Ada&max_depth=1", nil).JSON(t)
	require.Len(t, got["nodes"], 3)
	require.Len(t, got["edges"], 2)
	got = e.do("GET", "/v1/graph/visualization?profile=g&include_history=true", nil).JSON(t)
	require.Len(t, got["nodes"], 4)
	require.Equal(t, true, got["include_history"])
}

// TestExportImport: an agent's export, streamed, imports into another
// agent; a malformed file is refused with its line, and imports nothing.
func TestExportImport(t *testing.T) {
	e := newEnv(t, httpapi.Options{MaxImportBytes: 1 << 20})
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("src", "note")).Status)
	require.Equal(t, http.StatusOK, e.do("POST", "/v1/ingest", ingestBody("src", "note: exported knowledge")).Status)
	exp := e.do("GET", "/v1/export?profile=src&history=true", nil)
	require.Equal(t, http.StatusOK, exp.Status)
	require.Equal(t, "application/x-ndjson", exp.Header.Get("Content-Type"))

	imp := func(profile, conflict string, body []byte, ct string) response {
		return e.do("POST", "/v1/import?profile="+profile+conflict, body, "Content-Type", ct)
	}
	r := imp("dst", "", exp.Body, "application/x-ndjson")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.Equal(t, "src", got["from"])
	require.EqualValues(t, 1, got["added"].(map[string]any)["semantic"])
	require.Len(t, e.do("POST", "/v1/search", map[string]any{"query": "exported", "profile": "dst", "recall": false}).JSON(t)["results"], 1)

	requireError(t, imp("dst", "", exp.Body, "application/x-ndjson"), http.StatusConflict, httpapi.CodeConflict)
	r = imp("dst", "&conflict=skip", exp.Body, "application/x-ndjson")
	require.Equal(t, http.StatusOK, r.Status)
	require.EqualValues(t, 1, r.JSON(t)["skipped"].(map[string]any)["semantic"])
	requireError(t, imp("dst", "&conflict=merge", exp.Body, "application/x-ndjson"), 400, httpapi.CodeInvalidArgument)
	requireError(t, imp("dst2", "", []byte("{\"not\": \"an export\"}\n"), "application/x-ndjson"), 400, httpapi.CodeInvalidArgument)
	requireError(t, imp("dst2", "", exp.Body, "application/json"), 415, httpapi.CodeUnsupportedMedia)
	requireError(t, imp("dst2", "", make([]byte, 2<<20), "application/x-ndjson"), 413, httpapi.CodeTooLarge)
}

// TestDocumentsAndBackup: ingestion reads only under the document root,
// backups write only into the backup directory, and both are off without
// their directory.
func TestDocumentsAndBackup(t *testing.T) {
	off := newEnv(t, httpapi.Options{})
	requireError(t, off.do("POST", "/v1/ingest/documents", map[string]any{"path": "a.md"}), 403, httpapi.CodeForbidden)
	requireError(t, off.do("POST", "/v1/backup", map[string]any{}), 403, httpapi.CodeForbidden)

	root, backups, outside := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "guide"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, "guide", "deploy.md"), []byte("# Deploy\n\nRun the tests, then ship.\n\n## Rollback\n\nRevert the tag.\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# Secret\n\nThe password.\n"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "escape")))
	e := newEnv(t, httpapi.Options{DocumentRoot: root, BackupDir: backups})

	r := e.do("POST", "/v1/ingest/documents", map[string]any{"path": "guide", "profile": "docs"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.EqualValues(t, 1, got["ingested"])
	require.EqualValues(t, 2, got["stored"])
	r = e.do("POST", "/v1/ingest/documents", map[string]any{"path": "guide", "profile": "docs"})
	require.EqualValues(t, 2, r.JSON(t)["skipped"])
	res := e.do("POST", "/v1/search", map[string]any{"query": "rollback", "profile": "docs", "recall": false}).JSON(t)["results"].([]any)
	require.Equal(t, "guide/deploy.md > Deploy > Rollback", res[0].(map[string]any)["source"])

	for _, p := range []string{"../" + filepath.Base(outside), "/etc", filepath.Join(outside, "secret.md"), "escape", "escape/secret.md", "", "missing.md"} {
		requireError(t, e.do("POST", "/v1/ingest/documents", map[string]any{"path": p, "profile": "docs"}), 400, httpapi.CodeInvalidArgument)
	}

	r = e.do("POST", "/v1/backup", map[string]any{"profile": "docs"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	name := r.JSON(t)["file"].(string)
	require.NotContains(t, name, "/")
	fi, err := os.Stat(filepath.Join(backups, name))
	require.NoError(t, err)
	require.EqualValues(t, fi.Size(), r.JSON(t)["bytes"])
	b, err := engram.New(engram.Tier1, engram.WithPath(filepath.Join(backups, name)), engram.WithAgent("docs"))
	require.NoError(t, err)
	st, err := b.Stats(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, st.Documents)
	require.NoError(t, b.Close())
}

// TestCORS: off without origins (no CORS headers, other sites' unsafe
// requests refused); with origins, their preflights are answered.
func TestCORS(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	r := e.do("GET", "/v1/summary", nil, "Origin", "https://evil.example")
	require.Equal(t, http.StatusOK, r.Status)
	require.Empty(t, r.Header.Get("Access-Control-Allow-Origin"))
	r = e.do("POST", "/v1/search", map[string]any{"query": "x"}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	requireError(t, r, http.StatusForbidden, httpapi.CodeForbidden)

	app := "https://app.example"
	e = newEnv(t, httpapi.Options{AllowedOrigins: []string{app}})
	req, err := http.NewRequest("OPTIONS", e.srv.URL+"/v1/search", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", app)
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := e.srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.Equal(t, app, resp.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "Authorization")
	r = e.do("POST", "/v1/search", map[string]any{"query": "x"}, "Origin", app, "Sec-Fetch-Site", "cross-site")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, app, r.Header.Get("Access-Control-Allow-Origin"))

	_, err = httpapi.New(e.agents, httpapi.Options{AllowedOrigins: []string{"app.example"}})
	require.Error(t, err)
}

// failingAgents fails as a database does, with SQLite's words.
type failingAgents struct{}

func (failingAgents) Agent(string) (*engram.Memory, error) {
	return nil, &engram.DatabaseError{Op: "open", Err: fmt.Errorf("SQL logic error: no such table: semantic_memory (1)")}
}

func (failingAgents) Agents(context.Context) ([]string, error) { return []string{"default"}, nil }

// TestInternalErrorsSayNothing: a database's failure is an internal
// error whose message names neither SQLite nor the failure.
func TestInternalErrorsSayNothing(t *testing.T) {
	api, err := httpapi.New(failingAgents{}, httpapi.Options{})
	require.NoError(t, err)
	e := &env{t: t, api: api}
	e.srv = newLoopback(t, api)
	r := e.do("GET", "/v1/summary", nil)
	requireError(t, r, http.StatusInternalServerError, httpapi.CodeInternal)
	require.NotContains(t, strings.ToLower(string(r.Body)), "sql")
	require.NotContains(t, string(r.Body), "semantic_memory")
}

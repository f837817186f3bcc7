package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/mcpserver"
)

// TestAgentsAreIsolated seeds two agents with overlapping data, then calls
// every tool and reads every resource as agent b (the server's agent, and
// named in the arguments), including forgetting a's memory by its ID: no
// answer holds a's data, and a's memory keeps every entry (forget_user
// of b's user u1 leaves a's u1). It runs in each layout of a store (in a shared file or in memory, a's rows are in b's
// database), on stdio's transport and on HTTP behind httpapi with a token
// for b only. (No tool writes a file.)
func TestAgentsAreIsolated(t *testing.T) {
	for _, layout := range testutil.Layouts {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(layout+"/"+transport, func(t *testing.T) { testAgentsAreIsolated(t, layout, transport) })
		}
	}
}

func testAgentsAreIsolated(t *testing.T, layout, transport string) {
	const mark = "alphamark"
	ctx := context.Background()
	agents := testutil.NewAgentsIn(t, layout)
	seed := func(agent, word string) string {
		m, err := agents.Agent(agent)
		require.NoError(t, err)
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: word + " runs the deploy pipeline", Importance: 0.9, UserID: "u1"})
		require.NoError(t, err)
		_, err = m.Episodic().Log(ctx, engram.Episode{Content: word + " deployed the pipeline"})
		require.NoError(t, err)
		_, err = m.Facts().Assert(ctx, engram.Fact{Subject: "User", Predicate: "works at", Object: word + "corp"})
		require.NoError(t, err)
		return id
	}
	aSem := seed("a", mark)
	seed("b", "bravo")
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: "b"})
	require.NoError(t, err)
	var cs *mcp.ClientSession
	if transport == "stdio" {
		cs = connect(t, s)
	} else {
		const token = "bravo-token-0123456789abcdef"
		api, err := httpapi.New(agents, httpapi.Options{
			Tokens: []httpapi.Token{{Secret: token, Agents: []string{"b"}}},
			MCP:    s.HTTPHandler(mcpserver.HTTPOptions{}),
		})
		require.NoError(t, err)
		srv := httptest.NewServer(api)
		t.Cleanup(srv.Close)
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		own  bool // the answer holds b's data
	}{
		{"search", map[string]any{"query": "deploy pipeline"}, true},
		{"search", map[string]any{"query": "deploy pipeline", "agent": "b"}, true},
		{"recall", map[string]any{"query": "deploy pipeline"}, true},
		{"context", map[string]any{"query": "deploy"}, true},
		{"query_graph", map[string]any{"entity": "User"}, true},
		{"list_recent", map[string]any{}, true},
		{"list_recent", map[string]any{"kind": "semantic"}, true},
		{"list_recent", map[string]any{"kind": "episodic"}, true},
		{"list_recent", map[string]any{"kind": "fact"}, true},
		{"forget", map[string]any{"id": aSem}, false},
		{"list_memories", map[string]any{"limit": 100}, true},
		{"list_memories", map[string]any{"types": []string{"fact", "semantic"}}, true},
		{"get_memory", map[string]any{"id": aSem}, false},
		{"get_memory", map[string]any{"id": aSem, "agent": "a"}, false},
		{"list_memories", map[string]any{"agent": "a"}, false},
		{"update_memory", map[string]any{"id": aSem, "content": "b writes over a's entry"}, false},
		{"delete_memory", map[string]any{"id": aSem}, false},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"type": "fact", "subject": "User", "predicate": "likes", "object": "tea", "memory_id": aSem}}}, false},
		{"add_memories", map[string]any{"agent": "a", "memories": []any{map[string]any{"type": "semantic", "content": "b writes into a"}}}, false},
		{"get_facts", map[string]any{"entity": "User"}, true},
		{"get_facts", map[string]any{"entity": "User", "predicate": "works at", "history": true}, true},
		{"get_facts", map[string]any{"entity": "User", "agent": "a"}, false},
		{"add_facts", map[string]any{"agent": "a", "facts": []any{map[string]any{"subject": "User", "predicate": "works at", "object": "b's choice"}}}, false},
		{"search", map[string]any{"query": "deploy pipeline", "user_id": "u1"}, true},
		{"list_memories", map[string]any{"filter": map[string]any{"user_id": "u1"}}, true},
		{"forget_user", map[string]any{"user_id": "u1", "agent": "a"}, false},
		{"forget_user", map[string]any{"user_id": "u1"}, false}, // b's own u1, last
	} {
		if c.args["agent"] == "a" && transport == "stdio" {
			continue // a stdio session has no token: it may name any agent
		}
		_, text := callTool(t, cs, c.tool, c.args)
		require.NotContains(t, strings.ToLower(text), mark, "%s %v answers with a's data", c.tool, c.args)
		if c.own {
			require.Contains(t, text, "bravo", "%s %v: b's own data", c.tool, c.args)
		}
	}
	for _, uri := range []string{"engram://b/memory.md", "engram://b/summary"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
		for _, c := range res.Contents {
			require.NotContains(t, strings.ToLower(c.Text), mark, "%s holds a's data", uri)
		}
	}
	a, err := agents.Agent("a")
	require.NoError(t, err)
	e, err := a.Semantic().Get(ctx, aSem)
	require.NoError(t, err, "b's forget reached a's entry")
	require.Contains(t, e.Content, mark)
	st, err := a.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Semantic)
	require.Equal(t, 1, st.Episodes)
	require.Equal(t, 1, st.Facts)
}

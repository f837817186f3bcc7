package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/mcpserver"
)

// connect serves s on in-memory transports and returns a client session
// of the Go SDK.
func connect(t *testing.T, s *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		cancel()
		require.NoError(t, <-done)
	})
	return cs
}

// callTool calls a tool and returns its result and its text.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s: a protocol error", name)
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	return res, text
}

// TestReadsCreateNothing: the tools and resources that read, called for
// an agent with no memory, answer as an empty memory does and create
// nothing; a write then creates the agent.
func TestReadsCreateNothing(t *testing.T) {
	agents := testutil.NewAgents(t)
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: "ghost"})
	require.NoError(t, err)
	cs := connect(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "anything"}},
		{"recall", map[string]any{"query": "anything"}},
		{"context", map[string]any{"query": "anything"}},
		{"query_graph", map[string]any{"entity": "User"}},
		{"list_recent", map[string]any{}},
		{"list_recent", map[string]any{"kind": "semantic", "agent": "other"}},
	} {
		res, text := callTool(t, cs, c.tool, c.args)
		require.False(t, res.IsError, "%s: %s", c.tool, text)
	}
	for _, uri := range []string{"engram://ghost/memory.md", "engram://ghost/summary", "engram://other/summary"} {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
		require.Len(t, res.Contents, 1)
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://ghost/secrets"})
	require.Error(t, err)
	entries, err := os.ReadDir(agents.Dir)
	require.NoError(t, err)
	require.Empty(t, entries, "reads made files")
	require.Zero(t, agents.Opened())

	res, text := callTool(t, cs, "remember", map[string]any{"content": "now the agent exists"})
	require.False(t, res.IsError, text)
	var out struct{ ID, Agent string }
	require.NoError(t, json.Unmarshal([]byte(text), &out))
	require.Equal(t, "ghost", out.Agent)
	ids, err := agents.Agents(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"ghost"}, ids)
}

// TestBadArgumentsAreToolErrors: every way an argument can be wrong is a
// tool error, and the session answers the next call.
func TestBadArgumentsAreToolErrors(t *testing.T) {
	s, err := mcpserver.New(testutil.NewAgents(t), mcpserver.Options{})
	require.NoError(t, err)
	cs := connect(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"remember", map[string]any{}},
		{"remember", map[string]any{"content": ""}},
		{"remember", map[string]any{"content": "x", "importance": -0.1}},
		{"remember", map[string]any{"content": "x", "tags": []any{1}}},
		{"remember", map[string]any{"content": "x", "extra": true}},
		{"search", map[string]any{"query": "x", "limit": 0}},
		{"search", map[string]any{"query": "x", "types": []string{"dreams"}}},
		{"context", map[string]any{"max_tokens": 1e9}},
		{"log_event", map[string]any{"content": "x", "type": "digest"}},
		{"add_fact", map[string]any{"subject": "a", "predicate": "b"}},
		{"add_fact", map[string]any{"subject": "a", "predicate": "b", "object": "c", "valid_from": "yesterday"}},
		{"add_fact", map[string]any{"subject": "a\nb", "predicate": "b", "object": "c"}},
		{"query_graph", map[string]any{"direction": "up"}},
		{"list_recent", map[string]any{"kind": "working"}},
		{"forget", map[string]any{"id": "nothing-here"}},
		{"remember", map[string]any{"content": "x", "agent": "no such/agent"}},
	} {
		res, text := callTool(t, cs, c.tool, c.args)
		require.True(t, res.IsError, "%s %v: not a tool error: %s", c.tool, c.args, text)
	}
	res, text := callTool(t, cs, "list_recent", nil)
	require.False(t, res.IsError, text)
}

// TestTokenScopes: behind httpapi's tokens, a token limited to one agent
// reaches that agent's memory only, through tools and resources alike.
func TestTokenScopes(t *testing.T) {
	agents := testutil.NewAgents(t)
	s, err := mcpserver.New(agents, mcpserver.Options{})
	require.NoError(t, err)
	alice := "alice-token-0123456789abcdef"
	api, err := httpapi.New(agents, httpapi.Options{
		Tokens: []httpapi.Token{{Secret: alice, Agents: []string{"alice"}}},
		MCP:    s.HTTPHandler(mcpserver.HTTPOptions{}),
	})
	require.NoError(t, err)
	srv := httptest.NewServer(api)
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	_, err = client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1}, nil)
	require.Error(t, err, "connected without a token")

	hc := &http.Client{Transport: bearer{alice}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer cs.Close()

	res, text := callTool(t, cs, "remember", map[string]any{"content": "alice's", "agent": "alice"})
	require.False(t, res.IsError, text)
	for _, agent := range []string{"bob", "default"} {
		res, text = callTool(t, cs, "remember", map[string]any{"content": "not alice's", "agent": agent})
		require.True(t, res.IsError, "agent %q: %s", agent, text)
		require.Contains(t, text, "does not allow")
	}
	// A call that names no agent is the token's one agent's, not the
	// server's (default), which the token does not allow.
	res, text = callTool(t, cs, "remember", map[string]any{"content": "alice's too"})
	require.False(t, res.IsError, text)
	require.Contains(t, text, `"agent":"alice"`)
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://bob/summary"})
	require.Error(t, err)
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://alice/summary"})
	require.NoError(t, err)
	ids, err := agents.Agents(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"alice"}, ids)
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/mcpserver"
)

// TestTokenOfOneAgentIsItsDefault serves MCP behind httpapi, the server's
// agent "default", to a client with a token for alice alone (engram serve
// --agent-token alice=…): a tool that names no agent touches alice's
// memory, not default's, which the token may not; and the resources
// listed are alice's, not default's.
func TestTokenOfOneAgentIsItsDefault(t *testing.T) {
	ctx := context.Background()
	agents := testutil.NewAgentsIn(t, testutil.Layouts[0])
	m, err := agents.Agent("alice")
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "alice keeps the kayak in the boathouse", Importance: 0.8})
	require.NoError(t, err)
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: engram.DefaultAgent})
	require.NoError(t, err)
	const token = "alice-token-0123456789abcdef"
	api, err := httpapi.New(agents, httpapi.Options{
		Tokens: []httpapi.Token{{Secret: token, Agents: []string{"alice"}}},
		MCP:    s.HTTPHandler(mcpserver.HTTPOptions{}),
	})
	require.NoError(t, err)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })

	res, text := callTool(t, cs, "search", map[string]any{"query": "kayak"})
	require.False(t, res.IsError, text)
	require.Contains(t, text, "boathouse", "a tool without an agent searches the token's agent")
	res, text = callTool(t, cs, "remember", map[string]any{"content": "alice paddles on Sundays"})
	require.False(t, res.IsError, text)
	require.Contains(t, text, `"agent":"alice"`)
	res, text = callTool(t, cs, "search", map[string]any{"query": "kayak", "agent": engram.DefaultAgent})
	require.True(t, res.IsError, "the token does not allow default: %s", text)

	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	require.ElementsMatch(t, []string{"engram://alice/memory.md", "engram://alice/summary"}, uris)
	for _, uri := range uris {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/stmtlist"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/mcpserver"
)

// stdioEnv, when set, makes the test binary an MCP server on stdio over
// the agents of the directory it names, for the TypeScript client's
// end-to-end test (the test re-executes itself rather than depend on
// cmd/engram).
const stdioEnv = "ENGRAM_MCP_E2E_STDIO_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(stdioEnv); dir != "" {
		os.Exit(serveStdio(dir))
	}
	// The tests check that every statement they run is in the list the
	// PostgreSQL engine's tests prepare (see internal/stmtlist).
	finish := stmtlist.Start("../"+stmtlist.Golden, true)
	os.Exit(finish(m.Run()))
}

// serveStdio serves MCP on stdio over the agents under dir until the
// client closes the session.
func serveStdio(dir string) int {
	agents := &dirAgents{dir: dir, open: map[string]*engram.Memory{}}
	defer agents.close()
	s, err := mcpserver.New(agents, mcpserver.Options{})
	if err == nil {
		err = s.ServeStdio(context.Background())
	}
	if err != nil {
		os.Stderr.WriteString("mcp stdio server: " + err.Error() + "\n")
		return 1
	}
	return 0
}

// dirAgents opens each agent under dir once.
type dirAgents struct {
	dir  string
	mu   sync.Mutex
	open map[string]*engram.Memory
}

func (a *dirAgents) Agent(id string) (*engram.Memory, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.open[id]; m != nil {
		return m, nil
	}
	m, err := engram.New(engram.Tier1, engram.WithDir(a.dir), engram.WithAgent(id))
	if err == nil {
		a.open[id] = m
	}
	return m, err
}

func (a *dirAgents) Agents(ctx context.Context) ([]string, error) {
	return engram.ListAgents(ctx, engram.WithDir(a.dir))
}

func (a *dirAgents) close() {
	for _, m := range a.open {
		m.Close()
	}
}

// verdict is what testdata/client/e2e.mjs prints.
type verdict struct {
	Transport string            `json:"transport"`
	Tools     []string          `json:"tools"`
	Calls     map[string]string `json:"calls"`
	Bad       map[string]bool   `json:"bad"`
	Resources []string          `json:"resources"`
	Failures  []string          `json:"failures"`
}

var allTools = []string{"add_fact", "add_facts", "add_memories", "context", "delete_memory", "forget", "forget_memories", "forget_user", "get_facts", "get_memory",
	"list_memories", "list_recent", "log_event", "query_graph", "recall", "remember", "search", "update_memory"}

// runClient runs the TypeScript client with args and returns its verdict.
// It skips the test when node or the client's node_modules are missing
// (.ci/run installs them with npm ci, and fails without them).
func runClient(t *testing.T, args ...string) verdict {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the end-to-end test with the TypeScript MCP client needs it")
	}
	dir := filepath.Join("testdata", "client")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("testdata/client/node_modules is missing: run npm ci in mcpserver/testdata/client")
	}
	cmd := exec.Command(node, append([]string{"e2e.mjs"}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	var v verdict
	require.NoError(t, json.Unmarshal(out, &v), "the client's verdict: %s (stderr %s)", out, stderr.String())
	return v
}

// checkVerdict holds a verdict to what the server must do.
func checkVerdict(t *testing.T, v verdict) {
	t.Helper()
	require.Empty(t, v.Failures, "the TypeScript client's failures")
	require.Equal(t, allTools, v.Tools)
	for _, tool := range allTools {
		require.Equal(t, "ok", v.Calls[tool], "call of %s", tool)
	}
	require.Len(t, v.Bad, 9)
	for name, isError := range v.Bad {
		require.True(t, isError, "bad call %q is not a tool error", name)
	}
	require.True(t, slices.Contains(v.Resources, "engram://default/memory.md"), "resources %v", v.Resources)
	require.True(t, slices.Contains(v.Resources, "engram://default/summary"), "resources %v", v.Resources)
}

// TestTypeScriptClient drives the server with the official TypeScript
// SDK's client (@modelcontextprotocol/sdk, pinned in testdata/client),
// which nobody here wrote: over stdio, this test binary re-executed as the
// server, and over streamable HTTP, at /mcp of the HTTP API behind a
// bearer token.
func TestTypeScriptClient(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		exe, err := os.Executable()
		require.NoError(t, err)
		dir := t.TempDir()
		t.Setenv(stdioEnv, dir)
		v := runClient(t, "stdio", exe, "-test.run=^$")
		require.Equal(t, "stdio", v.Transport)
		checkVerdict(t, v)
		// The session's end flushed the agent: its memory.md is written.
		md, err := os.ReadFile(filepath.Join(dir, "default", "memory.md"))
		require.NoError(t, err)
		require.NotContains(t, string(md), "Fridays", "memory.md shows a forgotten memory")
	})
	t.Run("http", func(t *testing.T) {
		agents := testutil.NewAgents(t)
		s, err := mcpserver.New(agents, mcpserver.Options{})
		require.NoError(t, err)
		token := "e2e-token-0123456789abcdef"
		api, err := httpapi.New(agents, httpapi.Options{Tokens: []httpapi.Token{{Secret: token}}, MCP: s.HTTPHandler(mcpserver.HTTPOptions{})})
		require.NoError(t, err)
		srv := httptest.NewServer(api)
		defer srv.Close()
		v := runClient(t, "http", srv.URL+"/mcp", token)
		require.Equal(t, "http", v.Transport)
		checkVerdict(t, v)
	})
}

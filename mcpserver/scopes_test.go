package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/mcpserver"
)

// seedUsers adds, in agent, for users u1 and u2, a semantic entry, an
// episode and a procedure each in session s1, with metadata, every text
// holding "kayak" and the user's name; and a fact of no user.
func seedUsers(t *testing.T, cs *mcp.ClientSession, agent string) {
	t.Helper()
	var items []any
	for i, u := range []string{"u1", "u2"} {
		lang := []string{"go", "rust"}[i]
		items = append(items,
			map[string]any{"type": "semantic", "id": agent + "-" + u + "-sem", "content": "kayak note of " + u, "user_id": u, "session_id": "s1",
				"metadata": map[string]any{"lang": lang, "rank": i + 1}},
			map[string]any{"type": "episodic", "id": agent + "-" + u + "-ep", "content": "kayak event of " + u, "user_id": u, "session_id": "s1",
				"metadata": map[string]any{"lang": lang}},
			map[string]any{"type": "procedural", "id": agent + "-" + u + "-proc", "name": "kayak drill of " + u, "user_id": u, "session_id": "s1",
				"metadata": map[string]any{"lang": lang}})
	}
	items = append(items, map[string]any{"type": "fact", "id": agent + "-fact", "subject": "kayak", "predicate": "is", "object": "shared"})
	res, text := callTool(t, cs, "add_memories", map[string]any{"agent": agent, "memories": items})
	require.False(t, res.IsError, text)
}

// listed returns the sorted IDs list_memories answers with args.
func listed(t *testing.T, cs *mcp.ClientSession, args map[string]any) []string {
	t.Helper()
	args["limit"] = 100
	res, text := callTool(t, cs, "list_memories", args)
	require.False(t, res.IsError, text)
	var ids []string
	for _, m := range decodeText(t, text)["memories"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	slices.Sort(ids)
	return ids
}

// TestScopeTools: add_memories stores a memory's user, session and
// metadata, shown by get_memory; search, recall, context and
// list_memories take user, session and a filter; a bad one is a tool
// error naming its bad part.
func TestScopeTools(t *testing.T) {
	s, err := mcpserver.New(testutil.NewAgents(t), mcpserver.Options{Agent: "ada"})
	require.NoError(t, err)
	cs := connect(t, s)
	seedUsers(t, cs, "ada")

	res, text := callTool(t, cs, "get_memory", map[string]any{"id": "ada-u1-sem"})
	require.False(t, res.IsError, text)
	mem := decodeText(t, text)["memory"].(map[string]any)
	assert.Equal(t, "u1", mem["user_id"])
	assert.Equal(t, "s1", mem["session_id"])
	assert.Equal(t, map[string]any{"lang": "go", "rank": 1.0}, mem["metadata"])
	_, text = callTool(t, cs, "get_memory", map[string]any{"id": "ada-u2-ep"})
	ep := decodeText(t, text)["memory"].(map[string]any)
	assert.Equal(t, "u2", ep["user_id"])
	assert.Equal(t, "s1", ep["session_id"])
	assert.Equal(t, map[string]any{"lang": "rust", "source": "mcp"}, ep["metadata"])

	assert.Equal(t, []string{"ada-u1-ep", "ada-u1-proc", "ada-u1-sem"}, listed(t, cs, map[string]any{"user_id": "u1"}))
	assert.Equal(t, []string{"ada-u2-proc", "ada-u2-sem"}, listed(t, cs, map[string]any{"session_id": "s1",
		"filter": map[string]any{"user_id": "u2", "types": []string{"semantic", "procedural"}}}))
	assert.Equal(t, []string{"ada-u1-sem"}, listed(t, cs, map[string]any{
		"filter": map[string]any{"metadata": map[string]any{"and": []any{map[string]any{"key": "rank", "gte": 1}, map[string]any{"key": "lang", "ne": "rust"}}}}}))

	for _, tool := range []string{"search", "recall", "context"} {
		args := map[string]any{"query": "kayak note event drill", "user_id": "u2", "filter": map[string]any{"metadata": map[string]any{"key": "lang", "eq": "rust"}}}
		if tool == "context" {
			args["max_tokens"] = 50000
		}
		res, text := callTool(t, cs, tool, args)
		require.False(t, res.IsError, text)
		assert.Contains(t, text, "of u2", tool)
		assert.NotContains(t, text, "of u1", tool)
	}

	for _, c := range []struct {
		args map[string]any
		part string
	}{
		{map[string]any{"user_id": "u1", "filter": map[string]any{"user_id": "u2"}}, "filter.user_id"},
		{map[string]any{"filter": map[string]any{"user_id": "no spaces"}}, "user"},
		{map[string]any{"filter": map[string]any{"since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}}, "filter.until"},
		{map[string]any{"filter": map[string]any{"metadata": map[string]any{"key": "a"}}}, "filter.metadata"},
		{map[string]any{"filter": map[string]any{"metadata": map[string]any{"or": []any{map[string]any{"key": "a", "gt": true}}}}}, "filter.metadata.or[0].gt"},
		{map[string]any{"filter": map[string]any{"owner": "u1"}}, "owner"},
	} {
		for _, tool := range []string{"search", "recall", "context", "list_memories"} {
			args := map[string]any{}
			for k, v := range c.args {
				args[k] = v
			}
			if tool != "list_memories" {
				args["query"] = "kayak"
			}
			res, text := callTool(t, cs, tool, args)
			require.True(t, res.IsError, "%s %v: %s", tool, c.args, text)
			assert.Contains(t, text, c.part, "%s %v", tool, c.args)
		}
	}
	res, text = callTool(t, cs, "add_memories", map[string]any{"memories": []any{
		map[string]any{"type": "episodic", "content": "x", "session": "a"}}})
	require.True(t, res.IsError, text)
	assert.Contains(t, text, "episodic", "session is no field: session_id is")
	res, text = callTool(t, cs, "add_memories", map[string]any{"memories": []any{
		map[string]any{"type": "fact", "subject": "a", "predicate": "b", "object": "c", "user_id": "u1"}}})
	require.True(t, res.IsError, text, "a fact has no user")
	assert.Len(t, listed(t, cs, map[string]any{}), 7, "nothing stored")
}

// TestUsersAreIsolated: in one agent, a user's memories never answer a
// search, recall, context or listing scoped to another user; forget_user
// erases that user's memories only, in that agent only.
func TestUsersAreIsolated(t *testing.T) {
	s, err := mcpserver.New(testutil.NewAgents(t), mcpserver.Options{Agent: "ada"})
	require.NoError(t, err)
	cs := connect(t, s)
	seedUsers(t, cs, "ada")
	seedUsers(t, cs, "bob")
	for _, tool := range []string{"search", "recall", "context", "list_memories"} {
		for _, args := range []map[string]any{{"user_id": "u2"}, {"filter": map[string]any{"user_id": "u2"}}} {
			if tool != "list_memories" {
				args["query"] = "kayak note event drill u1 u2"
			}
			res, text := callTool(t, cs, tool, args)
			require.False(t, res.IsError, text)
			assert.Contains(t, text, "of u2", "%s %v", tool, args)
			assert.NotContains(t, text, "of u1", "%s %v", tool, args)
			assert.NotContains(t, text, "ada-u1", "%s %v", tool, args)
		}
	}

	res, text := callTool(t, cs, "forget_user", map[string]any{"user_id": "u1"})
	require.False(t, res.IsError, text)
	assert.Equal(t, map[string]any{"deleted": 3.0, "user_id": "u1", "agent": "ada"}, decodeText(t, text))
	assert.Equal(t, []string{"ada-fact", "ada-u2-ep", "ada-u2-proc", "ada-u2-sem"}, listed(t, cs, map[string]any{}))
	assert.Equal(t, []string{"bob-u1-ep", "bob-u1-proc", "bob-u1-sem"}, listed(t, cs, map[string]any{"agent": "bob", "user_id": "u1"}), "another agent's u1 stays")
	res, text = callTool(t, cs, "forget_user", map[string]any{"user_id": "no spaces"})
	require.True(t, res.IsError, text)
	assert.True(t, strings.Contains(text, "user"), text)
}

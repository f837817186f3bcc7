package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/mcpserver"
)

// decodeText decodes a tool's JSON answer.
func decodeText(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &v), "%s", text)
	return v
}

// TestMemoryTools: add_memories stores a batch of every kind at once (or
// nothing), get_memory and list_memories read them in their kinds' views,
// update_memory changes what a kind lets change, delete_memory erases.
func TestMemoryTools(t *testing.T) {
	agents := testutil.NewAgents(t)
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: "ada"})
	require.NoError(t, err)
	cs := connect(t, s)

	res, text := callTool(t, cs, "add_memories", map[string]any{"memories": []any{
		map[string]any{"type": "semantic", "id": "note-1", "content": "Ada prefers short answers", "tags": []string{"user"}},
		map[string]any{"type": "episodic", "content": "Deployed v2", "event_type": "decision-made", "metadata": map[string]string{"ticket": "T-1"}},
		map[string]any{"type": "procedural", "name": "deploy", "pattern": "test, ship"},
		map[string]any{"type": "fact", "subject": "Ada", "predicate": "lives in", "object": "London", "memory_id": "note-1"},
	}})
	require.False(t, res.IsError, text)
	added := decodeText(t, text)["memories"].([]any)
	require.Len(t, added, 4)
	ids := make([]string, len(added))
	for i, a := range added {
		ids[i] = a.(map[string]any)["id"].(string)
	}
	require.Equal(t, "insert", added[3].(map[string]any)["action"])

	res, text = callTool(t, cs, "get_memory", map[string]any{"id": ids[1]})
	require.False(t, res.IsError, text)
	got := decodeText(t, text)
	require.Equal(t, "episodic", got["type"])
	mem := got["memory"].(map[string]any)
	require.Equal(t, "decision-made", mem["event_type"])
	require.Equal(t, map[string]any{"ticket": "T-1", "source": "mcp"}, mem["metadata"])
	res, text = callTool(t, cs, "get_memory", map[string]any{"id": ids[3]})
	require.False(t, res.IsError, text)
	require.Equal(t, "London", decodeText(t, text)["memory"].(map[string]any)["object"])

	// Pages of two, newest first, by the cursor.
	var listed []string
	args := map[string]any{"limit": 2}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3)
		res, text = callTool(t, cs, "list_memories", args)
		require.False(t, res.IsError, text)
		page := decodeText(t, text)
		for _, m := range page["memories"].([]any) {
			listed = append(listed, m.(map[string]any)["id"].(string))
		}
		next, ok := page["next_cursor"].(string)
		if !ok {
			break
		}
		args["cursor"] = next
	}
	require.ElementsMatch(t, ids, listed)
	res, text = callTool(t, cs, "list_memories", map[string]any{"types": []string{"procedural"}})
	require.False(t, res.IsError, text)
	require.Len(t, decodeText(t, text)["memories"], 1)

	res, text = callTool(t, cs, "update_memory", map[string]any{"id": "note-1", "content": "Ada prefers very short answers", "importance": 0.9})
	require.False(t, res.IsError, text)
	require.Equal(t, "Ada prefers very short answers", decodeText(t, text)["memory"].(map[string]any)["content"])
	res, text = callTool(t, cs, "update_memory", map[string]any{"id": ids[2], "pattern": "test, canary, ship"})
	require.False(t, res.IsError, text)
	require.Equal(t, "test, canary, ship", decodeText(t, text)["memory"].(map[string]any)["pattern"])
	for _, c := range []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"id": "note-1", "pattern": "x"}, "no pattern"},
		{map[string]any{"id": ids[2], "content": "x"}, "no content"},
		{map[string]any{"id": ids[1], "content": "x"}, "not edited"},
		{map[string]any{"id": ids[3], "tags": []string{"x"}}, "not edited"},
		{map[string]any{"id": "nope", "content": "x"}, "not found"},
	} {
		res, text := callTool(t, cs, "update_memory", c.args)
		require.True(t, res.IsError, "%v: %s", c.args, text)
		assert.Contains(t, text, c.says)
	}

	m, err := agents.Agent("ada")
	require.NoError(t, err)
	before, err := m.Stats(context.Background())
	require.NoError(t, err)
	// A batch with a conflict found only while writing stores nothing.
	res, text = callTool(t, cs, "add_memories", map[string]any{"memories": []any{
		map[string]any{"type": "semantic", "content": "rolled back"},
		map[string]any{"type": "procedural", "name": "deploy"},
	}})
	require.True(t, res.IsError, text)
	require.Contains(t, text, "exists")
	after, err := m.Stats(context.Background())
	require.NoError(t, err)
	require.Equal(t, before, after)

	res, text = callTool(t, cs, "delete_memory", map[string]any{"id": ids[1]})
	require.False(t, res.IsError, text)
	res, text = callTool(t, cs, "get_memory", map[string]any{"id": ids[1]})
	require.True(t, res.IsError, text)
	_, err = m.Episodic().Get(context.Background(), ids[1])
	require.ErrorIs(t, err, engram.ErrNotFound)
}

// TestFactTools: add_facts asserts a batch, supersedes and merges;
// get_facts answers now, as of a time, and a slot's history.
func TestFactTools(t *testing.T) {
	s, err := mcpserver.New(testutil.NewAgents(t), mcpserver.Options{})
	require.NoError(t, err)
	cs := connect(t, s)
	res, text := callTool(t, cs, "add_facts", map[string]any{"facts": []any{
		map[string]any{"subject": "Ada", "predicate": "lives in", "object": "London", "valid_from": "2020-01-01T00:00:00Z"},
		map[string]any{"subject": "Ada", "predicate": "lives in", "object": "Paris", "valid_from": "2024-01-01T00:00:00Z"},
		map[string]any{"subject": "ada", "predicate": "lives in", "object": "paris", "valid_from": "2024-06-01T00:00:00Z"},
	}})
	require.False(t, res.IsError, text)
	var actions []string
	for _, a := range decodeText(t, text)["facts"].([]any) {
		actions = append(actions, a.(map[string]any)["action"].(string))
	}
	require.Equal(t, []string{"insert", "supersede", "merge"}, actions)

	objects := func(args map[string]any) []string {
		res, text := callTool(t, cs, "get_facts", args)
		require.False(t, res.IsError, text)
		var out []string
		for _, f := range decodeText(t, text)["facts"].([]any) {
			out = append(out, f.(map[string]any)["object"].(string))
		}
		return out
	}
	require.Equal(t, []string{"Paris"}, objects(map[string]any{"entity": "Ada"}))
	require.Equal(t, []string{"London"}, objects(map[string]any{"entity": "Ada", "as_of": "2022-01-01T00:00:00Z"}))
	require.Equal(t, []string{"London", "Paris"}, objects(map[string]any{"entity": "Ada", "predicate": "lives in", "history": true}))
	for _, args := range []map[string]any{
		{"history": true, "entity": "Ada"},
		{"as_of": "2022-01-01T00:00:00Z", "known_at": "2022-01-01T00:00:00Z"},
		{"as_of": "soon"},
		{"limit": 0},
	} {
		res, text := callTool(t, cs, "get_facts", args)
		require.True(t, res.IsError, "%v: %s", args, text)
	}
}

// TestMemoryToolSchemas: the new tools' schemas refuse what does not fit,
// as a tool error.
func TestMemoryToolSchemas(t *testing.T) {
	s, err := mcpserver.New(testutil.NewAgents(t), mcpserver.Options{})
	require.NoError(t, err)
	cs := connect(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"add_memories", map[string]any{}},
		{"add_memories", map[string]any{"memories": []any{}}},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"content": "no type"}}}},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"type": "working", "content": "x"}}}},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"type": "semantic", "content": "x", "pattern": "y"}}}},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"type": "fact", "subject": "a", "predicate": "b"}}}},
		{"add_memories", map[string]any{"memories": []any{map[string]any{"type": "semantic", "content": "x", "importance": 2}}}},
		{"get_memory", map[string]any{}},
		{"list_memories", map[string]any{"types": []string{"working"}}},
		{"list_memories", map[string]any{"limit": 101}},
		{"list_memories", map[string]any{"cursor": "garbage"}},
		{"update_memory", map[string]any{"id": "x"}},
		{"update_memory", map[string]any{"id": "x", "subject": "y"}},
		{"add_facts", map[string]any{"facts": []any{map[string]any{"subject": "a", "predicate": "b", "object": "c", "type": "fact"}}}},
		{"get_facts", map[string]any{"direction": "up"}},
	} {
		res, text := callTool(t, cs, c.tool, c.args)
		require.True(t, res.IsError, "%s %v: not a tool error: %s", c.tool, c.args, text)
	}
}

// TestFactToolsShareTheFactView: add_fact and query_graph show a fact in
// the view add_facts, get_facts, get_memory and the HTTP API show it in
// (memview.Fact), its sources and when it was recorded included.
func TestFactToolsShareTheFactView(t *testing.T) {
	agents := testutil.NewAgents(t)
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: "ada"})
	require.NoError(t, err)
	cs := connect(t, s)

	res, text := callTool(t, cs, "add_fact", map[string]any{"subject": "Ada", "predicate": "lives in", "object": "London"})
	require.False(t, res.IsError, text)
	added := decodeText(t, text)["fact"].(map[string]any)
	assert.Equal(t, []any{"mcp"}, added["sources"])
	assert.Contains(t, added, "recorded_at")

	res, text = callTool(t, cs, "get_facts", map[string]any{"entity": "Ada"})
	require.False(t, res.IsError, text)
	want := decodeText(t, text)["facts"]
	res, text = callTool(t, cs, "query_graph", map[string]any{"entity": "Ada"})
	require.False(t, res.IsError, text)
	assert.Equal(t, want, decodeText(t, text)["facts"])
	assert.Equal(t, added["id"], want.([]any)[0].(map[string]any)["id"])
}

// TestSearchToolsShareTheResultView: search and recall show what they
// find in the view POST /v1/search and engram search show it in
// (memview.Result): the snippet, the tags and the parts of the score too.
func TestSearchToolsShareTheResultView(t *testing.T) {
	agents := testutil.NewAgents(t)
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: "ada"})
	require.NoError(t, err)
	cs := connect(t, s)
	res, text := callTool(t, cs, "remember", map[string]any{"content": "The deploy runs on Fridays", "tags": []string{"ops"}})
	require.False(t, res.IsError, text)

	res, text = callTool(t, cs, "search", map[string]any{"query": "deploy"})
	require.False(t, res.IsError, text)
	found := decodeText(t, text)["results"].([]any)
	require.Len(t, found, 1)
	r := found[0].(map[string]any)
	assert.Equal(t, []any{"ops"}, r["tags"])
	assert.Contains(t, r["snippet"], "deploy")
	assert.Contains(t, r["parts"], "text")

	res, text = callTool(t, cs, "recall", map[string]any{"query": "deploy"})
	require.False(t, res.IsError, text)
	sem := decodeText(t, text)["by_kind"].(map[string]any)["semantic"].([]any)
	require.NotEmpty(t, sem)
	assert.Contains(t, sem[0], "parts")
	assert.IsType(t, 0.0, sem[0].(map[string]any)["gate"], "the gate's value, as before")
}

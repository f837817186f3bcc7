package ollama_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/ollama"
)

// fakeChat serves /api/chat with reply; bodies returns the requests' bodies
// so far.
func fakeChat(t *testing.T, reply string) (srv *httptest.Server, bodies func() []map[string]any) {
	t.Helper()
	var mu sync.Mutex
	var got []map[string]any
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
		_, _ = w.Write([]byte(reply))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), got...)
	}
}

func reply(content string) string {
	b, _ := json.Marshal(map[string]any{"model": "llama3.2", "message": map[string]string{"role": "assistant", "content": content},
		"done": true, "done_reason": "stop"})
	return string(b)
}

func TestChatRequest(t *testing.T) {
	srv, bodies := fakeChat(t, reply(`{"ok": true}`))
	llm := ollama.NewChat(srv.URL+"/", "llama3.2")
	schema := `{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}`
	var schemaValue any
	require.NoError(t, json.Unmarshal([]byte(schema), &schemaValue))
	for name, tc := range map[string]struct {
		prompt engram.Prompt
		format any // nil: none
	}{
		"text":            {engram.Prompt{System: "s", User: "u"}, nil},
		"JSON":            {engram.Prompt{System: "s", User: "u", JSON: true}, "json"},
		"schema":          {engram.Prompt{System: "s", User: "u", Schema: json.RawMessage(schema)}, schemaValue},
		"schema and JSON": {engram.Prompt{System: "s", User: "u", JSON: true, Schema: json.RawMessage(schema)}, schemaValue},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := llm.Complete(context.Background(), tc.prompt)
			require.NoError(t, err)
			assert.Equal(t, `{"ok": true}`, got)
			all := bodies()
			want := map[string]any{"model": "llama3.2", "stream": false, "options": map[string]any{"temperature": 0.0},
				"messages": []any{map[string]any{"role": "system", "content": "s"}, map[string]any{"role": "user", "content": "u"}}}
			if tc.format != nil {
				want["format"] = tc.format
			}
			assert.Equal(t, want, all[len(all)-1])
		})
	}
	_, err := llm.Complete(context.Background(), engram.Prompt{User: "u"})
	require.NoError(t, err)
	all := bodies()
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "u"}}, all[len(all)-1]["messages"], "no system prompt, no system message")
}

func TestChatErrors(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		reply, why string
	}{
		"cut off":   {`{"message": {"content": "{\"o"}, "done": true, "done_reason": "length"}`, "cut off at the token limit"},
		"no text":   {`{"message": {"content": "  "}, "done": true, "done_reason": "stop"}`, "no text"},
		"not JSON":  {`<html>`, "not the JSON expected"},
		"too large": {reply(strings.Repeat("a", 300)), "larger than 200 bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, bodies := fakeChat(t, tc.reply)
			llm := ollama.NewChat(srv.URL, "llama3.2")
			llm.MaxAnswerBytes = 200
			_, err := llm.Complete(ctx, engram.Prompt{User: "u", JSON: true})
			require.ErrorIs(t, err, engram.ErrBadAnswer)
			assert.Contains(t, err.Error(), tc.why)
			assert.Len(t, bodies(), 1, "not retried")
		})
	}

	srv, bodies := fakeChat(t, reply("x"))
	for field, tc := range map[string]struct {
		llm    *ollama.Chat
		prompt engram.Prompt
	}{
		"Model":         {ollama.NewChat(srv.URL, ""), engram.Prompt{User: "u"}},
		"BaseURL":       {ollama.NewChat("localhost:11434", "m"), engram.Prompt{User: "u"}},
		"Prompt.Schema": {ollama.NewChat(srv.URL, "m"), engram.Prompt{User: "u", Schema: json.RawMessage(`"object"`)}},
	} {
		_, err := tc.llm.Complete(ctx, tc.prompt)
		var ie *engram.InvalidError
		require.ErrorAs(t, err, &ie, field)
		assert.Equal(t, field, ie.Field)
	}
	assert.Empty(t, bodies(), "no request for invalid settings")

	notPulled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"model \"llama9\" not found, try pulling it first"}`, http.StatusNotFound)
	}))
	defer notPulled.Close()
	llm := ollama.NewChat(notPulled.URL, "llama9")
	llm.Backoff = time.Millisecond
	_, err := llm.Complete(ctx, engram.Prompt{User: "u"})
	var ae *engram.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusNotFound, ae.Status)
}

// Extraction sends its answer's JSON Schema as format, and the answer,
// which follows it, becomes memories and facts.
func TestChatExtracts(t *testing.T) {
	srv, bodies := fakeChat(t, reply(`{"facts": [], "episodes": [], "procedures": [],
		"triples": [{"subject": "User", "predicate": "lives in", "object": "Lisbon"}]}`))
	m := testutil.Open(t, engram.WithLLM(ollama.NewChat(srv.URL, "llama3.2")))
	res, err := m.Extract(context.Background(), []engram.Message{{Role: "user", Content: "I moved to Lisbon last year."}})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, "User lives in Lisbon", res.Facts[0].Fact.String())
	all := bodies()
	require.Len(t, all, 1)
	format, ok := all[0]["format"].(map[string]any)
	require.True(t, ok, "the schema is the format: %v", all[0]["format"])
	assert.Equal(t, "object", format["type"])
	assert.ElementsMatch(t, []any{"facts", "triples", "episodes", "procedures"}, format["required"])
	triples := format["properties"].(map[string]any)["triples"].(map[string]any)["items"].(map[string]any)
	assert.ElementsMatch(t, []any{"subject", "predicate", "object"}, triples["required"])
}

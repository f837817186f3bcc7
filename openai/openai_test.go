package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
	"github.com/engram-go/engram/openai"
)

// request is what a test server received.
type request struct {
	path   string
	header http.Header
	body   map[string]any
}

// server answers with handle, recording each request; call n counts from 1.
func server(t *testing.T, handle func(w http.ResponseWriter, req request, n int64)) (*httptest.Server, *atomic.Int64, func() request) {
	t.Helper()
	var calls atomic.Int64
	var last atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := request{path: r.URL.Path, header: r.Header}
		if err := json.NewDecoder(r.Body).Decode(&req.body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		last.Store(req)
		handle(w, req, calls.Add(1))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls, func() request { return last.Load().(request) }
}

// vectors answers an embeddings request with vectors of dims numbers whose
// first is the length of their text, listed in reverse order.
func vectors(dims int) func(w http.ResponseWriter, req request, n int64) {
	return func(w http.ResponseWriter, req request, _ int64) {
		var data []map[string]any
		input := req.body["input"].([]any)
		for i := len(input) - 1; i >= 0; i-- {
			v := make([]float32, dims)
			v[0] = float32(len(input[i].(string)))
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}
}

func answer(v any) func(w http.ResponseWriter, req request, n int64) {
	return func(w http.ResponseWriter, _ request, _ int64) { _ = json.NewEncoder(w).Encode(v) }
}

func TestEmbedder(t *testing.T) {
	ctx := context.Background()
	srv, calls, last := server(t, vectors(4))
	e := openai.NewEmbedder(srv.URL+"/v1/", "sk-test", "text-embedding-3-small", 4)
	e.BatchSize = 2
	assert.Equal(t, "text-embedding-3-small", e.Model())
	assert.Equal(t, 4, e.Dimensions())
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := e.Embed(ctx, texts)
	require.NoError(t, err)
	require.Len(t, vs, 5)
	for i, v := range vs {
		assert.Equal(t, float32(len(texts[i])), v[0], "vector %d in input order", i)
	}
	assert.EqualValues(t, 3, calls.Load(), "batches of two")
	req := last()
	assert.Equal(t, "/v1/embeddings", req.path)
	assert.Equal(t, "Bearer sk-test", req.header.Get("Authorization"))
	assert.Equal(t, map[string]any{"model": "text-embedding-3-small", "input": []any{"eeeee"}, "encoding_format": "float"}, req.body)

	e.SendDimensions = true
	_, err = e.Embed(ctx, texts[:1])
	require.NoError(t, err)
	assert.EqualValues(t, 4, last().body["dimensions"])

	vs, err = e.Embed(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.EqualValues(t, 4, calls.Load(), "no texts, no request")

	_, err = openai.NewEmbedder(srv.URL, "", "m", 4).Embed(ctx, texts[:1])
	require.NoError(t, err)
	assert.Empty(t, last().header.Get("Authorization"), "no key, no header")
}

func TestEmbedderInvalid(t *testing.T) {
	srv, calls, _ := server(t, vectors(4))
	for name, tc := range map[string]struct {
		e     *openai.Embedder
		texts []string
		field string
	}{
		"no dimensions":  {openai.NewEmbedder(srv.URL, "", "m", 0), []string{"x"}, "Dims"},
		"no model":       {openai.NewEmbedder(srv.URL, "", "", 4), []string{"x"}, "ModelName"},
		"no URL":         {openai.NewEmbedder("", "", "m", 4), []string{"x"}, "BaseURL"},
		"host, no http":  {openai.NewEmbedder("localhost:8080", "", "m", 4), []string{"x"}, "BaseURL"},
		"an empty text":  {openai.NewEmbedder(srv.URL, "", "m", 4), []string{"x", " "}, "texts[1]"},
		"a zero literal": {&openai.Embedder{}, nil, "BaseURL"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.e.Embed(context.Background(), tc.texts)
			require.ErrorIs(t, err, engram.ErrInvalid)
			var ie *engram.InvalidError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.field, ie.Field)
		})
	}
	assert.Zero(t, calls.Load(), "no request is made")
}

func TestEmbedderBadAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		data any
		why  string
	}{
		"wrong dimension": {[]any{map[string]any{"index": 0, "embedding": []float32{1, 2}}}, "2 dimensions"},
		"missing":         {[]any{}, "no embedding for input 0"},
		"repeated":        {[]any{map[string]any{"index": 0, "embedding": []float32{1, 2, 3, 4}}, map[string]any{"index": 0, "embedding": []float32{1, 2, 3, 4}}}, "embedding index 0"},
		"out of range":    {[]any{map[string]any{"index": 3, "embedding": []float32{1, 2, 3, 4}}}, "embedding index 3"},
		"not numbers":     {[]any{map[string]any{"index": 0, "embedding": "AAAA"}}, "not the JSON expected"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, calls, _ := server(t, answer(map[string]any{"data": tc.data}))
			_, err := openai.NewEmbedder(srv.URL, "", "m", 4).Embed(context.Background(), []string{"x"})
			require.ErrorIs(t, err, engram.ErrBadAnswer)
			assert.Contains(t, err.Error(), tc.why)
			assert.EqualValues(t, 1, calls.Load(), "a bad answer is not retried")
		})
	}
}

func TestEmbedderRetries(t *testing.T) {
	srv, calls, _ := server(t, func(w http.ResponseWriter, req request, n int64) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		vectors(4)(w, req, n)
	})
	e := openai.NewEmbedder(srv.URL, "", "m", 4)
	e.Backoff = time.Millisecond
	vs, err := e.Embed(context.Background(), []string{"x"})
	require.NoError(t, err)
	assert.Len(t, vs, 1)
	assert.EqualValues(t, 2, calls.Load())

	srv, calls, _ = server(t, func(w http.ResponseWriter, _ request, _ int64) {
		http.Error(w, `{"error": "no such model"}`, http.StatusNotFound)
	})
	e = openai.NewEmbedder(srv.URL, "sk-secret", "m", 4)
	e.Backoff = time.Millisecond
	_, err = e.Embed(context.Background(), []string{"x"})
	var ae *engram.APIError
	require.True(t, errors.As(err, &ae), "%v", err)
	assert.Equal(t, http.StatusNotFound, ae.Status)
	assert.Equal(t, srv.URL+"/v1/embeddings", ae.URL)
	assert.Contains(t, ae.Body, "no such model")
	assert.NotContains(t, err.Error(), "sk-secret")
	assert.EqualValues(t, 1, calls.Load(), "a client error is not retried")
}

// An Embedder serves a Tier 2 memory: stored memories get vectors from
// the API and a vector search finds them.
func TestEmbedderInMemory(t *testing.T) {
	api := standIn()
	t.Cleanup(api.Close)
	e := openai.NewEmbedder(api.URL, "", "stand-in", 64)
	e.SendDimensions = true
	m := testutil.OpenTier2(t, e)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The staging database runs PostgreSQL 16", Importance: 0.5})
	require.NoError(t, err)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "staging database", Mode: engram.SearchVector})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Greater(t, res[0].Parts.Vector, 0.5)
}

func TestChatRequest(t *testing.T) {
	ctx := context.Background()
	srv, _, last := server(t, answer(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": `{"ok": true}`}, "finish_reason": "stop",
	}}}))
	llm := openai.NewChat(srv.URL+"/", "sk-test", "gpt-test")
	schema := `{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}`
	for name, tc := range map[string]struct {
		prompt engram.Prompt
		format any
	}{
		"text":   {engram.Prompt{System: "s", User: "u"}, nil},
		"JSON":   {engram.Prompt{System: "s", User: "u", JSON: true}, map[string]any{"type": "json_object"}},
		"schema": {engram.Prompt{System: "s", User: "u", Schema: json.RawMessage(schema)}, map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "strict": true, "schema": decode(t, schema)}}},
		"schema and JSON": {engram.Prompt{System: "s", User: "u", JSON: true, Schema: json.RawMessage(schema)},
			map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "strict": true, "schema": decode(t, schema)}}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := llm.Complete(ctx, tc.prompt)
			require.NoError(t, err)
			assert.Equal(t, `{"ok": true}`, got)
			req := last()
			assert.Equal(t, "/v1/chat/completions", req.path)
			assert.Equal(t, "Bearer sk-test", req.header.Get("Authorization"))
			want := map[string]any{"model": "gpt-test", "temperature": 0.0, "messages": []any{
				map[string]any{"role": "system", "content": "s"}, map[string]any{"role": "user", "content": "u"},
			}}
			if tc.format != nil {
				want["response_format"] = tc.format
			}
			assert.Equal(t, want, req.body)
		})
	}
}

func decode(t *testing.T, s string) any {
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}

func TestChatInvalid(t *testing.T) {
	srv, calls, _ := server(t, answer(map[string]any{}))
	for name, tc := range map[string]struct {
		llm    *openai.Chat
		prompt engram.Prompt
		field  string
	}{
		"no model":     {openai.NewChat(srv.URL, "", ""), engram.Prompt{User: "u"}, "Model"},
		"no URL":       {openai.NewChat("", "", "m"), engram.Prompt{User: "u"}, "BaseURL"},
		"bad schema":   {openai.NewChat(srv.URL, "", "m"), engram.Prompt{User: "u", Schema: json.RawMessage(`{"type": `)}, "Prompt.Schema"},
		"schema array": {openai.NewChat(srv.URL, "", "m"), engram.Prompt{User: "u", Schema: json.RawMessage(`[]`)}, "Prompt.Schema"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.llm.Complete(context.Background(), tc.prompt)
			var ie *engram.InvalidError
			require.ErrorAs(t, err, &ie)
			assert.ErrorIs(t, err, engram.ErrInvalid)
			assert.Equal(t, tc.field, ie.Field)
		})
	}
	assert.Zero(t, calls.Load())
}

func TestChatBadAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		answer any
		why    string
	}{
		"no choices": {map[string]any{"choices": []any{}}, "no choices"},
		"cut off": {map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"content": `{"facts": [`}, "finish_reason": "length"}}}, "cut off"},
		"refused": {map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"content": nil, "refusal": "I can't help with that."}, "finish_reason": "stop"}}}, "refused: I can't help with that."},
		"too large": {map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"content": strings.Repeat("a", 200)}, "finish_reason": "stop"}}}, "larger than 100 bytes"},
		"not JSON": {"<html>", "not the JSON expected"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, calls, _ := server(t, answer(tc.answer))
			llm := openai.NewChat(srv.URL, "", "m")
			if name == "too large" {
				llm.MaxAnswerBytes = 100
			}
			_, err := llm.Complete(context.Background(), engram.Prompt{User: "u", JSON: true})
			require.ErrorIs(t, err, engram.ErrBadAnswer)
			assert.Contains(t, err.Error(), tc.why)
			assert.EqualValues(t, 1, calls.Load())
		})
	}
}

func TestChatRetries(t *testing.T) {
	srv, calls, _ := server(t, func(w http.ResponseWriter, _ request, _ int64) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	llm := openai.NewChat(srv.URL, "", "m")
	llm.Backoff = time.Millisecond
	_, err := llm.Complete(context.Background(), engram.Prompt{User: "u"})
	var ae *engram.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusServiceUnavailable, ae.Status)
	assert.EqualValues(t, 3, calls.Load(), "the first try and 2 more")

	llm.Retries = -1
	calls.Store(0)
	_, err = llm.Complete(context.Background(), engram.Prompt{User: "u"})
	require.ErrorAs(t, err, &ae)
	assert.EqualValues(t, 1, calls.Load(), "no retries")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = llm.Complete(ctx, engram.Prompt{User: "u"})
	assert.ErrorIs(t, err, context.Canceled)
}

// Extraction sends its answer's JSON Schema as response_format, in strict
// mode, and the answer, which follows it, becomes memories and facts.
func TestChatExtracts(t *testing.T) {
	content := `{"facts": [], "episodes": [], "procedures": [],
		"triples": [{"subject": "I", "predicate": "work at", "object": "Acme"}]}`
	srv, calls, last := server(t, answer(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop",
	}}}))
	m := testutil.Open(t, engram.WithLLM(openai.NewChat(srv.URL, "sk-test", "gpt-test")))
	res, err := m.Extract(context.Background(), []engram.Message{{Role: "user", Content: "I started at Acme today."}})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, "User work at Acme", res.Facts[0].Fact.String())
	assert.Equal(t, int64(1), calls.Load())
	format := last().body["response_format"].(map[string]any)
	assert.Equal(t, "json_schema", format["type"])
	js := format["json_schema"].(map[string]any)
	assert.Equal(t, true, js["strict"])
	schema := js["schema"].(map[string]any)
	assert.Equal(t, false, schema["additionalProperties"])
	assert.ElementsMatch(t, []any{"facts", "triples", "episodes", "procedures"}, schema["required"])
	triples := schema["properties"].(map[string]any)["triples"].(map[string]any)["items"].(map[string]any)
	assert.ElementsMatch(t, []any{"subject", "predicate", "object"}, triples["required"])
}

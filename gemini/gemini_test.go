package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/gemini"
	"github.com/engram-go/engram/internal/testutil"
)

const key = "AIza-test-key"

// call is one request a fake API received.
type call struct {
	url    string // path and query
	header http.Header
	body   map[string]any
}

// fakeAPI answers every request with reply (n counts calls from 1); calls
// returns the requests so far.
func fakeAPI(t *testing.T, reply func(w http.ResponseWriter, c call, n int)) (srv *httptest.Server, calls func() []call) {
	t.Helper()
	var mu sync.Mutex
	var got []call
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := call{url: r.URL.RequestURI(), header: r.Header}
		if err := json.NewDecoder(r.Body).Decode(&c.body); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, c)
		n := len(got)
		mu.Unlock()
		reply(w, c, n)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []call {
		mu.Lock()
		defer mu.Unlock()
		return append([]call(nil), got...)
	}
}

// embeddings answers a batchEmbedContents request with vectors of the
// dimension asked for, whose first number is their text's length.
func embeddings(w http.ResponseWriter, c call, _ int) {
	var out []any
	for _, r := range c.body["requests"].([]any) {
		r := r.(map[string]any)
		text := r["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
		v := make([]float32, int(r["outputDimensionality"].(float64)))
		v[0] = float32(len(text))
		out = append(out, map[string]any{"values": v})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
}

func embedder(srv *httptest.Server, dims int) *gemini.Embedder {
	e := gemini.NewEmbedder(key, "", dims)
	e.BaseURL = srv.URL
	e.Backoff = time.Millisecond
	return e
}

func TestEmbedder(t *testing.T) {
	srv, calls := fakeAPI(t, embeddings)
	e := embedder(srv, 8)
	assert.Equal(t, gemini.DefaultEmbeddingModel, e.Model())
	assert.Equal(t, 8, e.Dimensions())
	texts := []string{"a", "bb", "ccc"}
	vs, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vs, 3)
	for i, v := range vs {
		assert.Len(t, v, 8)
		assert.Equal(t, float32(len(texts[i])), v[0], "vector %d in input order", i)
	}
	got := calls()
	require.Len(t, got, 1)
	assert.Equal(t, "/v1beta/models/gemini-embedding-001:batchEmbedContents", got[0].url, "no key in the URL")
	assert.Equal(t, key, got[0].header.Get("x-goog-api-key"))
	assert.Empty(t, got[0].header.Get("Authorization"))
	assert.Equal(t, map[string]any{
		"model":                "models/gemini-embedding-001",
		"content":              map[string]any{"parts": []any{map[string]any{"text": "a"}}},
		"outputDimensionality": 8.0,
	}, got[0].body["requests"].([]any)[0])

	e.TaskType = "SEMANTIC_SIMILARITY"
	e.ModelName = "models/text-embedding-004" // the API's own form of the name
	e.BaseURL = srv.URL + "/v1beta/"
	_, err = e.Embed(context.Background(), texts[:1])
	require.NoError(t, err)
	last := calls()[1]
	assert.Equal(t, "/v1beta/models/text-embedding-004:batchEmbedContents", last.url)
	req := last.body["requests"].([]any)[0].(map[string]any)
	assert.Equal(t, "models/text-embedding-004", req["model"])
	assert.Equal(t, "SEMANTIC_SIMILARITY", req["taskType"])
	assert.Equal(t, "models/text-embedding-004+SEMANTIC_SIMILARITY", e.Model(), "a task type makes other vectors")

	vs, err = e.Embed(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.Len(t, calls(), 2, "no texts, no request")
}

func TestEmbedderBatches(t *testing.T) {
	texts := make([]string, 250)
	for i := range texts {
		texts[i] = strings.Repeat("x", i%7+1)
	}
	for _, tc := range []struct {
		batchSize int
		want      []int
	}{
		{0, []int{100, 100, 50}},
		{1000, []int{100, 100, 50}},
		{120, []int{100, 100, 50}},
		{90, []int{90, 90, 70}},
	} {
		srv, calls := fakeAPI(t, embeddings)
		e := embedder(srv, 4)
		e.BatchSize = tc.batchSize
		vs, err := e.Embed(context.Background(), texts)
		require.NoError(t, err)
		require.Len(t, vs, len(texts))
		assert.Equal(t, float32(len(texts[249])), vs[249][0])
		var sizes []int
		for _, c := range calls() {
			sizes = append(sizes, len(c.body["requests"].([]any)))
		}
		assert.Equal(t, tc.want, sizes, "BatchSize %d", tc.batchSize)
	}
}

func TestEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("wrong dimension", func(t *testing.T) {
		srv, _ := fakeAPI(t, func(w http.ResponseWriter, _ call, _ int) {
			_, _ = w.Write([]byte(`{"embeddings": [{"values": [1, 2, 3]}]}`))
		})
		_, err := embedder(srv, 8).Embed(ctx, []string{"x"})
		require.ErrorIs(t, err, engram.ErrBadAnswer)
		assert.Contains(t, err.Error(), "3 dimensions from gemini-embedding-001, which should give 8")
	})
	t.Run("too few vectors", func(t *testing.T) {
		srv, _ := fakeAPI(t, func(w http.ResponseWriter, _ call, _ int) {
			_, _ = w.Write([]byte(`{"embeddings": [{"values": [1, 2]}]}`))
		})
		_, err := embedder(srv, 2).Embed(ctx, []string{"x", "y"})
		require.ErrorIs(t, err, engram.ErrBadAnswer)
		assert.Contains(t, err.Error(), "1 vectors for 2 texts")
	})
	t.Run("bad key", func(t *testing.T) {
		srv, calls := fakeAPI(t, func(w http.ResponseWriter, _ call, _ int) {
			http.Error(w, `{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		})
		_, err := embedder(srv, 8).Embed(ctx, []string{"x"})
		var ae *engram.APIError
		require.True(t, errors.As(err, &ae), "%v", err)
		assert.Equal(t, http.StatusBadRequest, ae.Status)
		assert.Contains(t, ae.Body, "API key not valid")
		assert.NotContains(t, err.Error(), key, "the key is never in an error")
		assert.Len(t, calls(), 1, "not retried")
	})
	t.Run("rate limited, then fine", func(t *testing.T) {
		srv, calls := fakeAPI(t, func(w http.ResponseWriter, c call, n int) {
			if n == 1 {
				http.Error(w, `{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}`, http.StatusTooManyRequests)
				return
			}
			embeddings(w, c, n)
		})
		vs, err := embedder(srv, 8).Embed(ctx, []string{"x"})
		require.NoError(t, err)
		assert.Len(t, vs, 1)
		assert.Len(t, calls(), 2)
	})
	t.Run("invalid", func(t *testing.T) {
		srv, calls := fakeAPI(t, embeddings)
		noModel := embedder(srv, 8)
		noModel.ModelName = ""
		badURL := embedder(srv, 8)
		badURL.BaseURL = "generativelanguage.googleapis.com"
		for field, e := range map[string]*gemini.Embedder{"Dims": embedder(srv, 0), "ModelName": noModel, "BaseURL": badURL} {
			_, err := e.Embed(ctx, []string{"x"})
			var ie *engram.InvalidError
			require.ErrorAs(t, err, &ie, field)
			assert.Equal(t, field, ie.Field)
			assert.ErrorIs(t, err, engram.ErrInvalid)
		}
		_, err := embedder(srv, 8).Embed(ctx, []string{"x", "\n"})
		assert.ErrorIs(t, err, engram.ErrInvalid, "an empty text")
		assert.Empty(t, calls(), "no request is made")
	})
}

// The zero BaseURL is the real API's; NewEmbedder and NewChat set it.
func TestDefaultBaseURL(t *testing.T) {
	assert.Equal(t, gemini.DefaultBaseURL, gemini.NewEmbedder(key, "", 8).BaseURL)
	c := gemini.NewChat(key, "")
	assert.Equal(t, gemini.DefaultBaseURL, c.BaseURL)
	assert.Equal(t, gemini.DefaultChatModel, c.Model)

	var asked string
	e := &gemini.Embedder{APIKey: key, ModelName: "m", Dims: 2, Retries: -1,
		Client: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			asked = r.URL.String()
			return nil, errors.New("offline")
		})}}
	_, err := e.Embed(context.Background(), []string{"x"})
	require.Error(t, err)
	assert.Equal(t, gemini.DefaultBaseURL+"/v1beta/models/m:batchEmbedContents", asked)
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// answer replies with a generateContent response.
func answer(v string) func(w http.ResponseWriter, _ call, _ int) {
	return func(w http.ResponseWriter, _ call, _ int) { _, _ = w.Write([]byte(v)) }
}

func chat(srv *httptest.Server) *gemini.Chat {
	c := gemini.NewChat(key, "")
	c.BaseURL = srv.URL
	c.Backoff = time.Millisecond
	return c
}

const okAnswer = `{"candidates": [{"content": {"role": "model", "parts": [
	{"text": "thinking it over", "thought": true}, {"text": "{\"name\": "}, {"text": "\"Ada\"}"}]}, "finishReason": "STOP"}]}`

func TestChat(t *testing.T) {
	srv, calls := fakeAPI(t, answer(okAnswer))
	schema := `{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`
	var schemaValue any
	require.NoError(t, json.Unmarshal([]byte(schema), &schemaValue))
	for name, tc := range map[string]struct {
		prompt engram.Prompt
		config map[string]any
	}{
		"text":   {engram.Prompt{System: "s", User: "u"}, map[string]any{"temperature": 0.0}},
		"JSON":   {engram.Prompt{System: "s", User: "u", JSON: true}, map[string]any{"temperature": 0.0, "responseMimeType": "application/json"}},
		"schema": {engram.Prompt{System: "s", User: "u", Schema: json.RawMessage(schema)}, map[string]any{"temperature": 0.0, "responseMimeType": "application/json", "responseJsonSchema": schemaValue}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := chat(srv).Complete(context.Background(), tc.prompt)
			require.NoError(t, err)
			assert.Equal(t, `{"name": "Ada"}`, got, "the parts joined, thoughts left out")
			all := calls()
			c := all[len(all)-1]
			assert.Equal(t, "/v1beta/models/gemini-2.5-flash:generateContent", c.url)
			assert.Equal(t, key, c.header.Get("x-goog-api-key"))
			assert.Equal(t, map[string]any{
				"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "s"}}},
				"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "u"}}}},
				"generationConfig":  tc.config,
			}, c.body)
		})
	}
	_, err := chat(srv).Complete(context.Background(), engram.Prompt{User: "u"})
	require.NoError(t, err)
	all := calls()
	assert.NotContains(t, all[len(all)-1].body, "systemInstruction", "no system prompt, no instruction")
}

func TestChatBadAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		answer string
		why    string
	}{
		"cut off":        {`{"candidates": [{"content": {"parts": [{"text": "{\"na"}]}, "finishReason": "MAX_TOKENS"}]}`, "cut off at the token limit"},
		"safety":         {`{"candidates": [{"finishReason": "SAFETY"}]}`, "Gemini stopped the answer (SAFETY)"},
		"recitation":     {`{"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "RECITATION"}]}`, "(RECITATION)"},
		"prompt blocked": {`{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}`, "blocked the prompt (PROHIBITED_CONTENT)"},
		"no candidates":  {`{"candidates": []}`, "no candidates"},
		"no text":        {`{"candidates": [{"content": {"parts": [{"text": "hmm", "thought": true}]}, "finishReason": "STOP"}]}`, "no text"},
		"not JSON":       {`<html>`, "not the JSON expected"},
		"too large":      {`{"candidates": [{"content": {"parts": [{"text": "` + strings.Repeat("a", 300) + `"}]}}]}`, "larger than 200 bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, calls := fakeAPI(t, answer(tc.answer))
			c := chat(srv)
			c.MaxAnswerBytes = 200
			_, err := c.Complete(context.Background(), engram.Prompt{User: "u", JSON: true})
			require.ErrorIs(t, err, engram.ErrBadAnswer)
			assert.Contains(t, err.Error(), tc.why)
			assert.Len(t, calls(), 1, "not retried")
		})
	}
}

func TestChatErrors(t *testing.T) {
	ctx := context.Background()
	srv, calls := fakeAPI(t, func(w http.ResponseWriter, _ call, _ int) {
		http.Error(w, `{"error": {"code": 503, "status": "UNAVAILABLE"}}`, http.StatusServiceUnavailable)
	})
	_, err := chat(srv).Complete(ctx, engram.Prompt{User: "u"})
	var ae *engram.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusServiceUnavailable, ae.Status)
	assert.Equal(t, srv.URL+"/v1beta/models/gemini-2.5-flash:generateContent", ae.URL)
	assert.Len(t, calls(), 3, "the first try and 2 more")

	for field, c := range map[string]*gemini.Chat{"Model": {BaseURL: srv.URL}, "BaseURL": {BaseURL: "ftp://x", Model: "m"}} {
		_, err := c.Complete(ctx, engram.Prompt{User: "u"})
		var ie *engram.InvalidError
		require.ErrorAs(t, err, &ie, field)
		assert.Equal(t, field, ie.Field)
	}
	_, err = chat(srv).Complete(ctx, engram.Prompt{User: "u", Schema: json.RawMessage(`"object"`)})
	assert.ErrorIs(t, err, engram.ErrInvalid, "a schema that is not an object")
	assert.Len(t, calls(), 3, "no request for invalid settings")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = chat(srv).Complete(cctx, engram.Prompt{User: "u"})
	assert.ErrorIs(t, err, context.Canceled)
}

// Extraction sends its answer's JSON Schema as responseJsonSchema, and the
// answer, which follows it, becomes memories and facts.
func TestChatExtracts(t *testing.T) {
	content, err := json.Marshal(`{"triples": [{"subject": "Ada", "predicate": "lives in", "object": "London"}]}`)
	require.NoError(t, err)
	srv, calls := fakeAPI(t, answer(`{"candidates": [{"content": {"parts": [{"text": `+string(content)+`}]}, "finishReason": "STOP"}]}`))
	m := testutil.Open(t, engram.WithLLM(chat(srv)))
	res, err := m.Extract(context.Background(), []engram.Message{{Role: "user", Content: "Ada lives in London."}})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, "Ada lives in London", res.Facts[0].Fact.String())
	all := calls()
	require.Len(t, all, 1)
	config := all[0].body["generationConfig"].(map[string]any)
	assert.Equal(t, "application/json", config["responseMimeType"])
	schema := config["responseJsonSchema"].(map[string]any)
	assert.ElementsMatch(t, []any{"facts", "triples", "episodes", "procedures"}, schema["required"])
	triples := schema["properties"].(map[string]any)["triples"].(map[string]any)["items"].(map[string]any)
	assert.ElementsMatch(t, []any{"subject", "predicate", "object"}, triples["required"])
}

package engram_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func cosine32(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestHashingEmbedder(t *testing.T) {
	_, err := engram.NewHashingEmbedder(8)
	require.ErrorIs(t, err, engram.ErrInvalid)
	e, err := engram.NewHashingEmbedder(384)
	require.NoError(t, err)
	assert.Equal(t, 384, e.Dimensions())
	texts := []string{
		"The deploy pipeline runs on every merge to main",
		"Deploys run through the pipeline on each merge into main",
		"Grandma's apple pie needs cinnamon",
		"!!! ???",
	}
	vs, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vs, len(texts))
	for i, v := range vs {
		require.Len(t, v, 384)
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		assert.InDelta(t, 1, norm, 1e-5, "text %d has unit length", i)
	}
	assert.Greater(t, cosine32(vs[0], vs[1]), cosine32(vs[0], vs[2])+0.3, "shared words make texts close")
	again, err := e.Embed(context.Background(), texts[:1])
	require.NoError(t, err)
	assert.Equal(t, vs[0], again[0], "deterministic")

	_, err = e.Embed(context.Background(), []string{"fine", "  "})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Embed(ctx, texts)
	assert.ErrorIs(t, err, context.Canceled)
}

// embeddingServer answers OpenAI-style embedding requests with vectors
// of dims numbers, listed in reverse order to check the index mapping;
// fail, when set, may answer first.
func embeddingServer(t *testing.T, dims int, fail func(w http.ResponseWriter, n int64) bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if fail != nil && fail(w, n) {
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := make([]float32, dims)
			v[0] = float32(len(req.Input[i]))
			data = append(data, item{i, v})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req.Model})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestOpenAIEmbedder(t *testing.T) {
	ctx := context.Background()
	srv, calls := embeddingServer(t, 4, nil)
	e := engram.NewOpenAIEmbedder(srv.URL, "key", "test-embed", 4)
	e.BatchSize = 2
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := e.Embed(ctx, texts)
	require.NoError(t, err)
	require.Len(t, vs, 5)
	for i, v := range vs {
		assert.Equal(t, float32(len(texts[i])), v[0], "vector %d in input order", i)
	}
	assert.EqualValues(t, 3, calls.Load(), "batches of two")
	assert.Equal(t, "test-embed", e.Model())
	assert.Equal(t, 4, e.Dimensions())

	t.Run("wrong dimension", func(t *testing.T) {
		e := engram.NewOpenAIEmbedder(srv.URL, "key", "test-embed", 8)
		_, err := e.Embed(ctx, texts)
		require.ErrorIs(t, err, engram.ErrBadAnswer)
		assert.Contains(t, err.Error(), "4 dimensions")
	})
	t.Run("bad JSON", func(t *testing.T) {
		srv, _ := embeddingServer(t, 4, func(w http.ResponseWriter, _ int64) bool {
			_, _ = w.Write([]byte(`{"data": [`))
			return true
		})
		_, err := engram.NewOpenAIEmbedder(srv.URL, "", "m", 4).Embed(ctx, texts)
		assert.ErrorIs(t, err, engram.ErrBadAnswer)
	})
	t.Run("429 then success", func(t *testing.T) {
		srv, calls := embeddingServer(t, 4, func(w http.ResponseWriter, n int64) bool {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return true
			}
			return false
		})
		e := engram.NewOpenAIEmbedder(srv.URL, "", "m", 4)
		e.Backoff = time.Millisecond
		vs, err := e.Embed(ctx, texts[:1])
		require.NoError(t, err)
		assert.Len(t, vs, 1)
		assert.EqualValues(t, 2, calls.Load())
	})
	t.Run("client error is not retried", func(t *testing.T) {
		srv, calls := embeddingServer(t, 4, func(w http.ResponseWriter, _ int64) bool {
			http.Error(w, "no such model", http.StatusNotFound)
			return true
		})
		e := engram.NewOpenAIEmbedder(srv.URL, "", "m", 4)
		e.Backoff = time.Millisecond
		_, err := e.Embed(ctx, texts[:1])
		var ae *engram.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusNotFound, ae.Status)
		assert.EqualValues(t, 1, calls.Load())
	})
	t.Run("timeout", func(t *testing.T) {
		srv, calls := embeddingServer(t, 4, func(w http.ResponseWriter, _ int64) bool {
			time.Sleep(200 * time.Millisecond)
			return false
		})
		e := engram.NewOpenAIEmbedder(srv.URL, "", "m", 4)
		e.Client = &http.Client{Timeout: 20 * time.Millisecond}
		e.Retries, e.Backoff = 1, time.Millisecond
		_, err := e.Embed(ctx, texts[:1])
		require.Error(t, err)
		assert.EqualValues(t, 2, calls.Load(), "a timeout is retried")
	})
	t.Run("cancelled context", func(t *testing.T) {
		started := make(chan struct{}, 1)
		srv, calls := embeddingServer(t, 4, func(w http.ResponseWriter, _ int64) bool {
			started <- struct{}{}
			time.Sleep(100 * time.Millisecond)
			return false
		})
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			<-started
			cancel()
		}()
		e := engram.NewOpenAIEmbedder(srv.URL, "", "m", 4)
		e.Backoff = time.Millisecond
		_, err := e.Embed(cctx, texts[:1])
		require.ErrorIs(t, err, context.Canceled)
		assert.EqualValues(t, 1, calls.Load(), "not retried")
	})
}

func TestOllamaEmbedder(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/api/embed" || req.Model != "nomic" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		out := make([][]float32, len(req.Input))
		for i, in := range req.Input {
			out[i] = []float32{float32(len(in)), 0, 0}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out})
	}))
	t.Cleanup(srv.Close)
	e := engram.NewOllamaEmbedder(srv.URL, "nomic", 3)
	vs, err := e.Embed(context.Background(), []string{"one", "three"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{3, 0, 0}, {5, 0, 0}}, vs)
	_, err = engram.NewOllamaEmbedder(srv.URL, "nomic", 768).Embed(context.Background(), []string{"x"})
	assert.ErrorIs(t, err, engram.ErrBadAnswer, "wrong dimension")
}

// BenchmarkHashingEmbedder embeds one benchmark entry per call, 384
// dimensions, as a Tier 2 Store does.
func BenchmarkHashingEmbedder(b *testing.B) {
	e, err := engram.NewHashingEmbedder(384)
	require.NoError(b, err)
	entries := benchEntries(3, 1000)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, []string{entries[i%len(entries)].Content}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// A base URL ending in /v1, as OpenAI-compatible servers document it,
// works as well as the server's own; an error names the URL it asked.
func TestOpenAIBaseURLForms(t *testing.T) {
	srv, _ := embeddingServer(t, 4, nil)
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/"} {
		e := engram.NewOpenAIEmbedder(base, "key", "m", 4)
		vecs, err := e.Embed(context.Background(), []string{"hello"})
		require.NoError(t, err, base)
		require.Len(t, vecs, 1, base)
	}
	e := engram.NewOpenAIEmbedder(srv.URL+"/v2", "key", "m", 4)
	_, err := e.Embed(context.Background(), []string{"hello"})
	var ae *engram.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusBadRequest, ae.Status)
	assert.Contains(t, err.Error(), "/v2/v1/embeddings")
}

// The hashing embedder says it is computed in process and lexical, so that
// engram need not cache its vectors.
func TestHashingEmbedderIsLocalAndLexical(t *testing.T) {
	h, err := engram.NewHashingEmbedder(64)
	require.NoError(t, err)
	var e engram.Embedder = h
	local, ok := e.(engram.LocalEmbedder)
	require.True(t, ok)
	assert.True(t, local.Local())
	lexical, ok := e.(engram.LexicalEmbedder)
	require.True(t, ok)
	assert.True(t, lexical.Lexical())
	_, ok = engram.Embedder(engram.NewOpenAIEmbedder("http://localhost", "", "m", 4)).(engram.LocalEmbedder)
	assert.False(t, ok, "a model's API is not local")
}

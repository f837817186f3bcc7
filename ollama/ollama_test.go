package ollama_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/ollama"
)

// embedRequest is the body of a request to /api/embed.
type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// fakeOllama serves /api/embed: it answers with reply, which gets the
// call's number (from 1), and received returns the requests so far.
func fakeOllama(t *testing.T, reply func(w http.ResponseWriter, req embedRequest, n int64)) (srv *httptest.Server, received func() []embedRequest) {
	t.Helper()
	var mu sync.Mutex
	var got []embedRequest
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req embedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/api/embed" || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		n := len(got)
		mu.Unlock()
		reply(w, req, int64(n))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []embedRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// lengths answers with 3 numbers per text, the first its length.
func lengths(w http.ResponseWriter, req embedRequest, _ int64) {
	out := make([][]float32, len(req.Input))
	for i, in := range req.Input {
		out[i] = []float32{float32(len(in)), 0, 0}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out})
}

func TestEmbedder(t *testing.T) {
	srv, got := fakeOllama(t, lengths)
	e := ollama.NewEmbedder(srv.URL+"/", "nomic", 3)
	e.BatchSize = 2
	assert.Equal(t, "nomic", e.Model())
	assert.Equal(t, 3, e.Dimensions())
	vs, err := e.Embed(context.Background(), []string{"one", "three", "seven"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{3, 0, 0}, {5, 0, 0}, {5, 0, 0}}, vs)
	assert.Equal(t, []embedRequest{{"nomic", []string{"one", "three"}}, {"nomic", []string{"seven"}}}, got())

	vs, err = e.Embed(context.Background(), []string{})
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.Len(t, got(), 2, "no texts, no request")
}

func TestEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("wrong dimension", func(t *testing.T) {
		srv, _ := fakeOllama(t, lengths)
		_, err := ollama.NewEmbedder(srv.URL, "nomic", 768).Embed(ctx, []string{"x"})
		require.ErrorIs(t, err, engram.ErrBadAnswer)
		assert.Contains(t, err.Error(), "3 dimensions from nomic, which should give 768")
	})
	t.Run("too few vectors", func(t *testing.T) {
		srv, _ := fakeOllama(t, func(w http.ResponseWriter, _ embedRequest, _ int64) {
			_, _ = w.Write([]byte(`{"embeddings": [[1, 2, 3]]}`))
		})
		_, err := ollama.NewEmbedder(srv.URL, "nomic", 3).Embed(ctx, []string{"x", "y"})
		require.ErrorIs(t, err, engram.ErrBadAnswer)
		assert.Contains(t, err.Error(), "1 vectors for 2 texts")
	})
	t.Run("model not pulled", func(t *testing.T) {
		srv, got := fakeOllama(t, func(w http.ResponseWriter, _ embedRequest, _ int64) {
			http.Error(w, `{"error":"model not found"}`, http.StatusNotFound)
		})
		_, err := ollama.NewEmbedder(srv.URL, "nomic", 3).Embed(ctx, []string{"x"})
		var ae *engram.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusNotFound, ae.Status)
		assert.Equal(t, srv.URL+"/api/embed", ae.URL)
		assert.Len(t, got(), 1, "not retried")
	})
	t.Run("busy, then fine", func(t *testing.T) {
		srv, got := fakeOllama(t, func(w http.ResponseWriter, req embedRequest, n int64) {
			if n < 3 {
				http.Error(w, "loading the model", http.StatusServiceUnavailable)
				return
			}
			lengths(w, req, n)
		})
		e := ollama.NewEmbedder(srv.URL, "nomic", 3)
		e.Backoff = time.Millisecond
		vs, err := e.Embed(ctx, []string{"x"})
		require.NoError(t, err)
		assert.Len(t, vs, 1)
		assert.Len(t, got(), 3)
	})
	t.Run("not running", func(t *testing.T) {
		srv, _ := fakeOllama(t, lengths)
		srv.Close()
		e := ollama.NewEmbedder(srv.URL, "nomic", 3)
		e.Retries = -1
		_, err := e.Embed(ctx, []string{"x"})
		require.Error(t, err)
		assert.NotErrorIs(t, err, engram.ErrBadAnswer)
		assert.NotErrorIs(t, err, engram.ErrInvalid)
	})
	t.Run("invalid", func(t *testing.T) {
		srv, got := fakeOllama(t, lengths)
		for field, e := range map[string]*ollama.Embedder{
			"Dims":      ollama.NewEmbedder(srv.URL, "nomic", -1),
			"ModelName": ollama.NewEmbedder(srv.URL, "", 3),
			"BaseURL":   ollama.NewEmbedder("localhost:11434", "nomic", 3),
		} {
			_, err := e.Embed(ctx, []string{"x"})
			var ie *engram.InvalidError
			require.ErrorAs(t, err, &ie, field)
			assert.Equal(t, field, ie.Field)
		}
		_, err := ollama.NewEmbedder(srv.URL, "nomic", 3).Embed(ctx, []string{""})
		assert.ErrorIs(t, err, engram.ErrInvalid, "an empty text")
		assert.Empty(t, got(), "no request is made")
	})
	t.Run("cancelled", func(t *testing.T) {
		srv, _ := fakeOllama(t, lengths)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := ollama.NewEmbedder(srv.URL, "nomic", 3).Embed(cctx, []string{"x"})
		assert.ErrorIs(t, err, context.Canceled)
	})
}

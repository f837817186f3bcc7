package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestOpenAIEmbedder runs Tier 2 commands against a fake OpenAI-compatible
// server: the key goes from OPENAI_API_KEY to the Authorization header,
// and never into a message when the server refuses it.
func TestOpenAIEmbedder(t *testing.T) {
	const key = "sk-test-secret-0123456789"
	reject := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reject || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
			return
		}
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var resp struct {
			Data []datum `json:"data"`
		}
		for i, text := range req.Input {
			v := make([]float32, 8)
			for j, c := range text {
				v[j%8] += float32(c%7) + 1
			}
			resp.Data = append(resp.Data, datum{i, v})
		}
		json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", key)
	dir := t.TempDir()
	engram := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		global := []string{"--dir", dir, "--embedder", "openai", "--embedder-url", srv.URL, "--embedder-model", "test-embed", "--dims", "8"}
		code := run(context.Background(), append(global, args...), nil, &out, &errOut)
		return code, out.String(), errOut.String()
	}

	if code, _, stderr := engram("add", "semantic", "The staging database runs PostgreSQL 16"); code != exitOK {
		t.Fatalf("add exited %d: %s", code, stderr)
	}
	code, stdout, stderr := engram("--json", "search", "staging database", "--mode", "vector")
	if code != exitOK || !strings.Contains(stdout, `"mode": "vector"`) || !strings.Contains(stdout, "PostgreSQL") {
		t.Fatalf("vector search exited %d: %s%s", code, stdout, stderr)
	}

	reject = true
	code, stdout, stderr = engram("search", "staging", "--mode", "vector")
	if code != exitFailure {
		t.Errorf("a vector search the server refuses exited %d, want %d: %s", code, exitFailure, stderr)
	}
	if !strings.Contains(stderr, "check --embedder, --embedder-url, --embedder-model and OPENAI_API_KEY") {
		t.Errorf("the message does not say what to check: %s", stderr)
	}
	if strings.Contains(stdout+stderr, key) {
		t.Errorf("the API key is in the output: %s%s", stdout, stderr)
	}
}

// TestGeminiEmbedder runs Tier 2 commands with --embedder gemini against a
// fake Gemini API: the key goes from GEMINI_API_KEY to the x-goog-api-key
// header (never into the URL or a message), the model from
// --embedder-model and the dimensions from --dims.
func TestGeminiEmbedder(t *testing.T) {
	const key = "gemini-test-secret-0123456789"
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.String())
		if r.Header.Get("x-goog-api-key") != key {
			http.Error(w, `{"error":{"message":"API key not valid"}}`, http.StatusForbidden)
			return
		}
		var req struct {
			Requests []struct {
				Model   string
				Content struct{ Parts []struct{ Text string } }
				Dims    int `json:"outputDimensionality"`
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type embedding struct {
			Values []float32 `json:"values"`
		}
		var resp struct {
			Embeddings []embedding `json:"embeddings"`
		}
		for _, q := range req.Requests {
			if q.Model != "models/test-embed" || q.Dims != 8 || len(q.Content.Parts) != 1 {
				http.Error(w, "unexpected request", http.StatusBadRequest)
				return
			}
			v := make([]float32, 8)
			for j, c := range q.Content.Parts[0].Text {
				v[j%8] += float32(c%7) + 1
			}
			resp.Embeddings = append(resp.Embeddings, embedding{v})
		}
		json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	t.Setenv("GEMINI_API_KEY", key)
	t.Setenv("GOOGLE_API_KEY", "")
	dir := t.TempDir()
	engram := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		global := []string{"--dir", dir, "--embedder", "gemini", "--embedder-url", srv.URL, "--embedder-model", "test-embed", "--dims", "8"}
		code := run(context.Background(), append(global, args...), nil, &out, &errOut)
		return code, out.String(), errOut.String()
	}

	if code, _, stderr := engram("add", "semantic", "The staging database runs PostgreSQL 16"); code != exitOK {
		t.Fatalf("add exited %d: %s", code, stderr)
	}
	code, stdout, stderr := engram("--json", "search", "staging database", "--mode", "vector")
	if code != exitOK || !strings.Contains(stdout, `"mode": "vector"`) || !strings.Contains(stdout, "PostgreSQL") {
		t.Fatalf("vector search exited %d: %s%s", code, stdout, stderr)
	}
	if len(paths) == 0 || !strings.HasSuffix(paths[0], "/models/test-embed:batchEmbedContents") {
		t.Errorf("the embedder asked %v", paths)
	}

	t.Setenv("GEMINI_API_KEY", "wrong")
	code, stdout, stderr = engram("search", "staging", "--mode", "vector")
	if code != exitFailure || !strings.Contains(stderr, "GEMINI_API_KEY") {
		t.Errorf("a vector search the server refuses exited %d, want %d: %s", code, exitFailure, stderr)
	}
	for _, p := range paths {
		if strings.Contains(p, key) {
			t.Errorf("the API key is in a URL: %s", p)
		}
	}
	if strings.Contains(stdout+stderr, key) {
		t.Errorf("the API key is in the output: %s%s", stdout, stderr)
	}
}

package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/openai"
)

// standIn serves what an OpenAI-compatible API would, for the examples to
// run offline: vectors from engram's hashing embedder (lexical, but enough
// to rank), and a chat that answers with the user's name as JSON.
func standIn() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input      []string `json:"input"`
			Dimensions int      `json:"dimensions"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h, err := engram.NewHashingEmbedder(req.Dimensions)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vecs, err := h.Embed(r.Context(), req.Input)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(vecs))
		for i, v := range vecs {
			data[i] = item{i, v}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]string{"role": "assistant", "content": `{"name": "Ada"}`}, "finish_reason": "stop",
		}}})
	})
	return httptest.NewServer(mux)
}

// An Embedder gives a Tier 2 memory its vectors.
func ExampleEmbedder() {
	api := standIn() // in production: "https://api.openai.com"
	defer api.Close()

	embedder := openai.NewEmbedder(api.URL, "sk-…", "text-embedding-3-small", 256)
	embedder.SendDimensions = true // text-embedding-3 models shorten their vectors on request
	m, err := engram.New(engram.Tier2, engram.InMemory(), engram.WithEmbedder(embedder))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for _, fact := range []string{
		"The staging database runs PostgreSQL 16",
		"Deploys go out every Tuesday after the standup",
	} {
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fact, Importance: 0.5}); err != nil {
			log.Fatal(err)
		}
	}
	res, err := m.Search(ctx, engram.SearchOptions{Query: "when do deployments happen?", Mode: engram.SearchVector, Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Content)
	// Output:
	// Deploys go out every Tuesday after the standup
}

// A Prompt's Schema asks for structured output: the answer follows it.
func ExampleChat_Complete() {
	api := standIn() // in production: "https://api.openai.com"
	defer api.Close()

	llm := openai.NewChat(api.URL, "sk-…", "gpt-4o-mini")
	answer, err := llm.Complete(context.Background(), engram.Prompt{
		System: "Extract the user's name.",
		User:   "Hi, I'm Ada.",
		Schema: json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}},
			"required": ["name"], "additionalProperties": false}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output:
	// {"name": "Ada"}
}

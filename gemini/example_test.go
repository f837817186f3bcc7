package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/gemini"
)

// standIn serves what the Gemini API would, for the examples to run
// offline: vectors from engram's hashing embedder (lexical, but enough to
// rank), and an answer that names the user, as JSON when asked. It wants
// the key in the x-goog-api-key header.
func standIn() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta/models/{call}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-goog-api-key") == "" {
			http.Error(w, `{"error": {"code": 403, "status": "PERMISSION_DENIED"}}`, http.StatusForbidden)
			return
		}
		switch _, method, _ := strings.Cut(r.PathValue("call"), ":"); method {
		case "batchEmbedContents":
			var req struct {
				Requests []struct {
					Content struct {
						Parts []struct{ Text string }
					}
					OutputDimensionality int
				}
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Requests) == 0 {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			h, err := engram.NewHashingEmbedder(req.Requests[0].OutputDimensionality)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			type values struct {
				Values []float32 `json:"values"`
			}
			var out []values
			for _, one := range req.Requests {
				v, err := h.Embed(r.Context(), []string{one.Content.Parts[0].Text})
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				out = append(out, values{v[0]})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
		case "generateContent":
			var req struct {
				GenerationConfig struct{ ResponseMimeType string }
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			text := "The user is Ada."
			if req.GenerationConfig.ResponseMimeType == "application/json" {
				text = `{"name": "Ada"}`
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{
				"content": map[string]any{"role": "model", "parts": []any{map[string]string{"text": text}}}, "finishReason": "STOP",
			}}})
		default:
			http.NotFound(w, r)
		}
	})
	return httptest.NewServer(mux)
}

// An Embedder gives a Tier 2 memory its vectors.
func ExampleEmbedder() {
	api := standIn()
	defer api.Close()

	embedder := gemini.NewEmbedder("AIza…", gemini.DefaultEmbeddingModel, 768)
	embedder.BaseURL = api.URL // in production: left at gemini.DefaultBaseURL
	embedder.TaskType = "SEMANTIC_SIMILARITY"
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
	res, err := m.Search(ctx, engram.SearchOptions{Query: "which database does staging use?", Mode: engram.SearchVector, Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(embedder.Model())
	fmt.Println(res[0].Content)
	// Output:
	// gemini-embedding-001+SEMANTIC_SIMILARITY
	// The staging database runs PostgreSQL 16
}

// A Prompt's Schema asks for structured output: the answer follows it.
func ExampleChat_Complete() {
	api := standIn()
	defer api.Close()

	llm := gemini.NewChat("AIza…", gemini.DefaultChatModel)
	llm.BaseURL = api.URL // in production: left at gemini.DefaultBaseURL
	answer, err := llm.Complete(context.Background(), engram.Prompt{
		System: "Extract the user's name.",
		User:   "Hi, I'm Ada.",
		Schema: json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output:
	// {"name": "Ada"}
}

package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/ollama"
)

// standIn serves Ollama's /api/embed for the examples to run offline:
// model "all-minilm" answers with vectors of 384 numbers from engram's
// hashing embedder; any other model is not pulled.
func standIn() *httptest.Server {
	h, err := engram.NewHashingEmbedder(384)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.Model != "all-minilm" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":%q}`, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
			return
		}
		vecs, err := h.Embed(r.Context(), req.Input)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs})
	})
	return httptest.NewServer(mux)
}

func ExampleEmbedder() {
	api := standIn() // in production: ollama.DefaultBaseURL
	defer api.Close()

	embedder := ollama.NewEmbedder(api.URL, "all-minilm", 384)
	vecs, err := embedder.Embed(context.Background(), []string{"Deploys go out on Tuesdays", "Ada prefers short answers"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(vecs), "vectors of", len(vecs[0]))
	// Output:
	// 2 vectors of 384
}

// A model that is not pulled is an HTTP error; settings that cannot work
// are caught before any request.
func ExampleEmbedder_Embed_errors() {
	api := standIn()
	defer api.Close()
	ctx := context.Background()

	_, err := ollama.NewEmbedder(api.URL, "nomic-embed-text", 768).Embed(ctx, []string{"hello"})
	var ae *engram.APIError
	if errors.As(err, &ae) {
		fmt.Println(ae.Status, ae.Body)
	}
	_, err = ollama.NewEmbedder(api.URL, "all-minilm", 0).Embed(ctx, []string{"hello"})
	fmt.Println(errors.Is(err, engram.ErrInvalid), err)
	// Output:
	// 404 {"error":"model \"nomic-embed-text\" not found, try pulling it first"}
	// true engram: invalid Dims: 0 is not a number of dimensions
}

package modelapi

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// OllamaEmbedding is Ollama's embedding API and how to call it. Its fields
// are those of ollama.Embedder and of the deprecated
// engram.OllamaEmbedder, which convert to it; see ollama.Embedder for
// their meaning.
type OllamaEmbedding struct {
	BaseURL   string
	ModelName string
	Dims      int
	BatchSize int
	Client    *http.Client
	Retries   int
	Backoff   time.Duration
}

// Embed posts texts to {BaseURL}/api/embed, BatchSize at a time, and
// returns their vectors in order. Errors are as for
// [OpenAIEmbedding.Embed].
func (cfg OllamaEmbedding) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	api := NewClient(Embedding, Conn{Client: cfg.Client, Retries: cfg.Retries, Backoff: cfg.Backoff}, nil)
	url := strings.TrimRight(cfg.BaseURL, "/") + "/api/embed"
	return EmbedBatches(texts, cfg.BatchSize, cfg.Dims, cfg.ModelName, func(batch []string) ([][]float32, error) {
		req := struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}{Model: cfg.ModelName, Input: batch}
		var resp struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := api.Post(ctx, url, req, &resp); err != nil {
			return nil, err
		}
		return resp.Embeddings, nil
	})
}

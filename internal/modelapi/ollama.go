package modelapi

import (
	"context"
	"fmt"
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

// OllamaChat is Ollama's chat API and how to call it. Its fields are those
// of ollama.Chat, which converts to it; see ollama.Chat for their meaning.
type OllamaChat struct {
	BaseURL        string
	Model          string
	Client         *http.Client
	MaxAnswerBytes int64
	Retries        int
	Backoff        time.Duration
}

// Complete posts p to {BaseURL}/api/chat, not streamed, with temperature 0,
// and returns the message. A prompt's Schema is sent as format, which
// Ollama constrains the answer to; without one, JSON sends format "json".
// It returns an [*APIError] for an HTTP error status (after retries), the
// context's error when it ends first, and an error matching
// [ErrBadAnswer] for a response it cannot use: an answer cut off at the
// token limit (done_reason "length"), or no text.
func (cfg OllamaChat) Complete(ctx context.Context, p Prompt) (string, error) {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	req := struct {
		Model    string             `json:"model"`
		Messages []message          `json:"messages"`
		Stream   bool               `json:"stream"`
		Format   any                `json:"format,omitempty"`
		Options  map[string]float64 `json:"options"`
	}{Model: cfg.Model, Options: map[string]float64{"temperature": 0}}
	if p.System != "" {
		req.Messages = append(req.Messages, message{"system", p.System})
	}
	req.Messages = append(req.Messages, message{"user", p.User})
	switch {
	case p.Schema != nil:
		req.Format = p.Schema
	case p.JSON:
		req.Format = "json"
	}
	var out struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		DoneReason string `json:"done_reason"`
	}
	conn := Conn{Client: cfg.Client, Retries: cfg.Retries, Backoff: cfg.Backoff, MaxBytes: cfg.MaxAnswerBytes}
	url := strings.TrimRight(cfg.BaseURL, "/") + "/api/chat"
	if err := NewClient(Chat, conn, nil).Post(ctx, url, req, &out); err != nil {
		return "", err
	}
	if out.DoneReason == "length" {
		return "", fmt.Errorf("%w: the answer was cut off at the token limit", ErrBadAnswer)
	}
	if strings.TrimSpace(out.Message.Content) == "" {
		return "", fmt.Errorf("%w: the answer holds no text", ErrBadAnswer)
	}
	return out.Message.Content, nil
}

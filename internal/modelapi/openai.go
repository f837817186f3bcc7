package modelapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// VersionedURL returns the URL of endpoint under base for an API whose
// paths start with version ("v1", "v1beta"): base may name the server
// ("https://api.openai.com") or, as such APIs often document it, include
// the version already ("https://host/v1", "http://localhost:11434/v1/").
func VersionedURL(base, version, endpoint string) string {
	base = strings.TrimRight(base, "/")
	if !strings.HasSuffix(base, "/"+version) {
		base += "/" + version
	}
	return base + "/" + endpoint
}

// OpenAIURL returns the URL of an OpenAI-compatible API's endpoint
// ("embeddings", "chat/completions") under base, with or without its /v1.
func OpenAIURL(base, endpoint string) string { return VersionedURL(base, "v1", endpoint) }

// Prompt is one request to a chat model. Its fields are those of
// engram.Prompt, which converts to it.
type Prompt struct {
	System string
	User   string
	JSON   bool            // answer with one JSON object
	Schema json.RawMessage // a JSON Schema the answer follows; implies JSON
}

// OpenAIEmbedding is an OpenAI-compatible embeddings API and how to call
// it. Its fields are those of openai.Embedder and of the deprecated
// engram.OpenAIEmbedder, which convert to it; see openai.Embedder for
// their meaning.
type OpenAIEmbedding struct {
	BaseURL        string
	APIKey         string
	ModelName      string
	Dims           int
	SendDimensions bool
	BatchSize      int
	Client         *http.Client
	Retries        int
	Backoff        time.Duration
}

// Embed posts texts to {BaseURL}/v1/embeddings, BatchSize at a time, and
// returns their vectors in order. It returns an [*APIError] for an HTTP
// error (after retries), an error matching [ErrBadAnswer] for a response
// it cannot use (not JSON, a vector missing, repeated or of the wrong
// dimension), and the context's error if it ends first.
func (cfg OpenAIEmbedding) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	api := NewClient(Embedding, Conn{Client: cfg.Client, Retries: cfg.Retries, Backoff: cfg.Backoff}, Bearer(cfg.APIKey))
	url := OpenAIURL(cfg.BaseURL, "embeddings")
	return EmbedBatches(texts, cfg.BatchSize, cfg.Dims, cfg.ModelName, func(batch []string) ([][]float32, error) {
		req := struct {
			Model          string   `json:"model"`
			Input          []string `json:"input"`
			EncodingFormat string   `json:"encoding_format"`
			Dimensions     int      `json:"dimensions,omitempty"`
		}{Model: cfg.ModelName, Input: batch, EncodingFormat: "float"}
		if cfg.SendDimensions {
			req.Dimensions = cfg.Dims
		}
		var resp struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := api.Post(ctx, url, req, &resp); err != nil {
			return nil, err
		}
		out := make([][]float32, len(batch))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(batch) || out[d.Index] != nil {
				return nil, fmt.Errorf("%w: embedding index %d for a batch of %d", ErrBadAnswer, d.Index, len(batch))
			}
			out[d.Index] = d.Embedding
		}
		for i, v := range out {
			if v == nil {
				return nil, fmt.Errorf("%w: no embedding for input %d", ErrBadAnswer, i)
			}
		}
		return out, nil
	})
}

// OpenAIChat is an OpenAI-compatible chat completions API and how to call
// it. Its fields are those of openai.Chat and of the deprecated
// engram.OpenAIChat, which convert to it; see openai.Chat for their
// meaning.
type OpenAIChat struct {
	BaseURL        string
	APIKey         string
	Model          string
	Client         *http.Client
	MaxAnswerBytes int64
	Retries        int
	Backoff        time.Duration
}

// Complete posts p to {BaseURL}/v1/chat/completions with temperature 0 and
// returns the first choice's message. A prompt's Schema is sent as
// response_format {type: "json_schema", json_schema: {name: "answer",
// schema, strict: true}}; without one, JSON asks for {type:
// "json_object"}. It returns an [*APIError] for an HTTP error status
// (after retries), the context's error when it ends first, and an error
// matching [ErrBadAnswer] for a response it cannot use: no choices, an
// answer cut off at the token limit, or a refusal.
func (cfg OpenAIChat) Complete(ctx context.Context, p Prompt) (string, error) {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	req := struct {
		Model          string    `json:"model"`
		Messages       []message `json:"messages"`
		Temperature    float64   `json:"temperature"`
		ResponseFormat any       `json:"response_format,omitempty"`
	}{Model: cfg.Model, Messages: []message{{"system", p.System}, {"user", p.User}}}
	switch {
	case p.Schema != nil:
		req.ResponseFormat = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "answer", "schema": p.Schema, "strict": true,
		}}
	case p.JSON:
		req.ResponseFormat = map[string]string{"type": "json_object"}
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
				Refusal string `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	conn := Conn{Client: cfg.Client, Retries: cfg.Retries, Backoff: cfg.Backoff, MaxBytes: cfg.MaxAnswerBytes}
	if err := NewClient(Chat, conn, Bearer(cfg.APIKey)).Post(ctx, OpenAIURL(cfg.BaseURL, "chat/completions"), req, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", fmt.Errorf("%w: the response has no choices", ErrBadAnswer)
	}
	first := out.Choices[0]
	if first.FinishReason == "length" {
		return "", fmt.Errorf("%w: the answer was cut off at the token limit", ErrBadAnswer)
	}
	if first.Message.Refusal != "" {
		return "", fmt.Errorf("%w: the model refused: %s", ErrBadAnswer, errorBody([]byte(first.Message.Refusal)))
	}
	return first.Message.Content, nil
}

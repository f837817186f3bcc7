package engram

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/modelapi"
)

// The model providers moved to packages of their own (openai, ollama,
// gemini). The types below forward to the same implementation and stay
// for one release, with their fields, constructors and behaviour as they
// were; unlike the new packages' types, they do not check their settings
// before a call.

// OpenAIEmbedder is an [Embedder] served by an OpenAI-compatible
// embeddings API: it posts batches of texts to {BaseURL}/v1/embeddings
// (BaseURL may end in /v1 already, as OpenAI-compatible servers document
// it).
//
// Deprecated: use openai.NewEmbedder (package
// github.com/engram-go/engram/openai), whose Embedder has the same fields
// and behaviour and checks its settings before a call. OpenAIEmbedder will
// be removed in the next release.
type OpenAIEmbedder struct {
	BaseURL   string // for example "https://api.openai.com"
	APIKey    string // sent as a bearer token when not empty
	ModelName string
	Dims      int // the length of the model's vectors
	// SendDimensions asks the API for Dims dimensions (models such as
	// text-embedding-3-small can shorten their vectors).
	SendDimensions bool
	// BatchSize is how many texts one request carries; 0 means 64.
	BatchSize int
	// Client sends the requests; nil means one with a 30 s timeout.
	Client *http.Client
	// Retries is how many times a failed request is tried again (rate
	// limits, server errors, transport failures); 0 means 3, a negative
	// value none. Backoff is the first wait, doubling up to 8 times it; 0
	// means 500 ms. A Retry-After header is honoured up to that cap.
	Retries int
	Backoff time.Duration
}

// NewOpenAIEmbedder returns an embedder for model at baseURL, whose vectors
// have dims dimensions.
//
// Deprecated: use openai.NewEmbedder (package
// github.com/engram-go/engram/openai).
func NewOpenAIEmbedder(baseURL, apiKey, model string, dims int) *OpenAIEmbedder {
	return &OpenAIEmbedder{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, ModelName: model, Dims: dims}
}

// Dimensions returns Dims.
func (e *OpenAIEmbedder) Dimensions() int { return e.Dims }

// Model returns ModelName.
func (e *OpenAIEmbedder) Model() string { return e.ModelName }

// Embed returns the vectors of texts, BatchSize per request. It returns an
// [*APIError] for an HTTP error (after retries), an error matching
// [ErrBadAnswer] for a response it cannot use (not JSON, a vector missing
// or of the wrong dimension), and the context's error if it ends first.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return modelapi.OpenAIEmbedding(*e).Embed(ctx, texts)
}

// OllamaEmbedder is an [Embedder] served by Ollama: it posts batches of
// texts to {BaseURL}/api/embed.
//
// Deprecated: use ollama.NewEmbedder (package
// github.com/engram-go/engram/ollama), whose Embedder has the same fields
// and behaviour and checks its settings before a call. OllamaEmbedder will
// be removed in the next release.
type OllamaEmbedder struct {
	BaseURL   string // usually "http://localhost:11434"
	ModelName string
	Dims      int // the length of the model's vectors
	// BatchSize, Client, Retries and Backoff are as for [OpenAIEmbedder].
	BatchSize int
	Client    *http.Client
	Retries   int
	Backoff   time.Duration
}

// NewOllamaEmbedder returns an embedder for model at baseURL (usually
// "http://localhost:11434"), whose vectors have dims dimensions.
//
// Deprecated: use ollama.NewEmbedder (package
// github.com/engram-go/engram/ollama).
func NewOllamaEmbedder(baseURL, model string, dims int) *OllamaEmbedder {
	return &OllamaEmbedder{BaseURL: strings.TrimRight(baseURL, "/"), ModelName: model, Dims: dims}
}

// Dimensions returns Dims.
func (e *OllamaEmbedder) Dimensions() int { return e.Dims }

// Model returns ModelName.
func (e *OllamaEmbedder) Model() string { return e.ModelName }

// Embed returns the vectors of texts, BatchSize per request. Errors are as
// for [OpenAIEmbedder.Embed].
func (e *OllamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return modelapi.OllamaEmbedding(*e).Embed(ctx, texts)
}

// OpenAIChat is an [LLM] served by an OpenAI-compatible chat completions
// API (OpenAI, Azure OpenAI, vLLM, llama.cpp, Ollama's /v1, …): it posts to
// {BaseURL}/v1/chat/completions (BaseURL may end in /v1 already) with
// temperature 0, asking for a JSON object when the prompt says so (or for
// its Schema). Rate limits (429), server errors and transport failures are
// retried, with backoff.
//
// Deprecated: use openai.NewChat (package
// github.com/engram-go/engram/openai), whose Chat has the same fields and
// behaviour and checks its settings before a call. OpenAIChat will be
// removed in the next release.
type OpenAIChat struct {
	BaseURL string // for example "https://api.openai.com"
	APIKey  string // sent as a bearer token when not empty
	Model   string
	// Client sends the requests; nil means one with a 60 s timeout.
	Client *http.Client
	// MaxAnswerBytes bounds the HTTP response read; 0 means 1 MiB.
	MaxAnswerBytes int64
	// Retries is how many times a failed call is tried again; 0 means 2,
	// a negative value none. Backoff is the first wait, doubling up to 8
	// times it; 0 means 500 ms.
	Retries int
	Backoff time.Duration
}

// NewOpenAIChat returns a client for model at baseURL.
//
// Deprecated: use openai.NewChat (package
// github.com/engram-go/engram/openai).
func NewOpenAIChat(baseURL, apiKey, model string) *OpenAIChat {
	return &OpenAIChat{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, Model: model}
}

// Complete sends the prompt and returns the first choice's message. It
// returns an [*APIError] for an HTTP error status (after retries), the
// context's error when it ends first, and an error matching
// [ErrBadAnswer] for a response it cannot use.
func (c *OpenAIChat) Complete(ctx context.Context, p Prompt) (string, error) {
	return modelapi.OpenAIChat(*c).Complete(ctx, modelapi.Prompt(p))
}

// Package ollama gives engram an embedder and a language model served by
// Ollama (https://ollama.com), which runs models on the local machine.
//
// [Embedder] is an [engram.Embedder] for Tier 2's vector search, posting
// batches of texts to Ollama's /api/embed. It retries rate limits (429),
// server errors (5xx) and transport failures with exponential backoff,
// bounds what it reads and checks every answer:
//
//	embedder := ollama.NewEmbedder(ollama.DefaultBaseURL, "nomic-embed-text", 768)
//	m, err := engram.New(engram.Tier2, engram.WithEmbedder(embedder))
//
// [Chat] is an [engram.LLM] for [engram.Memory.Extract], posting to
// Ollama's /api/chat and sending a prompt's JSON Schema as format, so that
// the model's answer follows it (structured outputs):
//
//	llm := ollama.NewChat(ollama.DefaultBaseURL, "llama3.2")
//	m, err := engram.New(engram.Tier1, engram.WithLLM(llm))
//
// (Ollama's OpenAI-compatible API at its /v1 serves an openai.Chat too.)
//
// # Errors
//
// Embed and Complete return an error matching [engram.ErrInvalid] (an
// [*engram.InvalidError] naming the field) for settings that cannot work,
// an empty text to embed or a schema that is not a JSON object, before
// any request; an [*engram.APIError] for an HTTP error status after the
// retries (a model that is not pulled is a 404); an error matching
// [engram.ErrBadAnswer] for an answer it cannot use; the context's error
// when the context ends first; and a transport error that outlasted the
// retries (Ollama not running) as it is.
//
// Embedder replaces engram.OllamaEmbedder, which forwards to the same
// implementation for one release.
package ollama

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/modelapi"
)

// DefaultBaseURL is where Ollama listens unless told otherwise.
const DefaultBaseURL = "http://localhost:11434"

var _ engram.Embedder = (*Embedder)(nil)

// Embedder is an [engram.Embedder] served by Ollama: it posts batches of
// texts to {BaseURL}/api/embed. It is safe for concurrent use as long as
// its fields are not changed meanwhile.
type Embedder struct {
	BaseURL   string // usually DefaultBaseURL
	ModelName string // for example "nomic-embed-text"
	Dims      int    // the length of the model's vectors
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

// NewEmbedder returns an embedder for model at baseURL (usually
// [DefaultBaseURL]), whose vectors have dims dimensions. The settings are
// checked when Embed is called.
func NewEmbedder(baseURL, model string, dims int) *Embedder {
	return &Embedder{BaseURL: strings.TrimRight(baseURL, "/"), ModelName: model, Dims: dims}
}

// Dimensions returns Dims.
func (e *Embedder) Dimensions() int { return e.Dims }

// Model returns ModelName.
func (e *Embedder) Model() string { return e.ModelName }

// Embed returns the vectors of texts, in order, BatchSize per request; no
// texts make no request. It returns an error matching [engram.ErrInvalid]
// before any request if BaseURL is not an absolute http or https URL,
// ModelName is empty, Dims is not positive or a text is empty or only
// white space; an [*engram.APIError] for an HTTP error (after retries); an
// error matching [engram.ErrBadAnswer] for a response it cannot use (not
// JSON, a vector missing, not finite or of the wrong dimension); and the
// context's error if it ends first.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if bad := modelapi.CheckEmbedder(e.BaseURL, e.ModelName, e.Dims, texts); bad != nil {
		return nil, (*engram.InvalidError)(bad)
	}
	return modelapi.OllamaEmbedding(*e).Embed(ctx, texts)
}

package openai

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/modelapi"
)

var _ engram.Embedder = (*Embedder)(nil)

// Embedder is an [engram.Embedder] served by an OpenAI-compatible
// embeddings API: it posts batches of texts to {BaseURL}/v1/embeddings
// (BaseURL may end in /v1 already, as OpenAI-compatible servers document
// it). It is safe for concurrent use as long as its fields are not
// changed meanwhile.
type Embedder struct {
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

// NewEmbedder returns an embedder for model at baseURL, whose vectors have
// dims dimensions; apiKey may be empty for a server that wants none. The
// settings are checked when Embed is called.
func NewEmbedder(baseURL, apiKey, model string, dims int) *Embedder {
	return &Embedder{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, ModelName: model, Dims: dims}
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
// JSON, a vector missing, repeated, not finite or of the wrong
// dimension); and the context's error if it ends first.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if bad := modelapi.CheckEmbedder(e.BaseURL, e.ModelName, e.Dims, texts); bad != nil {
		return nil, (*engram.InvalidError)(bad)
	}
	return modelapi.OpenAIEmbedding(*e).Embed(ctx, texts)
}

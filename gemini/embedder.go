package gemini

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/modelapi"
)

var _ engram.Embedder = (*Embedder)(nil)

// Embedder is an [engram.Embedder] served by the Gemini API: it posts
// batches of texts to {BaseURL}/v1beta/models/{ModelName}:batchEmbedContents,
// asking for Dims dimensions (outputDimensionality). The vectors of fewer
// dimensions than the model's own are not of unit length, which engram
// does not need. It is safe for concurrent use as long as its fields are
// not changed meanwhile.
type Embedder struct {
	BaseURL   string // "" means DefaultBaseURL; it may end in /v1beta
	APIKey    string // sent in the x-goog-api-key header when not empty
	ModelName string // for example DefaultEmbeddingModel
	Dims      int    // the length of the vectors, sent as outputDimensionality
	// TaskType tells the model what the vectors are for ("" leaves it to
	// the model). engram embeds its memories and the queries that search
	// them alike, so "SEMANTIC_SIMILARITY" fits, and a task type for one
	// side only ("RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY") does not.
	TaskType string
	// BatchSize is how many texts one request carries, at most
	// MaxBatchSize; 0 (or more than MaxBatchSize) means MaxBatchSize.
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

// NewEmbedder returns an embedder for model ("" means
// DefaultEmbeddingModel) at DefaultBaseURL, whose vectors have dims
// dimensions (768, 1,536 or 3,072 for DefaultEmbeddingModel). The settings
// are checked when Embed is called.
func NewEmbedder(apiKey, model string, dims int) *Embedder {
	if model == "" {
		model = DefaultEmbeddingModel
	}
	return &Embedder{BaseURL: DefaultBaseURL, APIKey: apiKey, ModelName: model, Dims: dims}
}

// Dimensions returns Dims.
func (e *Embedder) Dimensions() int { return e.Dims }

// Model returns ModelName, followed by "+" and the TaskType when there is
// one: a task type changes the vectors, and engram keeps the vectors of
// one model apart from another's.
func (e *Embedder) Model() string {
	if e.TaskType == "" {
		return e.ModelName
	}
	return e.ModelName + "+" + e.TaskType
}

// embedRequest is the API's EmbedContentRequest.
type embedRequest struct {
	Model                string  `json:"model"`
	Content              content `json:"content"`
	TaskType             string  `json:"taskType,omitempty"`
	OutputDimensionality int     `json:"outputDimensionality"`
}

// Embed returns the vectors of texts, in order, BatchSize per request; no
// texts make no request. It returns an error matching [engram.ErrInvalid]
// before any request if BaseURL is not an absolute http or https URL,
// ModelName is empty, Dims is not positive or a text is empty or only
// white space; an [*engram.APIError] for an HTTP error (after retries); an
// error matching [engram.ErrBadAnswer] for a response it cannot use (not
// JSON, a vector missing, not finite or of the wrong dimension); and the
// context's error if it ends first.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	base := orDefault(e.BaseURL)
	if bad := modelapi.CheckEmbedder(base, e.ModelName, e.Dims, texts); bad != nil {
		return nil, (*engram.InvalidError)(bad)
	}
	api := modelapi.NewClient(modelapi.Embedding, modelapi.Conn{Client: e.Client, Retries: e.Retries, Backoff: e.Backoff}, keyHeader(e.APIKey))
	url := endpoint(base, e.ModelName, "batchEmbedContents")
	name := "models/" + strings.TrimPrefix(e.ModelName, "models/")
	size := e.BatchSize
	if size <= 0 || size > MaxBatchSize {
		size = MaxBatchSize
	}
	return modelapi.EmbedBatches(texts, size, e.Dims, e.ModelName, func(batch []string) ([][]float32, error) {
		var req struct {
			Requests []embedRequest `json:"requests"`
		}
		for _, text := range batch {
			req.Requests = append(req.Requests, embedRequest{Model: name, Content: content{Parts: []part{{Text: text}}},
				TaskType: e.TaskType, OutputDimensionality: e.Dims})
		}
		var resp struct {
			Embeddings []struct {
				Values []float32 `json:"values"`
			} `json:"embeddings"`
		}
		if err := api.Post(ctx, url, req, &resp); err != nil {
			return nil, err
		}
		out := make([][]float32, len(resp.Embeddings))
		for i, emb := range resp.Embeddings {
			out[i] = emb.Values
		}
		return out, nil
	})
}

package ollama

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/modelapi"
)

var _ engram.LLM = (*Chat)(nil)

// Chat is an [engram.LLM] served by Ollama's own chat API: it posts a
// system and a user message to {BaseURL}/api/chat, not streamed, with
// temperature 0. A prompt's Schema is sent as format, which Ollama holds
// the answer to (structured outputs, Ollama 0.5 and later); a prompt that
// asks for JSON without a Schema is sent with format "json". It is safe
// for concurrent use as long as its fields are not changed meanwhile.
type Chat struct {
	BaseURL string // usually DefaultBaseURL
	Model   string // for example "llama3.2"
	// Client sends the requests; nil means one with a 60 s timeout.
	Client *http.Client
	// MaxAnswerBytes bounds the HTTP response read; 0 means 1 MiB.
	MaxAnswerBytes int64
	// Retries is how many times a failed call is tried again; 0 means 2,
	// a negative value none. Backoff is the first wait, doubling up to 8
	// times it; 0 means 500 ms. A Retry-After header is honoured up to
	// that cap.
	Retries int
	Backoff time.Duration
}

// NewChat returns a client for model at baseURL (usually
// [DefaultBaseURL]). The settings are checked when Complete is called.
func NewChat(baseURL, model string) *Chat {
	return &Chat{BaseURL: strings.TrimRight(baseURL, "/"), Model: model}
}

// Complete sends the prompt and returns the model's message. It returns
// an error matching [engram.ErrInvalid] before any request if BaseURL is
// not an absolute http or https URL, Model is empty or the prompt's
// Schema is not a JSON object; an [*engram.APIError] for an HTTP error
// status (after retries; a model that is not pulled is a 404); an error
// matching [engram.ErrBadAnswer] for a response it cannot use (not JSON,
// an answer cut off at the token limit, no text, or larger than
// MaxAnswerBytes); and the context's error when it ends first.
func (c *Chat) Complete(ctx context.Context, p engram.Prompt) (string, error) {
	prompt := modelapi.Prompt(p)
	if bad := modelapi.CheckChat(c.BaseURL, c.Model, prompt); bad != nil {
		return "", (*engram.InvalidError)(bad)
	}
	return modelapi.OllamaChat(*c).Complete(ctx, prompt)
}

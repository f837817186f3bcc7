package openai

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/modelapi"
)

var _ engram.LLM = (*Chat)(nil)

// Chat is an [engram.LLM] served by an OpenAI-compatible chat completions
// API: it posts a system and a user message to
// {BaseURL}/v1/chat/completions (BaseURL may end in /v1 already) with
// temperature 0. A prompt's Schema is sent as response_format {type:
// "json_schema", json_schema: {name: "answer", schema, strict: true}}, so
// the schema must follow OpenAI's rules for strict mode (every property
// required, additionalProperties false); without a Schema, a prompt that
// asks for JSON is sent with response_format {type: "json_object"}. It is
// safe for concurrent use as long as its fields are not changed
// meanwhile.
type Chat struct {
	BaseURL string // for example "https://api.openai.com"
	APIKey  string // sent as a bearer token when not empty
	Model   string
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

// NewChat returns a client for model at baseURL; apiKey may be empty for a
// server that wants none. The settings are checked when Complete is
// called.
func NewChat(baseURL, apiKey, model string) *Chat {
	return &Chat{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, Model: model}
}

// Complete sends the prompt and returns the first choice's message. It
// returns an error matching [engram.ErrInvalid] before any request if
// BaseURL is not an absolute http or https URL, Model is empty or the
// prompt's Schema is not a JSON object; an [*engram.APIError] for an HTTP
// error status (after retries); an error matching [engram.ErrBadAnswer]
// for a response it cannot use (not JSON, no choices, an answer cut off at
// the token limit, a refusal, or larger than MaxAnswerBytes); and the
// context's error when it ends first.
func (c *Chat) Complete(ctx context.Context, p engram.Prompt) (string, error) {
	prompt := modelapi.Prompt(p)
	if bad := modelapi.CheckChat(c.BaseURL, c.Model, prompt); bad != nil {
		return "", (*engram.InvalidError)(bad)
	}
	return modelapi.OpenAIChat(*c).Complete(ctx, prompt)
}

package engram

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// LLM is a language model engram can ask for text. [Memory.Extract] uses
// it when the Memory was opened [WithLLM]. Implementations must be safe
// for concurrent use and honour the context.
type LLM interface {
	Complete(ctx context.Context, p Prompt) (string, error)
}

// Prompt is one request to an [LLM].
type Prompt struct {
	System string // instructions
	User   string // the input
	// JSON asks for an answer that is one JSON object.
	JSON bool
}

// OpenAIChat is an [LLM] served by an OpenAI-compatible chat completions
// API (OpenAI, Azure OpenAI, vLLM, llama.cpp, Ollama's /v1, …): it posts to
// {BaseURL}/v1/chat/completions (BaseURL may end in /v1 already) with
// temperature 0, asking for a JSON
// object when the prompt says so. Rate limits (429), server errors and
// transport failures are retried, with backoff.
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
func NewOpenAIChat(baseURL, apiKey, model string) *OpenAIChat {
	return &OpenAIChat{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, Model: model}
}

var defaultLLMClient = &http.Client{Timeout: 60 * time.Second}

// apiClient returns the HTTP settings of c, defaults filled in.
func newAPIClient(client *http.Client, defaultClient *http.Client, apiKey string, retries int, backoff time.Duration, maxBytes int64) apiClient {
	c := apiClient{client: client, header: http.Header{}, retries: retries, backoff: backoff, maxBytes: maxBytes}
	if c.client == nil {
		c.client = defaultClient
	}
	if apiKey != "" {
		c.header.Set("Authorization", "Bearer "+apiKey)
	}
	switch {
	case c.retries == 0:
		c.retries = 2
	case c.retries < 0:
		c.retries = 0
	}
	if c.backoff <= 0 {
		c.backoff = 500 * time.Millisecond
	}
	c.maxBackoff = 8 * c.backoff
	if c.maxBytes <= 0 {
		c.maxBytes = 1 << 20
	}
	return c
}

// Complete sends the prompt and returns the first choice's message. It
// returns an [*APIError] for an HTTP error status (after retries), the
// context's error when it ends first, and an error matching
// [ErrBadAnswer] for a response it cannot use.
func (c *OpenAIChat) Complete(ctx context.Context, p Prompt) (string, error) {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	req := struct {
		Model          string    `json:"model"`
		Messages       []message `json:"messages"`
		Temperature    float64   `json:"temperature"`
		ResponseFormat any       `json:"response_format,omitempty"`
	}{Model: c.Model, Messages: []message{{"system", p.System}, {"user", p.User}}}
	if p.JSON {
		req.ResponseFormat = map[string]string{"type": "json_object"}
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	api := newAPIClient(c.Client, defaultLLMClient, c.APIKey, c.Retries, c.Backoff, c.MaxAnswerBytes)
	if err := api.post(ctx, openAIURL(c.BaseURL, "chat/completions"), req, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", fmt.Errorf("%w: the response has no choices", ErrBadAnswer)
	}
	if out.Choices[0].FinishReason == "length" {
		return "", fmt.Errorf("%w: the answer was cut off at the token limit", ErrBadAnswer)
	}
	return out.Choices[0].Message.Content, nil
}

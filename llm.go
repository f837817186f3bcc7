package engram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
// {BaseURL}/v1/chat/completions with temperature 0, asking for a JSON
// object when the prompt says so.
type OpenAIChat struct {
	BaseURL string // for example "https://api.openai.com"
	APIKey  string // sent as a bearer token when not empty
	Model   string
	// Client sends the requests; nil means one with a 60 s timeout.
	Client *http.Client
	// MaxAnswerBytes bounds the HTTP response read; 0 means 1 MiB.
	MaxAnswerBytes int64
}

// NewOpenAIChat returns a client for model at baseURL.
func NewOpenAIChat(baseURL, apiKey, model string) *OpenAIChat {
	return &OpenAIChat{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, Model: model}
}

var defaultLLMClient = &http.Client{Timeout: 60 * time.Second}

// LLMError is an unsuccessful HTTP response from a model's API.
type LLMError struct {
	Status int
	Body   string // the start of the response body
}

func (e *LLMError) Error() string {
	return fmt.Sprintf("engram: LLM API answered %d: %s", e.Status, e.Body)
}

// Complete sends the prompt and returns the first choice's message. It
// returns an [*LLMError] for an HTTP error status, the context's error
// when it ends first, and an error matching [ErrBadAnswer] for a response
// it cannot read.
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
	body, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	client := c.Client
	if client == nil {
		client = defaultLLMClient
	}
	resp, err := client.Do(hr)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr
		}
		return "", err
	}
	defer resp.Body.Close()
	limit := c.MaxAnswerBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr
		}
		return "", err
	}
	if resp.StatusCode/100 != 2 {
		return "", &LLMError{Status: resp.StatusCode, Body: truncateUTF8(string(raw), 512)}
	}
	if int64(len(raw)) > limit {
		return "", fmt.Errorf("%w: the response is larger than %d bytes", ErrBadAnswer, limit)
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("%w: the response is not chat-completion JSON: %v", ErrBadAnswer, err)
	}
	if len(out.Choices) == 0 {
		return "", fmt.Errorf("%w: the response has no choices", ErrBadAnswer)
	}
	if out.Choices[0].FinishReason == "length" {
		return "", fmt.Errorf("%w: the answer was cut off at the token limit", ErrBadAnswer)
	}
	return out.Choices[0].Message.Content, nil
}

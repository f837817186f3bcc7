package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/modelapi"
)

var _ engram.LLM = (*Chat)(nil)

// Chat is an [engram.LLM] served by the Gemini API: it posts a prompt to
// {BaseURL}/v1beta/models/{Model}:generateContent, its System as the
// systemInstruction and its User as the one user turn, with temperature
// 0. A prompt's Schema is sent as generationConfig.responseJsonSchema (see
// the package documentation) and a prompt that asks for JSON gets
// responseMimeType "application/json". It is safe for concurrent use as
// long as its fields are not changed meanwhile.
type Chat struct {
	BaseURL string // "" means DefaultBaseURL; it may end in /v1beta
	APIKey  string // sent in the x-goog-api-key header when not empty
	Model   string // for example DefaultChatModel
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

// NewChat returns a client for model ("" means DefaultChatModel) at
// DefaultBaseURL. The settings are checked when Complete is called.
func NewChat(apiKey, model string) *Chat {
	if model == "" {
		model = DefaultChatModel
	}
	return &Chat{BaseURL: DefaultBaseURL, APIKey: apiKey, Model: model}
}

// generateRequest is the API's GenerateContentRequest, as far as Complete
// uses it.
type generateRequest struct {
	SystemInstruction *content         `json:"systemInstruction,omitempty"`
	Contents          []content        `json:"contents"`
	GenerationConfig  generationConfig `json:"generationConfig"`
}

type generationConfig struct {
	Temperature        float64         `json:"temperature"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

// generateResponse is the API's GenerateContentResponse, as far as
// Complete reads it.
type generateResponse struct {
	Candidates []struct {
		Content      content `json:"content"`
		FinishReason string  `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
}

// Complete sends the prompt and returns the text of the first candidate's
// parts, joined. It returns an error matching [engram.ErrInvalid] before
// any request if BaseURL is not an absolute http or https URL, Model is
// empty or the prompt's Schema is not a JSON object; an
// [*engram.APIError] for an HTTP error status (after retries); an error
// matching [engram.ErrBadAnswer] for a response it cannot use: not JSON,
// larger than MaxAnswerBytes, a prompt Gemini blocked
// (promptFeedback.blockReason), no candidate, an answer cut off at the
// token limit (finishReason MAX_TOKENS) or stopped for another reason
// than its end (SAFETY, RECITATION, …; the message names it), or no text;
// and the context's error when it ends first.
func (c *Chat) Complete(ctx context.Context, p engram.Prompt) (string, error) {
	base := orDefault(c.BaseURL)
	if bad := modelapi.CheckChat(base, c.Model, modelapi.Prompt(p)); bad != nil {
		return "", (*engram.InvalidError)(bad)
	}
	req := generateRequest{
		Contents:         []content{{Role: "user", Parts: []part{{Text: p.User}}}},
		GenerationConfig: generationConfig{ResponseJSONSchema: p.Schema},
	}
	if p.System != "" {
		req.SystemInstruction = &content{Parts: []part{{Text: p.System}}}
	}
	if p.JSON || p.Schema != nil {
		req.GenerationConfig.ResponseMimeType = "application/json"
	}
	conn := modelapi.Conn{Client: c.Client, Retries: c.Retries, Backoff: c.Backoff, MaxBytes: c.MaxAnswerBytes}
	var resp generateResponse
	if err := modelapi.NewClient(modelapi.Chat, conn, keyHeader(c.APIKey)).Post(ctx, endpoint(base, c.Model, "generateContent"), req, &resp); err != nil {
		return "", err
	}
	return resp.text()
}

// text returns the answer in r, or an error matching ErrBadAnswer.
func (r *generateResponse) text() (string, error) {
	if reason := r.PromptFeedback.BlockReason; reason != "" {
		return "", fmt.Errorf("%w: Gemini blocked the prompt (%s)", engram.ErrBadAnswer, reason)
	}
	if len(r.Candidates) == 0 {
		return "", fmt.Errorf("%w: the response has no candidates", engram.ErrBadAnswer)
	}
	first := r.Candidates[0]
	switch first.FinishReason {
	case "", "STOP":
	case "MAX_TOKENS":
		return "", fmt.Errorf("%w: the answer was cut off at the token limit", engram.ErrBadAnswer)
	default:
		return "", fmt.Errorf("%w: Gemini stopped the answer (%s)", engram.ErrBadAnswer, first.FinishReason)
	}
	var b strings.Builder
	for _, part := range first.Content.Parts {
		if !part.Thought {
			b.WriteString(part.Text)
		}
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("%w: the answer holds no text", engram.ErrBadAnswer)
	}
	return b.String(), nil
}

// Package gemini gives engram an embedder and a language model served by
// Google's Gemini API (https://ai.google.dev), the generativelanguage
// endpoint that takes an API key from Google AI Studio.
//
// [Embedder] is an [engram.Embedder] for Tier 2's vector search, posting
// batches of up to 100 texts to models/{model}:batchEmbedContents; [Chat]
// is an [engram.LLM] for [engram.Memory.Extract], posting to
// models/{model}:generateContent. Both send the key in the x-goog-api-key
// header, never in the URL (URLs end up in error messages and logs), retry
// rate limits (429), server errors (5xx) and transport failures with
// exponential backoff (honouring Retry-After up to 8 times the first
// wait), bound what they read, and check every answer:
//
//	key := os.Getenv("GOOGLE_API_KEY")
//	embedder := gemini.NewEmbedder(key, gemini.DefaultEmbeddingModel, 768)
//	llm := gemini.NewChat(key, gemini.DefaultChatModel)
//	m, err := engram.New(engram.Tier2, engram.WithEmbedder(embedder), engram.WithLLM(llm))
//
// # Structured output
//
// A prompt's [engram.Prompt] Schema is sent as
// generationConfig.responseJsonSchema, with responseMimeType
// "application/json". That field takes a JSON Schema as such (the same
// schema an openai.Chat sends), where the older responseSchema takes only
// Google's subset of the OpenAPI 3.0 schema object (uppercase types,
// nullable, no $ref), which a JSON Schema would have to be translated
// into. Gemini supports the common keywords of JSON Schema (type,
// properties, required, items, enum, anyOf, $ref, …) and ignores or
// rejects the rest. A prompt that asks for JSON without a Schema is sent
// with responseMimeType "application/json" alone.
//
// # Errors
//
// A call returns an error matching [engram.ErrInvalid] (an
// [*engram.InvalidError] naming the field) for settings that cannot work
// or bad arguments, before any request; an [*engram.APIError] for an HTTP
// error status after the retries (a bad key is a 400 or 403); an error
// matching [engram.ErrBadAnswer] for an answer it cannot use, including a
// prompt or an answer that Gemini blocked (the reason is in the message);
// the context's error when the context ends first; and a transport error
// that outlasted the retries as it is.
package gemini

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/engram-go/engram/internal/modelapi"
)

// Defaults and limits of the Gemini API.
const (
	// DefaultBaseURL is the Gemini API's server.
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	// DefaultEmbeddingModel is Gemini's text embedding model. Its vectors
	// have 3,072 dimensions unless fewer are asked for (768 and 1,536 are
	// the usual choices).
	DefaultEmbeddingModel = "gemini-embedding-001"
	// DefaultChatModel is a fast Gemini model, good at extraction.
	DefaultChatModel = "gemini-2.5-flash"
	// MaxBatchSize is the most texts the API embeds in one request.
	MaxBatchSize = 100
)

// endpoint returns the URL of model's method ("batchEmbedContents",
// "generateContent") under base (see orDefault; it may end in /v1beta
// already). model may be given with its "models/" prefix.
func endpoint(base, model, method string) string {
	return modelapi.VersionedURL(base, "v1beta", "models/"+url.PathEscape(strings.TrimPrefix(model, "models/"))+":"+method)
}

// orDefault returns base, or DefaultBaseURL when base is empty.
func orDefault(base string) string {
	if base == "" {
		return DefaultBaseURL
	}
	return base
}

// keyHeader sends apiKey in the x-goog-api-key header, when there is one
// (a proxy in front of the API may want none).
func keyHeader(apiKey string) http.Header {
	h := http.Header{}
	if apiKey != "" {
		h.Set("x-goog-api-key", apiKey)
	}
	return h
}

// part and content are the API's Part and Content, as far as text goes.
type part struct {
	Text    string `json:"text"`
	Thought bool   `json:"thought,omitempty"` // a thinking model's thoughts, not its answer
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

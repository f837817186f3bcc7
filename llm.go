package engram

import (
	"context"
	"encoding/json"
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
	// Schema, when not nil, is a JSON Schema of the answer (structured
	// output); it implies JSON. Providers send it where their API takes
	// one: an OpenAI-compatible chat (openai.Chat) as response_format
	// json_schema in strict mode, whose rules the schema must follow
	// (every property required, additionalProperties false); Gemini
	// (gemini.Chat) as generationConfig.responseJsonSchema, which takes a
	// JSON Schema (not the OpenAPI subset of responseSchema) and supports
	// the common keywords. Without a Schema, JSON asks for any JSON object.
	Schema json.RawMessage
}

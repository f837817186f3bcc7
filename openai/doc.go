// Package openai gives engram an embedder and a language model served by
// an OpenAI-compatible API: OpenAI itself, Azure OpenAI, vLLM, llama.cpp's
// server, LM Studio, Ollama's /v1 and the many others that speak the same
// protocol.
//
// [Embedder] is an [engram.Embedder] for Tier 2's vector search, posting
// batches of texts to /v1/embeddings; [Chat] is an [engram.LLM] for
// [engram.Memory.Extract], posting to /v1/chat/completions. Both retry rate
// limits (429), server errors (5xx) and transport failures with
// exponential backoff (honouring Retry-After up to 8 times the first
// wait), bound what they read, and check every answer:
//
//	embedder := openai.NewEmbedder("https://api.openai.com", os.Getenv("OPENAI_API_KEY"), "text-embedding-3-small", 1536)
//	llm := openai.NewChat("https://api.openai.com", os.Getenv("OPENAI_API_KEY"), "gpt-4o-mini")
//	m, err := engram.New(engram.Tier2, engram.WithEmbedder(embedder), engram.WithLLM(llm))
//
// # Errors
//
// A call returns an error matching [engram.ErrInvalid] (an
// [*engram.InvalidError] naming the field) for settings that cannot work
// or bad arguments, before any request; an [*engram.APIError] for an HTTP
// error status after the retries; an error matching [engram.ErrBadAnswer]
// for an answer it cannot use; the context's error when the context ends
// first; and a transport error that outlasted the retries as it is.
//
// These types replace engram.OpenAIEmbedder and engram.OpenAIChat, which
// forward to the same implementation for one release.
package openai

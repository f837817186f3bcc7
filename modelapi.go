package engram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is an unsuccessful HTTP response from a model's API (an [LLM]
// or an [Embedder]), after any retries.
type APIError struct {
	Status int
	URL    string // what was asked
	Body   string // the start of the response body
}

func (e *APIError) Error() string {
	return fmt.Sprintf("engram: model API %s answered %d: %s", e.URL, e.Status, e.Body)
}

// retryable reports whether a response status is worth another try: rate
// limiting and server errors.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// apiClient posts JSON to a model's API, retrying rate limits (429),
// server errors (5xx) and transport failures with exponential backoff.
type apiClient struct {
	client     *http.Client
	header     http.Header
	retries    int           // further attempts after the first
	backoff    time.Duration // before the first retry; doubles each time
	maxBackoff time.Duration
	maxBytes   int64 // response bodies larger than this are an error
}

// post sends body to url and decodes the JSON answer into out. It
// returns the context's error as soon as the context ends, an [*APIError]
// for a status it does not retry (or still gets after its retries), and an
// error matching [ErrBadAnswer] for a body it cannot decode.
func (c apiClient) post(ctx context.Context, url string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		retryAfter, err := c.once(ctx, url, payload, out)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ae *APIError
		transient := errors.As(err, &ae) && retryable(ae.Status) ||
			!errors.As(err, &ae) && !errors.Is(err, ErrBadAnswer)
		if !transient || attempt >= c.retries {
			return err
		}
		d := wait
		if retryAfter > 0 {
			d = min(retryAfter, c.maxBackoff) // a server asking for more gets an error sooner
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
		wait = min(2*wait, c.maxBackoff)
	}
}

// once makes one attempt; it returns the server's Retry-After, if any.
func (c apiClient) once(ctx context.Context, url string, payload []byte, out any) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, err
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode/100 != 2 {
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			after = time.Duration(s) * time.Second
		}
		return after, &APIError{Status: resp.StatusCode, URL: req.URL.Redacted(), Body: truncateUTF8(string(raw), 512)}
	}
	if int64(len(raw)) > c.maxBytes {
		return 0, fmt.Errorf("%w: the response is larger than %d bytes", ErrBadAnswer, c.maxBytes)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return 0, fmt.Errorf("%w: the response is not the JSON expected: %v", ErrBadAnswer, err)
	}
	return 0, nil
}

// openAIURL returns the URL of an OpenAI-compatible API's endpoint
// ("embeddings", "chat/completions") under base, which may name the
// server ("https://api.openai.com") or, as OpenAI-compatible servers
// document it, its /v1 ("https://host/v1", "http://localhost:11434/v1/").
func openAIURL(base, endpoint string) string {
	base = strings.TrimRight(base, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	return base + "/" + endpoint
}

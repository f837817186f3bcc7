// Package modelapi is engram's one client of models' HTTP APIs. It posts
// JSON with retries and a bound on what it reads, checks the vectors and
// answers that come back, and speaks the OpenAI-compatible embeddings and
// chat completions APIs and Ollama's /api/embed. The public provider
// packages (openai, ollama, gemini) and the root package's deprecated
// provider types are thin layers over it, so that there is one
// implementation of each.
//
// It imports nothing of engram's: the root package aliases [APIError] and
// [ErrBadAnswer], and the provider packages turn an [Invalid] into an
// *engram.InvalidError.
package modelapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrBadAnswer reports an answer from a model's API that engram cannot
// use. The root package documents it as engram.ErrBadAnswer, the same
// value.
var ErrBadAnswer = errors.New("engram: unusable answer from a model")

// APIError is an unsuccessful HTTP response from a model's API (an LLM or
// an embedder), after any retries. The root package documents it as
// engram.APIError, the same type.
type APIError struct {
	Status int
	URL    string // what was asked, without any password it held
	Body   string // the start of the response body
}

// Error implements error.
func (e *APIError) Error() string {
	return fmt.Sprintf("engram: model API %s answered %d: %s", e.URL, e.Status, e.Body)
}

// maxErrorBody is how much of an error response [APIError.Body] keeps.
const maxErrorBody = 512

// Use says what a [Client] is for, which sets the defaults of its [Conn].
type Use int

const (
	// Embedding is an embedder's: a 30 s timeout, 3 retries, answers of up
	// to 64 MiB (a batch of long vectors).
	Embedding Use = iota
	// Chat is an LLM's: a 60 s timeout, 2 retries, answers of up to 1 MiB.
	Chat
)

// defaults of each Use; the clients are shared, as http.Client is safe
// for concurrent use.
var defaults = [...]struct {
	client   *http.Client
	retries  int
	maxBytes int64
}{
	Embedding: {&http.Client{Timeout: 30 * time.Second}, 3, 64 << 20},
	Chat:      {&http.Client{Timeout: 60 * time.Second}, 2, 1 << 20},
}

// Conn is how a provider reaches its API, as its user set it; a zero field
// means the default of the [Client]'s [Use].
type Conn struct {
	Client *http.Client // nil: a shared client with the Use's timeout
	// Retries is how many times a failed request is tried again (rate
	// limits, server errors, transport failures); 0 means the Use's
	// default, a negative value none.
	Retries int
	// Backoff is the first wait before a retry, doubling up to 8 times
	// it; 0 means 500 ms. A Retry-After header is honoured up to that cap.
	Backoff  time.Duration
	MaxBytes int64 // the largest response body read; 0: the Use's default
}

// Client posts JSON to a model's API, retrying rate limits (429), server
// errors (5xx) and transport failures with exponential backoff. It is safe
// for concurrent use.
type Client struct {
	http       *http.Client
	header     http.Header
	retries    int           // further attempts after the first
	backoff    time.Duration // before the first retry; doubles each time
	maxBackoff time.Duration
	maxBytes   int64 // response bodies larger than this are an error
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewClient returns a client for use with conn's settings, defaults filled
// in, that sends header with every request.
func NewClient(use Use, conn Conn, header http.Header) *Client {
	d := defaults[use]
	c := &Client{http: conn.Client, header: header, retries: conn.Retries, backoff: conn.Backoff,
		maxBytes: conn.MaxBytes, sleep: sleep}
	if c.http == nil {
		c.http = d.client
	}
	switch {
	case c.retries == 0:
		c.retries = d.retries
	case c.retries < 0:
		c.retries = 0
	}
	if c.backoff <= 0 {
		c.backoff = 500 * time.Millisecond
	}
	c.maxBackoff = 8 * c.backoff
	if c.maxBytes <= 0 {
		c.maxBytes = d.maxBytes
	}
	return c
}

// Bearer returns the header that sends apiKey as a bearer token, or no
// header when apiKey is empty (a local server).
func Bearer(apiKey string) http.Header {
	h := http.Header{}
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
	return h
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryable reports whether a response status is worth another try: rate
// limiting and server errors.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// Post sends body as JSON to rawURL and decodes the JSON answer into out.
// It returns the context's error as soon as the context ends, an
// [*APIError] for a status it does not retry (or still gets after its
// retries), an error matching [ErrBadAnswer] for a body it cannot decode
// or that is too large, and a transport error that outlasted the retries
// as it is. A URL that is not an absolute http or https URL is an error at
// once, never retried.
func (c *Client) Post(ctx context.Context, rawURL string, body, out any) error {
	u, ok := parseHTTP(rawURL)
	if !ok {
		return fmt.Errorf("engram: model API URL %q is not an absolute http or https URL", redact(rawURL))
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		retryAfter, err := c.once(ctx, u, payload, out)
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
		if err := c.sleep(ctx, d); err != nil {
			return err
		}
		wait = min(2*wait, c.maxBackoff)
	}
}

// once makes one attempt; it returns the server's Retry-After, if any.
func (c *Client) once(ctx context.Context, u *url.URL, payload []byte, out any) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(payload))
	if err != nil {
		return 0, err
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode/100 != 2 {
		return retryAfter(resp.Header.Get("Retry-After")), &APIError{Status: resp.StatusCode, URL: u.Redacted(), Body: errorBody(raw)}
	}
	if int64(len(raw)) > c.maxBytes {
		return 0, fmt.Errorf("%w: the response is larger than %d bytes", ErrBadAnswer, c.maxBytes)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return 0, fmt.Errorf("%w: the response is not the JSON expected: %v", ErrBadAnswer, err)
	}
	return 0, nil
}

// retryAfter reads a Retry-After header: a number of seconds or an HTTP
// date. It returns 0 when there is none or it cannot be read.
func retryAfter(h string) time.Duration {
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// errorBody returns the start of an error response, at most maxErrorBody
// bytes, cut on a rune boundary and ending in "…" when it was cut.
func errorBody(raw []byte) string {
	if len(raw) <= maxErrorBody {
		return string(raw)
	}
	cut := maxErrorBody - len("…")
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return string(raw[:cut]) + "…"
}

// parseHTTP parses an absolute http or https URL; ok is false for any
// other.
func parseHTTP(rawURL string) (u *url.URL, ok bool) {
	u, err := url.Parse(rawURL)
	return u, err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// redact returns rawURL without a password it may hold, for an error
// message, as far as it can be parsed.
func redact(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndex(rawURL, "@"); i >= 0 {
		return "…" + rawURL[i:]
	}
	return rawURL
}

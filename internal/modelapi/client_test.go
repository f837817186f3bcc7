package modelapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// server answers every request with handle, counting the calls.
func server(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int64)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(w, r, calls.Add(1))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// recording returns a client whose waits are recorded instead of slept.
func recording(use Use, conn Conn) (*Client, *[]time.Duration) {
	c := NewClient(use, conn, http.Header{"X-Test": {"yes"}})
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

func TestNewClientDefaults(t *testing.T) {
	e := NewClient(Embedding, Conn{}, nil)
	assert.Equal(t, 3, e.retries)
	assert.Equal(t, 500*time.Millisecond, e.backoff)
	assert.Equal(t, 4*time.Second, e.maxBackoff, "8 times the first wait")
	assert.EqualValues(t, 64<<20, e.maxBytes)
	assert.Equal(t, 30*time.Second, e.http.Timeout)
	c := NewClient(Chat, Conn{}, nil)
	assert.Equal(t, 2, c.retries)
	assert.EqualValues(t, 1<<20, c.maxBytes)
	assert.Equal(t, 60*time.Second, c.http.Timeout)

	own := &http.Client{}
	s := NewClient(Chat, Conn{Client: own, Retries: -1, Backoff: time.Second, MaxBytes: 10}, nil)
	assert.Same(t, own, s.http)
	assert.Zero(t, s.retries, "a negative value means none")
	assert.Equal(t, 8*time.Second, s.maxBackoff)
	assert.EqualValues(t, 10, s.maxBytes)
}

func TestBearer(t *testing.T) {
	assert.Equal(t, "Bearer k", Bearer("k").Get("Authorization"))
	assert.Empty(t, Bearer(""), "no key, no header")
}

// A Retry-After is honoured up to 8 times the first wait, in seconds or
// as a date.
func TestPostRetryAfter(t *testing.T) {
	srv, calls := server(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		assert.Equal(t, "yes", r.Header.Get("X-Test"))
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		switch n {
		case 1:
			w.Header().Set("Retry-After", "2")
		case 2:
			w.Header().Set("Retry-After", "3600")
		case 3:
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		}
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	c, waits := recording(Chat, Conn{Retries: 3, Backoff: time.Second})
	err := c.Post(context.Background(), srv.URL, map[string]int{"x": 1}, new(struct{}))
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusServiceUnavailable, ae.Status)
	assert.EqualValues(t, 4, calls.Load(), "the first try and 3 more")
	assert.Equal(t, []time.Duration{2 * time.Second, 8 * time.Second, 8 * time.Second}, *waits)
}

// Waits double from the first up to 8 times it.
func TestPostBackoffDoubles(t *testing.T) {
	srv, calls := server(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if n == 2 {
			w.Header().Set("Retry-After", "0") // no wait asked: the schedule's applies
		}
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	c, waits := recording(Embedding, Conn{Retries: 5, Backoff: 10 * time.Millisecond})
	err := c.Post(context.Background(), srv.URL, nil, new(struct{}))
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusTooManyRequests, ae.Status)
	assert.EqualValues(t, 6, calls.Load())
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{10 * ms, 20 * ms, 40 * ms, 80 * ms, 80 * ms}, *waits)
}

func TestPostSucceedsAfterRetry(t *testing.T) {
	srv, calls := server(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if n == 1 {
			http.Error(w, "oops", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"ok": true}`))
	})
	c, waits := recording(Chat, Conn{})
	var out struct{ OK bool }
	require.NoError(t, c.Post(context.Background(), srv.URL, nil, &out))
	assert.True(t, out.OK)
	assert.EqualValues(t, 2, calls.Load())
	assert.Equal(t, []time.Duration{500 * time.Millisecond}, *waits)
}

func TestPostDoesNotRetry(t *testing.T) {
	for name, tc := range map[string]struct {
		status int
		body   string
		check  func(t *testing.T, err error)
	}{
		"client error": {http.StatusBadRequest, "no such model", func(t *testing.T, err error) {
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusBadRequest, ae.Status)
			assert.Equal(t, "no such model\n", ae.Body)
			assert.False(t, errors.Is(err, ErrBadAnswer))
		}},
		"bad JSON": {http.StatusOK, `{"ok": `, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrBadAnswer)
			assert.Contains(t, err.Error(), "not the JSON expected")
		}},
		"too large": {http.StatusOK, `{"ok": "` + strings.Repeat("x", 100) + `"}`, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrBadAnswer)
			assert.Contains(t, err.Error(), "larger than 64 bytes")
		}},
	} {
		t.Run(name, func(t *testing.T) {
			srv, calls := server(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
				if tc.status != http.StatusOK {
					http.Error(w, tc.body, tc.status)
					return
				}
				_, _ = w.Write([]byte(tc.body))
			})
			c, waits := recording(Chat, Conn{MaxBytes: 64})
			tc.check(t, c.Post(context.Background(), srv.URL, nil, new(struct{ OK bool })))
			assert.EqualValues(t, 1, calls.Load())
			assert.Empty(t, *waits)
		})
	}
}

// A transport failure is retried; one that lasts is returned as it is.
func TestPostTransportFailure(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int64) {})
	srv.Close()
	c, waits := recording(Embedding, Conn{Retries: 2, Backoff: time.Millisecond})
	err := c.Post(context.Background(), srv.URL, nil, new(struct{}))
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrBadAnswer))
	assert.False(t, errors.As(err, new(*APIError)))
	assert.Len(t, *waits, 2)
}

func TestPostURL(t *testing.T) {
	c, waits := recording(Chat, Conn{})
	for _, bad := range []string{"", "/v1/embeddings", "localhost:11434/api/embed", "ftp://host/x", "http://%zz"} {
		err := c.Post(context.Background(), bad, nil, new(struct{}))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "not an absolute http or https URL", bad)
	}
	assert.Empty(t, *waits, "never retried")

	err := c.Post(context.Background(), "http://user:secret@%zz/x", nil, new(struct{}))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "secret")

	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		http.Error(w, strings.Repeat("é", 400), http.StatusForbidden)
	})
	err = c.Post(context.Background(), strings.Replace(srv.URL, "http://", "http://user:secret@", 1)+"/v1/x", nil, new(struct{}))
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.NotContains(t, err.Error(), "secret", "the URL in the error is redacted")
	assert.Contains(t, ae.URL, "/v1/x")
	assert.LessOrEqual(t, len(ae.Body), maxErrorBody)
	assert.True(t, strings.HasSuffix(ae.Body, "é…"), "cut on a rune boundary: %q", ae.Body[len(ae.Body)-8:])
}

func TestPostContext(t *testing.T) {
	srv, calls := server(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithCancel(context.Background())
	c := NewClient(Chat, Conn{Backoff: time.Hour}, nil)
	go func() {
		for calls.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	err := c.Post(ctx, srv.URL, nil, new(struct{}))
	require.ErrorIs(t, err, context.Canceled, "the wait ends with the context")
	assert.Less(t, time.Since(start), time.Minute)
	assert.EqualValues(t, 1, calls.Load())
}

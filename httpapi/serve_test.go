package httpapi_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
)

// fakeListener is a listener that says it listens at addr.
type fakeListener struct{ addr string }

func (l fakeListener) Accept() (net.Conn, error) { return nil, errors.New("fake") }
func (l fakeListener) Close() error              { return nil }
func (l fakeListener) Addr() net.Addr {
	a, _ := net.ResolveTCPAddr("tcp", l.addr)
	return a
}

// newLoopback serves h on a loopback httptest server.
func newLoopback(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// TestServeShutsDownAndFlushes: Serve answers until its context is done,
// then shuts down and flushes every agent written to: memory.md is
// written.
func TestServeShutsDownAndFlushes(t *testing.T) {
	agents := testutil.NewAgents(t)
	api, err := httpapi.New(agents, httpapi.Options{})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- api.Serve(ctx, ln) }()

	base := "http://" + ln.Addr().String()
	post := func(path, body string) int {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusCreated, post("/v1/rules", `{"profile": "ada", "name": "note", "pattern": "note: .+", "type": "semantic", "importance": 0.9}`))
	require.Equal(t, http.StatusOK, post("/v1/ingest", `{"profile": "ada", "messages": [{"role": "user", "content": "note: flushed at shutdown"}]}`))
	md := filepath.Join(agents.Dir, "ada", "memory.md")
	_, err = os.Stat(md)
	require.ErrorIs(t, err, os.ErrNotExist, "memory.md before the flush")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(httpapi.ShutdownTimeout):
		t.Fatal("Serve did not return")
	}
	data, err := os.ReadFile(md)
	require.NoError(t, err)
	require.Contains(t, string(data), "flushed at shutdown")
	_, err = http.Get(base + "/health")
	require.Error(t, err, "the server still answers")
}

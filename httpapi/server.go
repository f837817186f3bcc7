package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Agents hands out the memories of agents: an *engram.Store satisfies
// it. Its methods are engram.Agents', which the HTTP API, the MCP server
// and the CLI share; any engram.Agents is an Agents.
type Agents interface{ engram.Agents }

// Options configure a Server. The zero value serves every agent to anyone
// who reaches it, which Server.Serve allows only on loopback.
type Options struct {
	// Tokens are the bearer tokens the API accepts. With none, every
	// request is allowed, but only from a loopback address and for a
	// loopback host name (see Server.Serve); with some, every route but
	// /health and /openapi.json needs one of them.
	Tokens []Token
	// AllowedOrigins are the web origins ("https://app.example.com")
	// whose pages may call the API from a browser (CORS). None by default:
	// CORS is off and other sites' pages are refused.
	AllowedOrigins []string
	// MaxBodyBytes bounds a JSON request body; 0 means 1 MiB.
	MaxBodyBytes int64
	// MaxImportBytes bounds the body of POST /v1/import; 0 means 256 MiB.
	MaxImportBytes int64
	// DocumentRoot is the directory under which POST /v1/ingest/documents
	// reads the paths it is given (relative to it, never leaving it).
	// Empty turns the route off: it answers forbidden.
	DocumentRoot string
	// BackupDir is the directory where POST /v1/backup writes its copies.
	// Empty turns the route off: it answers forbidden.
	BackupDir string
	// MCP, when not nil, is served at /mcp (see mcpserver.HTTPHandler),
	// behind the same tokens: a token's agents reach the MCP tools as
	// scopes (mcpserver.AgentScope).
	MCP http.Handler
	// Logger receives what failed inside the server (the details an
	// internal error's response leaves out). nil discards.
	Logger *slog.Logger
}

// Server is engram's HTTP JSON API over many agents: the routes of seed 004
// (profiles are agents) and engram's own (context, history, export, import,
// backup, rules), described by the OpenAPI document it serves at
// /openapi.json. It is an http.Handler, safe for concurrent use.
type Server struct {
	agents  Agents
	reg     *agentreg.Registry[*engram.Memory]
	creds   []credential
	origins []string
	opts    Options
	log     *slog.Logger
	handler http.Handler
}

// New returns a Server over agents. It returns an error for a token
// shorter than MinTokenBytes, holding a space or a control character, or
// naming an invalid agent, a malformed CORS origin, or a negative limit.
func New(agents Agents, opts Options) (*Server, error) {
	if agents == nil {
		return nil, errors.New("httpapi: no agents")
	}
	creds, err := credentials(opts.Tokens)
	if err != nil {
		return nil, err
	}
	orig, err := origins(opts.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	if opts.MaxBodyBytes < 0 || opts.MaxImportBytes < 0 {
		return nil, errors.New("httpapi: negative body limit")
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.MaxImportBytes == 0 {
		opts.MaxImportBytes = 256 << 20
	}
	s := &Server{agents: agents, creds: creds, origins: orig, opts: opts, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.reg = agentreg.New[*engram.Memory](agents, agentreg.Config[*engram.Memory]{
		Empty:  emptyAgent,
		Closed: func(err error) bool { return errors.Is(err, engram.ErrClosed) },
	})
	s.handler = s.routes()
	return s, nil
}

// emptyAgent returns an empty in-memory stand-in for an agent with no
// memory, so that reads of it answer as for an agent whose memory is
// empty, without creating anything on disk.
func emptyAgent(id string) (*engram.Memory, func(), error) {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithAgent(id))
	if err != nil {
		return nil, nil, err
	}
	return m, func() { m.Close() }, nil
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Limits of the http.Server that Server.Serve runs.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 2 * time.Minute // an import's body may be large
	WriteTimeout      = 5 * time.Minute // an export streams the whole memory
	IdleTimeout       = 2 * time.Minute
	MaxHeaderBytes    = 64 << 10
	// ShutdownTimeout is how long Serve waits for running requests once
	// its context is done.
	ShutdownTimeout = 30 * time.Second
)

// HTTPServer returns an http.Server for s with bounded header size and
// timeouts (see the constants above).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// ErrNoToken is returned by Serve for a listener that is not on loopback
// when the server has no tokens.
var ErrNoToken = errors.New("httpapi: a token is required to listen beyond loopback")

// Serve serves the API on ln until ctx is done, then shuts down
// gracefully: it stops accepting, lets running requests finish (up to
// ShutdownTimeout), and flushes every agent written to (see Server.Flush).
// It refuses, with ErrNoToken, a listener that is not on a loopback
// address when the server has no tokens. It returns nil after a shutdown
// that finished and flushed, else the error.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if len(s.creds) == 0 && !loopbackAddr(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w (listening on %s)", ErrNoToken, ln.Addr())
	}
	hs := s.HTTPServer()
	hs.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return errors.Join(err, s.Flush(context.WithoutCancel(ctx)))
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-done
	return errors.Join(err, s.Flush(sctx))
}

// ListenAndServe listens on addr ("127.0.0.1:7077") and calls Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// loopbackAddr reports whether a listener's address is on loopback only.
func loopbackAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.Network() == "unix"
	}
	return tcp.IP.IsLoopback()
}

// Flush flushes the memory of every agent the server wrote to since the
// last Flush (see engram.Memory.Flush): working items worth keeping are
// stored, access counts written, memory.md rewritten. Serve calls it when
// it shuts down. It returns the agents' errors joined.
func (s *Server) Flush(ctx context.Context) error {
	return s.reg.Flush(ctx, func(id string, m *engram.Memory) error {
		if err := m.Flush(ctx); err != nil {
			s.log.Error("flush failed", "agent", id, "err", err)
			return fmt.Errorf("httpapi: flush agent %s: %w", id, err)
		}
		return nil
	})
}

// mcpHandler puts the MCP handler behind the server's tokens, which reach
// mcpserver as the scopes of the request's auth.TokenInfo. The routes'
// authentication runs first, so that /mcp refuses a request as every route
// does, with a JSON error of the same status and code; the SDK's
// middleware, which answers in plain text, then only passes the token's
// scopes on (it accepts every token authenticate does: see credentials).
func (s *Server) mcpHandler() http.Handler {
	h := s.opts.MCP
	if len(s.creds) > 0 {
		h = auth.RequireBearerToken(s.verifyMCP, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return s.authenticate(h)
}

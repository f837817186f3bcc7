package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Agents hands out the memories of agents: an *engram.Store satisfies
// it. Its methods are engram.Agents', which the HTTP API, the MCP server
// and the CLI share; any engram.Agents is an Agents.
type Agents interface{ engram.Agents }

// Options configure a Server.
type Options struct {
	// Agent is the agent of a tool call that names none, and of the
	// resources listed; default engram.DefaultAgent.
	Agent string
	// Version is the version the server reports to clients; default
	// "dev".
	Version string
	// Logger receives the server's log; nil discards.
	Logger *slog.Logger
}

// Scopes of a bearer token's auth.TokenInfo, for a server reached over
// HTTP behind a token verifier (see HTTPHandler): a call may touch agent id
// when the token has AgentScope(id) or AllAgentsScope. A call with no
// token information (stdio, or HTTP without tokens) may touch every agent.
const AllAgentsScope = agentScopePrefix + "*"

// agentScopePrefix starts every agent's scope.
const agentScopePrefix = "engram:agent:"

// AgentScope returns the scope that lets a token touch agent id.
func AgentScope(id string) string { return agentScopePrefix + id }

// Server is engram's MCP server: tools to remember, search, recall,
// forget, log events, assert facts and query the graph, and each agent's
// memory.md and summary as resources. It is safe for concurrent use by
// many sessions.
type Server struct {
	mcp   *mcp.Server
	reg   *agentreg.Registry[*engram.Memory]
	agent string
	log   *slog.Logger
}

// New returns an MCP server over agents. It returns an error for an
// invalid Options.Agent.
func New(agents Agents, opts Options) (*Server, error) {
	if agents == nil {
		return nil, errors.New("mcpserver: no agents")
	}
	if opts.Agent == "" {
		opts.Agent = engram.DefaultAgent
	}
	if err := engram.ValidateAgentID(opts.Agent); err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{agent: opts.Agent, log: log}
	s.reg = agentreg.New[*engram.Memory](agents, agentreg.Config[*engram.Memory]{
		Empty:  emptyAgent,
		Closed: func(err error) bool { return errors.Is(err, engram.ErrClosed) },
	})
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "engram", Title: "engram memory", Version: opts.Version}, &mcp.ServerOptions{
		Logger: opts.Logger,
		Instructions: "engram is this agent's long-term memory. Call recall or search before answering " +
			"from what you may already know; remember what is worth keeping; log_event what happened; " +
			"add_fact for facts that stay true (subject, predicate, object).",
	})
	s.addTools()
	s.addResources()
	s.mcp.AddReceivingMiddleware(s.resourcesOfToken)
	return s, nil
}

// emptyAgent returns an empty in-memory stand-in for an agent with no
// memory, so that reads answer as an empty memory does without creating
// anything on disk.
func emptyAgent(id string) (*engram.Memory, func(), error) {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithAgent(id))
	if err != nil {
		return nil, nil, err
	}
	return m, func() { m.Close() }, nil
}

// MCP returns the underlying server of the official SDK, to run on any
// transport (mcp.Server.Run) or to add features to.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session on transport t until the client ends it or ctx
// is done, then flushes the agents the session wrote to (see Flush).
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		err = nil
	}
	return errors.Join(err, s.Flush(context.WithoutCancel(ctx)))
}

// ServeStdio serves one session on standard input and output (the way
// desktop MCP clients start servers) until the client closes it or ctx is
// done, then flushes.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.Run(ctx, &mcp.StdioTransport{})
}

// HTTPOptions configure HTTPHandler.
type HTTPOptions struct {
	// MaxRequestBodyBytes bounds a request's body; 0 means 1 MiB.
	MaxRequestBodyBytes int64
	// SessionTimeout closes sessions idle for this long; 0 means 30
	// minutes.
	SessionTimeout time.Duration
}

// HTTPHandler returns an http.Handler that serves the server over MCP's
// streamable HTTP transport, one session per client. Put it behind a
// token verifier (github.com/modelcontextprotocol/go-sdk/auth
// RequireBearerToken) whose auth.TokenInfo carries AgentScope scopes to
// limit which agents a token touches; httpapi does so at /mcp.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	if opts.MaxRequestBodyBytes <= 0 {
		opts.MaxRequestBodyBytes = 1 << 20
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: opts.MaxRequestBodyBytes,
		SessionTimeout:      opts.SessionTimeout,
		Logger:              s.log,
	})
}

// Flush flushes the memory of every agent written to since the last Flush
// (engram.Memory.Flush), and returns their errors joined.
func (s *Server) Flush(ctx context.Context) error {
	return s.reg.Flush(ctx, func(id string, m *engram.Memory) error {
		if err := m.Flush(ctx); err != nil {
			s.log.Error("flush failed", "agent", id, "err", err)
			return fmt.Errorf("mcpserver: flush agent %s: %w", id, err)
		}
		return nil
	})
}

// defaultAgent is the agent of a call that names none: the one agent its
// token allows, for a token of one agent (a client given alice's token
// means alice), or else the server's.
func (s *Server) defaultAgent(extra *mcp.RequestExtra) string {
	if id, ok := tokenAgent(extra); ok {
		return id
	}
	return s.agent
}

// tokenAgent returns the agent a call's token is for, when it allows one
// agent and not every agent.
func tokenAgent(extra *mcp.RequestExtra) (string, bool) {
	if extra == nil || extra.TokenInfo == nil || slices.Contains(extra.TokenInfo.Scopes, AllAgentsScope) {
		return "", false
	}
	var id string
	for _, sc := range extra.TokenInfo.Scopes {
		if a, ok := strings.CutPrefix(sc, agentScopePrefix); ok {
			if id != "" && id != a {
				return "", false
			}
			id = a
		}
	}
	return id, id != ""
}

// allowed checks that a call may touch agent id: a valid ID, and, for a
// call with token information, a scope for it.
func allowed(extra *mcp.RequestExtra, id string) error {
	if err := engram.ValidateAgentID(id); err != nil {
		return err
	}
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	scopes := extra.TokenInfo.Scopes
	if slices.Contains(scopes, AllAgentsScope) || slices.Contains(scopes, AgentScope(id)) {
		return nil
	}
	return fmt.Errorf("the token does not allow agent %q", id)
}

package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Token is a bearer token the server accepts, and the agents it may touch.
type Token struct {
	// Secret is the token itself, sent as "Authorization: Bearer <Secret>".
	// At least 16 bytes, with no spaces or control characters.
	Secret string
	// Agents are the agents the token may read and change; empty means
	// every agent.
	Agents []string
}

// credential is a Token as the server keeps it: the SHA-256 of its secret,
// so that every comparison costs the same whatever the secrets' lengths.
type credential struct {
	sum    [sha256.Size]byte
	agents []string // nil: every agent
}

// MinTokenBytes is the length under which New refuses a token.
const MinTokenBytes = 16

// principal is who a request comes from: the agents it may touch.
type principal struct {
	all    bool
	agents []string
}

// allows reports whether p may touch agent id.
func (p principal) allows(id string) bool { return p.all || slices.Contains(p.agents, id) }

type principalKey struct{}

// withPrincipal returns ctx carrying p.
func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// principalOf returns the principal of a request that passed authenticate.
func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// credentials checks tokens and keeps them hashed.
func credentials(tokens []Token) ([]credential, error) {
	var out []credential
	for i, t := range tokens {
		if len(t.Secret) < MinTokenBytes {
			return nil, fmt.Errorf("httpapi: token %d: a secret needs at least %d bytes", i, MinTokenBytes)
		}
		// A header's value loses its outer spaces, and the MCP SDK splits
		// it at inner ones: a secret holding either could not be sent.
		if strings.IndexFunc(t.Secret, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return nil, fmt.Errorf("httpapi: token %d: a secret must not hold spaces or control characters", i)
		}
		for _, a := range t.Agents {
			if err := engram.ValidateAgentID(a); err != nil {
				return nil, fmt.Errorf("httpapi: token %d: %w", i, err)
			}
		}
		out = append(out, credential{sum: sha256.Sum256([]byte(t.Secret)), agents: slices.Clone(t.Agents)})
	}
	return out, nil
}

// lookup finds the credential of a presented secret, comparing it with
// every credential in constant time so that the time taken says nothing
// of which one matched, or how much of one.
func (s *Server) lookup(secret string) (credential, bool) {
	sum := sha256.Sum256([]byte(secret))
	var found credential
	ok := 0
	for _, c := range s.creds {
		if subtle.ConstantTimeCompare(sum[:], c.sum[:]) == 1 {
			found, ok = c, 1
		}
	}
	return found, ok == 1
}

// bearer returns the token of an Authorization header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// authenticate runs next for requests with a valid token (or any request
// when the server has no tokens, which it allows only on loopback: see
// Server.Serve), with the request's principal in its context.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(s.creds) == 0 {
			if !loopbackHost(r.Host) {
				// Without tokens the server trusts whoever reaches it on
				// loopback; a page whose name resolves to 127.0.0.1 (DNS
				// rebinding) is not on loopback by its Host.
				s.writeError(w, r, forbiddenf("host %q is not a loopback name; configure a token to serve other hosts", r.Host))
				return
			}
			next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), principal{all: true})))
			return
		}
		secret, ok := bearer(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="engram"`)
			s.writeError(w, r, &apiError{http.StatusUnauthorized, CodeUnauthorized, "a bearer token is required (Authorization: Bearer <token>)"})
			return
		}
		c, ok := s.lookup(secret)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="engram", error="invalid_token"`)
			s.writeError(w, r, &apiError{http.StatusUnauthorized, CodeUnauthorized, "the bearer token is not valid"})
			return
		}
		p := principal{all: c.agents == nil, agents: c.agents}
		next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
	})
}

// verifyMCP is the token verifier of /mcp: the token's agents become
// scopes that mcpserver checks (see mcpserver.AgentScope).
func (s *Server) verifyMCP(_ context.Context, secret string, _ *http.Request) (*auth.TokenInfo, error) {
	c, ok := s.lookup(secret)
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	info := &auth.TokenInfo{UserID: fmt.Sprintf("%x", c.sum[:8])}
	if c.agents == nil {
		info.Scopes = []string{mcpserver.AllAgentsScope}
	}
	for _, a := range c.agents {
		info.Scopes = append(info.Scopes, mcpserver.AgentScope(a))
	}
	return info, nil
}

// loopbackHost reports whether a Host header names the loopback
// interface: localhost or a loopback address, with any port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// origins checks the CORS origins of Options.
func origins(list []string) ([]string, error) {
	for _, o := range list {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("httpapi: CORS origin %q: want scheme://host[:port]", o)
		}
	}
	return slices.Clone(list), nil
}

// cors answers browsers from the configured origins: it adds the CORS
// headers for them and answers their preflight requests. With no origins
// it adds nothing, so browsers keep other sites from reading answers, and
// cross-origin protection (http.CrossOriginProtection) refuses other
// sites' unsafe requests.
func (s *Server) cors(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	for _, o := range s.origins {
		cop.AddTrustedOrigin(o)
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, forbiddenf("cross-origin request refused: the server allows no requests from %q", r.Header.Get("Origin")))
	}))
	guarded := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && slices.Contains(s.origins, origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		guarded.ServeHTTP(w, r)
	})
}

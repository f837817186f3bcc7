package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi/console"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
)

// handlerFunc is a route's handler: it writes its answer, or returns the
// error to answer with.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// routes builds the server's handler: the routes, behind authentication,
// with JSON answers for unknown routes and methods, CORS, and recovery
// from panics.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	open := func(pattern string, fn handlerFunc) { mux.Handle(pattern, s.handle(fn)) }
	api := func(pattern string, fn handlerFunc) { mux.Handle(pattern, s.authenticate(s.handle(fn))) }

	open("GET /health", s.health)
	open("GET /openapi.json", s.openAPI)
	// The web console: static files that call the routes below with the
	// person's token (see package console); the root leads to it.
	mux.Handle("GET "+console.Prefix, console.Handler())
	mux.Handle("GET /{$}", http.RedirectHandler(console.Prefix, http.StatusFound))

	api("GET /v1/profiles", s.listProfiles)
	api("DELETE /v1/profiles/{slug}", s.deleteProfile)
	api("DELETE /v1/users/{user_id}", s.deleteUser)

	api("POST /v1/ingest", s.ingest)
	api("POST /v1/ingest/documents", s.ingestDocuments)
	api("POST /v1/search", s.search)
	api("POST /v1/context", s.context)
	api("GET /v1/summary", s.summary)

	api("POST /v1/memories", s.addMemories)
	api("GET /v1/memories", s.listMemories)
	api("DELETE /v1/memories", s.deleteMatching)
	api("GET /v1/memories/{id}", s.getMemory)
	api("PATCH /v1/memories/{id}", s.patchMemory)
	api("DELETE /v1/memories/{id}", s.deleteMemory)
	api("POST /v1/facts", s.addFacts)
	api("GET /v1/facts", s.getFacts)
	api("GET /v1/memories/{id}/links", s.memoryLinks)
	api("POST /v1/memories/{id}/archive", s.archiveMemory)
	api("POST /v1/memories/{id}/restore", s.restoreMemory)
	api("GET /v1/stats", s.stats)

	// Seed 004's routes of one memory, kept: PUT changes a semantic entry
	// or a procedure as PATCH /v1/memories/{id} does.
	api("PUT /v1/memory/{id}", s.updateMemory)
	api("DELETE /v1/memory/{id}", s.deleteMemory)
	api("DELETE /v1/memory", s.deleteAllMemory)
	api("GET /v1/memory/{id}/history", s.memoryHistory)
	api("GET /v1/changes", s.changes)

	api("GET /v1/rules", s.listRules)
	api("POST /v1/rules", s.addRule)
	api("DELETE /v1/rules/{name}", s.deleteRule)

	api("DELETE /v1/graph/triple/{id}", s.deleteTriple)
	api("GET /v1/graph/triples", s.triples)
	api("GET /v1/graph/neighbors", s.neighbors)
	api("GET /v1/graph/paths", s.paths)
	api("GET /v1/graph/visualization", s.visualization)

	api("GET /v1/export", s.export)
	api("POST /v1/import", s.importMemory)
	api("POST /v1/backup", s.backup)

	if s.opts.MCP != nil {
		mux.Handle("/mcp", s.mcpHandler())
	}
	return s.recoverPanics(s.cors(s.jsonFallback(mux)))
}

// handle adapts a handlerFunc, answering its error as JSON.
func (s *Server) handle(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// recoverPanics answers a handler's panic with an internal error and logs
// it with its stack; the client never sees the stack.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				writeJSON(w, http.StatusInternalServerError, errorBody{errorView{CodeInternal, "internal error; the server's log says why"}})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// jsonFallback answers requests that match no route (404) or no method
// of their route (405) with a JSON error instead of the mux's text.
func (s *Server) jsonFallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r) // which sets the request's path values
			return
		}
		fw := &fallbackWriter{ResponseWriter: w}
		h.ServeHTTP(fw, r)
		switch fw.status {
		case http.StatusNotFound:
			s.writeError(w, r, notFoundf("no route %s %s", r.Method, r.URL.Path))
		case http.StatusMethodNotAllowed:
			s.writeError(w, r, &apiError{http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method " + r.Method + " is not allowed on " + r.URL.Path})
		}
	})
}

// fallbackWriter swallows the mux's 404 and 405 answers, which
// jsonFallback replaces, and passes anything else (a redirect) on.
type fallbackWriter struct {
	http.ResponseWriter
	status int
}

func (fw *fallbackWriter) WriteHeader(code int) {
	if code == http.StatusNotFound || code == http.StatusMethodNotAllowed {
		fw.status = code
		fw.Header().Del("Content-Type")
		fw.Header().Del("X-Content-Type-Options")
		return
	}
	fw.ResponseWriter.WriteHeader(code)
}

func (fw *fallbackWriter) Write(b []byte) (int, error) {
	if fw.status != 0 {
		return len(b), nil
	}
	return fw.ResponseWriter.Write(b)
}

// profileFields name the agent of a request's body: profile, or its alias
// profileId (seed 004 reads either).
type profileFields struct {
	Profile   string `json:"profile"`
	ProfileID string `json:"profileId"`
}

// agentOf returns the agent a request is about: the body's profile (or
// profileId) if it has one, else the query's profile (or profileId)
// parameter, else engram.DefaultAgent. It returns invalid_argument for an
// invalid agent ID or two different profiles (the body's and the query's,
// or a profile and a profileId), and forbidden for an agent the request's
// token does not allow.
func (s *Server) agentOf(r *http.Request, body profileFields) (string, error) {
	id, err := oneProfile("the body's", body.Profile, body.ProfileID)
	if err != nil {
		return "", err
	}
	v := r.URL.Query()
	q, err := oneProfile("the query's", v.Get("profile"), v.Get("profileId"))
	if err != nil {
		return "", err
	}
	if q != "" {
		if id != "" && id != q {
			return "", invalidf("the body's profile %q and the query's %q differ", id, q)
		}
		id = q
	}
	if id == "" {
		id = engram.DefaultAgent
	}
	return id, s.allow(r, id)
}

// queryAgent returns the agent of a request that takes no query parameter
// but its profile: invalid_argument for any other parameter, and
// agentOf's errors.
func (s *Server) queryAgent(r *http.Request) (string, error) {
	if err := params(r, "profile").err; err != nil {
		return "", err
	}
	return s.agentOf(r, profileFields{})
}

// profiled is a request body that names its agent: a struct that embeds
// profileFields.
type profiled interface{ profiles() profileFields }

func (p profileFields) profiles() profileFields { return p }

// bodyAgent decodes the request's JSON body into req and returns the agent
// it is about (agentOf): decode's errors, then agentOf's.
func (s *Server) bodyAgent(w http.ResponseWriter, r *http.Request, req profiled) (string, error) {
	if err := decode(w, r, s.opts.MaxBodyBytes, req); err != nil {
		return "", err
	}
	return s.agentOf(r, req.profiles())
}

// oneProfile returns profile or its alias profileID, whichever is given,
// and an error when both are, and differ.
func oneProfile(where, profile, profileID string) (string, error) {
	if profile != "" && profileID != "" && profile != profileID {
		return "", invalidf("%s profile %q and profileId %q differ", where, profile, profileID)
	}
	if profile != "" {
		return profile, nil
	}
	return profileID, nil
}

// allow checks that id is a valid agent ID that the request may touch.
func (s *Server) allow(r *http.Request, id string) error {
	if err := engram.ValidateAgentID(id); err != nil {
		return err
	}
	if !principalOf(r.Context()).allows(id) {
		return forbiddenf("the token does not allow agent %q", id)
	}
	return nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	if err := params(r).err; err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// listProfiles answers GET /v1/profiles: the agents that have memory and
// that the token allows.
func (s *Server) listProfiles(w http.ResponseWriter, r *http.Request) error {
	if err := params(r).err; err != nil {
		return err
	}
	ids, err := s.reg.Agents(r.Context())
	if err != nil {
		return err
	}
	p := principalOf(r.Context())
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !p.allows(id) })
	writeJSON(w, http.StatusOK, map[string][]string{"profiles": memview.NonNil(ids)})
	return nil
}

type deletedResponse struct {
	Deleted int    `json:"deleted"`
	Profile string `json:"profile"`
}

// deleteProfile answers DELETE /v1/profiles/{slug}: the agent's memory is
// erased (engram.Memory.ForgetAgent). The default agent is protected.
func (s *Server) deleteProfile(w http.ResponseWriter, r *http.Request) error {
	if err := params(r).err; err != nil {
		return err
	}
	id := r.PathValue("slug")
	if err := s.allow(r, id); err != nil {
		return err
	}
	if id == engram.DefaultAgent {
		return forbiddenf("the default agent cannot be deleted; DELETE /v1/memory erases its memory")
	}
	n, err := s.forgetAgent(r, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedResponse{n, id})
	return nil
}

// forgetAgent erases agent id's memory and returns how many memories it
// held (every kind, archived ones too): 0 for an agent with none.
func (s *Server) forgetAgent(r *http.Request, id string) (int, error) {
	n := 0
	err := s.reg.Remove(r.Context(), id, func(m *engram.Memory) error {
		st, err := m.Stats(r.Context())
		if err != nil {
			return err
		}
		n = st.Archived
		for _, c := range memview.Counts(st) {
			n += c
		}
		if err := m.ForgetAgent(r.Context()); err != nil {
			return err
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "agent forgotten", slog.String("agent", id), slog.Int("memories", n))
		return nil
	})
	if errors.Is(err, agentreg.ErrNoAgent) {
		return 0, nil
	}
	return n, err
}

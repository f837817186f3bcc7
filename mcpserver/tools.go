package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools. Each input schema is strict: no properties but its own
// (additionalProperties false), its required fields, enums for kinds and
// event types, and bounds on strings, numbers and lists. The SDK checks
// arguments against it and answers a bad argument with a tool error
// (CallToolResult.IsError), as it does any error a tool returns: the
// session goes on.

// agentProp is the agent property every tool takes.
const agentProp = `"agent": {"type": "string", "minLength": 1, "maxLength": 128,
	"description": "the agent whose memory to use; default: the server's agent"}`

// kinds is the enum of the kinds of stored memory.
const kinds = `["semantic", "episodic", "procedural", "snapshot", "fact", "document"]`

func schema(s string) json.RawMessage { return json.RawMessage(s) }

type rememberIn struct {
	Content    string   `json:"content"`
	Importance float64  `json:"importance,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	agentIn
}

type searchIn struct {
	scopeIn
	Query string              `json:"query"`
	Types []engram.MemoryType `json:"types,omitempty"`
	Limit int                 `json:"limit,omitempty"`
	agentIn
}

type recallIn struct {
	scopeIn
	Query string `json:"query"`
	agentIn
}

type contextIn struct {
	scopeIn
	Query     string `json:"query,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	agentIn
}

type forgetIn struct {
	ID string `json:"id"`
	agentIn
}

type logEventIn struct {
	Content   string           `json:"content"`
	Type      engram.EventType `json:"type,omitempty"`
	TaskID    string           `json:"task_id,omitempty"`
	SessionID string           `json:"session_id,omitempty"`
	agentIn
}

type addFactIn struct {
	Subject   string    `json:"subject"`
	Predicate string    `json:"predicate"`
	Object    string    `json:"object"`
	ValidFrom time.Time `json:"valid_from,omitzero"`
	agentIn
}

type queryGraphIn struct {
	Entity    string           `json:"entity,omitempty"`
	Direction engram.Direction `json:"direction,omitempty"`
	Predicate string           `json:"predicate,omitempty"`
	Limit     int              `json:"limit,omitempty"`
	agentIn
}

type listRecentIn struct {
	Type engram.MemoryType `json:"type,omitempty"`
	// Kind is an alias of Type (see internal/vocab).
	Kind  engram.MemoryType `json:"kind,omitempty"`
	Limit int               `json:"limit,omitempty"`
	agentIn
}

func (s *Server) addTools() {
	addTool(s, &mcp.Tool{
		Name:        "remember",
		Description: "Store a piece of long-term knowledge (a semantic memory) and return its ID.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["content"], "properties": {
			"content": {"type": "string", "minLength": 1, "maxLength": 65536, "description": "what to remember"},
			"importance": {"type": "number", "minimum": 0, "maximum": 1, "description": "0 to 1; default 0.5"},
			"tags": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": 64}},
			` + agentProp + `}}`),
	}, s.remember)
	addTool(s, &mcp.Tool{
		Name:        "search",
		Description: "Search the agent's memories of every kind (or of the kinds given) by the words of a query, best first.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["query"], "properties": {
			"query": {"type": "string", "minLength": 1, "maxLength": 4096},
			"types": {"type": "array", "maxItems": 6, "uniqueItems": true, "items": {"enum": ` + kinds + `}},
			"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "default 10"},
			` + scopeProps + `, ` + agentProp + `}}`),
	}, s.search)
	addTool(s, &mcp.Tool{
		Name:        "recall",
		Description: "Recall what memory holds about a query into the working set, through a relevance gate; returns the memories admitted and the candidates of each kind.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["query"], "properties": {
			"query": {"type": "string", "minLength": 1, "maxLength": 4096},
			` + scopeProps + `, ` + agentProp + `}}`),
	}, s.recall)
	addTool(s, &mcp.Tool{
		Name:        "context",
		Description: "A markdown block of what the agent knows, for a system prompt, within a token budget; with a query, the memories recalled for it come last.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "properties": {
			"query": {"type": "string", "maxLength": 4096},
			"max_tokens": {"type": "integer", "minimum": 1, "maximum": 100000, "description": "default 2000"},
			` + scopeProps + `, ` + agentProp + `}}`),
	}, s.context)
	addTool(s, &mcp.Tool{
		Name:        "forget",
		Description: "Erase the memory or fact with the given ID, and everything made of it.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["id"], "properties": {
			"id": {"type": "string", "minLength": 1, "maxLength": 256},
			` + agentProp + `}}`),
	}, s.forget)
	addTool(s, &mcp.Tool{
		Name:        "log_event",
		Description: "Append an event to the agent's episodic log and return its ID.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["content"], "properties": {
			"content": {"type": "string", "minLength": 1, "maxLength": 65536},
			"type": {"enum": ["task-started", "task-completed", "task-failed", "decision-made", "error-encountered", "user-feedback", "tool-call", "observation"], "description": "default observation"},
			"task_id": {"type": "string", "minLength": 1, "maxLength": 256},
			"session_id": {"type": "string", "minLength": 1, "maxLength": 256},
			` + agentProp + `}}`),
	}, s.logEvent)
	addTool(s, &mcp.Tool{
		Name:        "add_fact",
		Description: "Assert a fact that stays true (subject, predicate, object: Ada | lives in | London); a new value of a single-valued predicate supersedes the old one.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["subject", "predicate", "object"], "properties": {
			"subject": {"type": "string", "minLength": 1, "maxLength": 1024},
			"predicate": {"type": "string", "minLength": 1, "maxLength": 1024},
			"object": {"type": "string", "minLength": 1, "maxLength": 1024},
			"valid_from": {"type": "string", "format": "date-time", "description": "when it became true (RFC 3339); default now"},
			` + agentProp + `}}`),
	}, s.addFact)
	addTool(s, &mcp.Tool{
		Name:        "query_graph",
		Description: "The facts that hold now about an entity (all entities' without one), in a direction, of a predicate.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "properties": {
			"entity": {"type": "string", "minLength": 1, "maxLength": 1024},
			"direction": {"enum": ["in", "out", ""], "description": "in: the entity is the object; out: the subject; empty: either"},
			"predicate": {"type": "string", "minLength": 1, "maxLength": 1024},
			"limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "default 100"},
			` + agentProp + `}}`),
	}, s.queryGraph)
	addTool(s, &mcp.Tool{
		Name: "list_recent",
		Description: "List memories of one kind: episodic, the most recent events first; semantic, the most important " +
			"(then most recently updated) first; procedural, the active ones, best success rate first; fact, the facts that hold now.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "properties": {
			"type": {"enum": ["episodic", "semantic", "procedural", "fact"], "description": "default episodic"},
			"kind": {"enum": ["episodic", "semantic", "procedural", "fact"], "description": "alias of type; both given must agree"},
			"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "default 20"},
			` + agentProp + `}}`),
	}, s.listRecent)
	s.addMemoryTools()
	s.addScopeTools()
}

// agentIn is the argument every tool takes (agentProp): the agent whose
// memory to use, "" for the server's.
type agentIn struct {
	Agent string `json:"agent,omitempty"`
}

func (a agentIn) agentName() string { return a.Agent }

// addTool adds tool t, whose handler h works for the agent a call is
// about (agentOf): a call its token does not allow is refused before h
// runs, and an error of h is answered as toolError says, under t's name.
func addTool[In interface{ agentName() string }](s *Server, t *mcp.Tool,
	h func(ctx context.Context, agent string, in In) (*mcp.CallToolResult, any, error)) {
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		agent, err := s.agentOf(req, in.agentName())
		if err != nil {
			return nil, nil, err
		}
		res, out, err := h(ctx, agent, in)
		if err != nil {
			return nil, nil, s.toolError(t.Name, err)
		}
		return res, out, nil
	})
}

// agentOf returns the agent a call is about, checked against its token.
func (s *Server) agentOf(req *mcp.CallToolRequest, agent string) (string, error) {
	if agent == "" {
		agent = s.defaultAgent(req.Extra)
	}
	return agent, allowed(req.Extra, agent)
}

// toolError returns the error a tool answers with: engram's own words for
// bad input and what was not found or exists already, and a generic one for
// a failure inside, which is logged.
func (s *Server) toolError(tool string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engram.ErrInvalid), errors.Is(err, engram.ErrInvalidQuery), errors.Is(err, engram.ErrNotFound),
		errors.Is(err, engram.ErrExists), errors.Is(err, engram.ErrTierUnsupported):
		return err
	case errors.Is(err, engram.ErrClosed), errors.Is(err, context.Canceled):
		return errors.New("the server is shutting down")
	}
	s.log.Error("tool failed", "tool", tool, "err", err)
	return errors.New("internal error; the server's log says why")
}

type idOut struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
}

func (s *Server) remember(ctx context.Context, agent string, in rememberIn) (*mcp.CallToolResult, any, error) {
	id, err := agentreg.Value(ctx, agent, s.reg.Write, func(m *engram.Memory) (string, error) {
		return m.Semantic().Store(ctx, engram.SemanticEntry{Content: in.Content, Importance: in.Importance, Tags: in.Tags, Source: "mcp"})
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, idOut{id, agent}, nil
}

type searchOut struct {
	Results []memview.Result `json:"results"`
	Agent   string           `json:"agent"`
}

func (s *Server) search(ctx context.Context, agent string, in searchIn) (*mcp.CallToolResult, any, error) {
	filter, err := in.filter()
	if err != nil {
		return nil, nil, err
	}
	rs, err := agentreg.Value(ctx, agent, s.reg.Change, func(m *engram.Memory) ([]engram.Result, error) {
		return m.Search(ctx, engram.SearchOptions{Query: in.Query, Types: in.Types, Limit: in.Limit, Filter: filter})
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, searchOut{memview.Results(rs), agent}, nil
}

type recallOut struct {
	Admitted []memview.Recalled                       `json:"admitted"`
	ByKind   map[engram.MemoryType][]memview.Recalled `json:"by_kind"`
	Agent    string                                   `json:"agent"`
}

func (s *Server) recall(ctx context.Context, agent string, in recallIn) (*mcp.CallToolResult, any, error) {
	filter, err := in.filter()
	if err != nil {
		return nil, nil, err
	}
	res, err := agentreg.Value(ctx, agent, s.reg.Change, func(m *engram.Memory) (engram.RecallResult, error) {
		return m.RecallWith(ctx, engram.RecallOptions{Query: in.Query, Filter: filter})
	})
	if err != nil {
		return nil, nil, err
	}
	out := recallOut{Admitted: memview.RecalledOf(res.Admitted), ByKind: map[engram.MemoryType][]memview.Recalled{}, Agent: agent}
	for k, rs := range res.ByKind {
		out.ByKind[k] = memview.RecalledOf(rs)
	}
	return nil, out, nil
}

func (s *Server) context(ctx context.Context, agent string, in contextIn) (*mcp.CallToolResult, any, error) {
	filter, err := in.filter()
	if err != nil {
		return nil, nil, err
	}
	b, err := agentreg.Value(ctx, agent, s.reg.Read, func(m *engram.Memory) (engram.ContextBlock, error) {
		return m.Context(ctx, engram.ContextOptions{Query: in.Query, MaxTokens: in.MaxTokens, Filter: filter})
	})
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.Text}}}, nil, nil
}

type forgetOut struct {
	Forgotten string `json:"forgotten"`
	Agent     string `json:"agent"`
}

func (s *Server) forget(ctx context.Context, agent string, in forgetIn) (*mcp.CallToolResult, any, error) {
	err := s.reg.Change(ctx, agent, func(m *engram.Memory) error { return m.Forget(ctx, in.ID) })
	if err != nil {
		return nil, nil, err
	}
	return nil, forgetOut{in.ID, agent}, nil
}

func (s *Server) logEvent(ctx context.Context, agent string, in logEventIn) (*mcp.CallToolResult, any, error) {
	var id string
	err := s.reg.Write(ctx, agent, func(m *engram.Memory) (err error) {
		id, err = m.Episodic().Log(ctx, engram.Episode{Content: in.Content, Type: in.Type, TaskID: in.TaskID, SessionID: in.SessionID,
			Metadata: map[string]string{"source": "mcp"}})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, idOut{id, agent}, nil
}

type addFactOut struct {
	Action     engram.FactAction `json:"action"`
	Fact       memview.Fact      `json:"fact"`
	Superseded []memview.Fact    `json:"superseded"`
	Agent      string            `json:"agent"`
}

func (s *Server) addFact(ctx context.Context, agent string, in addFactIn) (*mcp.CallToolResult, any, error) {
	var a engram.Assertion
	err := s.reg.Write(ctx, agent, func(m *engram.Memory) (err error) {
		a, err = m.Facts().Assert(ctx, engram.Fact{Subject: in.Subject, Predicate: in.Predicate, Object: in.Object,
			ValidFrom: in.ValidFrom, Sources: []string{"mcp"}})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, addFactOut{a.Action, memview.FactOf(a.Fact), factViews(a.Superseded), agent}, nil
}

func (s *Server) queryGraph(ctx context.Context, agent string, in queryGraphIn) (*mcp.CallToolResult, any, error) {
	fs, err := agentreg.Value(ctx, agent, s.reg.Read, func(m *engram.Memory) ([]engram.Fact, error) {
		return m.Facts().Current(ctx, engram.FactQuery{Entity: in.Entity, Direction: in.Direction, Predicate: in.Predicate, Limit: in.Limit})
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, getFactsOut{factViews(fs), agent}, nil
}

type listOut struct {
	Kind  engram.MemoryType `json:"kind"`
	Items []itemOut         `json:"items"`
	Agent string            `json:"agent"`
}

type itemOut struct {
	ID      string    `json:"id"`
	Content string    `json:"content"`
	Created time.Time `json:"created_at,omitzero"`
}

func (s *Server) listRecent(ctx context.Context, agent string, in listRecentIn) (*mcp.CallToolResult, any, error) {
	kind, limit := cmp.Or(in.Type, in.Kind), in.Limit
	if in.Type != "" && in.Kind != "" && in.Type != in.Kind {
		return nil, nil, fmt.Errorf("%w: type %q and kind %q differ (kind is an alias of type)", errBadQuery, in.Type, in.Kind)
	}
	if kind == "" {
		kind = engram.TypeEpisodic
	}
	if limit == 0 {
		limit = 20
	}
	out := listOut{Kind: kind, Items: []itemOut{}, Agent: agent}
	err := s.reg.Read(ctx, agent, func(m *engram.Memory) error {
		switch kind {
		case engram.TypeEpisodic:
			eps, err := m.Episodic().Recent(ctx, limit)
			for _, e := range eps {
				out.Items = append(out.Items, itemOut{e.ID, e.Content, e.CreatedAt})
			}
			return err
		case engram.TypeSemantic:
			es, err := m.Semantic().List(ctx, engram.ListOptions{Limit: limit})
			for _, e := range es {
				out.Items = append(out.Items, itemOut{e.ID, e.Content, e.CreatedAt})
			}
			return err
		case engram.TypeProcedural:
			ps, err := m.Procedural().ListActive(ctx, limit)
			for _, p := range ps {
				out.Items = append(out.Items, itemOut{p.ID, p.Name + ": " + p.Pattern, p.CreatedAt})
			}
			return err
		default: // the schema admits fact only
			fs, err := m.Facts().Current(ctx, engram.FactQuery{Limit: limit})
			for _, f := range fs {
				out.Items = append(out.Items, itemOut{f.ID, f.String(), f.RecordedAt})
			}
			return err
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, out, nil
}

package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
)

// The tools of memories of every kind by ID and of facts, named as
// httpapi's routes are (POST /v1/memories is add_memories, GET
// /v1/memories/{id} get_memory, …) and answering with the same views of
// memories (memview).

// Parts of the schemas.
const (
	idSchema    = `{"type": "string", "minLength": 1, "maxLength": 256}`
	timeSchema  = `{"type": "string", "format": "date-time"}`
	textSchema  = `{"type": "string", "minLength": 1, "maxLength": 65536}`
	text0Schema = `{"type": "string", "maxLength": 65536}`
	unitSchema  = `{"type": "number", "minimum": 0, "maximum": 1}`
	tagsSchema  = `{"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": 64}}`
	partSchema  = `{"type": "string", "minLength": 1, "maxLength": 1024}`
	metaSchema  = `{"type": "object", "maxProperties": 64, "additionalProperties": {"type": "string", "maxLength": 4096}}`
	// anyMetaSchema is a semantic entry's or a procedure's metadata: any
	// JSON values, checked by engram.
	anyMetaSchema = `{"type": "object", "maxProperties": 64, "description": "any JSON values under keys of 1 to 64 letters, digits and _ - . :"}`
	userSchema    = `{"type": "string", "minLength": 1, "maxLength": 128, "description": "the user it belongs to: letters, digits and . _ @ + -"}`
	sessionSchema = `{"type": "string", "minLength": 1, "maxLength": 256, "description": "the session it belongs to"}`
)

// memorySchema is the schema of one memory to add: an object of one
// kind's fields, named by its type. Each branch's anchor is its kind, so
// that the error of an item that is none of them names the kinds.
const memorySchema = `{"oneOf": [
	{"$anchor": "semantic", "type": "object", "additionalProperties": false, "required": ["type", "content"], "properties": {
		"type": {"const": "semantic"}, "id": ` + idSchema + `, "created_at": ` + timeSchema + `,
		"content": ` + textSchema + `, "summary": ` + text0Schema + `, "importance": ` + unitSchema + `,
		"verified": {"type": "boolean"}, "tags": ` + tagsSchema + `, "source": {"type": "string", "maxLength": 64},
		"user_id": ` + userSchema + `, "session_id": ` + sessionSchema + `, "metadata": ` + anyMetaSchema + `}},
	{"$anchor": "episodic", "type": "object", "additionalProperties": false, "required": ["type", "content"], "properties": {
		"type": {"const": "episodic"}, "id": ` + idSchema + `, "created_at": ` + timeSchema + `,
		"content": ` + textSchema + `,
		"event_type": {"enum": ["task-started", "task-completed", "task-failed", "decision-made", "error-encountered", "user-feedback", "tool-call", "observation"]},
		"task_id": ` + idSchema + `, "user_id": ` + userSchema + `, "session_id": ` + sessionSchema + `, "metadata": ` + metaSchema + `}},
	{"$anchor": "procedural", "type": "object", "additionalProperties": false, "required": ["type", "name"], "properties": {
		"type": {"const": "procedural"}, "id": ` + idSchema + `, "created_at": ` + timeSchema + `,
		"name": {"type": "string", "minLength": 1, "maxLength": 256}, "description": ` + text0Schema + `,
		"pattern": ` + text0Schema + `, "success_rate": ` + unitSchema + `, "tags": ` + tagsSchema + `, "disabled": {"type": "boolean"},
		"user_id": ` + userSchema + `, "session_id": ` + sessionSchema + `, "metadata": ` + anyMetaSchema + `}},
	{"$anchor": "fact", "type": "object", "additionalProperties": false, "required": ["type", "subject", "predicate", "object"], "properties": {
		"type": {"const": "fact"}, "id": ` + idSchema + `, ` + factProps + `}}
]}`

// factProps are the properties of a fact to assert.
const factProps = `"subject": ` + partSchema + `, "predicate": ` + partSchema + `, "object": ` + partSchema + `,
	"valid_from": {"type": "string", "format": "date-time", "description": "when it became true; default now"},
	"valid_to": {"type": "string", "format": "date-time", "description": "when it stopped being true; default: it holds"},
	"strength": {"type": "number", "minimum": 0, "maximum": 1000000, "description": "the evidence; default 1"},
	"sources": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": 256}},
	"memory_id": {"type": "string", "minLength": 1, "maxLength": 256, "description": "the memory it came from: linked to it"},
	"metadata": ` + metaSchema

// record returns the memory in stands for (memview.Item.Record), with
// the MCP server's mark: "mcp" is the source of a semantic entry that
// names none, of an episode's metadata, and one of a fact's sources.
func record(in memview.Item) (engram.Record, error) {
	rec, err := in.Record("mcp")
	if rec.Episode != nil {
		md := map[string]string{"source": "mcp"}
		maps.Copy(md, rec.Episode.Metadata)
		rec.Episode.Metadata = md
	}
	if rec.Fact != nil {
		rec.Fact.Sources = append(rec.Fact.Sources, "mcp")
	}
	return rec, err
}

type addMemoriesIn struct {
	Memories []memview.Item `json:"memories"`
	agentIn
}

type listMemoriesIn struct {
	scopeIn
	Types  []engram.MemoryType `json:"types,omitempty"`
	Tags   []string            `json:"tags,omitempty"`
	Since  time.Time           `json:"since,omitzero"`
	Until  time.Time           `json:"until,omitzero"`
	Limit  int                 `json:"limit,omitempty"`
	Cursor string              `json:"cursor,omitempty"`
	agentIn
}

type updateMemoryIn struct {
	ID string `json:"id"`
	memview.Patch
	agentIn
}

type addFactsIn struct {
	Facts []memview.FactItem `json:"facts"`
	agentIn
}

type getFactsIn struct {
	Entity    string           `json:"entity,omitempty"`
	Predicate string           `json:"predicate,omitempty"`
	Direction engram.Direction `json:"direction,omitempty"`
	AsOf      time.Time        `json:"as_of,omitzero"`
	KnownAt   time.Time        `json:"known_at,omitzero"`
	History   bool             `json:"history,omitempty"`
	Limit     int              `json:"limit,omitempty"`
	agentIn
}

func (s *Server) addMemoryTools() {
	addTool(s, &mcp.Tool{
		Name: "add_memories",
		Description: "Add one memory or a batch, of any kind each (type: semantic knowledge, an episodic event, a procedure, " +
			"or a fact as subject, predicate, object), in one transaction: all of them or, on any error, none. Returns their IDs in order.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["memories"], "properties": {
			"memories": {"type": "array", "minItems": 1, "maxItems": 1000, "items": ` + memorySchema + `},
			` + agentProp + `}}`),
	}, s.addMemories)
	addTool(s, &mcp.Tool{
		Name:        "get_memory",
		Description: "Get the memory with the given ID, whatever its kind, with its kind.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["id"], "properties": {
			"id": ` + idSchema + `, ` + agentProp + `}}`),
	}, s.getMemory)
	addTool(s, &mcp.Tool{
		Name: "list_memories",
		Description: "List the agent's memories of every kind (or of types), newest first, a page at a time: " +
			"pass the answer's next_cursor as cursor for the next page, with the same filter. user, session and filter keep only " +
			"the memories of a user, a session, metadata conditions…",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "properties": {
			"types": {"type": "array", "maxItems": 6, "uniqueItems": true, "items": {"enum": ` + kinds + `}},
			"tags": ` + tagsSchema + `,
			"since": ` + timeSchema + `, "until": ` + timeSchema + `,
			"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "default 20"},
			"cursor": {"type": "string", "minLength": 1, "maxLength": 1024},
			` + scopeProps + `, ` + agentProp + `}}`),
	}, s.listMemories)
	addTool(s, &mcp.Tool{
		Name: "update_memory",
		Description: "Change a memory's fields that its kind lets change: a semantic entry's content, summary, importance, " +
			"verified and tags; a procedure's description, pattern, tags and disabled. Episodes and facts are not edited.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["id"], "minProperties": 2, "properties": {
			"id": ` + idSchema + `, "content": ` + textSchema + `, "summary": ` + text0Schema + `,
			"importance": ` + unitSchema + `, "verified": {"type": "boolean"}, "tags": ` + tagsSchema + `,
			"description": ` + text0Schema + `, "pattern": ` + text0Schema + `, "disabled": {"type": "boolean"},
			` + agentProp + `}}`),
	}, s.updateMemory)
	addTool(s, &mcp.Tool{
		Name:        "delete_memory",
		Description: "Erase the memory or fact with the given ID, and everything made of it (the same as forget).",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["id"], "properties": {
			"id": ` + idSchema + `, ` + agentProp + `}}`),
	}, s.forget)
	addTool(s, &mcp.Tool{
		Name: "add_facts",
		Description: "Assert one fact or a batch, in order and in one transaction: each is inserted, merged into the same fact " +
			"known already, or supersedes the value of a predicate that holds one (lives in, works at, …).",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["facts"], "properties": {
			"facts": {"type": "array", "minItems": 1, "maxItems": 1000, "items": {"type": "object", "additionalProperties": false,
				"required": ["subject", "predicate", "object"], "properties": {"id": ` + idSchema + `, ` + factProps + `}}},
			` + agentProp + `}}`),
	}, s.addFacts)
	addTool(s, &mcp.Tool{
		Name: "get_facts",
		Description: "Facts: those that hold now (of an entity, in a direction, of a predicate); with as_of, those that held then; " +
			"with known_at, what was believed then; with history, every fact of the entity's predicate, in the order they started.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "properties": {
			"entity": ` + partSchema + `, "predicate": ` + partSchema + `,
			"direction": {"enum": ["in", "out", ""], "description": "in: the entity is the object; out: the subject; empty: either"},
			"as_of": ` + timeSchema + `, "known_at": ` + timeSchema + `,
			"history": {"type": "boolean", "description": "needs entity and predicate"},
			"limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "default 100"},
			` + agentProp + `}}`),
	}, s.getFacts)
}

type addedOut struct {
	Type       engram.MemoryType `json:"type"`
	ID         string            `json:"id"`
	Action     engram.FactAction `json:"action,omitempty"`
	Superseded []memview.Fact    `json:"superseded,omitempty"`
}

type addMemoriesOut struct {
	Memories []addedOut `json:"memories"`
	Agent    string     `json:"agent"`
}

func factViews(fs []engram.Fact) []memview.Fact {
	out := make([]memview.Fact, 0, len(fs))
	for _, f := range fs {
		out = append(out, memview.FactOf(f))
	}
	return out
}

func (s *Server) addMemories(ctx context.Context, agent string, in addMemoriesIn) (*mcp.CallToolResult, any, error) {
	records := make([]engram.Record, len(in.Memories))
	for i, m := range in.Memories {
		var err error
		if records[i], err = record(m); err != nil {
			return nil, nil, err
		}
	}
	added, err := agentreg.Value(ctx, agent, s.reg.Write, func(m *engram.Memory) ([]engram.Added, error) {
		return m.AddAll(ctx, records)
	})
	if err != nil {
		return nil, nil, err
	}
	out := addMemoriesOut{Memories: []addedOut{}, Agent: agent}
	for _, a := range added {
		v := addedOut{Type: a.Type, ID: a.ID}
		if a.Assertion != nil {
			v.Action, v.Superseded = a.Assertion.Action, factViews(a.Assertion.Superseded)
		}
		out.Memories = append(out.Memories, v)
	}
	return nil, out, nil
}

type memoryOut struct {
	Type   engram.MemoryType `json:"type"`
	Memory any               `json:"memory"`
	Agent  string            `json:"agent"`
}

func (s *Server) getMemory(ctx context.Context, agent string, in forgetIn) (*mcp.CallToolResult, any, error) {
	rec, err := agentreg.Value(ctx, agent, s.reg.Read, func(m *engram.Memory) (engram.Record, error) {
		return m.Get(ctx, in.ID)
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, memoryOut{rec.Type, memview.Of(rec), agent}, nil
}

type listMemoriesOut struct {
	Memories   []any  `json:"memories"`
	NextCursor string `json:"next_cursor,omitempty"`
	Agent      string `json:"agent"`
}

func (s *Server) listMemories(ctx context.Context, agent string, in listMemoriesIn) (*mcp.CallToolResult, any, error) {
	filter, err := in.filter()
	if err != nil {
		return nil, nil, err
	}
	mq := engram.MemoryQuery{Types: in.Types, Tags: in.Tags, Since: in.Since, Until: in.Until, Limit: cmp0(in.Limit, 20), Cursor: in.Cursor,
		Filter: filter}
	page, err := agentreg.Value(ctx, agent, s.reg.Read, func(m *engram.Memory) (engram.MemoryPage, error) {
		return m.List(ctx, mq)
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, listMemoriesOut{memview.List(page.Records), page.Next, agent}, nil
}

func cmp0(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

func (s *Server) updateMemory(ctx context.Context, agent string, in updateMemoryIn) (*mcp.CallToolResult, any, error) {
	rec, err := agentreg.Value(ctx, agent, s.reg.Change, func(m *engram.Memory) (engram.Record, error) {
		return memview.Apply(ctx, m, in.ID, in.Patch)
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, memoryOut{rec.Type, memview.Of(rec), agent}, nil
}

type assertionOut struct {
	Action     engram.FactAction `json:"action"`
	Fact       memview.Fact      `json:"fact"`
	Superseded []memview.Fact    `json:"superseded"`
}

type addFactsOut struct {
	Facts []assertionOut `json:"facts"`
	Agent string         `json:"agent"`
}

func (s *Server) addFacts(ctx context.Context, agent string, in addFactsIn) (*mcp.CallToolResult, any, error) {
	facts := make([]engram.Fact, len(in.Facts))
	for i, f := range in.Facts {
		facts[i] = f.Fact()
		facts[i].Sources = append(facts[i].Sources, "mcp")
	}
	as, err := agentreg.Value(ctx, agent, s.reg.Write, func(m *engram.Memory) ([]engram.Assertion, error) {
		return m.Facts().AssertAll(ctx, facts)
	})
	if err != nil {
		return nil, nil, err
	}
	out := addFactsOut{Facts: []assertionOut{}, Agent: agent}
	for _, a := range as {
		out.Facts = append(out.Facts, assertionOut{a.Action, memview.FactOf(a.Fact), factViews(a.Superseded)})
	}
	return nil, out, nil
}

type getFactsOut struct {
	Facts []memview.Fact `json:"facts"`
	Agent string         `json:"agent"`
}

// errBadQuery refuses a call whose arguments ask two questions: bad
// input, as engram's own errors say it.
var errBadQuery = fmt.Errorf("%w: the arguments disagree", engram.ErrInvalid)

func (s *Server) getFacts(ctx context.Context, agent string, in getFactsIn) (*mcp.CallToolResult, any, error) {
	switch {
	case !in.AsOf.IsZero() && !in.KnownAt.IsZero():
		return nil, nil, fmt.Errorf("%w: as_of and known_at are two questions: give one", errBadQuery)
	case in.History && (in.Entity == "" || in.Predicate == ""):
		return nil, nil, fmt.Errorf("%w: history is a slot's: give entity (the subject) and predicate", errBadQuery)
	case in.History && (!in.AsOf.IsZero() || !in.KnownAt.IsZero() || in.Direction != ""):
		return nil, nil, fmt.Errorf("%w: history lists every time of the slot: as_of, known_at and direction do not apply", errBadQuery)
	}
	fq := engram.FactQuery{Entity: in.Entity, Predicate: in.Predicate, Direction: in.Direction, Limit: cmp0(in.Limit, 100)}
	fs, err := agentreg.Value(ctx, agent, s.reg.Read, func(m *engram.Memory) ([]engram.Fact, error) {
		return memview.Facts(ctx, m, memview.FactsAsked{Query: fq, AsOf: in.AsOf, KnownAt: in.KnownAt, History: in.History})
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, getFactsOut{factViews(fs), agent}, nil
}

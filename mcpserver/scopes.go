package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// Scopes: the tools that read memories (search, recall, context,
// list_memories) take a user, a session and a filter, the same filter
// as httpapi's routes (memview.Filter); forget_user erases one user's
// memories.

// filterSchema is the schema of a filter. Its metadata condition tree is
// recursive: memview.ParseMeta checks it, naming the bad part.
const filterSchema = `{"type": "object", "additionalProperties": false, "properties": {
	"user_id": ` + userSchema + `, "session_id": ` + sessionSchema + `,
	"types": {"type": "array", "maxItems": 6, "uniqueItems": true, "items": {"enum": ` + kinds + `}},
	"tags": ` + tagsSchema + `, "since": ` + timeSchema + `, "until": ` + timeSchema + `,
	"metadata": {"type": "object", "minProperties": 1, "maxProperties": 2, "description":
		"a condition on metadata: {\"key\": \"lang\", \"eq\": \"go\"} (or ne, gt, gte, lt, lte; \"in\": [values]; \"exists\": true or false), or {\"and\": [conditions]}, {\"or\": [conditions]}, {\"not\": condition}"}},
	"description": "only the memories that meet every part given: a user's, a session's, of kinds, with tags, created in [since, until), with metadata"}`

// scopeProps are the scope properties of a tool that reads memories.
const scopeProps = `"user_id": {"type": "string", "minLength": 1, "maxLength": 128, "description": "only this user's memories"},
	"session_id": {"type": "string", "minLength": 1, "maxLength": 256, "description": "only this session's memories"},
	"filter": ` + filterSchema

// scopeIn is the scope of a tool that reads memories: user and session
// are the filter's, given beside it.
type scopeIn struct {
	User    string         `json:"user_id,omitempty"`
	Session string         `json:"session_id,omitempty"`
	Filter  memview.Filter `json:"filter,omitzero"`
}

// filter returns the engram filter of the scope (nil for none), or an
// error matching engram.ErrInvalid naming its bad part ("filter.user",
// "filter.metadata.and[1].gt").
func (in scopeIn) filter() (*engram.Filter, error) {
	f, err := in.Filter.WithScope("filter", in.User, in.Session)
	if err != nil {
		return nil, err
	}
	return f.Engram("filter")
}

type forgetUserIn struct {
	User string `json:"user_id"`
	agentIn
}

type forgetUserOut struct {
	Deleted int    `json:"deleted"`
	User    string `json:"user_id"`
	Agent   string `json:"agent"`
}

type forgetMatchingIn struct {
	scopeIn
	agentIn
}

type forgetMatchingOut struct {
	Deleted int    `json:"deleted"`
	Agent   string `json:"agent"`
}

func (s *Server) addScopeTools() {
	addTool(s, &mcp.Tool{
		Name: "forget_memories",
		Description: "Erase every memory that a filter matches (what list_memories lists with it), each as forget erases one. " +
			"A filter is required. Returns how many were erased.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "properties": {
			` + scopeProps + `, ` + agentProp + `}}`),
	}, s.forgetMatching)
	addTool(s, &mcp.Tool{
		Name: "forget_user",
		Description: "Erase every memory of one user of the agent (semantic, episodic and procedural, with everything made of them); " +
			"other users' memories and the agent's own stay. Returns how many were erased.",
		InputSchema: schema(`{"type": "object", "additionalProperties": false, "required": ["user_id"], "properties": {
			"user_id": {"type": "string", "minLength": 1, "maxLength": 128},
			` + agentProp + `}}`),
	}, s.forgetUser)
}

func (s *Server) forgetUser(ctx context.Context, agent string, in forgetUserIn) (*mcp.CallToolResult, any, error) {
	n := 0
	err := s.reg.Change(ctx, agent, func(m *engram.Memory) (err error) {
		n, err = m.ForgetUser(ctx, in.User)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, forgetUserOut{n, in.User, agent}, nil
}

func (s *Server) forgetMatching(ctx context.Context, agent string, in forgetMatchingIn) (*mcp.CallToolResult, any, error) {
	f, err := in.filter()
	if err != nil {
		return nil, nil, err
	}
	if f == nil {
		return nil, nil, fmt.Errorf("%w: forget_memories takes a filter (user_id, session_id, filter): an empty one would match every memory", engram.ErrInvalid)
	}
	n := 0
	err = s.reg.Change(ctx, agent, func(m *engram.Memory) (err error) {
		n, err = m.ForgetMatching(ctx, *f)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, forgetMatchingOut{n, agent}, nil
}

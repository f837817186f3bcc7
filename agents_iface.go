package engram

import "context"

// Agents hands out the memories of many agents, as the servers
// (httpapi.Server, mcpserver.Server) and the CLI serve them: a [*Store]
// satisfies it. An implementation must be safe for concurrent use.
type Agents interface {
	// Agent returns the memory of agent id, opening it, and creating it
	// when the agent has none yet. The servers call it only to write, or
	// for an agent that Agents lists. It returns an error matching
	// [ErrInvalid] for an invalid ID and [ErrClosed] once closed, as
	// [Store.Agent] does.
	Agent(id string) (*Memory, error)
	// Agents lists the agents that have memory, sorted, as [Store.Agents]
	// does.
	Agents(ctx context.Context) ([]string, error)
}

var _ Agents = (*Store)(nil)

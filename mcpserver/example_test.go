package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/mcpserver"
)

// oneDir hands out the agents of a base directory, one Memory each (an
// *engram.Store does this too).
type oneDir struct {
	dir  string
	mu   sync.Mutex
	open map[string]*engram.Memory
}

func (d *oneDir) Agent(id string) (*engram.Memory, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m := d.open[id]; m != nil {
		return m, nil
	}
	m, err := engram.New(engram.Tier1, engram.WithDir(d.dir), engram.WithAgent(id))
	if err == nil {
		d.open[id] = m
	}
	return m, err
}

func (d *oneDir) Agents(ctx context.Context) ([]string, error) {
	return engram.ListAgents(ctx, engram.WithDir(d.dir))
}

// A server over a directory of agents, and a client of the Go SDK calling
// its tools over in-memory transports. "engram mcp" serves it on stdio
// instead: s.ServeStdio(ctx).
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "engram-mcp-example")
	defer os.RemoveAll(dir)
	agents := &oneDir{dir: dir, open: map[string]*engram.Memory{}}
	s, err := mcpserver.New(agents, mcpserver.Options{Agent: "support-bot"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	go s.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"content": "Ada prefers email", "importance": 0.8}})
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "how to contact Ada?"}})
	fmt.Println(res.StructuredContent.(map[string]any)["results"].([]any)[0].(map[string]any)["content"])
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"content": ""}})
	fmt.Println("empty content is a tool error:", res.IsError)
	cs.Close()
	for _, m := range agents.open {
		m.Close()
	}
	// Output:
	// Ada prefers email
	// empty content is a tool error: true
}

package testutil

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/engram-go/engram"
)

// Agents is a store of many agents for the tests of the servers (httpapi,
// mcpserver): one engram.New per agent under one base directory, each
// opened on first use and shared after, like engram's Store hands them
// out. A Memory closed meanwhile (ForgetAgent closes its own) is opened
// again on the next Agent. It is safe for concurrent use.
type Agents struct {
	Dir  string          // the base directory
	Opts []engram.Option // options of every agent's New, after WithDir and WithAgent

	mu     sync.Mutex // guards open and opened
	open   map[string]*engram.Memory
	opened int // how many times Agent opened a memory
}

// NewAgents returns a store of agents under a new directory of t's. When
// the test ends, every memory still open is checked (see CheckAndClose)
// and closed.
func NewAgents(t testing.TB, opts ...engram.Option) *Agents {
	t.Helper()
	a := &Agents{Dir: t.TempDir(), Opts: opts, open: map[string]*engram.Memory{}}
	t.Cleanup(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, m := range a.open {
			if _, err := m.Working().Items(); errors.Is(err, engram.ErrClosed) {
				continue
			}
			CheckAndClose(t, m)
		}
	})
	return a
}

// Agent returns agent id's memory, opening (and creating) it.
func (a *Agents) Agent(id string) (*engram.Memory, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.open[id]; m != nil {
		if _, err := m.Working().Items(); !errors.Is(err, engram.ErrClosed) {
			return m, nil
		}
	}
	m, err := engram.New(engram.Tier1, append([]engram.Option{engram.WithDir(a.Dir), engram.WithAgent(id)}, a.Opts...)...)
	if err != nil {
		return nil, err
	}
	a.open[id] = m
	a.opened++
	return m, nil
}

// Agents lists the agents with memory under the directory.
func (a *Agents) Agents(ctx context.Context) ([]string, error) {
	return engram.ListAgents(ctx, engram.WithDir(a.Dir))
}

// Opened returns how many times Agent opened a memory.
func (a *Agents) Opened() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opened
}

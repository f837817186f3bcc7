package testutil

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/engram-go/engram"
)

// Agents is a store of many agents for the tests of the servers (httpapi,
// mcpserver): an engram.Store over a base directory of the test's, which
// counts the agents its Agent opened. It is safe for concurrent use.
type Agents struct {
	*engram.Store
	Dir    string // the base directory
	opened atomic.Int64
}

// NewAgents opens a Tier 1 store under a new directory of t's with opts.
// When the test ends, the agents' database is checked (each file, through
// an agent open on it) and the store is closed.
func NewAgents(t testing.TB, opts ...engram.Option) *Agents {
	t.Helper()
	a := &Agents{Dir: t.TempDir()}
	st, err := engram.Open(engram.Tier1, append([]engram.Option{engram.WithDir(a.Dir)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	a.Store = st
	t.Cleanup(func() {
		ctx := context.Background()
		ids, err := st.Agents(ctx)
		if err != nil {
			t.Error(err)
		}
		for _, id := range ids {
			if m, err := st.Lookup(ctx, id); err != nil {
				t.Error(err)
			} else if err := m.CheckIntegrity(ctx); err != nil {
				t.Errorf("agent %s: %v", id, err)
			}
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return a
}

// Agent returns agent id's memory, opening (and creating) it, and counts
// the call.
func (a *Agents) Agent(id string) (*engram.Memory, error) {
	a.opened.Add(1)
	return a.Store.Agent(id)
}

// Opened returns how many times Agent was called.
func (a *Agents) Opened() int { return int(a.opened.Load()) }

package testutil

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/engram-go/engram"
)

// Agents is a store of many agents for the tests of the servers (httpapi,
// mcpserver): an engram.Store of the test's, which counts the agents its
// Agent opened. It is safe for concurrent use.
type Agents struct {
	*engram.Store
	// Dir is the base directory of a store in LayoutDir, and the
	// directory holding the file of one in LayoutFile ("" in memory).
	Dir    string
	opened atomic.Int64
}

// The layouts of a store of agents (see engram.Store).
const (
	LayoutDir    = "directory"   // each agent's file under a base directory (engram.WithDir)
	LayoutFile   = "shared file" // every agent in one file (engram.WithPath)
	LayoutMemory = "memory"      // every agent in one database in memory (engram.InMemory)
)

// Layouts are the layouts of a store, for tests that run in each.
var Layouts = []string{LayoutDir, LayoutFile, LayoutMemory}

// NewAgents opens a Tier 1 store under a new directory of t's with opts.
// When the test ends, the agents' database is checked (each file, through
// an agent open on it) and the store is closed.
func NewAgents(t testing.TB, opts ...engram.Option) *Agents {
	t.Helper()
	return NewAgentsIn(t, LayoutDir, opts...)
}

// NewAgentsIn opens a Tier 1 store in layout (LayoutDir, LayoutFile or
// LayoutMemory), under a new directory of t's, with opts, and checks and
// closes it when the test ends, as NewAgents does.
func NewAgentsIn(t testing.TB, layout string, opts ...engram.Option) *Agents {
	t.Helper()
	a := &Agents{}
	var where engram.Option
	switch layout {
	case LayoutDir:
		a.Dir = t.TempDir()
		where = engram.WithDir(a.Dir)
	case LayoutFile:
		a.Dir = t.TempDir()
		where = engram.WithPath(filepath.Join(a.Dir, "agents.db"))
	case LayoutMemory:
		where = engram.InMemory()
	default:
		t.Fatalf("testutil: no layout %q", layout)
	}
	st, err := engram.Open(engram.Tier1, append([]engram.Option{where}, opts...)...)
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

package engram_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// conformanceEngines are the engines the conformance suite can run
// against, by the name ENGRAM_TEST_ENGINE gives, each in its
// configurations.
var conformanceEngines = map[string][]enginetest.Engine{
	"sqlite": sqliteEngines(),
}

// TestConformance runs the engine conformance suite (internal/enginetest)
// against the engine ENGRAM_TEST_ENGINE names, "sqlite" by default, in
// each of its configurations.
func TestConformance(t *testing.T) {
	name := os.Getenv("ENGRAM_TEST_ENGINE")
	if name == "" {
		name = "sqlite"
	}
	engines, ok := conformanceEngines[name]
	if !ok {
		var known []string
		for k := range conformanceEngines {
			known = append(known, k)
		}
		slices.Sort(known)
		t.Fatalf("ENGRAM_TEST_ENGINE=%q names no engine: the engines are %s", name, strings.Join(known, ", "))
	}
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			enginetest.Run(t, e)
		})
	}
}

// sqliteEngines are SQLite in its four configurations: one agent's file
// (WithPath), a base directory of agents' files served by a Store
// (WithDir), one file shared by a Store's agents, and a database in
// memory.
func sqliteEngines() []enginetest.Engine {
	files := []enginetest.Capability{enginetest.CapReopen, enginetest.CapFile, enginetest.CapBackup, enginetest.CapSecureDelete}
	// fromStore opens a store at where and returns its agent's memory;
	// the store is closed when t ends, after the suite closed the memory.
	fromStore := func(t testing.TB, where engram.Option, agent string, tier engram.Tier, opts []engram.Option) (*engram.Memory, error) {
		st, err := engram.Open(tier, append([]engram.Option{where}, opts...)...)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() {
			if err := st.Close(); err != nil {
				t.Error(err)
			}
		})
		return st.Agent(agent)
	}
	// reopenFile opens the memory of agent in the file m was on.
	reopenFile := func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		return engram.New(tier, append([]engram.Option{engram.WithPath(m.Path()), engram.WithAgent(agent)}, opts...)...)
	}
	return []enginetest.Engine{{
		Name: "file",
		Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			path := filepath.Join(t.TempDir(), "memory.db")
			return engram.New(tier, append([]engram.Option{engram.WithPath(path), engram.WithAgent(agent)}, opts...)...)
		},
		Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
			return engram.Open(tier, append([]engram.Option{engram.WithPath(filepath.Join(t.TempDir(), "agents.db"))}, opts...)...)
		},
		Reopen: reopenFile,
		Caps:   files,
	}, {
		Name: "directory",
		Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			return fromStore(t, engram.WithDir(t.TempDir()), agent, tier, opts)
		},
		Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
			return engram.Open(tier, append([]engram.Option{engram.WithDir(t.TempDir())}, opts...)...)
		},
		Reopen: func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			// {base}/{agent}/memory.db
			return engram.New(tier, append([]engram.Option{engram.WithDir(filepath.Dir(filepath.Dir(m.Path()))), engram.WithAgent(agent)}, opts...)...)
		},
		Caps: append(slices.Clone(files), enginetest.CapAgentDir),
	}, {
		Name: "shared-file",
		Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			return fromStore(t, engram.WithPath(filepath.Join(t.TempDir(), "agents.db")), agent, tier, opts)
		},
		Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
			return engram.Open(tier, append([]engram.Option{engram.WithPath(filepath.Join(t.TempDir(), "agents.db"))}, opts...)...)
		},
		Reopen: reopenFile,
		Caps:   files,
	}, {
		Name: "memory",
		Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			return engram.New(tier, append([]engram.Option{engram.InMemory(), engram.WithAgent(agent)}, opts...)...)
		},
		Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
			return engram.Open(tier, append([]engram.Option{engram.InMemory()}, opts...)...)
		},
		Caps: []enginetest.Capability{enginetest.CapBackup},
	}}
}

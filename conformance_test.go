package engram_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// TestConformance runs the engine conformance suite (internal/enginetest)
// against the engine ENGRAM_TEST_ENGINE names, "sqlite" by default, in
// each of its configurations (see engine_test.go).
func TestConformance(t *testing.T) {
	list, err := engineNamed()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			enginetest.Run(t, e.Engine)
		})
	}
}

// sqliteEngines are SQLite in its five configurations: an agent's file
// under a base directory (WithDir; the first, which the root's other
// tests run against by default), the agents of a Store over a base
// directory, one agent's file (WithPath), the agents of a Store on one
// file they share, and a database in memory.
func sqliteEngines() []testEngine {
	files := []enginetest.Capability{enginetest.CapReopen, enginetest.CapFile, enginetest.CapBackup, enginetest.CapSecureDelete, enginetest.CapSnapshotReads}
	// fromStore opens a store at where and returns its agent's memory;
	// the store is closed when t ends, after the memory was checked and
	// closed.
	fromStore := func(t testing.TB, where engram.Option, agent string, tier engram.Tier, opts []engram.Option) (*engram.Memory, error) {
		st, err := engram.Open(tier, append([]engram.Option{where}, opts...)...)
		if err != nil {
			return nil, err
		}
		m, err := st.Agent(agent)
		if err != nil {
			if cerr := st.Close(); cerr != nil {
				t.Error(cerr)
			}
			return nil, err
		}
		t.Cleanup(func() {
			if err := st.Close(); err != nil {
				t.Error(err)
			}
		})
		return m, nil
	}
	// atFile opens agent's memory on the file at path.
	atFile := func(t testing.TB, path, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		return engram.New(tier, append([]engram.Option{engram.WithPath(path), engram.WithAgent(agent)}, opts...)...)
	}
	// atShared opens agent's memory from a new Store on the file at path.
	atShared := func(t testing.TB, path, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		return fromStore(t, engram.WithPath(path), agent, tier, opts)
	}
	// reopenAt reopens m's agent on the file m was on with at.
	reopenAt := func(at func(t testing.TB, path, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error)) func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		return func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			return at(t, m.Path(), agent, tier, opts...)
		}
	}
	return []testEngine{{
		Engine: enginetest.Engine{
			Name: "directory",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return engram.New(tier, append([]engram.Option{engram.WithDir(t.TempDir()), engram.WithAgent(agent)}, opts...)...)
			},
			Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
				return engram.Open(tier, append([]engram.Option{engram.WithDir(t.TempDir())}, opts...)...)
			},
			Reopen: func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				// {base}/{agent}/memory.db
				return engram.New(tier, append([]engram.Option{engram.WithDir(filepath.Dir(filepath.Dir(m.Path()))), engram.WithAgent(agent)}, opts...)...)
			},
			Caps: append(slices.Clone(files), enginetest.CapAgentDir, enginetest.CapMarkdownPath),
		},
		At: atFile,
	}, {
		Engine: enginetest.Engine{
			Name: "store",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return fromStore(t, engram.WithDir(t.TempDir()), agent, tier, opts)
			},
			Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
				return engram.Open(tier, append([]engram.Option{engram.WithDir(t.TempDir())}, opts...)...)
			},
			Reopen: func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return fromStore(t, engram.WithDir(filepath.Dir(filepath.Dir(m.Path()))), agent, tier, opts)
			},
			Caps: append(slices.Clone(files), enginetest.CapAgentDir),
		},
	}, {
		Engine: enginetest.Engine{
			Name: "file",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return atFile(t, filepath.Join(t.TempDir(), "memory.db"), agent, tier, opts...)
			},
			Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
				return engram.Open(tier, append([]engram.Option{engram.WithPath(filepath.Join(t.TempDir(), "agents.db"))}, opts...)...)
			},
			Reopen: reopenAt(atFile),
			Caps:   append(slices.Clone(files), enginetest.CapMarkdownPath),
		},
		At: atFile,
	}, {
		Engine: enginetest.Engine{
			Name: "shared",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return atShared(t, filepath.Join(t.TempDir(), "agents.db"), agent, tier, opts...)
			},
			Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
				return engram.Open(tier, append([]engram.Option{engram.WithPath(filepath.Join(t.TempDir(), "agents.db"))}, opts...)...)
			},
			Reopen: reopenAt(atShared),
			Caps:   files,
		},
		At: atShared,
	}, {
		Engine: enginetest.Engine{
			Name: "memory",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return engram.New(tier, append([]engram.Option{engram.InMemory(), engram.WithAgent(agent)}, opts...)...)
			},
			Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
				return engram.Open(tier, append([]engram.Option{engram.InMemory()}, opts...)...)
			},
			Caps: []enginetest.Capability{enginetest.CapBackup, enginetest.CapMarkdownPath},
		},
	}}
}

// Package enginetest is the conformance suite of engram's storage
// engines: what every engine must do, stated through the public API only
// (engram.New, engram.Open, *engram.Memory, *engram.Store), the way
// restic's backends all run its internal/backend/test.
//
// An engine's test says how to open a fresh memory and a fresh store of
// many agents on it, and what it can do besides, and calls [Run]:
//
//	func TestConformance(t *testing.T) {
//		enginetest.Run(t, enginetest.Engine{
//			Name: "postgres",
//			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
//				return engram.New(tier, append([]engram.Option{where(t), engram.WithAgent(agent)}, opts...)...)
//			},
//			Store: func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
//				return engram.Open(tier, append([]engram.Option{where(t)}, opts...)...)
//			},
//			Reopen: …, // with CapReopen: the same database again
//			Caps:   []enginetest.Capability{enginetest.CapReopen},
//		})
//	}
//
// where(t) is the engine's own option naming a new, empty database for
// the test. The root package's TestConformance (conformance_test.go) runs
// the suite against the engine the environment variable
// ENGRAM_TEST_ENGINE names ("sqlite" by default, in each of its
// configurations: one agent's file, a base directory of files, a file
// shared by a store's agents, a database in memory); a new engine adds
// its configurations there under its own name.
//
// Every subtest opens what it needs on the engine, small and fresh, and
// asserts exact results (IDs, order, counts), never timings. After each
// subtest every memory it opened is checked with Memory.CheckIntegrity
// and closed. Subtests that need a capability the engine lacks (a
// database that outlives its memory, a backup by copy, secure deletion,
// a directory per agent) call t.Skip with the capability's name; the
// engine's own internals (SQLite's WAL, crash injection, migrations) are
// tested by the engine's own tests, not here.
//
// A new engine passes the whole suite before it is offered: a subtest it
// fails is a behaviour users rely on that the engine does not have.
package enginetest

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
)

// Capability is something of an engine's that not every engine has. A
// subtest that needs one the engine lacks is skipped, naming it.
type Capability string

// The capabilities the suite knows.
const (
	// CapReopen: the database outlives the Memory. Closing the memory
	// and opening the database again (Engine.Reopen) finds what was
	// written; a read-only opening (engram.WithReadOnly) reads it and
	// refuses writes. A database in memory has not this.
	CapReopen Capability = "reopen"
	// CapFile: the database is a file (Memory.Path names it), which
	// engram.New opens with engram.WithPath.
	CapFile Capability = "file"
	// CapBackup: Memory.Backup copies the whole database to a new file
	// (SQLite's VACUUM INTO) that engram.New opens with engram.WithPath.
	CapBackup Capability = "vacuum-into"
	// CapSecureDelete: a forgotten memory's text is gone from the
	// database's files on disk, not only unreachable (SQLite's
	// secure_delete and a checkpoint that truncates the write-ahead log).
	CapSecureDelete Capability = "secure-delete"
	// CapAgentDir: each agent's memory lives in a directory of its own
	// (engram.WithDir), where Memory.Flush writes its memory.md, and
	// which Memory.ForgetAgent removes.
	CapAgentDir Capability = "agent-directory"
	// CapSnapshotReads: a read runs on a connection of its own, on a
	// snapshot, so that a write never waits for a read (SQLite's
	// write-ahead log). SQLite's database in memory has one connection,
	// for reads and writes alike. The root's behavioural tests need it;
	// the suite does not.
	CapSnapshotReads Capability = "snapshot-reads"
	// CapMarkdownPath: a memory is a Memory of its own (engram.New,
	// not a Store's agent), which writes its memory.md where
	// engram.WithMarkdownPath says; a Store refuses the option. The
	// root's behavioural tests that choose where memory.md goes need it;
	// the suite does not.
	CapMarkdownPath Capability = "markdown-path"
)

// Engine says how to open memories on the engine under test, and what it
// cannot do. Memory and Store are required. The suite's subtests run in
// parallel (t.Parallel), so its functions must be safe for concurrent
// use, each call opening a database of its own.
type Engine struct {
	// Name names the engine (and its configuration) in failures.
	Name string
	// Memory opens the memory of agent in a fresh database of its own,
	// of tier, with opts (a clock, a configuration, an embedder: never a
	// location or an agent, which are the engine's). It registers with
	// t.Cleanup whatever must be released after the Memory is closed;
	// the suite checks and closes the Memory itself, before that.
	Memory func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error)
	// Store opens a fresh store of many agents in one database (or one
	// place), of tier, with opts, as Memory does. The suite checks each
	// agent's memory and closes the store.
	Store func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error)
	// Reopen opens agent's memory again on the database m was opened on
	// by Memory, after m is closed, with opts. Engines with CapReopen
	// set it; the suite checks and closes what it returns.
	Reopen func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error)
	// Caps are the engine's capabilities (see Capability).
	Caps []Capability
}

// Has reports whether the engine has capability c.
func (e Engine) Has(c Capability) bool { return slices.Contains(e.Caps, c) }

// require skips t unless the engine has capability c.
func (e Engine) require(t *testing.T, c Capability) {
	t.Helper()
	if !e.Has(c) {
		t.Skipf("engine %s lacks capability %q", e.Name, c)
	}
}

// test is one subtest of the suite.
type test struct {
	name string
	run  func(t *testing.T, e Engine)
}

// Run runs the conformance suite against engine e: one parallel subtest
// per behaviour (named for it: "Semantic", "ForgetUserAndMatching", …),
// each on fresh memories that e opens, skipping those that need a
// capability e lacks. A new engine calls it from its test with an Engine
// that opens its databases (see the package doc). It fails t at once
// when e has no Memory or no Store, or has CapReopen and no Reopen.
func Run(t *testing.T, e Engine) {
	t.Helper()
	if e.Memory == nil || e.Store == nil {
		t.Fatalf("enginetest: engine %q needs both Memory and Store", e.Name)
	}
	if e.Has(CapReopen) && e.Reopen == nil {
		t.Fatalf("enginetest: engine %q has %q but no Reopen", e.Name, CapReopen)
	}
	for _, tc := range tests() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, e)
		})
	}
}

// tests lists the suite's subtests, by file: kinds.go, reads.go,
// facts.go, lifecycle.go, more.go, engine.go.
func tests() []test {
	var all []test
	for _, group := range [][]test{kindTests, readTests, factTests, lifecycleTests, moreTests, engineTests} {
		all = append(all, group...)
	}
	return all
}

// base is the time the suite's clocks start from.
var base = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// at returns base plus n minutes: the suite's times.
func at(n int) time.Time { return base.Add(time.Duration(n) * time.Minute) }

// clock is a fixed clock that a test may move.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: at(24 * 60)} } // a day after base

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// opened is a memory the suite opened, to check and close when its test
// ends.
type opened struct {
	m *engram.Memory
	c *clock
}

// memory opens agent "ada"'s Tier 1 memory on the engine in a fresh
// database, with a fixed clock (the suite's default) and opts, and checks
// and closes it when t ends.
func memory(t *testing.T, e Engine, opts ...engram.Option) opened {
	t.Helper()
	return memoryOf(t, e, "ada", engram.Tier1, opts...)
}

// memoryOf opens agent's memory of tier as memory does.
func memoryOf(t *testing.T, e Engine, agent string, tier engram.Tier, opts ...engram.Option) opened {
	t.Helper()
	c := newClock()
	opts = append([]engram.Option{engram.WithClock(c.Now)}, opts...)
	m, err := e.Memory(t, agent, tier, opts...)
	if err != nil {
		t.Fatalf("engine %s: Memory(%q, %s): %v", e.Name, agent, tier, err)
	}
	if got := m.AgentID(); got != agent {
		t.Fatalf("engine %s: Memory(%q) opened agent %q", e.Name, agent, got)
	}
	t.Cleanup(func() { checkAndClose(t, m) })
	return opened{m: m, c: c}
}

// tier2 opens agent "ada"'s Tier 2 memory with a hashing embedder of 64
// dimensions, as memory does.
func tier2(t *testing.T, e Engine, opts ...engram.Option) opened {
	t.Helper()
	h, err := engram.NewHashingEmbedder(64)
	if err != nil {
		t.Fatal(err)
	}
	return memoryOf(t, e, "ada", engram.Tier2, append([]engram.Option{engram.WithEmbedder(h)}, opts...)...)
}

// store opens a fresh Tier 1 store of many agents with a fixed clock, and
// checks every agent's memory and closes the store when t ends (unless
// the test closed it).
func store(t *testing.T, e Engine, opts ...engram.Option) (*engram.Store, *clock) {
	t.Helper()
	c := newClock()
	st, err := e.Store(t, engram.Tier1, append([]engram.Option{engram.WithClock(c.Now)}, opts...)...)
	if err != nil {
		t.Fatalf("engine %s: Store: %v", e.Name, err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		ids, err := st.Agents(ctx)
		if errors.Is(err, engram.ErrClosed) {
			return // the test closed it
		}
		if err != nil {
			t.Errorf("engine %s: Store.Agents: %v", e.Name, err)
		}
		for _, id := range ids {
			if m, err := st.Lookup(ctx, id); err != nil {
				t.Errorf("engine %s: Lookup(%q): %v", e.Name, id, err)
			} else if err := m.CheckIntegrity(ctx); err != nil {
				t.Errorf("engine %s: agent %s: integrity: %v", e.Name, id, err)
			}
		}
		if err := st.Close(); err != nil {
			t.Errorf("engine %s: Store.Close: %v", e.Name, err)
		}
	})
	return st, c
}

// agent returns id's memory of st, failing t on an error.
func agent(t *testing.T, st *engram.Store, id string) *engram.Memory {
	t.Helper()
	m, err := st.Agent(id)
	if err != nil {
		t.Fatalf("Store.Agent(%q): %v", id, err)
	}
	return m
}

// checkAndClose runs the integrity check on m and closes it. A memory the
// test closed (or forgot) itself is left alone: nothing of the public API
// reaches its database any more.
func checkAndClose(t testing.TB, m *engram.Memory) {
	t.Helper()
	err := m.CheckIntegrity(context.Background())
	if errors.Is(err, engram.ErrClosed) {
		return
	}
	if err != nil {
		t.Errorf("agent %s: integrity: %v", m.AgentID(), err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("agent %s: Close: %v", m.AgentID(), err)
	}
}

func nan() float64 { return math.NaN() }

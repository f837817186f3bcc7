package engram_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
	"github.com/engram-go/engram/internal/testutil"
)

// The engine under test. The root's behavioural tests open their memories
// and stores through the helpers of this file (newMemory, newAgentMemory,
// newStore, newDB and openOn), never with engram.New or engram.Open and a
// location of their own, so that they run against the engine
// configuration the environment variable ENGRAM_TEST_ENGINE names, as
// TestConformance's suite does (conformance_test.go):
//
//	sqlite            the default, what the tests were written for: a fresh
//	                  memory is an agent's file under a base directory
//	                  (engram.New and WithDir), a database that outlives its
//	                  memories a file (engram.New and WithPath)
//	sqlite-store      every memory an agent of a Store over a base directory
//	                  (no database by name: the tests of one skip)
//	sqlite-file       a fresh memory on a file of its own (WithPath)
//	sqlite-shared     every memory an agent of a Store on one shared file, a
//	                  new Store for each opening of a database
//	sqlite-memory     SQLite's database in memory (engram.InMemory): no
//	                  database outlives its memory, no file
//	postgres-new      a fresh memory on a fresh PostgreSQL database
//	                  (engram.New and WithPostgres; a database by name is a
//	                  database of its own, made on first use)
//	postgres-store    every memory an agent of a Store on a PostgreSQL
//	                  database (engram.Open and WithPostgres)
//
// (sqlite-directory and postgres-new are the first configurations by
// their own names.) Under ENGRAM_TEST_ENGINE=sqlite, TestConformance runs
// the suite in all five of SQLite's configurations, under
// ENGRAM_TEST_ENGINE=postgres in both of PostgreSQL's, and under one
// configuration's name in that one. PostgreSQL's configurations run on a
// throwaway cluster that internal/pgtest starts from the server's
// binaries, and are skipped, saying so, where they are not installed.
//
// A test that needs what not every engine has declares it with needs
// (enginetest's capabilities: a database that outlives its memory, a
// file on disk, backups, secure deletion, a directory per agent, reads
// on snapshots, a memory.md where the test says) and is skipped, naming
// the capability, on an engine without it; newDB, testDB.file and
// withMarkdownPath declare theirs themselves. A test of SQLite's internals
// (crash injection, the write-ahead log, VACUUM INTO, file modes, the
// directory layout, raw SQL on the file, SQLite's layouts of a Store)
// says so with sqliteOnly and runs under the default configuration only:
// it opens its own files, and would test nothing new under another.
// A test that reads the engine's own file with SQL to check what it
// stored (a count of vector rows) needs enginetest.CapFile instead: a
// file that engram.New opens is SQLite's.

// engineEnv is the environment variable naming the engine under test.
const engineEnv = "ENGRAM_TEST_ENGINE"

// defaultEngine is the engine configuration the tests were written for.
const defaultEngine = "sqlite"

// testEngine is one configuration of an engine: enginetest's Engine (how
// to open a fresh memory and a fresh store, how to reopen a memory, what
// it can do) and At.
type testEngine struct {
	enginetest.Engine
	// At opens agent's memory of tier with opts on the database named
	// path, creating it when needed, as often as a test asks: each call
	// returns a new Memory on the same database (what two processes would
	// hold). It registers with t.Cleanup whatever must be released after
	// the Memory is closed. Configurations with enginetest.CapReopen set
	// it, but for a Store over a base directory, which names no database
	// file: there the tests of a database by name skip.
	At func(t testing.TB, path, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error)
}

// engines are the engines by the names ENGRAM_TEST_ENGINE gives: an
// engine's name lists its configurations (TestConformance runs each, the
// other tests the first), a configuration's name ("sqlite-shared") that
// one alone.
var engines = func() map[string][]testEngine {
	sqlite := sqliteEngines()
	pg := postgresEngines()
	all := map[string][]testEngine{defaultEngine: sqlite, "postgres": pg}
	for _, e := range sqlite {
		all[defaultEngine+"-"+e.Name] = []testEngine{e}
	}
	for _, e := range pg {
		all["postgres-"+e.Name] = []testEngine{e}
	}
	return all
}()

// engineNamed returns the configurations of the engine ENGRAM_TEST_ENGINE
// names ("sqlite" when it is unset).
func engineNamed() ([]testEngine, error) {
	name := os.Getenv(engineEnv)
	if name == "" {
		name = defaultEngine
	}
	list, ok := engines[name]
	if !ok {
		known := make([]string, 0, len(engines))
		for k := range engines {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("%s=%q names no engine: the engines are %s", engineEnv, name, strings.Join(known, ", "))
	}
	return list, nil
}

// theEngine is the configuration the behavioural tests run against: the
// first of the engine ENGRAM_TEST_ENGINE names.
var theEngine = sync.OnceValues(func() (testEngine, error) {
	list, err := engineNamed()
	if err != nil {
		return testEngine{}, err
	}
	return list[0], nil
})

// engine returns the configuration under test, failing t when
// ENGRAM_TEST_ENGINE names none.
func engine(t testing.TB) testEngine {
	t.Helper()
	e, err := theEngine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// isDefaultEngine reports whether the tests run against the configuration
// they were written for.
func isDefaultEngine() bool {
	name := os.Getenv(engineEnv)
	return name == "" || name == defaultEngine
}

// needs skips t unless the engine under test has every capability of
// caps, naming the one it lacks.
func needs(t testing.TB, caps ...enginetest.Capability) {
	t.Helper()
	e := engine(t)
	for _, c := range caps {
		if !e.Has(c) {
			t.Skipf("engine %s lacks capability %q", e.Name, c)
		}
	}
}

// sqliteOnly marks t as a test of SQLite's internals (why says which): it
// runs under the default configuration, on the files it opens itself, and
// is skipped under any other.
func sqliteOnly(t testing.TB, why string) {
	t.Helper()
	if !isDefaultEngine() {
		t.Skipf("a test of SQLite's internals (%s): it runs under %s=%s", why, engineEnv, defaultEngine)
	}
}

// newMemory opens a fresh memory of the default agent, of tier, on the
// engine under test, with opts (a clock, a configuration, an embedder:
// never a location or an agent), and checks its integrity and closes it
// when t ends.
func newMemory(t testing.TB, tier engram.Tier, opts ...engram.Option) *engram.Memory {
	t.Helper()
	return newAgentMemory(t, engram.DefaultAgent, tier, opts...)
}

// newAgentMemory opens a fresh memory of agent as newMemory does.
func newAgentMemory(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) *engram.Memory {
	t.Helper()
	e := engine(t)
	m, err := e.Memory(t, agent, tier, opts...)
	if err != nil {
		t.Fatalf("engine %s: opening a fresh memory of %q (%s): %v", e.Name, agent, tier, err)
	}
	t.Cleanup(func() { testutil.CheckAndClose(t, m) })
	return m
}

// newStore opens a fresh store of many agents, of tier, on the engine
// under test, with opts, and checks every agent's memory and closes the
// store when t ends (unless the test closed it).
func newStore(t testing.TB, tier engram.Tier, opts ...engram.Option) *engram.Store {
	t.Helper()
	e := engine(t)
	st, err := e.Store(t, tier, opts...)
	if err != nil {
		t.Fatalf("engine %s: opening a fresh store (%s): %v", e.Name, tier, err)
	}
	t.Cleanup(func() { checkStore(t, st) })
	return st
}

// checkStore checks the integrity of every agent's memory in st and
// closes it, unless the test closed it.
func checkStore(t testing.TB, st *engram.Store) {
	t.Helper()
	ctx := context.Background()
	ids, err := st.Agents(ctx)
	if errors.Is(err, engram.ErrClosed) {
		return // the test closed it
	}
	if err != nil {
		t.Errorf("Store.Agents: %v", err)
	}
	for _, id := range ids {
		if m, err := st.Lookup(ctx, id); err != nil {
			t.Errorf("Store.Lookup(%q): %v", id, err)
		} else if err := m.CheckIntegrity(ctx); err != nil {
			t.Errorf("agent %s: integrity: %v", id, err)
		}
	}
	if err := st.Close(); err != nil {
		t.Error(err)
	}
}

// testDB is a database of the engine's that outlives the memories opened
// on it (enginetest.CapReopen): open it with openOn, as often as a test
// needs, for one agent or several.
type testDB struct{ path string }

// newDB names a fresh database on the engine under test. It skips t on an
// engine without enginetest.CapReopen or without At (see needsAt).
func newDB(t testing.TB) testDB {
	t.Helper()
	needsAt(t)
	return testDB{path: filepath.Join(t.TempDir(), "memory.db")}
}

// needsAt skips t unless the engine under test opens a database by name
// (testEngine.At): it needs enginetest.CapReopen, and a configuration may
// lack At all the same (a Store over a base directory names no database
// file).
func needsAt(t testing.TB) {
	t.Helper()
	needs(t, enginetest.CapReopen)
	if e := engine(t); e.At == nil {
		t.Skipf("configuration %s opens no database by name", e.Name)
	}
}

// file returns the path of db's file. It skips t on an engine without
// enginetest.CapFile: a test that reads or opens the file itself needs it.
func (db testDB) file(t testing.TB) string {
	t.Helper()
	needs(t, enginetest.CapFile)
	return db.path
}

// openOn opens agent's memory of tier on db with opts, and checks its
// integrity and closes it when t ends. Each call returns a new Memory.
func openOn(t testing.TB, db testDB, agent string, tier engram.Tier, opts ...engram.Option) *engram.Memory {
	t.Helper()
	m, err := tryOpenOn(t, db, agent, tier, opts...)
	if err != nil {
		t.Fatalf("engine %s: opening %q on %s (%s): %v", engine(t).Name, agent, db.path, tier, err)
	}
	return m
}

// tryOpenOn opens agent's memory on db as openOn does, and returns the
// error of opening it.
func tryOpenOn(t testing.TB, db testDB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
	t.Helper()
	m, err := engine(t).At(t, db.path, agent, tier, opts...)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { testutil.CheckAndClose(t, m) })
	return m, nil
}

// fileDB is the database in the file at path (a backup, a copy, a file a
// test made or a memory's Path) as a testDB. It skips t on an engine
// without enginetest.CapFile.
func fileDB(t testing.TB, path string) testDB {
	t.Helper()
	needs(t, enginetest.CapFile)
	needsAt(t)
	return testDB{path: path}
}

// withMarkdownPath is engram.WithMarkdownPath(path) for a test that needs
// enginetest.CapMarkdownPath: it skips t on an engine without it.
func withMarkdownPath(t testing.TB, path string) engram.Option {
	t.Helper()
	needs(t, enginetest.CapMarkdownPath)
	return engram.WithMarkdownPath(path)
}

// reopen closes m, a memory newMemory or newAgentMemory opened, and opens
// its agent's memory again on the same database with opts (the engine's
// Reopen), checking and closing it when t ends. It skips t on an engine
// without enginetest.CapReopen.
func reopen(t testing.TB, m *engram.Memory, opts ...engram.Option) *engram.Memory {
	t.Helper()
	needs(t, enginetest.CapReopen)
	e := engine(t)
	if err := m.Close(); err != nil {
		t.Fatalf("engine %s: closing %q: %v", e.Name, m.AgentID(), err)
	}
	again, err := e.Reopen(t, m, m.AgentID(), m.Tier(), opts...)
	if err != nil {
		t.Fatalf("engine %s: reopening %q: %v", e.Name, m.AgentID(), err)
	}
	t.Cleanup(func() { testutil.CheckAndClose(t, again) })
	return again
}

package engram_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
	"github.com/engram-go/engram/internal/pgtest"
)

// pgTemplate is the database, migrated once per test binary, that each
// test's PostgreSQL database is a copy of.
const pgTemplate = "engram_migrated"

// pgDatabase returns the DSN of a fresh PostgreSQL database for t,
// migrated, dropped when t ends: a copy of pgTemplate. It skips t where
// PostgreSQL is not installed (see pgtest).
func pgDatabase(t testing.TB) string {
	t.Helper()
	err := pgtest.Template(pgTemplate, func(dsn string) error {
		st, err := engram.Open(engram.Tier1, engram.WithPostgres(dsn))
		if err != nil {
			return err
		}
		return st.Close()
	})
	if err != nil {
		t.Skipf("no PostgreSQL to test on: %v", err)
	}
	return pgtest.NewDatabaseFrom(t, pgTemplate).DSN
}

// pgNamed are the databases the tests named by a path (see testEngine.At):
// the same path names the same database for as long as the test binary
// runs.
var pgNamed sync.Map // path → DSN

// pgAt returns the DSN of the database the test names by path, making it
// on the first call.
func pgAt(t testing.TB, path string) string {
	if dsn, ok := pgNamed.Load(path); ok {
		return dsn.(string)
	}
	dsn, _ := pgNamed.LoadOrStore(path, pgDatabase(t))
	return dsn.(string)
}

// pgOf are the DSNs of the memories the PostgreSQL configurations
// opened, for Reopen.
var pgOf sync.Map // *engram.Memory → DSN

// postgresEngines are PostgreSQL in two configurations: a memory of its
// own on a fresh database (engram.New and WithPostgres), and every
// memory an agent of a Store on one (engram.Open and WithPostgres).
func postgresEngines() []testEngine {
	caps := []enginetest.Capability{enginetest.CapReopen, enginetest.CapSnapshotReads}
	atNew := func(t testing.TB, dsn, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		m, err := engram.New(tier, append([]engram.Option{engram.WithPostgres(dsn), engram.WithAgent(agent)}, opts...)...)
		if err == nil {
			pgOf.Store(m, dsn)
		}
		return m, err
	}
	atStore := func(t testing.TB, dsn, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		st, err := engram.Open(tier, append([]engram.Option{engram.WithPostgres(dsn)}, opts...)...)
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
		pgOf.Store(m, dsn)
		t.Cleanup(func() {
			if err := st.Close(); err != nil {
				t.Error(err)
			}
		})
		return m, nil
	}
	reopen := func(at func(t testing.TB, dsn, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error)) func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		return func(t testing.TB, m *engram.Memory, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			dsn, ok := pgOf.Load(m)
			if !ok {
				t.Fatalf("reopening a memory the postgres engine did not open")
			}
			return at(t, dsn.(string), agent, tier, opts...)
		}
	}
	named := func(at func(t testing.TB, dsn, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error)) func(t testing.TB, path, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
		return func(t testing.TB, path, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
			return at(t, pgAt(t, path), agent, tier, opts...)
		}
	}
	store := func(t testing.TB, tier engram.Tier, opts ...engram.Option) (*engram.Store, error) {
		return engram.Open(tier, append([]engram.Option{engram.WithPostgres(pgDatabase(t))}, opts...)...)
	}
	return []testEngine{{
		Engine: enginetest.Engine{
			Name: "new",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return atNew(t, pgDatabase(t), agent, tier, opts...)
			},
			Store:  store,
			Reopen: reopen(atNew),
			Caps:   append(caps, enginetest.CapMarkdownPath),
		},
		At: named(atNew),
	}, {
		Engine: enginetest.Engine{
			Name: "store",
			Memory: func(t testing.TB, agent string, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
				return atStore(t, pgDatabase(t), agent, tier, opts...)
			},
			Store:  store,
			Reopen: reopen(atStore),
			Caps:   caps,
		},
		At: named(atStore),
	}}
}

// onPostgres reports whether the tests run on one of PostgreSQL's
// configurations.
func onPostgres() bool { return strings.HasPrefix(os.Getenv(engineEnv), "postgres") }

// stopPostgres stops the test binary's PostgreSQL cluster, if it started
// one; TestMain calls it.
func stopPostgres() error {
	return pgtest.Stop()
}

package engram

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// ListAgents returns the IDs of the agents that have memory where the
// options say, sorted: under a base directory ([WithDir], or [DefaultDir]
// without options), the agents with a database in their directory; in a
// file ([WithPath]) or a PostgreSQL database ([WithPostgres]), the agents
// with rows in it, which it reads without writing. A base directory that
// does not exist holds no agent, nor does a PostgreSQL database without
// engram's tables. It returns
// an error matching [ErrInvalid] for [InMemory] or an invalid option,
// [ErrNotFound] for a file that does not exist, [ErrNotEngram] for a file
// that is not engram's and a [*DatabaseError] when the file system or
// SQLite fails.
func ListAgents(ctx context.Context, opts ...Option) ([]string, error) {
	s := settings{}
	for _, o := range opts {
		o(&s)
	}
	if s.bad == nil {
		s.bad = s.validateWhere()
	}
	switch {
	case s.bad != nil:
		return nil, s.bad
	case s.inMemory:
		return nil, invalid("options", "InMemory holds no agents to list")
	case s.path != "":
		return agentsInFile(ctx, s.path)
	case s.postgres != "":
		st, err := Open(Tier1, WithPostgres(s.postgres), WithReadOnly())
		if errors.Is(err, ErrNotFound) {
			return nil, nil // no engram schema: no agents
		}
		if err != nil {
			return nil, err
		}
		ids, err := st.Agents(ctx)
		return ids, errors.Join(err, st.Close())
	}
	base := cmp.Or(s.dir, DefaultDir)
	entries, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &DatabaseError{Op: "agents", Err: err}
	}
	var out []string
	for _, e := range entries {
		id, ok := agentOfDirName(e.Name())
		if !e.IsDir() || !ok {
			continue
		}
		if has, _ := hasDatabase(filepath.Join(base, e.Name())); has {
			out = append(out, id)
		}
	}
	slices.Sort(out) // encoded names sort apart from their IDs
	return out, nil
}

// agentsInFile lists the agents with rows in the database at path, on a
// connection that only reads (opened as a read-only Memory opens it when
// the storage cannot be written: see readonly.go).
func agentsInFile(ctx context.Context, path string) ([]string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound("database", path)
	}
	if err != nil {
		return nil, &DatabaseError{Op: "agents", Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, invalid("WithPath", "%q is not a file", path)
	}
	name := path
	if storageReadOnly(path) {
		if name, err = readOnlyName(path); err != nil {
			return nil, &DatabaseError{Op: "agents", Err: err}
		}
	}
	var out []string
	err = sqlite.ReadFile(ctx, name, sqlite.Config{BusyTimeout: 5 * time.Second, Wrap: dbErr}, func(q store.Tx) error {
		var err error
		out, err = agentsIn(q)
		return err
	})
	if name != path {
		err = explainReadOnly(path, err)
	}
	if err != nil {
		return nil, dbErr("agents", err)
	}
	return out, nil
}

// hasDatabase reports whether an agent's directory holds its database
// file.
func hasDatabase(agentDir string) (bool, error) {
	fi, err := os.Stat(filepath.Join(agentDir, "memory.db"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, &DatabaseError{Op: "agents", Err: err}
	}
	return fi.Mode().IsRegular(), nil
}

// agentsIn returns the agents with rows in the file, sorted.
func agentsIn(q store.Tx) ([]string, error) {
	tables, err := agentTables(q)
	if err != nil {
		return nil, err
	}
	return agentsOf(q, tables)
}

// agentTables returns the tables of the file that have an agent_id
// column (virtual tables aside: their rows are kept by triggers), or an
// error matching ErrNotEngram when one has a name engram does not give.
func agentTables(q store.Tx) ([]string, error) {
	names, err := store.AgentTables(q)
	if err != nil {
		return nil, err
	}
	// The names go into SQL: a file whose schema holds any other name is
	// not one engram made.
	for _, n := range names {
		if !tableName.MatchString(n) {
			return nil, fmt.Errorf("table %q is not engram's: %w", n, ErrNotEngram)
		}
	}
	return names, nil
}

var tableName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func scanString(r store.Scanner) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

// agentsOf returns the agents with rows in the tables, sorted.
func agentsOf(q store.Tx, tables []string) ([]string, error) { return store.AgentsIn(q, tables) }

// agentRows returns the tables, of those given, that hold rows of agent,
// and "meta" when an entry of meta is the agent's.
func agentRows(q store.Tx, tables []string, agent string) ([]string, error) {
	return store.AgentRows(q, tables, agent)
}

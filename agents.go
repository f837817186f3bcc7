package engram

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/engram-go/engram/internal/store"
)

// ListAgents returns the IDs of the agents that have memory where the
// options say, sorted: under a base directory ([WithDir], or [DefaultDir]
// without options), the agents with a database in their directory; in a
// file ([WithPath]), the agents with rows in it, which it reads without
// writing. A base directory that does not exist holds no agent. It returns
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
	db, err := sql.Open("sqlite", dsn(name, []string{"query_only(1)", "busy_timeout(5000)"}))
	if err != nil {
		return nil, &DatabaseError{Op: "agents", Err: err}
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, &DatabaseError{Op: "agents", Err: err}
	}
	defer conn.Close()
	s := &database{wconn: conn}
	if _, err := s.checkOwner(ctx); err != nil {
		if name != path {
			err = explainReadOnly(path, err)
		}
		return nil, err
	}
	var out []string
	err = func() error {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // a read
		q := &dbtx{ctx: ctx, prep: func(ctx context.Context, query string) (*sql.Stmt, error) { return tx.PrepareContext(ctx, query) }}
		out, err = agentsIn(q)
		return err
	}()
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
func agentsIn(q *dbtx) ([]string, error) {
	tables, err := agentTables(q)
	if err != nil {
		return nil, err
	}
	return agentsOf(q, tables)
}

// agentTables returns the tables of the file that have an agent_id
// column (virtual tables aside: their rows are kept by triggers).
func agentTables(q *dbtx) ([]string, error) {
	rows, err := q.query(`SELECT s.name FROM sqlite_schema s
		WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite\_%' ESCAPE '\' AND s.sql NOT LIKE 'CREATE VIRTUAL%'
			AND EXISTS (SELECT 1 FROM pragma_table_info(s.name) c WHERE c.name = 'agent_id')
		ORDER BY s.name`)
	if err != nil {
		return nil, err
	}
	names, err := store.ScanAll(rows, scanString)
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

// agentsOf returns the agents with rows in the tables, sorted: each table
// is walked from agent to agent (a seek per agent in the index that starts
// with agent_id, which every such table has), not row by row.
func agentsOf(q *dbtx, tables []string) ([]string, error) {
	seen := map[string]bool{}
	for _, t := range tables {
		rows, err := q.query(`WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "` + t + `"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "` + t + `" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL`)
		if err != nil {
			return nil, err
		}
		ids, err := store.ScanAll(rows, scanString)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			seen[id] = true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}

// agentRows returns the tables, of those given, that hold rows of agent,
// and "meta" when an entry of meta is the agent's.
func agentRows(q *dbtx, tables []string, agent string) ([]string, error) {
	var out []string
	for _, t := range tables {
		var has bool
		if err := q.queryRow(`SELECT EXISTS (SELECT 1 FROM "`+t+`" WHERE agent_id = ?)`, []any{agent}, &has); err != nil {
			return nil, err
		}
		if has {
			out = append(out, t)
		}
	}
	var meta bool
	if err := q.queryRow(`SELECT EXISTS (SELECT 1 FROM meta WHERE key GLOB '*:' || ?)`, []any{agent}, &meta); err != nil {
		return nil, err
	}
	if meta {
		out = append(out, "meta")
	}
	return out, nil
}

package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/engram-go/engram/internal/pgtest"
	"github.com/engram-go/engram/internal/stmtlist"
	"github.com/engram-go/engram/internal/store/postgres"
)

// TestStatementsPrepare translates every statement of the list the SQLite
// engine runs in the tests (testdata/statements.sql, see internal/stmtlist)
// and prepares it on a database holding schema.sql, with the parameter
// types PostgreSQL infers. A statement over SQLite-only objects
// (ErrSQLiteOnly) is left out. The statements of testdata/unported.sql
// are those known not to translate or prepare yet: the test fails for
// any other statement that does not, and for one of those that now
// does, so that both lists stay exact (ENGRAM_UPDATE_UNPORTED=1 writes
// the list of those that do not anew).
func TestStatementsPrepare(t *testing.T) {
	stmts := readList(t, filepath.Join("testdata", "statements.sql"))
	unported := readList(t, filepath.Join("testdata", "unported.sql"))
	d := pgtest.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, postgres.Schema); err != nil {
		t.Fatalf("applying schema.sql: %v", err)
	}
	var sqliteOnly, prepared int
	var failed, fixed, all []string
	reasons := map[string]int{}
	for i, s := range stmts {
		err := prepare(ctx, conn, fmt.Sprintf("s%d", i), s)
		switch {
		case errors.Is(err, postgres.ErrSQLiteOnly):
			sqliteOnly++
			continue
		case err == nil:
			prepared++
			if slices.Contains(unported, s) {
				fixed = append(fixed, s)
			}
		default:
			reasons[reason(err)]++
			all = append(all, s)
			if !slices.Contains(unported, s) {
				failed = append(failed, fmt.Sprintf("%s\n  -> %v", s, err))
			}
		}
	}
	t.Logf("%d statements: %d prepare, %d SQLite-only, %d do not (%d listed in unported.sql)",
		len(stmts), prepared, sqliteOnly, len(stmts)-prepared-sqliteOnly, len(unported))
	var rs []string
	for r, n := range reasons {
		rs = append(rs, fmt.Sprintf("%4d %s", n, r))
	}
	slices.Sort(rs)
	t.Logf("why the others do not:\n%s", strings.Join(rs, "\n"))
	if os.Getenv(updateUnported) != "" {
		data, err := stmtlist.Format(all)
		if err == nil {
			err = os.WriteFile(filepath.Join("testdata", "unported.sql"), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote testdata/unported.sql: %d statements", len(all))
		return
	}
	for _, f := range failed {
		t.Errorf("does not translate or prepare:\n%s", f)
	}
	for _, f := range fixed {
		t.Errorf("prepares now: take it out of testdata/unported.sql:\n%s", f)
	}
	for _, u := range unported {
		if !slices.Contains(stmts, u) {
			t.Errorf("testdata/unported.sql lists a statement testdata/statements.sql lacks:\n%s", u)
		}
	}
}

// updateUnported is the environment variable that makes
// TestStatementsPrepare write testdata/unported.sql from what does not
// translate or prepare, instead of failing on it.
const updateUnported = "ENGRAM_UPDATE_UNPORTED"

// prepare translates query and prepares it as name on conn.
func prepare(ctx context.Context, conn *pgx.Conn, name, query string) error {
	pg, err := postgres.Translate(query)
	if err != nil {
		return err
	}
	if _, err := conn.Prepare(ctx, name, pg); err != nil {
		return fmt.Errorf("%w\n  translated: %s", err, pg)
	}
	return nil
}

// reason is the first line of err without what names the statement's
// own parts, to count failures by cause.
func reason(err error) string {
	r, _, _ := strings.Cut(err.Error(), "\n")
	return r
}

// readList reads a statement list file (see stmtlist.Parse).
func readList(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := stmtlist.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return list
}

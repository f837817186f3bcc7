package stmtlist_test

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
	"time"

	"github.com/engram-go/engram/internal/stmtlist"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

func TestFormatParse(t *testing.T) {
	in := []string{"SELECT b\nFROM t WHERE x = ';'", "SELECT a", "SELECT b\nFROM t WHERE x = ';'", "\n\t\tINSERT INTO m VALUES (?)\n\t"}
	data, err := stmtlist.Format(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stmtlist.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Compact(slices.Sorted(slices.Values(in)))
	if !slices.Equal(got, want) {
		t.Errorf("Parse(Format(%q)) = %q, want %q", in, got, want)
	}
	if got, err := stmtlist.Parse(nil); err != nil || got != nil {
		t.Errorf("Parse(nil) = %q, %v", got, err)
	}
	if _, err := stmtlist.Parse(data[:len(data)-2]); !errors.Is(err, stmtlist.ErrFormat) {
		t.Errorf("Parse of a cut list: %v, want ErrFormat", err)
	}
	if _, err := stmtlist.Format([]string{"SELECT 1\n;\n\nSELECT 2"}); !errors.Is(err, stmtlist.ErrFormat) {
		t.Errorf("Format of a statement holding the separator: %v, want ErrFormat", err)
	}
}

func TestAddMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "list.sql")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := stmtlist.Add(path, []string{fmt.Sprintf("SELECT %d", i), "SELECT shared"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := stmtlist.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 9 {
		t.Errorf("8 concurrent Adds left %d statements, want 9: %q", len(list), list)
	}
	if err := stmtlist.Missing(path, []string{"SELECT 3", "SELECT shared"}); err != nil {
		t.Errorf("Missing of listed statements: %v", err)
	}
	err = stmtlist.Missing(path, []string{"SELECT 3", "SELECT new"})
	if !errors.Is(err, stmtlist.ErrMissing) || !strings.Contains(err.Error(), "SELECT new") || strings.Contains(err.Error(), "SELECT 3") {
		t.Errorf("Missing of an unlisted statement: %v, want ErrMissing naming it alone", err)
	}
	if err := stmtlist.Missing(filepath.Join(t.TempDir(), "absent.sql"), []string{"SELECT 1"}); err == nil {
		t.Error("Missing with no list file: no error")
	}
}

// The recorder keeps the statements engram's code runs and leaves out
// those a test runs itself.
func TestRecorder(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, "", sqlite.Config{Synchronous: "normal", BusyTimeout: time.Second, CacheMiB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := stmtlist.Record()
	err = db.Write(ctx, "test", func(q store.Tx) error {
		if err := store.SetMeta(q, "k", "v"); err != nil { // internal/store's statement
			return err
		}
		_, err := q.Exec(`DELETE FROM meta WHERE key = 'test'`) // the test's own
		return err
	})
	got := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "INSERT INTO meta") {
		t.Errorf("recorded %q, want internal/store's INSERT INTO meta alone", got)
	}
}

func TestCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{`INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?) RETURNING pk`, `INSERT INTO t (a, b) VALUES (?, ?) RETURNING pk`},
		{`INSERT INTO t (a, b) VALUES (?, ?)`, `INSERT INTO t (a, b) VALUES (?, ?)`},
		{`SELECT v.column1 FROM (VALUES (?, CAST(? AS REAL)), (?, CAST(? AS REAL))) v`, `SELECT v.column1 FROM (VALUES (?, CAST(? AS REAL))) v`},
		{`SELECT (1), (1), f(?), f(?)`, `SELECT (1), (1), f(?), f(?)`},
		{`SELECT '(?), (?)', (?, ?), (?, ?)`, `SELECT '(?), (?)', (?, ?)`},
		{`SELECT 'it''s (', (?), (?)`, `SELECT 'it''s (', (?)`},
		{`SELECT (?, ?), (?, ?, ?)`, `SELECT (?, ?), (?, ?, ?)`},
	}
	for _, c := range cases {
		if got := stmtlist.Canonical(c.in); got != c.want {
			t.Errorf("Canonical(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

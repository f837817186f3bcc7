package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// dumpDatabase describes a database for comparison: its schema objects,
// user_version and application_id, and every row of every ordinary table.
func dumpDatabase(t *testing.T, s *DB) string {
	t.Helper()
	var out []string
	err := s.Read(context.Background(), "dump", func(q store.Tx) error {
		var version, app int
		if err := q.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM pragma_application_id)`, nil, &version, &app); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("user_version %d, application_id %#x", version, app))
		rows, err := q.Query(`SELECT type || ' ' || name || ' ' || tbl_name || ': ' || coalesce(sql, '') FROM sqlite_schema`)
		if err != nil {
			return err
		}
		objects, err := store.ScanAll(rows, scanString)
		if err != nil {
			return err
		}
		out = append(out, objects...)
		rows, err = q.Query(`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
		if err != nil {
			return err
		}
		tables, err := store.ScanAll(rows, scanString)
		if err != nil {
			return err
		}
		for _, table := range tables {
			rows, err := q.Query(`SELECT group_concat('quote("' || name || '")', ' || '','' || ') FROM pragma_table_info(?)`, table)
			if err != nil {
				return err
			}
			cols, err := store.ScanAll(rows, scanString)
			if err != nil {
				return err
			}
			rows, err = q.Query(`SELECT ` + cols[0] + ` FROM "` + table + `"`)
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			values, err := store.ScanAll(rows, scanString)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s: %d rows", table, len(values)))
			for _, v := range values {
				out = append(out, table+": "+v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// A new database made from the empty image is the database the migrations
// make, in memory and in a file: the same schema, versions and rows.
func TestEmptyImageIsTheMigratedSchema(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig()
	migrated, err := Open(ctx, "", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	want := dumpDatabase(t, migrated)
	if !strings.Contains(want, "semantic_memory") || !strings.Contains(want, fmt.Sprintf("application_id %#x", ApplicationID)) {
		t.Fatalf("the migrated database is not engram's:\n%s", want)
	}

	cfg.Image = true
	fromImage, err := Open(ctx, "", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer fromImage.Close()
	if got := dumpDatabase(t, fromImage); got != want {
		t.Errorf("in memory, the image differs from the migrations:\n%s\nwant\n%s", got, want)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "agent", "memory.db")
	if err := createDir(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new file: %v, %v", fi, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the temporary file stays beside the database: %v", entries)
	}
	file, err := Open(ctx, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if got := dumpDatabase(t, file); got != want {
		t.Errorf("in a file, the image differs from the migrations:\n%s\nwant\n%s", got, want)
	}
	if err := file.IntegrityCheck(ctx, noDerived); err != nil {
		t.Error(err)
	}

	// An empty file that exists already is migrated, to the same.
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := createDir(empty); err != nil {
		t.Fatal(err)
	}
	old, err := Open(ctx, empty, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if got := dumpDatabase(t, old); got != want {
		t.Errorf("a migrated file differs from the migrations in memory:\n%s\nwant\n%s", got, want)
	}
}

// A new file is made in WAL mode (bytes 18 and 19 of its header are 2),
// so that opening it the first time writes nothing to it: no switch of
// the journal mode through a rollback journal. It is still the image
// otherwise, and opens as a sound engram database in WAL mode.
func TestNewFileIsMadeInWALMode(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	if err := createDir(path); err != nil {
		t.Fatal(err)
	}
	made, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) < 100 || made[18] != 2 || made[19] != 2 {
		t.Fatalf("the new file's header is not in WAL mode: % x", made[:min(len(made), 20)])
	}
	img, err := emptyImage()
	if err != nil {
		t.Fatal(err)
	}
	if img[18] != 1 || img[19] != 1 {
		t.Errorf("the in-memory image's header changed: bytes 18, 19 are %d, %d", img[18], img[19])
	}
	img = slices.Clone(img)
	img[18], img[19] = 2, 2
	if !slices.Equal(made, img) {
		t.Error("the new file is not the image but for its journal mode")
	}

	s, err := Open(ctx, path, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v; want wal", mode, err)
	}
	if err := s.IntegrityCheck(ctx, noDerived); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	opened, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opened, made) {
		t.Error("opening and closing a new file wrote to it")
	}
}

// testConfig is the storage configuration of engram's defaults.
func testConfig() Config {
	return Config{Synchronous: "normal", BusyTimeout: 5 * time.Second, CacheMiB: 64, ReadConns: 4}
}

// noDerived checks no derived data: the engine's tests have none.
func noDerived(store.Tx) error { return nil }

// createDir makes path's directory (0700) and the file, as the root
// package's createPrivate does.
func createDir(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	return CreateFile(path)
}

func scanString(r store.Scanner) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

package engram

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// TestSweepRemovesOnlyBackupCopies: a record of a backup in progress
// names a file to remove once its writer is gone; a database may come
// from anywhere, so a record naming any other file (by its name, not a
// temporary copy's) leaves the file as it is, and the record goes. Nor is
// a file beside a destination removed because its name starts like a
// copy's.
func TestSweepRemovesOnlyBackupCopies(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	path := filepath.Join(dir, "memory.db")
	precious := filepath.Join(dir, "important.txt")
	lookalike := filepath.Join(dir, ".out.db.backup-notes")
	stale := filepath.Join(dir, ".out.db.backup-123456")
	for _, f := range []string{precious, lookalike, stale} {
		if err := os.WriteFile(f, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(Tier1, WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{precious, stale} {
		if _, err := recordBackup(ctx, m.db, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err = New(Tier1, WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, f := range []string{precious, lookalike} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("opening the database removed %s: %v", f, err)
		}
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale copy it recorded is still there: %v", err)
	}
	var n int
	err = m.db.Read(ctx, "test", func(q store.Tx) error {
		return q.QueryRow(`SELECT count(*) FROM meta WHERE key >= ? AND key < ?`, []any{pendingBackupKey, "backup.pending;"}, &n)
	})
	if err != nil || n != 0 {
		t.Errorf("records left: %d, %v", n, err)
	}
	if err := sweepBackupTemps(filepath.Join(dir, "out.db")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lookalike); err != nil {
		t.Errorf("a sweep of out.db's copies removed %s: %v", lookalike, err)
	}
}

// TestBackupToNamesWithQueryCharacters: a destination whose name holds
// '?' or '#' is a file name like any other for Backup; BackupAgent, whose
// copy is opened as a Memory, refuses '?' as every path engram opens.
func TestBackupToNamesWithQueryCharacters(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	m, err := New(Tier1, WithPath(filepath.Join(dir, "memory.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: "a memory to back up"}); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "a?b#c.db")
	if err := m.Backup(ctx, dst); err != nil {
		t.Fatalf("Backup(%q): %v", dst, err)
	}
	if err := sqlite.CheckCopy(ctx, dst, engineConfig(m.cfg.Storage), checkDerived); err != nil {
		t.Errorf("the copy: %v", err)
	}
	if err := m.BackupAgent(ctx, filepath.Join(dir, "d?e.db")); !errors.Is(err, ErrInvalid) {
		t.Errorf("BackupAgent to a name with '?': %v, want ErrInvalid", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("files left beside the copies: %v", left)
	}
}

package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// Memory is personal data: under the usual umask 022 every directory
// engram makes is 0700 and every file, SQLite's -wal and -shm included,
// 0600.
func TestFilesArePrivate(t *testing.T) {
	sqliteOnly(t, "file modes of the directory of files")
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	base := filepath.Join(t.TempDir(), "base")
	m := testutil.Open(t, engram.WithDir(base), engram.WithAgent("ada"))
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada's address is private", Importance: 0.9})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))

	for _, dir := range []string{base, filepath.Join(base, "ada")} {
		st, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o700), st.Mode().Perm(), dir)
	}
	for _, name := range []string{"memory.db", "memory.db-wal", "memory.db-shm", "memory.md"} {
		st, err := os.Stat(filepath.Join(base, "ada", name))
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), name)
	}
}

func TestMarkdownPathCannotBeTheDatabase(t *testing.T) {
	sqliteOnly(t, "WithMarkdownPath naming the database's files")
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	for _, md := range []string{db, db + "-wal", db + "-shm", db + "-journal", filepath.Join(dir, ".", "memory.db")} {
		_, err := engram.New(engram.Tier1, engram.WithPath(db), engram.WithMarkdownPath(md))
		assert.ErrorIs(t, err, engram.ErrInvalid, md)
		_, statErr := os.Stat(db)
		assert.ErrorIs(t, statErr, fs.ErrNotExist, "nothing is created for %s", md)
	}
}

// engram never writes into a SQLite file that is not its own, and says
// what a file that is not a database is.
func TestForeignFilesAreRefusedAndLeftAlone(t *testing.T) {
	sqliteOnly(t, "files that are not engram's")
	dir := t.TempDir()
	foreign := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", foreign)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL); INSERT INTO orders (total) VALUES (9.5)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	marked := filepath.Join(dir, "other-app.db")
	db, err = sql.Open("sqlite", marked)
	require.NoError(t, err)
	_, err = db.Exec(`PRAGMA application_id = 1234`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	text := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(text, bytes.Repeat([]byte("not a database\n"), 400), 0o600))

	for _, tc := range []struct {
		path string
		want error
	}{{foreign, engram.ErrNotEngram}, {marked, engram.ErrNotEngram}, {text, engram.ErrCorrupt}} {
		before, err := os.ReadFile(tc.path)
		require.NoError(t, err)
		_, err = engram.New(engram.Tier1, engram.WithPath(tc.path))
		assert.ErrorIs(t, err, tc.want, tc.path)
		after, err := os.ReadFile(tc.path)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(before, after), "%s was changed", tc.path)
		for _, side := range []string{"-wal", "-shm"} {
			_, err := os.Stat(tc.path + side)
			assert.ErrorIs(t, err, fs.ErrNotExist, tc.path+side)
		}
	}
}

// A database engram made before it marked its files is marked when opened
// again, and keeps its memories.
func TestOldEngramDatabaseIsMarked(t *testing.T) {
	sqliteOnly(t, "raw SQL clears the application ID")
	path := newDB(t)
	m, err := engram.New(engram.Tier1, engram.WithPath(path.file(t)))
	require.NoError(t, err)
	_, err = m.Semantic().Store(context.Background(), engram.SemanticEntry{Content: "kept across the mark", Importance: 0.5})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	_, err = db.Exec(`PRAGMA application_id = 0`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	m = openOn(t, path, engram.DefaultAgent, engram.Tier1)
	list, err := m.Semantic().List(context.Background(), engram.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	db, err = sql.Open("sqlite", path.file(t)+"?_pragma=query_only(1)")
	require.NoError(t, err)
	defer db.Close()
	var app int
	require.NoError(t, db.QueryRow(`PRAGMA application_id`).Scan(&app))
	assert.Equal(t, engram.ApplicationID, app)
}

// A directory that cannot be made is a *DatabaseError of the open, which
// still says why through errors.Is.
func TestDirectoryThatCannotBeMade(t *testing.T) {
	sqliteOnly(t, "the directory layout: a base directory under a file")
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := engram.New(engram.Tier1, engram.WithDir(filepath.Join(file, "sub")))
	var de *engram.DatabaseError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "open", de.Op)
	assert.ErrorIs(t, err, syscall.ENOTDIR)
}

// A write that waits longer than the busy timeout for another writer
// fails with ErrBusy, which says what to do, and writes nothing.
func TestBusyWriteIsErrBusy(t *testing.T) {
	sqliteOnly(t, "a lock held with raw SQL makes SQLite busy")
	path := newDB(t)
	cfg := engram.DefaultConfig()
	cfg.Storage.BusyTimeout = 50 * time.Millisecond
	m := openOn(t, path, engram.DefaultAgent, engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()

	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(t, err)

	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "waits for the lock", Importance: 0.5})
	require.ErrorIs(t, err, engram.ErrBusy)
	assert.Contains(t, err.Error(), "BusyTimeout")
	assert.False(t, errors.Is(err, engram.ErrCorrupt))
	_, err = conn.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)

	list, err := m.Semantic().List(ctx, engram.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, list)
}

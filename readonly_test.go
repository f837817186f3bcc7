package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/schema"
)

// readOnlyWrites makes one call of every kind of write on m and returns
// their errors by name: on a read-only Memory each must match
// ErrReadOnly.
func readOnlyWrites(ctx context.Context, t *testing.T, m *engram.Memory) map[string]error {
	t.Helper()
	var export bytes.Buffer
	require.NoError(t, m.Export(ctx, &export, engram.ExportOptions{}))
	_, err := m.Working().Add(engram.WorkingItem{Content: "an important thought", Importance: 0.95})
	require.NoError(t, err, "the working set is the process's own")
	errs := map[string]error{}
	add := func(name string, err error) { errs[name] = err }
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "written to a read-only memory", Importance: 0.5})
	add("Semantic.Store", err)
	_, err = m.Semantic().Update(ctx, "seed-001", engram.SemanticPatch{Importance: new(0.9)})
	add("Semantic.Update", err)
	add("Semantic.Delete", m.Semantic().Delete(ctx, "seed-001"))
	add("Semantic.RecordAccess", m.Semantic().RecordAccess(ctx, "seed-001"))
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: "logged to a read-only memory"})
	add("Episodic.Log", err)
	_, err = m.Procedural().Store(ctx, engram.Procedure{Name: "ship", Description: "how to ship", Pattern: "ship"})
	add("Procedural.Store", err)
	add("Links.Add", m.Links().Add(ctx, engram.Link{SourceID: "seed-002", TargetID: "seed-003", Type: engram.LinkSupports}))
	_, err = m.Facts().Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "works at", Object: "the mill"})
	add("Facts.Assert", err)
	add("Snapshot", m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s2", Summary: "a read-only session"}))
	add("Forget", m.Forget(ctx, "seed-004"))
	_, err = m.Compact(ctx)
	add("Compact", err)
	_, err = m.Decay(ctx)
	add("Decay", err)
	_, err = m.Import(ctx, &export, engram.ImportOptions{Conflict: engram.ConflictSkip})
	add("Import", err)
	add("Flush", m.Flush(ctx))
	add("ForgetAgent", m.ForgetAgent(ctx))
	return errs
}

// TestWithReadOnly opens a writable file with WithReadOnly: every read
// works, every write returns an error matching ErrReadOnly, and neither
// the database file changes by a byte, Close included, nor does its
// write-ahead log hold a frame (SQLite may make it, empty, with the -shm:
// a reader of a database in WAL mode needs them). The Memory reads the
// file live: another Memory's writes are seen.
func TestWithReadOnly(t *testing.T) {
	sqliteOnly(t, "the file unchanged by a byte, its write-ahead log empty")
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	want := faultSeed(t, path, 10)
	before := faultSum(path)

	m, err := engram.New(engram.Tier1, engram.WithPath(path), engram.WithReadOnly())
	require.NoError(t, err)
	defer m.Close()
	assert.True(t, m.ReadOnly())

	e, err := m.Semantic().Get(ctx, "seed-003")
	require.NoError(t, err)
	assert.Equal(t, want["seed-003"], e.Content)
	res, err := m.Semantic().Search(ctx, engram.SearchOptions{Query: "deploy", Limit: 20})
	require.NoError(t, err)
	found := 0
	for _, r := range res {
		if want[r.ID] != "" {
			found++
		}
	}
	assert.Equal(t, len(want), found, "Search finds every seeded entry")
	b, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Contains(t, b.SemanticContext, strings.Fields(want["seed-003"])[1])
	assert.Len(t, b.RecentEpisodes, 10)
	require.NoError(t, m.CheckIntegrity(ctx))

	for name, err := range readOnlyWrites(ctx, t, m) {
		assert.ErrorIs(t, err, engram.ErrReadOnly, name)
	}
	// Nothing to keep, nothing to write: Flush has nothing to refuse.
	require.NoError(t, m.Working().Clear())
	assert.NoError(t, m.Flush(ctx))
	assert.Equal(t, before, faultSum(path), "the database file changed")
	assert.LessOrEqual(t, walSize(t, path), int64(0), "the write-ahead log holds frames")

	// Another Memory writes the file; the read-only one reads it live.
	w, err := engram.New(engram.Tier1, engram.WithPath(path))
	require.NoError(t, err)
	id, err := w.Semantic().Store(ctx, engram.SemanticEntry{Content: "written beside a read-only reader", Importance: 0.5})
	require.NoError(t, err)
	e, err = m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "written beside a read-only reader", e.Content)
	require.NoError(t, w.Close())
	assert.NoError(t, m.Close())
}

// walSize returns the size of path's -wal file, -1 when there is none.
func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		return -1
	}
	require.NoError(t, err)
	return fi.Size()
}

// TestWithReadOnlyMarkdown: a read-only Memory in the directory layout
// bootstraps with memory.md as it is, a person's edit included, imports
// nothing and writes nothing: neither memory.md nor the database.
func TestWithReadOnlyMarkdown(t *testing.T) {
	sqliteOnly(t, "the directory layout: memory.md and the file unchanged by a byte")
	ctx := context.Background()
	dir := t.TempDir()
	m, err := engram.New(engram.Tier1, engram.WithDir(dir))
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada prefers short answers", Importance: 0.9})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	require.NoError(t, m.Close())
	md := filepath.Join(dir, engram.DefaultAgent, "memory.md")
	text, err := os.ReadFile(md)
	require.NoError(t, err)
	edited := append(text, []byte("- Ada lives in London\n")...)
	require.NoError(t, os.WriteFile(md, edited, 0o600))
	db := filepath.Join(dir, engram.DefaultAgent, "memory.db")
	before := faultSum(db)

	m, err = engram.New(engram.Tier1, engram.WithDir(dir), engram.WithReadOnly())
	require.NoError(t, err)
	b, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Equal(t, string(edited), b.SemanticContext)
	assert.Nil(t, b.MarkdownImport)
	_, err = m.ImportMarkdown(ctx)
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	_, err = m.ExportMarkdown(ctx)
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	assert.NoError(t, m.Flush(ctx))
	require.NoError(t, m.Close())

	got, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Equal(t, string(edited), string(got), "memory.md changed")
	assert.Equal(t, before, faultSum(db), "the database changed")
}

// TestWithReadOnlyOpen: WithReadOnly creates nothing (a missing database
// is ErrNotFound), cannot be combined with InMemory, and refuses a
// database of an older schema, which it would have to migrate, leaving it
// as it was. A Store takes it too.
func TestWithReadOnlyOpen(t *testing.T) {
	sqliteOnly(t, "files WithReadOnly finds missing or of an old schema made with raw SQL")
	dir := t.TempDir()
	_, err := engram.New(engram.Tier1, engram.WithPath(filepath.Join(dir, "none", "memory.db")), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrNotFound)
	_, err = engram.New(engram.Tier1, engram.WithDir(filepath.Join(dir, "base")), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrNotFound)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a read-only open made something")

	_, err = engram.New(engram.Tier1, engram.InMemory(), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrInvalid)

	old := filepath.Join(dir, "old.db")
	db, err := sql.Open("sqlite", old)
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	for _, m := range schema.Migrations()[:4] {
		_, err := db.Exec(m.SQL)
		require.NoError(t, err, m.Name)
	}
	_, err = db.Exec(fmt.Sprintf(`PRAGMA user_version = 4; PRAGMA application_id = %d`, engram.ApplicationID))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	before := faultSum(old)
	_, err = engram.New(engram.Tier1, engram.WithPath(old), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	assert.ErrorContains(t, err, "schema version 4")
	assert.Equal(t, before, faultSum(old), "the old database changed")

	path := filepath.Join(dir, "store.db")
	want := faultSeed(t, path, 3)
	before = faultSum(path)
	st, err := engram.Open(engram.Tier1, engram.WithPath(path), engram.WithReadOnly())
	require.NoError(t, err)
	m, err := st.Agent(engram.DefaultAgent)
	require.NoError(t, err)
	assert.True(t, m.ReadOnly())
	e, err := m.Semantic().Get(context.Background(), "seed-001")
	require.NoError(t, err)
	assert.Equal(t, want["seed-001"], e.Content)
	_, err = m.Semantic().Store(context.Background(), engram.SemanticEntry{Content: "x", Importance: 0.5})
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	require.NoError(t, st.Close())
	assert.Equal(t, before, faultSum(path), "the store's database changed")
}

// TestReadOnlyDirectory: a database whose directory this process may not
// write (chmod 0500), so that SQLite could make no -wal or -shm beside it,
// opens read-only by itself and serves reads; writes return ErrReadOnly
// and nothing changes. The same for a file it may not write (chmod 0400)
// in a directory it may. Root ignores permissions (TestReadOnlyFile
// covers it with a read-only mount).
func TestReadOnlyDirectory(t *testing.T) {
	sqliteOnly(t, "file permissions")
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions; TestReadOnlyFile covers it")
	}
	for _, c := range []struct {
		name      string
		dir, file os.FileMode
	}{{"directory", 0o500, 0o600}, {"file", 0o700, 0o400}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "agent")
			path := filepath.Join(dir, "memory.db")
			want := faultSeed(t, path, 5)
			before := faultSum(path)
			require.NoError(t, os.Chmod(path, c.file))
			require.NoError(t, os.Chmod(dir, c.dir))
			t.Cleanup(func() { _ = os.Chmod(dir, 0o700) }) // so that TempDir's cleanup can remove it
			checkFoundReadOnly(ctx, t, path, want)
			assert.Equal(t, before, faultSum(path), "the database file changed")
			if c.dir == 0o500 {
				_, err := os.Stat(path + "-wal")
				assert.ErrorIs(t, err, os.ErrNotExist, "a -wal was made in a read-only directory")
			}
		})
	}
}

// TestReadOnlyImmutableFile: a file marked immutable (chattr +i), which
// not even root may write, opens read-only by itself; reads work, writes
// return ErrReadOnly (not SQLite's "attempt to write a readonly
// database" half-way through Bootstrap's bookkeeping) and nothing
// changes.
func TestReadOnlyImmutableFile(t *testing.T) {
	sqliteOnly(t, "an immutable file")
	chattr, err := exec.LookPath("chattr")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("marking a file immutable needs root and chattr")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	want := faultSeed(t, path, 5)
	before := faultSum(path)
	if out, err := exec.Command(chattr, "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v: %s", err, out) // a file system without the flag
	}
	t.Cleanup(func() { _ = exec.Command(chattr, "-i", path).Run() })
	checkFoundReadOnly(ctx, t, path, want)
	assert.Equal(t, before, faultSum(path), "the database file changed")
}

// checkFoundReadOnly opens the database at path, which the process cannot
// write, without WithReadOnly: New finds it read-only, reads return the
// seeded entries want, every write returns ErrReadOnly and Close nil.
func checkFoundReadOnly(ctx context.Context, t *testing.T, path string, want map[string]string) {
	t.Helper()
	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	require.NoError(t, err)
	defer m.Close()
	assert.True(t, m.ReadOnly())
	e, err := m.Semantic().Get(ctx, "seed-002")
	require.NoError(t, err)
	assert.Equal(t, want["seed-002"], e.Content)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy"})
	require.NoError(t, err)
	assert.NotEmpty(t, res)
	b, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	assert.Contains(t, b.SemanticContext, strings.Fields(want["seed-002"])[1])
	require.NoError(t, m.CheckIntegrity(ctx))
	agents, err := engram.ListAgents(ctx, engram.WithPath(path))
	require.NoError(t, err)
	assert.Equal(t, []string{engram.DefaultAgent}, agents)
	for name, err := range readOnlyWrites(ctx, t, m) {
		assert.ErrorIs(t, err, engram.ErrReadOnly, name)
	}
	assert.NoError(t, m.Close())
}

// TestWithReadOnlyTier2: a Tier 2 database opens read-only with the
// embedder of its vectors, and a vector search finds what it holds
// without writing a byte. An embedder that would need its vectors made
// again (another model), or a file without vectors, is refused with
// ErrReadOnly, since that would be a write.
func TestWithReadOnlyTier2(t *testing.T) {
	sqliteOnly(t, "the file unchanged by a byte")
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	emb, err := engram.NewHashingEmbedder(64)
	require.NoError(t, err)
	m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(emb))
	require.NoError(t, err)
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the kayak lives in the garage", Importance: 0.7})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	before := faultSum(path)

	m, err = engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(emb), engram.WithReadOnly())
	require.NoError(t, err)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak garage", Mode: engram.SearchVector})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, id, res[0].ID)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the paddle is in the shed", Importance: 0.7})
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	assert.ErrorIs(t, m.Reindex(ctx, nil), engram.ErrReadOnly)
	require.NoError(t, m.CheckIntegrity(ctx))
	require.NoError(t, m.Close())

	_, err = engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(renamedEmbedder{emb}), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	other, err := engram.NewHashingEmbedder(32)
	require.NoError(t, err)
	_, err = engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(other), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, before, faultSum(path), "the database changed")

	tier1 := filepath.Join(t.TempDir(), "memory.db")
	faultSeed(t, tier1, 2)
	_, err = engram.New(engram.Tier2, engram.WithPath(tier1), engram.WithEmbedder(emb), engram.WithReadOnly())
	assert.ErrorIs(t, err, engram.ErrReadOnly)
}

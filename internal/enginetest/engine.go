package enginetest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// engineTests need a capability that not every engine has (see
// Capability): each skips, naming it, on an engine without it.
var engineTests = []test{
	{"Reopen", testReopen},
	{"ReadOnly", testReadOnly},
	{"Backup", testBackup},
	{"BackupUnsupported", testBackupUnsupported},
	{"BackupAgent", testBackupAgent},
	{"SecureDelete", testSecureDelete},
	{"ForgetAgentDirectory", testForgetAgentDirectory},
}

// reopen closes o's memory and opens agent "ada"'s again on its database
// with a fixed clock and opts, as Engine.Reopen does, and checks and
// closes it when t ends.
func reopen(t *testing.T, e Engine, o opened, tier engram.Tier, opts ...engram.Option) (*engram.Memory, error) {
	t.Helper()
	require.NoError(t, o.m.Close())
	m, err := e.Reopen(t, o.m, "ada", tier, append([]engram.Option{engram.WithClock(o.c.Now)}, opts...)...)
	if err == nil {
		t.Cleanup(func() { checkAndClose(t, m) })
	}
	return m, err
}

func testReopen(t *testing.T, e Engine) {
	e.require(t, CapReopen)
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	require.NoError(t, o.m.Links().Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal}))
	wantRes, err := o.m.Search(ctx, engram.SearchOptions{Query: "billing"})
	require.NoError(t, err)
	require.NoError(t, o.m.Flush(ctx)) // writes the access the search noted
	wantList := listAll(t, o.m, engram.MemoryQuery{})
	wantExport := exportOf(t, o.m, engram.ExportOptions{History: true})

	m, err := reopen(t, e, o, engram.Tier1)
	require.NoError(t, err)
	assert.Equal(t, wantList, listAll(t, m, engram.MemoryQuery{}))
	assert.Equal(t, string(wantExport), string(exportOf(t, m, engram.ExportOptions{History: true})))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "billing"})
	require.NoError(t, err)
	assert.Equal(t, resultIDs(wantRes), resultIDs(res))
	// And it goes on writing.
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{ID: "s3", Content: "written after reopening"})
	require.NoError(t, err)
}

func testReadOnly(t *testing.T, e Engine) {
	e.require(t, CapReopen)
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	want := listAll(t, o.m, engram.MemoryQuery{})
	file := exportOf(t, o.m, engram.ExportOptions{})

	m, err := reopen(t, e, o, engram.Tier1, engram.WithReadOnly())
	require.NoError(t, err)
	assert.True(t, m.ReadOnly())
	assert.Equal(t, want, listAll(t, m, engram.MemoryQuery{}))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "billing"})
	require.NoError(t, err)
	assert.Len(t, res, 4)

	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "refused"})
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	_, err = m.Facts().Assert(ctx, engram.Fact{Subject: "a", Predicate: "b", Object: "c"})
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	assert.ErrorIs(t, m.Forget(ctx, "s1"), engram.ErrReadOnly)
	_, err = m.Import(ctx, bytes.NewReader(file), engram.ImportOptions{Conflict: engram.ConflictReplace})
	assert.ErrorIs(t, err, engram.ErrReadOnly)
	assert.Equal(t, want, listAll(t, m, engram.MemoryQuery{}))
}

func testBackup(t *testing.T, e Engine) {
	e.require(t, CapBackup)
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	want := exportOf(t, o.m, engram.ExportOptions{History: true})

	dst := filepath.Join(t.TempDir(), "backup.db")
	require.NoError(t, o.m.Backup(ctx, dst))
	assert.ErrorIs(t, o.m.Backup(ctx, dst), engram.ErrExists)
	assert.ErrorIs(t, o.m.Backup(ctx, ""), engram.ErrInvalid)
	assert.ErrorIs(t, o.m.Backup(ctx, filepath.Join(t.TempDir(), "no", "such", "dir.db")), engram.ErrInvalid)

	// The copy opens as a file and holds what the memory held.
	b, err := engram.New(engram.Tier1, engram.WithPath(dst), engram.WithAgent("ada"), engram.WithClock(o.c.Now))
	require.NoError(t, err)
	t.Cleanup(func() { checkAndClose(t, b) })
	assert.Equal(t, string(want), string(exportOf(t, b, engram.ExportOptions{History: true})))
	// Writes after the backup are not in it.
	_, err = o.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "late", Content: "after the backup"})
	require.NoError(t, err)
	_, err = b.Get(ctx, "late")
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

// testBackupUnsupported: an engine that copies no whole database to a
// file says so: Backup returns ErrUnsupported and makes no file.
func testBackupUnsupported(t *testing.T, e Engine) {
	if e.Has(CapBackup) {
		t.Skipf("engine %s backs up (see Backup)", e.Name)
	}
	o := memory(t, e)
	seedKinds(t, o.m)
	dst := filepath.Join(t.TempDir(), "backup.db")
	assert.ErrorIs(t, o.m.Backup(context.Background(), dst), engram.ErrUnsupported)
	_, err := os.Stat(dst)
	assert.ErrorIs(t, err, os.ErrNotExist, "a refused backup makes no file")
}

// testBackupAgent: BackupAgent copies one agent of a store into a SQLite
// file of its own, on every engine: from its export where the database
// is shared.
func testBackupAgent(t *testing.T, e Engine) {
	ctx := context.Background()
	st, c := store(t, e)
	ada := agent(t, st, "ada")
	seedKinds(t, ada)
	_, err := agent(t, st, "bob").Semantic().Store(ctx, engram.SemanticEntry{Content: "bob's secret plan"})
	require.NoError(t, err)
	want := exportOf(t, ada, engram.ExportOptions{History: true})

	dst := filepath.Join(t.TempDir(), "ada.db")
	require.NoError(t, ada.BackupAgent(ctx, dst))
	assert.ErrorIs(t, ada.BackupAgent(ctx, dst), engram.ErrExists)
	agents, err := engram.ListAgents(ctx, engram.WithPath(dst))
	require.NoError(t, err)
	assert.Equal(t, []string{"ada"}, agents, "the copy holds ada alone")
	raw, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "secret plan")

	b, err := engram.New(engram.Tier1, engram.WithPath(dst), engram.WithAgent("ada"), engram.WithClock(c.Now))
	require.NoError(t, err)
	t.Cleanup(func() { checkAndClose(t, b) })
	assert.Equal(t, string(want), string(exportOf(t, b, engram.ExportOptions{History: true})))
}

// filesHold returns which of needles the database file at path and its
// write-ahead log hold.
func filesHold(t *testing.T, path string, needles ...string) []string {
	t.Helper()
	var found []string
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		for _, n := range needles {
			if bytes.Contains(b, []byte(n)) {
				found = append(found, n+" in "+filepath.Base(path)+suffix)
			}
		}
	}
	return found
}

func testSecureDelete(t *testing.T, e Engine) {
	e.require(t, CapSecureDelete)
	e.require(t, CapFile)
	ctx := context.Background()
	o := memory(t, e)
	path := o.m.Path()
	require.NotEmpty(t, path)
	_, err := o.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "v1", Content: "The vault code is zanzibar4417", Tags: []string{"vault"}})
	require.NoError(t, err)
	_, err = o.m.Episodic().Log(ctx, engram.Episode{ID: "v2", Content: "Opened the vault with quixotic9923", UserID: "mallory"})
	require.NoError(t, err)
	_, err = o.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "v3", Content: "Lunch is at noon"})
	require.NoError(t, err)
	require.NotEmpty(t, filesHold(t, path, "zanzibar4417", "quixotic9923"), "the files hold the text before")

	require.NoError(t, o.m.Forget(ctx, "v1"))
	n, err := o.m.ForgetUser(ctx, "mallory")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Empty(t, filesHold(t, path, "zanzibar4417", "quixotic9923"))
	assert.NotEmpty(t, filesHold(t, path, "Lunch is at noon"), "what was not forgotten stays")
}

func testForgetAgentDirectory(t *testing.T, e Engine) {
	e.require(t, CapAgentDir)
	ctx := context.Background()
	st, _ := store(t, e)
	ada := agent(t, st, "ada")
	bob := agent(t, st, "bob")
	seedKinds(t, ada)
	seedKinds(t, bob)
	dir := filepath.Dir(ada.Path())
	_, err := os.Stat(dir)
	require.NoError(t, err)

	require.NoError(t, ada.ForgetAgent(ctx))
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "ada's directory is gone: %v", err)
	_, err = os.Stat(bob.Path())
	assert.NoError(t, err, "bob's file stays")
}

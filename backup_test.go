package engram_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// TestBackupConcurrentWriters backs up a memory while 8 goroutines keep
// storing: the copy opens, passes CheckIntegrity and holds every write
// acknowledged before Backup began.
func TestBackupConcurrentWriters(t *testing.T) {
	needs(t, enginetest.CapBackup)
	const writers = 8
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	type ack struct {
		kind engram.MemoryType
		id   string
	}
	var (
		mu    sync.Mutex
		acked []ack
	)
	stop := make(chan struct{})
	var started sync.WaitGroup // every writer has had writes acknowledged
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := range writers {
		started.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			signalled := false
			for i := 0; ; i++ {
				select {
				case <-stop:
					if !signalled {
						started.Done()
					}
					return
				default:
				}
				var a ack
				var err error
				switch i % 3 {
				case 0:
					a.kind = engram.TypeSemantic
					a.id, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("writer %d note %d about the blue pipeline", w, i), Importance: 0.5})
				case 1:
					a.kind = engram.TypeEpisodic
					a.id, err = m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("writer %d deployed build %d", w, i), Type: engram.EventToolCall})
				default:
					a.kind = engram.TypeFact
					var as engram.Assertion
					as, err = m.Facts().Assert(ctx, engram.Fact{Subject: fmt.Sprintf("service %d-%d", w, i), Predicate: "runs on", Object: "host blue"})
					a.id = as.Fact.ID
				}
				if err != nil {
					failed.Store(err)
					if !signalled {
						started.Done()
					}
					return
				}
				mu.Lock()
				acked = append(acked, a)
				mu.Unlock()
				if i == 20 {
					started.Done()
					signalled = true
				}
			}
		}()
	}
	started.Wait()
	mu.Lock()
	before := slices.Clone(acked)
	mu.Unlock()

	dst := filepath.Join(t.TempDir(), "backup.db")
	err := m.Backup(ctx, dst)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if e := failed.Load(); e != nil {
		t.Fatalf("a writer failed: %v", e)
	}
	mu.Lock()
	total := len(acked)
	mu.Unlock()
	t.Logf("%d writes acknowledged before Backup, %d in all", len(before), total)
	if len(before) < writers*20 {
		t.Fatalf("only %d writes before Backup", len(before))
	}

	st, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if mode := st.Mode().Perm(); mode != 0o600 {
		t.Errorf("backup mode %v, want 0600", mode)
	}
	assertOnlyFile(t, filepath.Dir(dst), "backup.db")

	c, err := engram.New(engram.Tier1, engram.WithPath(dst))
	if err != nil {
		t.Fatalf("opening the copy: %v", err)
	}
	defer c.Close()
	if err := c.CheckIntegrity(ctx); err != nil {
		t.Fatalf("CheckIntegrity of the copy: %v", err)
	}
	for _, a := range before {
		var err error
		switch a.kind {
		case engram.TypeSemantic:
			_, err = c.Semantic().Get(ctx, a.id)
		case engram.TypeEpisodic:
			_, err = c.Episodic().Get(ctx, a.id)
		default:
			_, err = c.Facts().Get(ctx, a.id)
		}
		if err != nil {
			t.Fatalf("%s %s acknowledged before Backup: %v", a.kind, a.id, err)
		}
	}
	// The copy holds no write the source lacks.
	src, err := m.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Semantic > src.Semantic || got.Episodes > src.Episodes || got.Facts > src.Facts {
		t.Errorf("copy %+v holds more than the source %+v", got, src)
	}
}

// assertOnlyFile checks that dir holds the one file name: no temporary
// copy, -wal or -shm left behind.
func assertOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("%s holds %q, want only %q", dir, names, name)
	}
}

// TestBackupRefuses checks Backup's refusals: each changes nothing.
func TestBackupRefuses(t *testing.T) {
	needs(t, enginetest.CapBackup, enginetest.CapFile) // refuses the database's own files
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	m := openOn(t, fileDB(t, path), "default", engram.Tier1)
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "kept", Importance: 0.5}); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(t.TempDir(), "taken.db")
	if err := os.WriteFile(existing, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dst  string
		want error
	}{
		{"", engram.ErrInvalid},
		{path, engram.ErrInvalid},
		{path + "-wal", engram.ErrInvalid},
		{filepath.Join(dir, ".", "memory.db-shm"), engram.ErrInvalid},
		{filepath.Join(t.TempDir(), "no", "such", "dir", "b.db"), engram.ErrInvalid},
		{filepath.Join(notDir, "b.db"), engram.ErrInvalid},
		{existing, engram.ErrExists},
		{dir, engram.ErrExists},
	} {
		err := m.Backup(ctx, c.dst)
		if !errors.Is(err, c.want) {
			t.Errorf("Backup(%q) = %v, want %v", c.dst, err, c.want)
		}
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "mine" {
		t.Errorf("the existing file now holds %q, %v", b, err)
	}
	assertOnlyFile(t, filepath.Dir(existing), "taken.db")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	dst := filepath.Join(t.TempDir(), "b.db")
	if err := m.Backup(cancelled, dst); !errors.Is(err, context.Canceled) {
		t.Errorf("Backup with a cancelled context = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled Backup left %s: %v", dst, err)
	}

	closed := newMemory(t, engram.Tier1)
	closed.Close()
	if err := closed.Backup(ctx, filepath.Join(t.TempDir(), "b.db")); !errors.Is(err, engram.ErrClosed) {
		t.Errorf("Backup after Close = %v, want ErrClosed", err)
	}
}

// TestBackupInMemoryAndShared backs up an in-memory database, and a file
// shared by two agents (the copy holds both), at Tier 2 (vectors copied
// too).
func TestBackupInMemoryAndShared(t *testing.T) {
	sqliteOnly(t, "VACUUM INTO from SQLite's database in memory and from a shared file")
	ctx := context.Background()
	mem, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	id, err := mem.Semantic().Store(ctx, engram.SemanticEntry{Content: "only in RAM so far", Importance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	dst := newDB(t)
	if err := mem.Backup(ctx, dst.file(t)); err != nil {
		t.Fatalf("Backup of an in-memory database: %v", err)
	}
	c := openOn(t, dst, "default", engram.Tier1)
	if e, err := c.Semantic().Get(ctx, id); err != nil || e.Content != "only in RAM so far" {
		t.Fatalf("the copy's entry: %+v, %v", e, err)
	}

	path := newDB(t)
	emb, err := engram.NewHashingEmbedder(32)
	if err != nil {
		t.Fatal(err)
	}
	a := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(emb))
	b := openOn(t, path, "b", engram.Tier2, engram.WithEmbedder(emb))
	ida, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: "agent a knows this", Importance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	idb, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: "agent b knows that", Importance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	shared := newDB(t)
	if err := b.Backup(ctx, shared.file(t)); err != nil {
		t.Fatal(err)
	}
	for agent, id := range map[string]string{"a": ida, "b": idb} {
		c := openOn(t, shared, agent, engram.Tier2, engram.WithEmbedder(emb))
		if _, err := c.Semantic().Get(ctx, id); err != nil {
			t.Errorf("agent %s's entry in the copy: %v", agent, err)
		}
		res, err := c.Search(ctx, engram.SearchOptions{Query: "knows", Limit: 5})
		if err != nil || len(res) != 1 {
			t.Errorf("agent %s searches the copy: %v, %v", agent, res, err)
		}
	}
}

// TestBackupCopyWithoutWALLosesWrites shows what the README warns of:
// copying memory.db alone, while its last writes are still in the -wal,
// loses them; Backup does not.
func TestBackupCopyWithoutWALLosesWrites(t *testing.T) {
	sqliteOnly(t, "a plain copy of the file misses the write-ahead log")
	ctx := context.Background()
	path := newDB(t)
	m := openOn(t, path, "default", engram.Tier1)
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "written a moment ago", Importance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.db")
	copyFile(t, path.file(t), plain)
	p, err := engram.New(engram.Tier1, engram.WithPath(plain))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Semantic().Get(ctx, id); !errors.Is(err, engram.ErrNotFound) {
		t.Fatalf("a plain copy of memory.db found the last write (%v): the warning would not be needed", err)
	}
	backup := filepath.Join(dir, "backup.db")
	if err := m.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	c := openOn(t, fileDB(t, backup), "default", engram.Tier1)
	if _, err := c.Semantic().Get(ctx, id); err != nil {
		t.Fatalf("Backup lost the last write: %v", err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(dst.Sync(), dst.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestBackupRefusesADamagedCopy damages the derived data of the source
// (a term vector that no longer matches its text): the copy fails the
// check, Backup returns an error matching ErrCorrupt and leaves no file.
func TestBackupRefusesADamagedCopy(t *testing.T) {
	sqliteOnly(t, "raw SQL damages a term vector that VACUUM INTO's check finds")
	ctx := context.Background()
	path := newDB(t)
	m, err := engram.New(engram.Tier1, engram.WithPath(path.file(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "a term vector to damage", Importance: 0.5}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path.file(t))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `UPDATE semantic_memory SET terms = x'000000000100'`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = m.Backup(ctx, filepath.Join(dir, "b.db"))
	var dbe *engram.DatabaseError
	if !errors.Is(err, engram.ErrCorrupt) || !errors.As(err, &dbe) || dbe.Op != "backup" {
		t.Fatalf("Backup of a damaged database = %v, want a *DatabaseError matching ErrCorrupt", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed Backup left %v", ents)
	}
}

package engram_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/engram-go/engram"
)

const backupKillEnv = "ENGRAM_BACKUP_KILL_CHILD"

// TestBackupKillChild is the child process of TestBackupKilled: it backs
// the database up to the destination again and again (removing each
// finished copy) until it is killed.
func TestBackupKillChild(t *testing.T) {
	sqliteOnly(t, "a backup killed while it copies the file")
	env := os.Getenv(backupKillEnv)
	if env == "" {
		t.Skip("the child process of TestBackupKilled")
	}
	var s struct{ Src, Dst string }
	if err := json.Unmarshal([]byte(env), &s); err != nil {
		crashDie("settings: %v", err)
	}
	m, err := engram.New(engram.Tier1, engram.WithPath(s.Src), engram.WithAgent("writer"))
	if err != nil {
		crashDie("open: %v", err)
	}
	fmt.Println("running")
	for {
		if err := m.Backup(context.Background(), s.Dst); err != nil {
			crashDie("backup: %v", err)
		}
		if err := os.Remove(s.Dst); err != nil {
			crashDie("remove: %v", err)
		}
	}
}

// backupKilled starts a child that backs src up to dst in a loop, lets it
// run for a random while and kills it with SIGKILL.
func backupKilled(t *testing.T, rng *rand.Rand, src, dst string) {
	t.Helper()
	settings, _ := json.Marshal(struct{ Src, Dst string }{src, dst})
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackupKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), backupKillEnv+"="+string(settings))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "running" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child: %q, %v\n%s", line, err, stderr.String())
	}
	time.Sleep(time.Duration(30+rng.IntN(150)) * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the child ended before it was killed: %v\n%s", err, stderr.String())
	}
}

// strayCopies lists the temporary backup copies in dir (with or without
// the journal SQLite keeps beside one).
func strayCopies(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, ".*.backup-*"))
	if err != nil {
		t.Fatal(err)
	}
	var copies []string
	for _, f := range files {
		if c := strings.TrimSuffix(f, "-journal"); !slices.Contains(copies, c) {
			copies = append(copies, c)
		}
	}
	return copies
}

// filesHolding lists the files in dir whose bytes hold text.
func filesHolding(t *testing.T, dir, text string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(text)) {
			found = append(found, e.Name())
		}
	}
	return found
}

// TestBackupKilled kills a process mid-Backup, again and again, and holds
// engram to what a killed Backup may leave: its temporary copy (a whole
// copy of the database) never outlives the next Backup to the same
// destination, an open of the destination, or a Forget in the source,
// which must leave the forgotten text in no file.
func TestBackupKilled(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	sqliteOnly(t, "a backup killed while it copies the file")
	if testing.Short() {
		t.Skip("kills child processes")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "memory.db")
	dst := filepath.Join(dir, "out.db")
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(src))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(29, 1))
	// First, so that its page is among the first a copy writes.
	const secret = "the door code is 7741-secret-backup"
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: secret, Importance: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	// Large enough that a backup takes a good part of a second, so that a
	// kill lands in one.
	var entries []engram.SemanticEntry
	for i := range 3000 {
		entries = append(entries, engram.SemanticEntry{Content: crashText(rng, fmt.Sprint("entry ", i)) + " " + strings.Repeat("padding words for size ", 20), Importance: 0.5})
	}
	if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
		t.Fatal(err)
	}

	// 1. Each Backup to a destination removes the copies killed ones
	// left there: never more than one (the last kill's) at a time.
	stray := 0
	for i := range 6 {
		backupKilled(t, rng, src, dst)
		got := strayCopies(t, dir)
		if len(got) > 1 {
			t.Fatalf("after kill %d: %d temporary copies: %v", i+1, len(got), got)
		}
		stray += len(got)
	}
	if stray == 0 {
		t.Fatal("no kill landed in a backup: the test proves nothing")
	}

	// 2. Opening the destination removes what a killed Backup left for it.
	for len(strayCopies(t, dir)) == 0 {
		backupKilled(t, rng, src, dst)
	}
	d, err := engram.New(engram.Tier1, engram.WithPath(dst))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strayCopies(t, dir); len(got) > 0 {
		t.Fatalf("opening the destination left %v", got)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(dst + suffix)
	}

	// 3. Forget in the source, open all along, removes the copies its
	// killed backups left, and the forgotten text is in no file.
	for i := 0; !slices.ContainsFunc(filesHolding(t, dir, secret), func(f string) bool { return strings.HasPrefix(f, ".") }); i++ {
		if i == 20 {
			t.Fatal("no killed backup left a copy holding the text")
		}
		backupKilled(t, rng, src, dst)
	}
	if err := m.Forget(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := strayCopies(t, dir); len(got) > 0 {
		t.Errorf("Forget left %v", got)
	}
	if got := filesHolding(t, dir, secret); len(got) > 0 {
		t.Errorf("after Forget the forgotten text is still in %v", got)
	}

	// 4. A Backup after all that is whole, and holds no record of the
	// ones in progress.
	if err := m.Backup(ctx, dst); err != nil {
		t.Fatal(err)
	}
	b, err := engram.New(engram.Tier1, engram.WithPath(dst))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strayCopies(t, dir); len(got) > 0 {
		t.Errorf("after a whole Backup: %v", got)
	}
	if raw, err := os.ReadFile(dst); err != nil {
		t.Fatal(err)
	} else if bytes.Contains(raw, []byte("backup.pending:")) {
		t.Errorf("the backup holds the records of backups in progress")
	}
}

package engram_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/engram-go/engram"
)

// The fault tests run engram where the machine fails it: a file-size limit
// standing in for a full disk, a read-only mount, and damaged copies of a
// database. Like the crash test, the first two run a child process (this
// test binary again, running TestFaultChild) so that the limit or the
// mount applies to it alone.

const faultEnvChild = "ENGRAM_FAULT_CHILD"

type faultSettings struct {
	Kind  string // "diskfull" or "readonly"
	DB    string
	Limit uint64 // diskfull: RLIMIT_FSIZE in bytes
	Dir   string // readonly: the directory to mount read-only
}

// faultKind names the kind of err for reports: the engram sentinel it
// matches, or the type and SQLite result code it carries.
func faultKind(err error) string {
	if err == nil {
		return "nil"
	}
	for _, s := range []struct {
		err  error
		name string
	}{{engram.ErrInvalid, "ErrInvalid"}, {engram.ErrNotFound, "ErrNotFound"}, {engram.ErrExists, "ErrExists"},
		{engram.ErrClosed, "ErrClosed"}, {engram.ErrSchemaTooNew, "ErrSchemaTooNew"},
		{engram.ErrTierUnsupported, "ErrTierUnsupported"}, {engram.ErrEmbedding, "ErrEmbedding"},
		{engram.ErrInvalidQuery, "ErrInvalidQuery"}, {engram.ErrBadAnswer, "ErrBadAnswer"},
		{context.DeadlineExceeded, "DeadlineExceeded"}, {context.Canceled, "Canceled"}} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	var de *engram.DatabaseError
	if errors.As(err, &de) {
		var se *sqlite.Error
		if errors.As(err, &se) {
			return fmt.Sprintf("*DatabaseError(%s)", sqliteCodeName(se.Code()))
		}
		return "*DatabaseError(" + fmt.Sprintf("%T", de.Err) + ")"
	}
	return fmt.Sprintf("unnamed %T", err)
}

func sqliteCodeName(code int) string {
	names := map[int]string{
		sqlite3.SQLITE_FULL: "SQLITE_FULL", sqlite3.SQLITE_IOERR: "SQLITE_IOERR", sqlite3.SQLITE_CORRUPT: "SQLITE_CORRUPT",
		sqlite3.SQLITE_NOTADB: "SQLITE_NOTADB", sqlite3.SQLITE_READONLY: "SQLITE_READONLY", sqlite3.SQLITE_CANTOPEN: "SQLITE_CANTOPEN",
		sqlite3.SQLITE_BUSY: "SQLITE_BUSY", sqlite3.SQLITE_ERROR: "SQLITE_ERROR", sqlite3.SQLITE_RANGE: "SQLITE_RANGE",
		sqlite3.SQLITE_MISMATCH: "SQLITE_MISMATCH", sqlite3.SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT", sqlite3.SQLITE_NOMEM: "SQLITE_NOMEM",
	}
	if n, ok := names[code]; ok {
		return n
	}
	if n, ok := names[code&0xff]; ok {
		return fmt.Sprintf("%s/%d", n, code)
	}
	return fmt.Sprintf("code %d", code)
}

// TestFaultChild is the child process of the fault tests; run directly it
// does nothing.
func TestFaultChild(t *testing.T) {
	env := os.Getenv(faultEnvChild)
	if env == "" {
		t.Skip("the child process of TestDiskFull and TestReadOnlyFile")
	}
	var s faultSettings
	if err := json.Unmarshal([]byte(env), &s); err != nil {
		crashDie("settings: %v", err)
	}
	switch s.Kind {
	case "diskfull":
		faultDiskFullChild(s)
	case "readonly":
		faultReadOnlyChild(s)
	}
	os.Exit(0)
}

// faultDiskFullChild stores entries under a file-size limit until a store
// fails, printing "ack <id>" for each stored one and "fail <kind> <error>"
// for the first failure, then "fail2 <kind>" for one more store.
func faultDiskFullChild(s faultSettings) {
	signal.Ignore(syscall.SIGXFSZ) // writes past the limit fail with EFBIG instead of killing the process
	lim := syscall.Rlimit{Cur: s.Limit, Max: s.Limit}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		crashDie("setrlimit: %v", err)
	}
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(s.DB))
	if err != nil {
		fmt.Printf("openfail %s %v\n", faultKind(err), err)
		return
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 100000; n++ {
		id := fmt.Sprintf("full-%d", n)
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: crashText(rng, id) + strings.Repeat(" filler", 100), Importance: 0.5})
		if err == nil {
			fmt.Println("ack", id)
			continue
		}
		fmt.Printf("fail %s %v\n", faultKind(err), strings.ReplaceAll(err.Error(), "\n", " "))
		_, err = m.Episodic().Log(ctx, engram.Episode{Content: strings.Repeat("more ", 2000)})
		fmt.Printf("fail2 %s %v\n", faultKind(err), err)
		_, err = m.Semantic().Get(ctx, "full-0")
		fmt.Printf("get %s\n", faultKind(err))
		err = m.Close()
		fmt.Printf("close %s %v\n", faultKind(err), err)
		return
	}
	fmt.Println("nofail")
}

func faultChild(t *testing.T, s faultSettings, attr *syscall.SysProcAttr) []string {
	t.Helper()
	settings, _ := json.Marshal(s)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), faultEnvChild+"="+string(settings))
	cmd.SysProcAttr = attr
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if l := sc.Text(); !strings.HasPrefix(l, "PASS") && !strings.HasPrefix(l, "ok ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// faultSeed makes a small real database at path: semantic entries,
// episodes, a procedure, links and a snapshot. It returns the semantic IDs
// and contents.
func faultSeed(t *testing.T, path string, n int) map[string]string {
	t.Helper()
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	want := map[string]string{}
	for i := range n {
		id := fmt.Sprintf("seed-%03d", i)
		c := crashText(rng, "deploy "+id)
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: c, Importance: 0.3 + 0.5*rng.Float64(), Tags: []string{"ops", fmt.Sprint("t", i%5)}}); err != nil {
			t.Fatal(err)
		}
		want[id] = c
		if _, err := m.Episodic().Log(ctx, engram.Episode{Content: "episode " + c, SessionID: "s1", TaskID: "task"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Description: "how to deploy", Pattern: "build; ship"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Links().Add(ctx, engram.Link{SourceID: "seed-000", TargetID: "seed-001", Type: engram.LinkSupports}); err != nil {
		t.Fatal(err)
	}
	if err := m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s1", Summary: "deploy talk", Messages: []engram.Message{{Role: "user", Content: "we deploy on fridays"}}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestDiskFull stores under a file-size limit (RLIMIT_FSIZE, which needs
// no privileges) until the disk is "full": the failing write returns a
// named error, and afterwards the file is intact, usable and holds every
// acknowledged write.
func TestDiskFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	want := faultSeed(t, path, 20)
	var biggest int64
	for _, f := range []string{path, path + "-wal"} {
		if st, err := os.Stat(f); err == nil {
			biggest = max(biggest, st.Size())
		}
	}
	limit := uint64(biggest) + 512<<10
	lines := faultChild(t, faultSettings{Kind: "diskfull", DB: path, Limit: limit}, nil)
	acked := 0
	var fail string
	for _, l := range lines {
		switch f := strings.Fields(l); f[0] {
		case "ack":
			want[f[1]] = ""
			acked++
		case "openfail", "nofail":
			t.Fatalf("child: %s", l)
		case "fail":
			fail = l
			if !strings.HasPrefix(f[1], "*DatabaseError") && !strings.HasPrefix(f[1], "Err") {
				t.Errorf("a write on a full disk returned an unnamed error: %s", l)
			}
		}
	}
	t.Logf("limit %d bytes: %d stores acknowledged, then: %s", limit, acked, strings.Join(lines[acked:], " | "))
	if fail == "" {
		t.Fatal("no write failed")
	}

	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		t.Fatalf("New after the disk was full: %v", err)
	}
	defer m.Close()
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Errorf("CheckIntegrity after the disk was full: %v", err)
	}
	for id, c := range want {
		e, err := m.Semantic().Get(ctx, id)
		if err != nil {
			t.Errorf("acknowledged write %s lost: %v", id, err)
		} else if c != "" && e.Content != c {
			t.Errorf("%s holds %q, want %q", id, e.Content, c)
		}
	}
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "stored after the disk was full", Importance: 0.5})
	if err != nil {
		t.Fatalf("Store after the disk was full: %v", err)
	}
	if e, err := m.Semantic().Get(ctx, id); err != nil || e.Content != "stored after the disk was full" {
		t.Errorf("Get after the disk was full: %+v, %v", e, err)
	}
	if res, err := m.Search(ctx, engram.SearchOptions{Query: "stored after the disk was full"}); err != nil || len(res) == 0 || res[0].ID != id {
		t.Errorf("Search after the disk was full: %v, %v", res, err)
	}
}

// faultReadOnlyChild mounts s.Dir read-only (in its own mount namespace)
// and tries to use the database in it, printing what each call returns.
func faultReadOnlyChild(s faultSettings) {
	if err := syscall.Mount(s.Dir, s.Dir, "", syscall.MS_BIND, ""); err != nil {
		fmt.Println("nomount", err)
		return
	}
	if err := syscall.Mount("", s.Dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		fmt.Println("nomount", err)
		return
	}
	if f, err := os.OpenFile(s.DB, os.O_WRONLY, 0); err == nil {
		f.Close()
		fmt.Println("nomount the file is still writable")
		return
	}
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(s.DB))
	fmt.Printf("new %s %v\n", faultKind(err), err)
	if err != nil {
		return
	}
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "written to a read-only file", Importance: 0.5})
	fmt.Printf("store %s %v\n", faultKind(err), err)
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: "logged to a read-only file"})
	fmt.Printf("log %s %v\n", faultKind(err), err)
	e, err := m.Semantic().Get(ctx, "seed-003")
	fmt.Printf("get %s %q\n", faultKind(err), e.Content)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy"})
	fmt.Printf("search %s %d\n", faultKind(err), len(res))
	fmt.Printf("close %s\n", faultKind(m.Close()))
}

// TestReadOnlyFile opens a database in a directory mounted read-only: the
// process cannot write the file, whatever its permissions (file modes do
// not stop root, a read-only mount does). Writes fail with a named error,
// and the file is unchanged. The mount needs CAP_SYS_ADMIN; the child
// makes it in a mount namespace of its own, so nothing outlives it.
func TestReadOnlyFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a read-only bind mount needs root (CAP_SYS_ADMIN)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	want := faultSeed(t, path, 10)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := faultChild(t, faultSettings{Kind: "readonly", DB: path, Dir: dir}, &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS})
	t.Logf("on a read-only mount: %s", strings.Join(lines, " | "))
	if len(lines) == 0 || strings.HasPrefix(lines[0], "nomount") {
		t.Skipf("cannot mount read-only here: %v", lines)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		switch f[0] {
		case "new", "store", "log":
			if f[1] == "nil" && f[0] != "new" {
				t.Errorf("%s succeeded on a read-only file", f[0])
			}
			if f[1] != "nil" && !strings.HasPrefix(f[1], "*DatabaseError") && !strings.HasPrefix(f[1], "Err") {
				t.Errorf("%s on a read-only file returned an unnamed error: %s", f[0], l)
			}
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("the read-only file changed")
	}
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Errorf("CheckIntegrity: %v", err)
	}
	for id, c := range want {
		if e, err := m.Semantic().Get(ctx, id); err != nil || e.Content != c {
			t.Errorf("Get(%s) = %q, %v; want %q", id, e.Content, err, c)
		}
	}
}

// TestDamagedCopies opens 100 bit-flipped or truncated copies of a small
// real database and makes every call on each: each returns an error or
// data, never panics or hangs. A hang (no answer in a minute) fails the
// test; a panic ends the test binary.
func TestDamagedCopies(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.db")
	want := faultSeed(t, orig, 40)
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rng := rand.New(rand.NewPCG(12, 12))
	kinds := map[string]int{}
	var silent, opened int
	for i := range 100 {
		cp := slices.Clone(data)
		var how string
		if i%2 == 0 {
			flips := 1 + rng.IntN(32)
			lo := 0
			if i%4 == 0 {
				lo = 100 // past the header, so that the pages themselves are hit
			}
			for range flips {
				p := lo + rng.IntN(len(cp)-lo)
				cp[p] ^= 1 << rng.IntN(8)
			}
			how = fmt.Sprintf("%d bits flipped", flips)
		} else {
			n := rng.IntN(len(cp))
			cp = cp[:n]
			how = fmt.Sprintf("truncated to %d of %d bytes", n, len(data))
		}
		path := filepath.Join(dir, fmt.Sprintf("copy%03d.db", i))
		if err := os.WriteFile(path, cp, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		done := make(chan []string, 1)
		go func() { done <- damagedCalls(ctx, path, ids, want) }()
		select {
		case got := <-done:
			for _, g := range got {
				k, detail, _ := strings.Cut(g, "=")
				kinds[k]++
				switch {
				case k == "opened":
					opened++
				case k == "detail":
					t.Logf("copy %d (%s): %s", i, how, detail)
				case k == "silent":
					silent++
					t.Logf("copy %d (%s): %s", i, how, detail)
				case k == "misreported":
					t.Errorf("copy %d (%s): %s", i, how, detail)
				case strings.HasPrefix(k, "unnamed"):
					t.Errorf("copy %d (%s): an unnamed error: %s", i, how, g)
				}
			}
		case <-time.After(90 * time.Second):
			t.Fatalf("copy %d (%s): the calls hang", i, how)
		}
		cancel()
		os.Remove(path)
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
	}
	var ks []string
	for k, n := range kinds {
		ks = append(ks, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(ks)
	t.Logf("100 damaged copies, %d opened; %d reads returned data that differs from what was stored without an error; results by kind: %s",
		opened, silent, strings.Join(ks, ", "))
}

// damagedCalls makes every call on the database at path and returns, for
// each, the kind of what it returned ("nil" for success), "opened" once
// New succeeded, and "silent=<detail>" for data that came back wrong
// without an error (SQLite keeps no checksums: a flipped bit inside a
// stored text reads back as another text).
func damagedCalls(ctx context.Context, path string, ids []string, want map[string]string) []string {
	var out []string
	note := func(call string, err error) {
		out = append(out, call+":"+faultKind(err))
		if k := faultKind(err); strings.Contains(k, "(*") || k == "ErrInvalidQuery" {
			out = append(out, fmt.Sprintf("detail=%s: %v", call, err))
		}
	}
	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	note("New", err)
	if err != nil {
		return out
	}
	out = append(out, "opened")
	res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy amber"})
	note("Search", err)
	for _, r := range res {
		if c, ok := want[r.ID]; ok && r.Type == engram.TypeSemantic && r.Content != c {
			out = append(out, fmt.Sprintf("silent=Search %s: %q", r.ID, r.Content))
		}
	}
	_, err = m.Search(ctx, engram.SearchOptions{Query: `"deploy" AND seed*`, Advanced: true, Tags: []string{"ops"}})
	note("SearchAdvanced", err)
	if errors.Is(err, engram.ErrInvalidQuery) {
		// The expression is valid (it runs on the intact file): a damaged
		// file must not be blamed on the caller's query.
		out = append(out, fmt.Sprintf("misreported=SearchAdvanced of a valid expression: %v", err))
	}
	for _, id := range ids[:5] {
		e, err := m.Semantic().Get(ctx, id)
		note("Get", err)
		if err == nil && e.Content != want[id] {
			out = append(out, fmt.Sprintf("silent=Get %s: %q", id, e.Content))
		}
	}
	_, err = m.Semantic().List(ctx, engram.ListOptions{})
	note("List", err)
	_, err = m.Episodic().Recent(ctx, 10)
	note("Recent", err)
	_, err = m.Bootstrap(ctx)
	note("Bootstrap", err)
	_, err = m.Stats(ctx)
	note("Stats", err)
	note("Flush", m.Flush(ctx))
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "stored in a damaged copy", Importance: 0.5})
	note("Store", err)
	_, err = m.Compact(ctx)
	note("Compact", err)
	note("CheckIntegrity", m.CheckIntegrity(ctx))
	note("Close", m.Close())
	return out
}

// TestImmutableFile opens a database whose file is immutable (chattr +i,
// which stops root too) in a writable directory, so that SQLite opens it
// read-only: writes fail with a named error, reads work, and the file is
// unchanged.
func TestImmutableFile(t *testing.T) {
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("no chattr here")
	}
	path := filepath.Join(t.TempDir(), "memory.db")
	want := faultSeed(t, path, 10)
	if out, err := exec.Command(chattr, "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i does not work here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", path).Run() })
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		f.Close()
		t.Skip("the immutable file is still writable")
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		if k := faultKind(err); !strings.HasPrefix(k, "*DatabaseError") && !strings.HasPrefix(k, "Err") {
			t.Fatalf("New on an immutable file returned an unnamed error: %s %v", k, err)
		}
		t.Logf("New on an immutable file: %s %v", faultKind(err), err)
	} else {
		_, serr := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "written to an immutable file", Importance: 0.5})
		_, lerr := m.Episodic().Log(ctx, engram.Episode{Content: "logged to an immutable file"})
		e, gerr := m.Semantic().Get(ctx, "seed-003")
		res, rerr := m.Search(ctx, engram.SearchOptions{Query: "deploy"})
		cerr := m.Close()
		t.Logf("on an immutable file: Store %s (%v), Log %s, Get %s, Search %s (%d results), Close %s",
			faultKind(serr), serr, faultKind(lerr), faultKind(gerr), faultKind(rerr), len(res), faultKind(cerr))
		for name, err := range map[string]error{"Store": serr, "Log": lerr} {
			if k := faultKind(err); k == "nil" {
				t.Errorf("%s succeeded on an immutable file", name)
			} else if !strings.HasPrefix(k, "*DatabaseError") && !strings.HasPrefix(k, "Err") {
				t.Errorf("%s on an immutable file returned an unnamed error: %s %v", name, k, err)
			}
		}
		if gerr != nil || e.Content != want["seed-003"] {
			t.Errorf("Get on an immutable file: %q, %v", e.Content, gerr)
		}
		if rerr != nil {
			t.Errorf("Search on an immutable file: %v", rerr)
		}
		if cerr != nil {
			t.Errorf("Close failed for want of writing the search's access counts: %v", cerr)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("the immutable file changed")
	}
	if out, err := exec.Command(chattr, "-i", path).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	m, err = engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		t.Fatalf("New once writable again: %v", err)
	}
	defer m.Close()
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Errorf("CheckIntegrity: %v", err)
	}
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "stored once writable again", Importance: 0.5}); err != nil {
		t.Errorf("Store once writable again: %v", err)
	}
}

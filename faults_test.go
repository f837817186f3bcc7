package engram_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
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
	"strconv"
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
		{engram.ErrInvalidQuery, "ErrInvalidQuery"}, {engram.ErrBadAnswer, "ErrBadAnswer"}, {engram.ErrReadOnly, "ErrReadOnly"},
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
	sqliteOnly(t, "the fault tests' child process")
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
	sqliteOnly(t, "a full disk under the file")
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
// and uses the database in it, printing what each call returns: first
// "new", "readonly" and the writes, then faultReads' lines, then "bytes"
// (the file's SHA-256 after everything) and "close".
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
	m, err := engram.New(engram.Tier1, engram.WithPath(s.DB), engram.WithClock(faultClock))
	fmt.Printf("new %s %v\n", faultKind(err), err)
	if err != nil {
		return
	}
	fmt.Println("readonly", m.ReadOnly())
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "written to a read-only file", Importance: 0.5})
	fmt.Printf("store %s %v\n", faultKind(err), err)
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: "logged to a read-only file"})
	fmt.Printf("log %s %v\n", faultKind(err), err)
	err = m.Links().Add(ctx, engram.Link{SourceID: "seed-002", TargetID: "seed-003", Type: engram.LinkSupports})
	fmt.Printf("link %s %v\n", faultKind(err), err)
	_, err = m.Compact(ctx)
	fmt.Printf("compact %s %v\n", faultKind(err), err)
	for _, l := range faultReads(ctx, m) {
		fmt.Println(l)
	}
	closeErr := m.Close()
	fmt.Println("bytes", faultSum(s.DB))
	fmt.Printf("close %s\n", faultKind(closeErr))
}

// faultClock is the clock of both sides of TestReadOnlyFile, so that
// their searches rank alike and their exports' headers are the same.
func faultClock() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) }

// faultSum returns the SHA-256 of the file at path, in hex.
func faultSum(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// faultReads makes the reads TestReadOnlyFile compares between a Memory
// on the read-only mount and one on the same file where it can be
// written, one line each: what each read returns (a digest of anything
// long). The reads that note accesses and retrievals come last, so that
// a writable Memory's notes change nothing the others return.
func faultReads(ctx context.Context, m *engram.Memory) []string {
	var out []string
	add := func(name string, err error, v any) {
		out = append(out, fmt.Sprintf("%s %s %v", name, faultKind(err), v))
	}
	digest := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s)))[:16] }

	var buf bytes.Buffer
	err := m.Export(ctx, &buf, engram.ExportOptions{})
	add("export", err, digest(buf.String()))
	e, err := m.Semantic().Get(ctx, "seed-003")
	add("get", err, strconv.Quote(e.Content))
	list, err := m.Semantic().List(ctx, engram.ListOptions{})
	add("list", err, len(list))
	st, err := m.Stats(ctx)
	add("stats", err, fmt.Sprintf("%+v", st))
	b, err := m.Bootstrap(ctx)
	if b == nil {
		b = &engram.BootstrapResult{}
	}
	add("bootstrap", err, fmt.Sprintf("%s %d %d", digest(b.SemanticContext), len(b.RecentEpisodes), len(b.ActiveProcedures)))
	hist, err := m.History(ctx, "seed-003")
	add("history", err, len(hist))
	links, err := m.Links().For(ctx, "seed-000")
	add("links", err, len(links))
	facts, err := m.Facts().Current(ctx, engram.FactQuery{Entity: "Ada"})
	add("facts", err, len(facts))
	g, err := m.Facts().Graph(ctx, engram.GraphOptions{Center: "Ada"})
	add("graph", err, fmt.Sprintf("%d %d", len(g.Nodes), len(g.Edges)))
	add("integrity", m.CheckIntegrity(ctx), "")
	backup := filepath.Join(os.TempDir(), fmt.Sprintf("engram-readonly-%d.db", os.Getpid()))
	err = m.Backup(ctx, backup)
	os.Remove(backup)
	add("backup", err, "")
	res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy"})
	var ids []string
	for _, r := range res {
		ids = append(ids, r.ID)
	}
	add("search", err, ids)
	rec, err := m.Recall(ctx, "deploy")
	add("recall", err, len(rec.Admitted))
	c, err := m.Context(ctx, engram.ContextOptions{Query: "deploy"})
	add("context", err, digest(c.Text))
	return out
}

// TestReadOnlyFile opens a database in a directory mounted read-only: the
// process cannot write the file, whatever its permissions (file modes do
// not stop root, a read-only mount does). New opens it read-only by
// itself; every read returns what a Memory on the writable file returns,
// every write fails with ErrReadOnly, and the file is unchanged. The
// mount needs CAP_SYS_ADMIN; the child makes it in a mount namespace of
// its own, so nothing outlives it.
//
// In "closed", the file was closed cleanly: it is all there is (SQLite
// removed its -wal and -shm). In "live", a Memory of this process holds
// it open, its last write still in the -wal beside it: the child reads
// that write too.
func TestReadOnlyFile(t *testing.T) {
	sqliteOnly(t, "a read-only mount under the file")
	if os.Geteuid() != 0 {
		t.Skip("a read-only bind mount needs root (CAP_SYS_ADMIN)")
	}
	t.Run("closed", func(t *testing.T) { testReadOnlyMount(t, false) })
	t.Run("live", func(t *testing.T) { testReadOnlyMount(t, true) })
}

func testReadOnlyMount(t *testing.T, live bool) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	want := faultSeed(t, path, 10)
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.WithPath(path), engram.WithClock(faultClock))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Facts().Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "London"}); err != nil {
		t.Fatal(err)
	}
	if live {
		want["seed-003"] = "deploy seed-003 changed, the change still in the log"
		if _, err := m.Semantic().Update(ctx, "seed-003", engram.SemanticPatch{Content: new(want["seed-003"])}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
			t.Fatalf("no write-ahead log to read: %v, %v", fi, err)
		}
	} else if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	before := faultSum(path)

	lines := faultChild(t, faultSettings{Kind: "readonly", DB: path, Dir: dir}, &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS})
	t.Logf("on a read-only mount: %s", strings.Join(lines, " | "))
	if len(lines) == 0 || strings.HasPrefix(lines[0], "nomount") {
		t.Skipf("cannot mount read-only here: %v", lines)
	}
	got := map[string]string{}
	var reads []string
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, " ")
		got[name] = rest
		if !slices.Contains([]string{"new", "readonly", "store", "log", "link", "compact", "bytes", "close"}, name) {
			reads = append(reads, l)
		}
	}
	if !strings.HasPrefix(got["new"], "nil") {
		t.Fatalf("New on a read-only mount: %s", got["new"])
	}
	if got["readonly"] != "true" {
		t.Errorf("ReadOnly() = %s, want true", got["readonly"])
	}
	for _, w := range []string{"store", "log", "link", "compact"} {
		if !strings.HasPrefix(got[w], "ErrReadOnly ") {
			t.Errorf("%s on a read-only mount returned %q, want an error matching ErrReadOnly", w, got[w])
		}
	}
	if got["close"] != "nil" {
		t.Errorf("Close on a read-only mount: %s", got["close"])
	}
	if got["bytes"] != before {
		t.Errorf("the file changed on the read-only mount")
	}
	if after := faultSum(path); after != before {
		t.Errorf("the read-only file changed")
	}
	if want := strconv.Quote(want["seed-003"]); got["get"] != "nil "+want {
		t.Errorf("Get on a read-only mount: %s, want nil %s", got["get"], want)
	}

	// The same reads where the file can be written return the same.
	if !live {
		m, err = engram.New(engram.Tier1, engram.WithPath(path), engram.WithClock(faultClock))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
	}
	if m.ReadOnly() {
		t.Errorf("ReadOnly() on a writable file = true")
	}
	wantReads := faultReads(ctx, m)
	if !slices.Equal(reads, wantReads) {
		t.Errorf("reads on a read-only mount:\n%s\nwhere it can be written:\n%s", strings.Join(reads, "\n"), strings.Join(wantReads, "\n"))
	}
	for _, l := range wantReads {
		if f := strings.Fields(l); f[1] != "nil" {
			t.Errorf("%s failed where the file can be written", l)
		}
	}
}

// TestDamagedCopies opens 100 bit-flipped or truncated copies of a small
// real database and makes every call on each: each returns an error or
// data, never panics or hangs. A hang (no answer in a minute) fails the
// test; a panic ends the test binary.
func TestDamagedCopies(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	sqliteOnly(t, "damaged database files")
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
	sqliteOnly(t, "an immutable database file")
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

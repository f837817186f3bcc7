package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/pgtest"
)

// TestExportImportAcrossEngines moves an agent's memory from a SQLite
// file to PostgreSQL and back with the command ("engram export", then
// "engram --postgres DSN import", and the same the other way), and
// requires each export to be the first one to the byte, but for the
// header's time: every memory, fact, link and history entry with its IDs
// and fields.
func TestExportImportAcrossEngines(t *testing.T) {
	exe := requireEngram(t)
	dsn := pgtest.NewDatabase(t).DSN
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "ENGRAM_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("engram %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	src := filepath.Join(dir, "src.db")
	run("--path", src, "add", "semantic", "Ada prefers tea over coffee", "--tags", "drinks,ada", "--importance", "0.8")
	id := strings.TrimSpace(run("--path", src, "add", "semantic", "The deploy runs from CI only"))
	run("--path", src, "add", "episodic", "talked about the trip to Lisbon", "--session", "s1")
	run("--path", src, "add", "fact", "Ada", "lives in", "Lisbon")
	run("--path", src, "add", "procedural", "--name", "deploy", "--pattern", "build", "--pattern", "ship")
	run("--path", src, "update", id, "--content", "The deploy runs from CI only, on weekdays")
	run("--path", src, "export", "-o", "a.jsonl", "--history")

	run("--postgres", dsn, "import", "a.jsonl")
	run("--postgres", dsn, "export", "-o", "b.jsonl", "--history")
	back := filepath.Join(dir, "back.db")
	run("--path", back, "import", "b.jsonl")
	run("--path", back, "export", "-o", "c.jsonl", "--history")

	body := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := bytes.Cut(b, []byte("\n")) // the header holds the time of the export
		if !ok || len(rest) == 0 {
			t.Fatalf("%s holds no record:\n%s", name, b)
		}
		return rest
	}
	a := body("a.jsonl")
	for _, name := range []string{"b.jsonl", "c.jsonl"} {
		if got := body(name); !bytes.Equal(got, a) {
			t.Errorf("%s differs from the SQLite export:\n%s\nwant:\n%s", name, got, a)
		}
	}
	if n := bytes.Count(a, []byte("\n")); n < 8 {
		t.Errorf("the export holds %d records: want every memory, the fact and the history", n)
	}
}

package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStartWithoutBinaries: where the binaries are absent, start says so
// with ErrNoPostgres (the skip reason) and makes no directory.
func TestStartWithoutBinaries(t *testing.T) {
	old := binDir
	binDir = filepath.Join(t.TempDir(), "absent")
	defer func() { binDir = old }()
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "engram-pgtest-*"))
	if err := start(); !errors.Is(err, ErrNoPostgres) {
		t.Fatalf("start() = %v, want ErrNoPostgres", err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "engram-pgtest-*"))
	if len(after) != len(before) {
		t.Fatalf("start() without binaries left a directory: %v", after)
	}
}

// TestRequireSkips: a test that asks for a database where the binaries
// are absent is skipped, not failed.
func TestRequireSkips(t *testing.T) {
	if !skipped(t, func(t testing.TB) { requireErr(t, ErrNoPostgres) }) {
		t.Fatal("a test without binaries was not skipped")
	}
}

// skipped runs f in a subtest and reports whether it was skipped.
func skipped(t *testing.T, f func(testing.TB)) bool {
	var s bool
	t.Run("sub", func(t *testing.T) {
		defer func() { s = t.Skipped() }()
		f(t)
	})
	return s
}

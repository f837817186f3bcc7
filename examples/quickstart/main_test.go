package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickstartRemembersOutsideTheWorkingTree runs the quickstart twice
// with -dir: the second run remembers the first, and the working
// directory gets no .engram.
func TestQuickstartRemembersOutsideTheWorkingTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	t.Chdir(t.TempDir())
	run := func() string {
		out, err := os.CreateTemp(t.TempDir(), "stdout")
		if err != nil {
			t.Fatal(err)
		}
		stdout := os.Stdout
		os.Stdout = out
		defer func() { os.Stdout = stdout }()
		ctx := context.Background()
		if err := firstSession(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if err := secondSession(ctx, dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if first := run(); strings.Contains(first, "already known") {
		t.Errorf("the first run knew something already:\n%s", first)
	}
	if second := run(); !strings.Contains(second, "already known: user-name") {
		t.Errorf("the second run does not remember the first:\n%s", second)
	}
	if _, err := os.Stat(filepath.Join(dir, agent, "memory.db")); err != nil {
		t.Errorf("no memory in -dir: %v", err)
	}
	if _, err := os.Stat(".engram"); !os.IsNotExist(err) {
		t.Errorf("the quickstart made .engram in the working directory: %v", err)
	}
}

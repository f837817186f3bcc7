// Package testutil opens engram memories for tests and checks them
// afterwards.
package testutil

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
)

// Open opens a Tier 1 memory in a new directory under t.TempDir() (WAL
// needs a real file). When the test ends it runs SQLite's integrity check
// and the FTS5 integrity checks, failing the test on any problem, then
// closes the memory. A memory the test closed itself is reopened for the
// check.
func Open(t testing.TB, opts ...engram.Option) *engram.Memory {
	t.Helper()
	return open(t, engram.Tier1, engram.WithDir(t.TempDir()), opts)
}

// OpenTier2 opens a Tier 2 memory with embedder e in a new directory
// under t.TempDir(), with the same checks as Open.
func OpenTier2(t testing.TB, e engram.Embedder, opts ...engram.Option) *engram.Memory {
	t.Helper()
	return open(t, engram.Tier2, engram.WithDir(t.TempDir()), append([]engram.Option{engram.WithEmbedder(e)}, opts...))
}

// OpenPath opens a Tier 1 memory for agent on the database file at path,
// with the same checks as Open.
func OpenPath(t testing.TB, path, agent string, opts ...engram.Option) *engram.Memory {
	t.Helper()
	return open(t, engram.Tier1, engram.WithPath(path), append([]engram.Option{engram.WithAgent(agent)}, opts...))
}

// OpenTier2Path opens a Tier 2 memory for agent on the database file at
// path with embedder e, with the same checks as Open.
func OpenTier2Path(t testing.TB, path, agent string, e engram.Embedder, opts ...engram.Option) *engram.Memory {
	t.Helper()
	return open(t, engram.Tier2, engram.WithPath(path), append([]engram.Option{engram.WithAgent(agent), engram.WithEmbedder(e)}, opts...))
}

// open opens a memory of tier at where, with opts after it, and checks
// and closes it when the test ends.
func open(t testing.TB, tier engram.Tier, where engram.Option, opts []engram.Option) *engram.Memory {
	t.Helper()
	m, err := engram.New(tier, append([]engram.Option{where}, opts...)...)
	if err != nil {
		t.Fatalf("engram.New(%s): %v", tier, err)
	}
	t.Cleanup(func() { CheckAndClose(t, m) })
	return m
}

// CheckAndClose checks the integrity of m's database and closes it.
func CheckAndClose(t testing.TB, m *engram.Memory) {
	t.Helper()
	ctx := context.Background()
	err := m.CheckIntegrity(ctx)
	if errors.Is(err, engram.ErrClosed) && m.Path() != "" {
		again, openErr := engram.New(engram.Tier1, engram.WithPath(m.Path()), engram.WithAgent(m.AgentID()))
		if openErr != nil {
			t.Errorf("reopening %s for the integrity check: %v", m.Path(), openErr)
			return
		}
		defer again.Close()
		err = again.CheckIntegrity(ctx)
	} else if errors.Is(err, engram.ErrClosed) {
		return // an in-memory database is gone once closed
	}
	if err != nil {
		t.Errorf("integrity check of %s: %v", m.Path(), err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TempDB returns a path for a database file in a new temporary directory.
func TempDB(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "memory.db")
}

// Clock is a settable clock for engram.WithClock. It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads t until moved.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

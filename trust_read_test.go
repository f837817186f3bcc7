package engram_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// An Advanced expression is bounded: the audit's 1,000 × "w" against an
// entry of 3,000 × "w" took 10 s; it is now refused at once.
func TestAdvancedExpressionsAreBounded(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: strings.Repeat("w ", 3000), Importance: 0.5})
	require.NoError(t, err)
	for _, q := range []string{
		strings.TrimSpace(strings.Repeat("w ", 1000)),
		strings.TrimSpace(strings.Repeat("w ", engram.MaxAdvancedTerms+1)),
		strings.Repeat("w", engram.MaxAdvancedBytes+1),
	} {
		_, err := m.Search(ctx, engram.SearchOptions{Query: q, Advanced: true})
		assert.ErrorIs(t, err, engram.ErrInvalidQuery, "%d bytes", len(q))
	}
	res, err := m.Search(ctx, engram.SearchOptions{Query: strings.TrimSpace(strings.Repeat("w ", engram.MaxAdvancedTerms)), Advanced: true})
	require.NoError(t, err)
	assert.Len(t, res, 1)
}

// No read, however long, makes a write wait: reads run on reader
// connections in a transaction of their own.
func TestWritesDoNotWaitForReads(t *testing.T) {
	needs(t, enginetest.CapSnapshotReads)
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() { held <- engram.HoldRead(m, started, release) }()
	<-started

	stored := make(chan error, 1)
	go func() {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "written while a read runs", Importance: 0.5})
		stored <- err
	}()
	select {
	case err := <-stored:
		require.NoError(t, err)
	case <-time.After(30 * time.Second): // a hang detector, not a speed limit
		close(release)
		t.Fatal("the write waited for the read")
	}
	close(release)
	require.NoError(t, <-held)
}

// A search whose context ends returns the context's error, never a part
// of its results with a nil error.
func TestCancelledSearchReturnsTheContextError(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the deploy runs on fridays", Importance: 0.5})
	require.NoError(t, err)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	res, err := m.Search(cancelled, engram.SearchOptions{Query: "deploy"})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, res)
	err = m.CheckIntegrity(cancelled)
	assert.ErrorIs(t, err, context.Canceled)
}

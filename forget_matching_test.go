package engram_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// TestForgetMatching erases what a filter matches (a session's memories
// with a metadata condition), as Forget erases each: the rows and their
// bytes, with one forget entry of history each; what the filter does not
// match stays, and an empty or bad filter erases nothing.
func TestForgetMatching(t *testing.T) {
	path := newDB(t)
	m := openOn(t, path, "ada", engram.Tier1)
	ctx := context.Background()
	const secret, kept = "brambleferry", "copperwillow"
	store := func(e engram.SemanticEntry) string {
		t.Helper()
		id, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
		return id
	}
	a := store(engram.SemanticEntry{Content: "draft of " + secret, SessionID: "run-1", Metadata: map[string]any{"stage": "draft"}})
	ep, err := m.Episodic().Log(ctx, engram.Episode{Content: "run-1 noted " + secret, SessionID: "run-1", Metadata: map[string]string{"stage": "draft"}})
	require.NoError(t, err)
	final := store(engram.SemanticEntry{Content: "final of " + kept, SessionID: "run-1", Metadata: map[string]any{"stage": "final"}})
	other := store(engram.SemanticEntry{Content: "draft of " + kept + " in another run", SessionID: "run-2", Metadata: map[string]any{"stage": "draft"}})

	_, err = m.ForgetMatching(ctx, engram.Filter{})
	require.ErrorIs(t, err, engram.ErrInvalid, "an empty filter matches everything")
	_, err = m.ForgetMatching(ctx, engram.Filter{SessionID: "run-1", Metadata: &engram.MetaCond{Op: engram.MetaOpEq, Key: "stage"}})
	require.ErrorIs(t, err, engram.ErrInvalid, "a condition without its value")
	all, err := m.List(ctx, engram.MemoryQuery{})
	require.NoError(t, err)
	require.Len(t, all.Records, 4, "nothing erased on bad input")

	n, err := m.ForgetMatching(ctx, engram.Filter{SessionID: "run-1", Metadata: engram.MetaEq("stage", "draft")})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	for _, id := range []string{a, ep} {
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		require.Len(t, h, 1, id)
		assert.Equal(t, engram.OpForget, h[0].Op)
	}
	for _, id := range []string{final, other} {
		_, err := m.Get(ctx, id)
		assert.NoError(t, err, "not matched: stays")
	}
	assert.Empty(t, fileHolds(t, path.file(t), secret), "the forgotten text is in no file")
	assert.NotEmpty(t, fileHolds(t, path.file(t), kept))
	n, err = m.ForgetMatching(ctx, engram.Filter{SessionID: "run-1", Metadata: engram.MetaEq("stage", "draft")})
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to match")
	require.NoError(t, m.CheckIntegrity(ctx))
}

// TestForgetMatchingKeepsTheSameIDOfAnotherKind: IDs are the caller's to
// give, and two kinds may hold one; erasing what a filter matches erases
// the matching memory of its kind, not another user's memory of another
// kind that has the same ID.
func TestForgetMatchingKeepsTheSameIDOfAnotherKind(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "x1", Content: "bob's note", UserID: "bob"})
	require.NoError(t, err)
	_, err = m.Episodic().Log(ctx, engram.Episode{ID: "x1", Content: "alice's event", UserID: "alice"})
	require.NoError(t, err)
	n, err := m.ForgetMatching(ctx, engram.Filter{UserID: "alice"})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	e, err := m.Semantic().Get(ctx, "x1")
	require.NoError(t, err, "bob's note stays")
	assert.Equal(t, "bob's note", e.Content)
	_, err = m.Episodic().Get(ctx, "x1")
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

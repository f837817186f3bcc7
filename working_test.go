package engram_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func ids(items []engram.WorkingItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func fill(t *testing.T, w *engram.Working, imps ...float64) {
	t.Helper()
	for i, imp := range imps {
		ev, err := w.Add(engram.WorkingItem{ID: string(rune('a' + i)), Content: "item " + string(rune('a'+i)), Importance: imp})
		require.NoError(t, err)
		require.Empty(t, ev)
	}
}

func TestWorkingFIFO(t *testing.T) {
	m := newMemory(t, engram.Tier1, engram.WithWorkingCapacity(3), engram.WithEviction(engram.EvictFIFO))
	w := m.Working()
	fill(t, w, 0.5, 0.5, 0.5)
	_, err := w.Get("a") // use does not matter to FIFO
	require.NoError(t, err)
	ev, err := w.Add(engram.WorkingItem{ID: "d", Content: "item d", Importance: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, ids(ev))
	items, err := w.Items()
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "c", "b"}, ids(items), "newest first")
}

func TestWorkingLRUTracksUse(t *testing.T) {
	m := newMemory(t, engram.Tier1, engram.WithWorkingCapacity(3), engram.WithEviction(engram.EvictLRU))
	w := m.Working()
	fill(t, w, 0.5, 0.5, 0.5)

	// a is used by Get, b by Find: c is now the least recently used.
	_, err := w.Get("a")
	require.NoError(t, err)
	found, err := w.Find("ITEM B")
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, ids(found), "Find ignores case")

	ev, err := w.Add(engram.WorkingItem{ID: "d", Content: "item d", Importance: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, ids(ev))

	// Items does not count as use: a is now the oldest use.
	_, err = w.Items()
	require.NoError(t, err)
	ev, err = w.Add(engram.WorkingItem{ID: "e", Content: "item e", Importance: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, ids(ev))
}

func TestWorkingImportance(t *testing.T) {
	m := newMemory(t, engram.Tier1, engram.WithWorkingCapacity(3), engram.WithEviction(engram.EvictImportance))
	w := m.Working()
	fill(t, w, 0.9, 0.2, 0.2)
	ev, err := w.Add(engram.WorkingItem{ID: "d", Content: "item d", Importance: 0.95})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, ids(ev), "least important, oldest among equals")
	v, err := w.Evict()
	require.NoError(t, err)
	assert.Equal(t, "c", v.ID)
}

func TestWorkingReplaceRemoveClearAndCopies(t *testing.T) {
	m := newMemory(t, engram.Tier1, engram.WithWorkingCapacity(2))
	w := m.Working()
	assert.Equal(t, 2, w.Capacity())
	tags := []string{"x"}
	_, err := w.Add(engram.WorkingItem{ID: "a", Content: "first", Importance: 0.1, Tags: tags})
	require.NoError(t, err)
	tags[0] = "mutated"
	ev, err := w.Add(engram.WorkingItem{ID: "a", Content: "second", Importance: 0.2})
	require.NoError(t, err)
	assert.Empty(t, ev, "re-adding an ID replaces it")
	assert.Equal(t, 1, w.Len())
	it, err := w.Get("a")
	require.NoError(t, err)
	assert.Equal(t, "second", it.Content)

	_, err = w.Add(engram.WorkingItem{Content: "generated id", Importance: 0.3, Tags: []string{"y"}})
	require.NoError(t, err)
	items, _ := w.Items()
	require.Len(t, items, 2)
	assert.Len(t, items[0].ID, 26)
	assert.False(t, items[0].AddedAt.IsZero())
	items[0].Tags[0] = "mutated"
	again, _ := w.Items()
	assert.Equal(t, "y", again[0].Tags[0], "items are copied out")

	require.NoError(t, w.Remove("a"))
	assert.ErrorIs(t, w.Remove("a"), engram.ErrNotFound)
	_, err = w.Get("a")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	require.NoError(t, w.Clear())
	assert.Equal(t, 0, w.Len())
	_, err = w.Evict()
	assert.ErrorIs(t, err, engram.ErrNotFound)

	_, err = w.Add(engram.WorkingItem{Content: "", Importance: 0.5})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = w.Add(engram.WorkingItem{Content: "x", Importance: -1})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = w.Find(" ")
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

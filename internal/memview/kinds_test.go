package memview

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// TestKindsComeFromTheRootsRegistry: the kinds, their nouns and their
// counts in Stats are the root package's registry's, every stored kind's.
func TestKindsComeFromTheRootsRegistry(t *testing.T) {
	stored := slices.DeleteFunc(engram.MemoryTypes(), func(t engram.MemoryType) bool { return t == engram.TypeWorking })
	assert.Equal(t, stored, Kinds())
	for typ, noun := range map[engram.MemoryType]string{engram.TypeSemantic: "a semantic entry", engram.TypeEpisodic: "an episode",
		engram.TypeProcedural: "a procedure", engram.TypeFact: "a fact", engram.TypeSnapshot: "a session snapshot",
		engram.TypeDocument: "a document chunk", "nonsense": "a nonsense memory"} {
		assert.Equal(t, noun, Noun(typ))
	}
	counts := Counts(engram.Stats{Semantic: 1, Episodes: 2, Snapshots: 3, Procedures: 4, Facts: 5, Documents: 6, Links: 7, Archived: 8})
	want := map[engram.MemoryType]int{engram.TypeSemantic: 1, engram.TypeEpisodic: 2, engram.TypeSnapshot: 3,
		engram.TypeProcedural: 4, engram.TypeFact: 5, engram.TypeDocument: 6}
	for _, typ := range stored[6:] { // a kind added since: none in this Stats
		want[typ] = 0
	}
	assert.Equal(t, want, counts)
}

// TestOtherIsTheKindsJSONTypeFirst: the view of a kind without one of its
// own is its public type's JSON, "type" first; a memory whose JSON is no
// object is an error.
func TestOtherIsTheKindsJSONTypeFirst(t *testing.T) {
	type pref struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}
	b, err := json.Marshal(Other{"preference", &pref{"p1", "tea"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"preference","id":"p1","content":"tea"}`, string(b))
	assert.Regexp(t, `^\{"type":"preference",`, string(b))
	b, err = json.Marshal(Other{"empty", &struct{}{}})
	require.NoError(t, err)
	assert.Equal(t, `{"type":"empty"}`, string(b))
	_, err = json.Marshal(Other{"odd", []int{1}})
	require.Error(t, err)
	assert.Nil(t, Of(engram.Record{}), "a record that holds nothing has no view")
}

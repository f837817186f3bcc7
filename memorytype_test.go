package engram_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func TestParseMemoryTypeTakesTheNamesPeopleType(t *testing.T) {
	for in, want := range map[string]engram.MemoryType{
		"semantic": engram.TypeSemantic, "Episodic": engram.TypeEpisodic, " procedural ": engram.TypeProcedural,
		"working": engram.TypeWorking, "snapshot": engram.TypeSnapshot, "fact": engram.TypeFact, "document": engram.TypeDocument,
		"note": engram.TypeSemantic, "Notes": engram.TypeSemantic,
		"procedure": engram.TypeProcedural, "procedures": engram.TypeProcedural,
		"episode": engram.TypeEpisodic, "EPISODES": engram.TypeEpisodic,
		"facts": engram.TypeFact, "triples": engram.TypeFact, "snapshots": engram.TypeSnapshot,
		"documents": engram.TypeDocument, "docs": engram.TypeDocument, "chunk": engram.TypeDocument,
	} {
		got, err := engram.ParseMemoryType(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "procedur", "memories", "semantic,fact"} {
		_, err := engram.ParseMemoryType(in)
		require.ErrorIs(t, err, engram.ErrInvalid, in)
		assert.Contains(t, err.Error(), "use "+typeNames(), in)
	}
	err := engram.MemoryType("procedure").Validate()
	require.ErrorIs(t, err, engram.ErrInvalid, "Validate takes the types' own names only")
	assert.Contains(t, err.Error(), "use "+typeNames())
	assert.Equal(t, []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeWorking,
		engram.TypeSnapshot, engram.TypeFact, engram.TypeDocument}, engram.MemoryTypes()[:7], "the types in order, a new kind after them")
	for _, typ := range engram.MemoryTypes() {
		assert.NoError(t, typ.Validate())
	}
}

func TestSearchTypesTakeOtherNames(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	_, err := m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Description: "ship the release", Pattern: "tag"})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "ship the release on Fridays"})
	require.NoError(t, err)

	types := []engram.MemoryType{"procedures"}
	found, err := m.Find(ctx, engram.SearchOptions{Query: "release", Types: types})
	require.NoError(t, err)
	require.Len(t, found.Results, 1)
	assert.Equal(t, engram.TypeProcedural, found.Results[0].Type)
	assert.Equal(t, []engram.MemoryType{"procedures"}, types, "the caller's slice is left as it was")

	_, err = m.Find(ctx, engram.SearchOptions{Query: "release", Types: []engram.MemoryType{"semantic", "procedur"}})
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "Types[1]", ie.Field)
	assert.Contains(t, ie.Reason, `"procedur": use `+typeNames())
}

// typeNames lists the memory types as messages do: "semantic, episodic,
// …, fact or document".
func typeNames() string {
	var names []string
	for _, typ := range engram.MemoryTypes() {
		names = append(names, string(typ))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

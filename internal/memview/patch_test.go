package memview_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
	"github.com/engram-go/engram/internal/testutil"
)

// TestApply: a patch changes the fields its memory's kind has; a field
// the kind lacks, a kind that is not edited and an empty patch are
// refused, matching engram.ErrInvalid, and change nothing.
func TestApply(t *testing.T) {
	ctx := context.Background()
	m := testutil.Open(t)
	note, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada prefers short answers", Importance: 0.5})
	require.NoError(t, err)
	proc, err := m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Pattern: "run the tests"})
	require.NoError(t, err)
	ep, err := m.Episodic().Log(ctx, engram.Episode{Content: "deployed"})
	require.NoError(t, err)

	imp, tags := 0.9, []string{"style"}
	rec, err := memview.Apply(ctx, m, note, memview.Patch{Importance: &imp, Tags: &tags})
	require.NoError(t, err)
	assert.Equal(t, engram.TypeSemantic, rec.Type)
	assert.Equal(t, 0.9, rec.Semantic.Importance)
	assert.Equal(t, []string{"style"}, rec.Semantic.Tags)

	desc := "how we ship"
	rec, err = memview.Apply(ctx, m, proc, memview.Patch{Description: &desc})
	require.NoError(t, err)
	assert.Equal(t, "how we ship", rec.Procedure.Description)

	content := "x"
	_, err = memview.Apply(ctx, m, proc, memview.Patch{Content: &content, Description: &desc})
	var pe *memview.PatchError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, memview.PatchError{ID: proc, Type: engram.TypeProcedural, Field: "content", Given: []string{"content", "description"}}, *pe)
	assert.EqualError(t, err, `field content: memory "`+proc+`" is a procedure, which has no content (its fields: description, pattern, tags, disabled)`)

	_, err = memview.Apply(ctx, m, ep, memview.Patch{Tags: &tags})
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "", pe.Field)
	assert.Contains(t, err.Error(), "is an episode, which is not edited: tags cannot change")

	_, err = memview.Apply(ctx, m, note, memview.Patch{})
	assert.True(t, errors.Is(err, memview.ErrNothingToChange) && errors.Is(err, engram.ErrInvalid), "%v", err)
	_, err = memview.Apply(ctx, m, "nope", memview.Patch{Tags: &tags})
	assert.ErrorIs(t, err, engram.ErrNotFound)

	got, err := m.Procedural().Get(ctx, proc)
	require.NoError(t, err)
	assert.Equal(t, "run the tests", got.Pattern, "a refused patch changes nothing")
}

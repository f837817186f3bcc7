package memview

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/engram-go/engram"
)

// Patch is a change to a memory's fields, as PATCH /v1/memories/{id}
// (httpapi), the tool update_memory (mcpserver) and "engram update" take
// it: the fields set are changed, nil ones are left as they are. Which
// fields a memory may change depends on its kind (see PatchFields).
type Patch struct {
	Content     *string   `json:"content,omitempty"`
	Summary     *string   `json:"summary,omitempty"`
	Importance  *float64  `json:"importance,omitempty"`
	Verified    *bool     `json:"verified,omitempty"`
	Tags        *[]string `json:"tags,omitempty"`
	Description *string   `json:"description,omitempty"`
	Pattern     *string   `json:"pattern,omitempty"`
	Disabled    *bool     `json:"disabled,omitempty"`
}

// patchFields are the fields a patch changes, by kind; the kinds not
// here (episodes, facts, snapshots, document chunks) are records of what
// happened or was read, and are not edited.
var patchFields = map[engram.MemoryType][]string{
	engram.TypeSemantic:   {"content", "summary", "importance", "verified", "tags"},
	engram.TypeProcedural: {"description", "pattern", "tags", "disabled"},
}

// PatchFields returns the names of the fields a patch may change of a
// memory of kind t, a new slice on each call; nil for a kind that is not
// edited.
func PatchFields(t engram.MemoryType) []string { return slices.Clone(patchFields[t]) }

// Given returns the names of the fields p sets, in the order of Patch's
// fields.
func (p Patch) Given() []string {
	var out []string
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// ErrNothingToChange is the error of a patch that sets no field. It
// matches engram.ErrInvalid.
var ErrNothingToChange = fmt.Errorf("%w: nothing to change", engram.ErrInvalid)

// PatchError refuses a patch that sets a field the memory's kind does
// not have, or any field of a memory whose kind is not edited. It matches
// engram.ErrInvalid.
type PatchError struct {
	ID    string            // the memory's ID
	Type  engram.MemoryType // its kind
	Field string            // the field its kind lacks; "" when its kind is not edited
	Given []string          // the fields the patch sets
}

// Error names the field at fault, or the kind that is not edited, and
// what may change.
func (e *PatchError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("memory %q is %s, which is not edited: %s cannot change (only semantic entries and procedures are)",
			e.ID, Noun(e.Type), strings.Join(e.Given, ", "))
	}
	return fmt.Sprintf("field %s: memory %q is %s, which has no %s (its fields: %s)",
		e.Field, e.ID, Noun(e.Type), e.Field, strings.Join(patchFields[e.Type], ", "))
}

// Unwrap returns engram.ErrInvalid: a patch error is bad input.
func (e *PatchError) Unwrap() error { return engram.ErrInvalid }

// Check returns a *PatchError unless a memory of kind t has every field
// p sets, and ErrNothingToChange when p sets none; id names the memory in
// the error.
func (p Patch) Check(id string, t engram.MemoryType) error {
	given := p.Given()
	if len(given) == 0 {
		return ErrNothingToChange
	}
	allowed, ok := patchFields[t]
	if !ok {
		return &PatchError{ID: id, Type: t, Given: given}
	}
	for _, f := range given {
		if !slices.Contains(allowed, f) {
			return &PatchError{ID: id, Type: t, Field: f, Given: given}
		}
	}
	return nil
}

// Apply changes the memory id of m by p, once its kind is known to have
// every field p sets (Check), and returns the memory as it is afterwards.
// It returns ErrNothingToChange or a *PatchError (both matching
// engram.ErrInvalid) for a patch the memory's kind does not take, and
// otherwise the errors of engram.Memory.Get, engram.Semantic.Update and
// engram.Procedural.Update: engram.ErrNotFound for an ID the agent does
// not have, an error matching engram.ErrInvalid for a bad value (its
// field named "patch.Importance", …), engram.ErrClosed and
// *engram.DatabaseError.
func Apply(ctx context.Context, m *engram.Memory, id string, p Patch) (engram.Record, error) {
	if len(p.Given()) == 0 {
		return engram.Record{}, ErrNothingToChange
	}
	got, err := m.Get(ctx, id)
	if err != nil {
		return engram.Record{}, err
	}
	if err := p.Check(id, got.Type); err != nil {
		return engram.Record{}, err
	}
	rec := engram.Record{Type: got.Type}
	if got.Type == engram.TypeSemantic {
		e, err := m.Semantic().Update(ctx, id, engram.SemanticPatch{Content: p.Content, Summary: p.Summary,
			Importance: p.Importance, Verified: p.Verified, Tags: p.Tags})
		rec.Semantic = &e
		return rec, err
	}
	pr, err := m.Procedural().Update(ctx, id, engram.ProcedurePatch{Description: p.Description, Pattern: p.Pattern,
		Tags: p.Tags, Disabled: p.Disabled}) // Check let only the two edited kinds through
	rec.Procedure = &pr
	return rec, err
}

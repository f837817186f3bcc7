package engram_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func names(ps []engram.Procedure) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func TestProcedureOutcomesMovingAverage(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	id, err := m.Procedural().Store(ctx, engram.Procedure{
		Name: "deploy", Description: "ship to prod", Pattern: "test; build; push", SuccessRate: 0.5, Tags: []string{"ops"},
	})
	require.NoError(t, err)

	want := 0.5
	for i, ok := range []bool{true, true, false, true} {
		p, err := m.Procedural().RecordOutcome(ctx, id, ok)
		require.NoError(t, err)
		outcome := 0.0
		if ok {
			outcome = 1
		}
		want = 0.9*want + 0.1*outcome
		assert.InDelta(t, want, p.SuccessRate, 1e-12, "after outcome %d", i)
		assert.Equal(t, i+1, p.UseCount)
	}
	got, err := m.Procedural().Get(ctx, id)
	require.NoError(t, err)
	assert.InDelta(t, want, got.SuccessRate, 1e-12)

	byName, err := m.Procedural().GetByName(ctx, "deploy")
	require.NoError(t, err)
	assert.Equal(t, id, byName.ID)

	_, err = m.Procedural().RecordOutcome(ctx, "missing", true)
	assert.ErrorIs(t, err, engram.ErrNotFound)
	_, err = m.Procedural().Store(ctx, engram.Procedure{Name: "deploy"})
	assert.ErrorIs(t, err, engram.ErrExists, "names are unique per agent")
}

func TestProcedureListActiveAndFindByTags(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	procs := []engram.Procedure{
		{Name: "a", SuccessRate: 0.9, Tags: []string{"ops", "deploy"}},
		{Name: "b", SuccessRate: 0.5, Tags: []string{"ops"}},
		{Name: "c", SuccessRate: 0.99, Tags: []string{"deploy", "ops", "k8s"}, Disabled: true},
		{Name: "d", SuccessRate: 0.7, Tags: []string{"docs"}},
		{Name: "e", SuccessRate: 0.7, UseCount: 5},
	}
	for _, p := range procs {
		_, err := m.Procedural().Store(ctx, p)
		require.NoError(t, err)
	}
	active, err := m.Procedural().ListActive(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "e", "d", "b"}, names(active), "disabled excluded; rate then use count")

	top, err := m.Procedural().ListActive(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "e"}, names(top))

	found, err := m.Procedural().FindByTags(ctx, []string{"deploy", "ops"}, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"c", "a", "b"}, names(found), "most matched tags first, then rate")

	found, err = m.Procedural().FindByTags(ctx, []string{"docs"}, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"d"}, names(found))

	found, err = m.Procedural().FindByTags(ctx, []string{"nothing"}, 0)
	require.NoError(t, err)
	assert.Empty(t, found)

	_, err = m.Procedural().FindByTags(ctx, nil, 0)
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func TestProcedureUpdateAndDelete(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	id, err := m.Procedural().Store(ctx, engram.Procedure{Name: "triage", Pattern: "v1"})
	require.NoError(t, err)
	p, err := m.Procedural().Update(ctx, id, engram.ProcedurePatch{Pattern: new("v2"), Disabled: new(true), Tags: &[]string{"support"}})
	require.NoError(t, err)
	assert.Equal(t, "v2", p.Pattern)
	assert.True(t, p.Disabled)
	active, err := m.Procedural().ListActive(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, active)
	found, err := m.Procedural().FindByTags(ctx, []string{"support"}, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"triage"}, names(found))

	require.NoError(t, m.Procedural().Delete(ctx, id))
	_, err = m.Procedural().Get(ctx, id)
	assert.ErrorIs(t, err, engram.ErrNotFound)
	_, err = m.Procedural().Update(ctx, id, engram.ProcedurePatch{})
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

package engram_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// TestBadInputIsRejectedAndChangesNothing feeds each store bad input and
// checks that it returns an *InvalidError naming the field and that no row
// count moves.
func TestBadInputIsRejectedAndChangesNothing(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	lim := m.Config().Limits
	seed(t, m, "baseline")
	before, err := m.Stats(ctx)
	require.NoError(t, err)

	badUTF8 := "caf\xc3"
	huge := strings.Repeat("x", lim.MaxContentBytes+1)
	tooManyTags := make([]string, lim.MaxTags+1)
	for i := range tooManyTags {
		tooManyTags[i] = fmt.Sprintf("t%d", i)
	}
	sem := func(e engram.SemanticEntry) func() error {
		return func() error { _, err := m.Semantic().Store(ctx, e); return err }
	}
	cases := []struct {
		name  string
		call  func() error
		field string
	}{
		{"empty content", sem(engram.SemanticEntry{Content: "", Importance: 0.5}), "entry.Content"},
		{"blank content", sem(engram.SemanticEntry{Content: " \n\t", Importance: 0.5}), "entry.Content"},
		{"importance -0.1", sem(engram.SemanticEntry{Content: "x", Importance: -0.1}), "entry.Importance"},
		{"importance 1.5", sem(engram.SemanticEntry{Content: "x", Importance: 1.5}), "entry.Importance"},
		{"importance NaN", sem(engram.SemanticEntry{Content: "x", Importance: nan()}), "entry.Importance"},
		{"invalid UTF-8", sem(engram.SemanticEntry{Content: badUTF8, Importance: 0.5}), "entry.Content"},
		{"NUL byte", sem(engram.SemanticEntry{Content: "a\x00b", Importance: 0.5}), "entry.Content"},
		{"content over limit", sem(engram.SemanticEntry{Content: huge, Importance: 0.5}), "entry.Content"},
		{"too many tags", sem(engram.SemanticEntry{Content: "x", Importance: 0.5, Tags: tooManyTags}), "entry.Tags"},
		{"empty tag", sem(engram.SemanticEntry{Content: "x", Importance: 0.5, Tags: []string{"ok", ""}}), "entry.Tags[1]"},
		{"tag over limit", sem(engram.SemanticEntry{Content: "x", Importance: 0.5, Tags: []string{strings.Repeat("t", lim.MaxTagBytes+1)}}), "entry.Tags[0]"},
		{"ID with space", sem(engram.SemanticEntry{ID: "a b", Content: "x", Importance: 0.5}), "entry.ID"},
		{"batch with one bad", func() error {
			_, err := m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{Content: "fine", Importance: 0.5}, {Content: "x", Importance: 1.5}})
			return err
		}, "entries[1].Importance"},
		{"unknown event type", func() error {
			_, err := m.Episodic().Log(ctx, engram.Episode{Content: "x", Type: "task-exploded"})
			return err
		}, "episode.Type"},
		{"episode invalid UTF-8", func() error { _, err := m.Episodic().Log(ctx, engram.Episode{Content: badUTF8}); return err }, "episode.Content"},
		{"episode over limit", func() error { _, err := m.Episodic().Log(ctx, engram.Episode{Content: huge}); return err }, "episode.Content"},
		{"episode negative cost", func() error { _, err := m.Episodic().Log(ctx, engram.Episode{Content: "x", Cost: -1}); return err }, "episode.Cost"},
		{"episode NaN cost", func() error { _, err := m.Episodic().Log(ctx, engram.Episode{Content: "x", Cost: nan()}); return err }, "episode.Cost"},
		{"procedure empty name", func() error { _, err := m.Procedural().Store(ctx, engram.Procedure{}); return err }, "Name"},
		{"procedure rate 1.5", func() error {
			_, err := m.Procedural().Store(ctx, engram.Procedure{Name: "p", SuccessRate: 1.5})
			return err
		}, "SuccessRate"},
		{"procedure too many tags", func() error {
			_, err := m.Procedural().Store(ctx, engram.Procedure{Name: "p", Tags: tooManyTags})
			return err
		}, "Tags"},
		{"snapshot without session", func() error { _, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{}); return err }, "SessionID"},
		{"snapshot negative tokens", func() error {
			_, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s", TotalTokens: -1})
			return err
		}, "TotalTokens"},
		{"link unknown type", func() error { return m.Links().Add(ctx, engram.Link{SourceID: "a", TargetID: "b", Type: "friend"}) }, "Type"},
		{"link strength NaN", func() error {
			return m.Links().Add(ctx, engram.Link{SourceID: "a", TargetID: "b", Type: engram.LinkSimilar, Strength: nan()})
		}, "Strength"},
		{"patch importance NaN", func() error {
			_, err := m.Semantic().Update(ctx, "x", engram.SemanticPatch{Importance: new(nan())})
			return err
		}, "patch.Importance"},
		{"working importance 1.5", func() error {
			_, err := m.Working().Add(engram.WorkingItem{Content: "x", Importance: 1.5})
			return err
		}, "Importance"},
		{"working invalid UTF-8", func() error {
			_, err := m.Working().Add(engram.WorkingItem{Content: badUTF8, Importance: 0.5})
			return err
		}, "Content"},
		{"get with empty ID", func() error { _, err := m.Semantic().Get(ctx, ""); return err }, "id"},
		{"recent over limit", func() error { _, err := m.Episodic().Recent(ctx, 1_000_000); return err }, "Limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, engram.ErrInvalid)
			var ie *engram.InvalidError
			require.True(t, errors.As(err, &ie), "%T", err)
			assert.Equal(t, tc.field, ie.Field, "error: %v", err)
			after, err := m.Stats(ctx)
			require.NoError(t, err)
			assert.Equal(t, before, after, "row counts changed")
		})
	}
}

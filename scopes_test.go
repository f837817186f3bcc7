package engram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// scopeStart is when the scoped memories of these tests are stored.
var scopeStart = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

// seedScopes stores, for each of the users u1 and u2 and for no user,
// semantic entries, episodes and procedures in two sessions, with
// metadata, on consecutive days, every text holding the word "kayak" and
// its owner's name; a fact and a snapshot of no user too. Each memory's
// ID says whose it is: "u1-sem-s1", "none-ep-s2", ….
func seedScopes(t *testing.T, m *engram.Memory, clock *testutil.Clock) {
	t.Helper()
	ctx := context.Background()
	day := 0
	for _, user := range []string{"u1", "u2", ""} {
		owner := user
		if owner == "" {
			owner = "none"
		}
		for si, session := range []string{"s1", "s2"} {
			clock.Set(scopeStart.AddDate(0, 0, day))
			day++
			meta := map[string]any{"lang": []string{"go", "rust"}[si], "rank": float64(si + 1), "owner": owner, "pinned": si == 0}
			_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: owner + "-sem-" + session, UserID: user, SessionID: session,
				Content: fmt.Sprintf("%s keeps the kayak in the %s garage", owner, session), Tags: []string{"tag-" + session}, Metadata: meta})
			require.NoError(t, err)
			_, err = m.Episodic().Log(ctx, engram.Episode{ID: owner + "-ep-" + session, UserID: user, SessionID: session,
				Content: fmt.Sprintf("%s paddled the kayak during %s", owner, session), Metadata: map[string]string{"lang": []string{"go", "rust"}[si], "owner": owner}})
			require.NoError(t, err)
			_, err = m.Procedural().Store(ctx, engram.Procedure{ID: owner + "-proc-" + session, UserID: user, SessionID: session,
				Name: owner + " kayak drill " + session, Description: "how " + owner + " launches the kayak", SuccessRate: 0.7,
				Tags: []string{"tag-" + session}, Metadata: meta})
			require.NoError(t, err)
		}
	}
	_, err := m.Facts().Assert(ctx, engram.Fact{ID: "none-fact", Subject: "Kayak", Predicate: "is stored in", Object: "the garage"})
	require.NoError(t, err)
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "none-snap-s1", SessionID: "s1", Summary: "we talked about the kayak"})
	require.NoError(t, err)
	clock.Set(scopeStart.AddDate(0, 0, 30))
}

func openScopes(t *testing.T, opts ...engram.Option) (*engram.Memory, *testutil.Clock) {
	t.Helper()
	clock := testutil.NewClock(scopeStart)
	m := newMemory(t, engram.Tier1, append([]engram.Option{engram.WithClock(clock.Now)}, opts...)...)
	seedScopes(t, m, clock)
	return m, clock
}

// idsOf returns the sorted IDs of results.
func idsOf(res []engram.Result) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.ID
	}
	slices.Sort(out)
	return out
}

// scopeCases are filters and the IDs of the memories each keeps (of
// the seeded ones holding "kayak").
func scopeCases() []struct {
	name   string
	filter engram.Filter
	want   []string
} {
	all := func(owners []string, sessions []string, kinds ...string) []string {
		var out []string
		for _, o := range owners {
			for _, s := range sessions {
				for _, k := range kinds {
					out = append(out, o+"-"+k+"-"+s)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	scoped := []string{"sem", "ep", "proc"}
	return []struct {
		name   string
		filter engram.Filter
		want   []string
	}{
		{"user", engram.Filter{UserID: "u1"}, all([]string{"u1"}, []string{"s1", "s2"}, scoped...)},
		{"user and session", engram.Filter{UserID: "u2", SessionID: "s2"}, all([]string{"u2"}, []string{"s2"}, scoped...)},
		{"session", engram.Filter{SessionID: "s1"}, func() []string {
			out := append(all([]string{"u1", "u2", "none"}, []string{"s1"}, scoped...), "none-snap-s1")
			slices.Sort(out)
			return out
		}()},
		{"kinds", engram.Filter{UserID: "u1", Types: []engram.MemoryType{engram.TypeEpisodic}}, all([]string{"u1"}, []string{"s1", "s2"}, "ep")},
		{"tags", engram.Filter{UserID: "u1", Tags: []string{"tag-s2"}}, all([]string{"u1"}, []string{"s2"}, "proc", "sem")},
		{"since", engram.Filter{UserID: "u2", Since: scopeStart.AddDate(0, 0, 3)}, all([]string{"u2"}, []string{"s2"}, scoped...)},
		{"until", engram.Filter{UserID: "u2", Until: scopeStart.AddDate(0, 0, 3)}, all([]string{"u2"}, []string{"s1"}, scoped...)},
		{"metadata eq", engram.Filter{UserID: "u1", Metadata: engram.MetaEq("lang", "rust")}, all([]string{"u1"}, []string{"s2"}, scoped...)},
		{"metadata ne", engram.Filter{Types: []engram.MemoryType{engram.TypeSemantic}, Metadata: engram.MetaNe("owner", "u1")},
			all([]string{"u2", "none"}, []string{"s1", "s2"}, "sem")},
		{"metadata in", engram.Filter{Types: []engram.MemoryType{engram.TypeProcedural}, Metadata: engram.MetaIn("owner", "u2", "none")},
			all([]string{"u2", "none"}, []string{"s1", "s2"}, "proc")},
		{"metadata range", engram.Filter{Metadata: engram.MetaGte("rank", 2)}, all([]string{"u1", "u2", "none"}, []string{"s2"}, "proc", "sem")},
		{"metadata string range", engram.Filter{Metadata: engram.MetaAnd(engram.MetaGt("owner", "none"), engram.MetaLt("owner", "u2"))},
			all([]string{"u1"}, []string{"s1", "s2"}, scoped...)},
		{"metadata bool", engram.Filter{Metadata: engram.MetaEq("pinned", true)}, all([]string{"u1", "u2", "none"}, []string{"s1"}, "proc", "sem")},
		{"metadata exists not", engram.Filter{UserID: "u1", Metadata: engram.MetaNot(engram.MetaExists("rank"))}, all([]string{"u1"}, []string{"s1", "s2"}, "ep")},
		{"metadata or", engram.Filter{Metadata: engram.MetaOr(engram.MetaEq("owner", "u2"), engram.MetaLte("rank", 1))},
			func() []string {
				out := append(all([]string{"u2"}, []string{"s1", "s2"}, scoped...), all([]string{"u1", "none"}, []string{"s1"}, "proc", "sem")...)
				slices.Sort(out)
				return out
			}()},
	}
}

func TestFilterFieldsOnSearchListExportContextRecall(t *testing.T) {
	ctx := context.Background()
	m, _ := openScopes(t)
	for _, c := range scopeCases() {
		t.Run(c.name, func(t *testing.T) {
			f := c.filter
			res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak", Limit: 100, Filter: &f})
			require.NoError(t, err)
			assert.Equal(t, c.want, idsOf(res), "search")

			listed, err := m.List(ctx, engram.MemoryQuery{Limit: 1000, Filter: &f})
			require.NoError(t, err)
			assert.Empty(t, listed.Next)
			var want []string // List lists facts too
			for _, id := range c.want {
				want = append(want, id)
			}
			if !f.IsZero() && f.UserID == "" && f.SessionID == "" && f.Metadata == nil && len(f.Tags) == 0 {
				want = append(want, "none-fact")
			}
			slices.Sort(want)
			listedIDs := recordIDs(listed.Records)
			slices.Sort(listedIDs)
			assert.Equal(t, want, listedIDs, "list")

			sem, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000, Filter: &f})
			require.NoError(t, err)
			var semIDs, wantSem []string
			for _, e := range sem {
				semIDs = append(semIDs, e.ID)
			}
			for _, id := range c.want {
				if strings.Contains(id, "-sem-") {
					wantSem = append(wantSem, id)
				}
			}
			slices.Sort(semIDs)
			assert.Equal(t, wantSem, semIDs, "semantic list")

			var buf bytes.Buffer
			require.NoError(t, m.Export(ctx, &buf, engram.ExportOptions{Filter: &f}))
			assert.Equal(t, want, exportedIDs(t, buf.String()), "export")

			rec, err := m.RecallWith(ctx, engram.RecallOptions{Query: "kayak", Filter: &f})
			require.NoError(t, err)
			var recalled []string
			for _, list := range rec.ByKind {
				for _, r := range list {
					recalled = append(recalled, r.ID)
					assert.Contains(t, c.want, r.ID, "recall")
				}
			}
			assert.NotEmpty(t, recalled, "recall")

			block, err := m.Context(ctx, engram.ContextOptions{Query: "kayak", MaxTokens: 20000, Filter: &f})
			require.NoError(t, err)
			var shown []string
			for _, s := range block.Sections {
				shown = append(shown, s.IDs...)
			}
			for _, id := range shown {
				assert.Contains(t, want, id, "context")
			}
			assert.NotEmpty(t, shown, "context")
		})
	}
}

// exportedIDs returns the sorted IDs of an export's memory records.
func exportedIDs(t *testing.T, file string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(file, "\n") {
		if !strings.HasPrefix(line, `{"type":"memory"`) {
			continue
		}
		_, rest, ok := strings.Cut(line, `"row":{"id":"`)
		require.True(t, ok, line)
		id, _, _ := strings.Cut(rest, `"`)
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Both fields of the same meaning apply: SearchOptions.Types and Tags
// with the filter's Kinds and Tags.
func TestSearchOptionsAndFilterBothApply(t *testing.T) {
	ctx := context.Background()
	m, _ := openScopes(t)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak", Limit: 100, Types: []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic},
		Filter: &engram.Filter{UserID: "u1", Types: []engram.MemoryType{engram.TypeEpisodic, engram.TypeProcedural}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"u1-ep-s1", "u1-ep-s2"}, idsOf(res))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "kayak", Limit: 100, Tags: []string{"tag-s1"},
		Filter: &engram.Filter{Tags: []string{"tag-s2"}}})
	require.NoError(t, err)
	assert.Empty(t, res)
	res, err = m.Search(ctx, engram.SearchOptions{Query: "kayak", Limit: 100, Since: scopeStart.AddDate(0, 0, 1),
		Filter: &engram.Filter{UserID: "u1", Until: scopeStart.AddDate(0, 0, 10)}})
	require.NoError(t, err)
	assert.Equal(t, []string{"u1-ep-s2", "u1-proc-s2", "u1-sem-s2"}, idsOf(res))
}

// The scope and metadata a memory is stored with come back.
func TestScopeRoundTrips(t *testing.T) {
	ctx := context.Background()
	m, _ := openScopes(t)
	e, err := m.Semantic().Get(ctx, "u1-sem-s2")
	require.NoError(t, err)
	assert.Equal(t, "u1", e.UserID)
	assert.Equal(t, "s2", e.SessionID)
	assert.Equal(t, map[string]any{"lang": "rust", "rank": 2.0, "owner": "u1", "pinned": false}, e.Metadata)
	ep, err := m.Episodic().Get(ctx, "u2-ep-s1")
	require.NoError(t, err)
	assert.Equal(t, "u2", ep.UserID)
	p, err := m.Procedural().Get(ctx, "none-proc-s1")
	require.NoError(t, err)
	assert.Equal(t, "", p.UserID)
	assert.Equal(t, "s1", p.SessionID)
	assert.Equal(t, true, p.Metadata["pinned"])

	// An export imports into another agent with every scope.
	var buf bytes.Buffer
	require.NoError(t, m.Export(ctx, &buf, engram.ExportOptions{}))
	other := newAgentMemory(t, "other", engram.Tier1)
	_, err = other.Import(ctx, bytes.NewReader(buf.Bytes()), engram.ImportOptions{})
	require.NoError(t, err)
	e2, err := other.Semantic().Get(ctx, "u1-sem-s2")
	require.NoError(t, err)
	assert.Equal(t, e.UserID, e2.UserID)
	assert.Equal(t, e.SessionID, e2.SessionID)
	assert.Equal(t, e.Metadata, e2.Metadata)
	res, err := other.Search(ctx, engram.SearchOptions{Query: "kayak", Filter: &engram.Filter{UserID: "u2", SessionID: "s1"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"u2-ep-s1", "u2-proc-s1", "u2-sem-s1"}, idsOf(res))

	// History records the scope like any column.
	h, err := m.History(ctx, "u1-sem-s2")
	require.NoError(t, err)
	require.NotEmpty(t, h)
	var after map[string]any
	require.NoError(t, json.Unmarshal(h[0].After, &after))
	assert.Equal(t, "u1", after["user_id"])
	assert.Equal(t, "s2", after["session_id"])
	assert.Equal(t, "rust", after["metadata"].(map[string]any)["lang"])
}

// An export written before scopes existed (no user_id, session_id or
// metadata in its rows) still imports, as memories of no user.
func TestImportOfAnExportWithoutScopes(t *testing.T) {
	ctx := context.Background()
	file := `engram-export 1 old 2026-01-01T00:00:00.000Z
{"type":"memory","kind":"semantic","row":{"id":"old-1","content":"the kayak is red","summary":"the kayak is red","importance":0.5,"verified":0,"tags":[],"source":"","created_at":1767225600000,"updated_at":1767225600000,"access_count":0,"last_accessed_at":1767225600000,"resonance":0.45,"merged_from":[],"promoted_at_count":0,"retrievals":0}}
{"type":"memory","kind":"procedural","row":{"id":"old-2","name":"launch","description":"launch the kayak","pattern":"","success_rate":0.5,"use_count":0,"tags":[],"disabled":0,"created_at":1767225600000,"updated_at":1767225600000,"resonance":0.5,"retrievals":0}}
`
	// The header of an export of this version, the old rows, the end.
	var empty bytes.Buffer
	m := newMemory(t, engram.Tier1)
	require.NoError(t, m.Export(ctx, &empty, engram.ExportOptions{}))
	header, _, _ := strings.Cut(empty.String(), "\n")
	_, rows, _ := strings.Cut(file, "\n")
	_, err := m.Import(ctx, strings.NewReader(header+"\n"+rows+`{"type":"end","records":2}`+"\n"), engram.ImportOptions{})
	require.NoError(t, err)
	e, err := m.Semantic().Get(ctx, "old-1")
	require.NoError(t, err)
	assert.Equal(t, "", e.UserID)
	assert.Nil(t, e.Metadata)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak", Filter: &engram.Filter{UserID: "u1"}})
	require.NoError(t, err)
	assert.Empty(t, res)
}

// badFilters are filters every call refuses with ErrInvalid, with the
// part each error must name.
func badFilters() map[string]struct {
	f    engram.Filter
	part string
} {
	deep := engram.MetaEq("a", 1)
	for range engram.MaxMetaDepth + 1 {
		deep = engram.MetaNot(deep)
	}
	many := make([]*engram.MetaCond, engram.MaxMetaConds)
	for i := range many {
		many[i] = engram.MetaEq("a", i)
	}
	values := make([]any, engram.MaxMetaValues+1)
	for i := range values {
		values[i] = i
	}
	return map[string]struct {
		f    engram.Filter
		part string
	}{
		"user":            {engram.Filter{UserID: "bad user"}, "Filter.UserID"},
		"user too long":   {engram.Filter{UserID: strings.Repeat("u", 129)}, "Filter.UserID"},
		"session":         {engram.Filter{SessionID: "bad\nsession"}, "Filter.SessionID"},
		"kind":            {engram.Filter{Types: []engram.MemoryType{"nope"}}, "Filter.Types[0]"},
		"tag":             {engram.Filter{Tags: []string{""}}, "Filter.Tags[0]"},
		"until":           {engram.Filter{Since: scopeStart, Until: scopeStart}, "Filter.Until"},
		"time":            {engram.Filter{Since: time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC)}, "Filter.Since"},
		"empty op":        {engram.Filter{Metadata: &engram.MetaCond{Key: "a", Value: 1}}, "Filter.Metadata.Op"},
		"unknown op":      {engram.Filter{Metadata: &engram.MetaCond{Op: "like", Key: "a", Value: 1}}, "Filter.Metadata.Op"},
		"bad key":         {engram.Filter{Metadata: engram.MetaEq(`a"b`, 1)}, "Filter.Metadata.Key"},
		"empty key":       {engram.Filter{Metadata: engram.MetaExists("")}, "Filter.Metadata.Key"},
		"nil value":       {engram.Filter{Metadata: engram.MetaEq("a", nil)}, "Filter.Metadata.Value"},
		"NaN":             {engram.Filter{Metadata: engram.MetaGt("a", math.NaN())}, "Filter.Metadata.Value"},
		"bool order":      {engram.Filter{Metadata: engram.MetaLt("a", true)}, "Filter.Metadata.Value"},
		"struct value":    {engram.Filter{Metadata: engram.MetaEq("a", struct{}{})}, "Filter.Metadata.Value"},
		"long value":      {engram.Filter{Metadata: engram.MetaEq("a", strings.Repeat("x", 1025))}, "Filter.Metadata.Value"},
		"bad utf8":        {engram.Filter{Metadata: engram.MetaEq("a", "\xff")}, "Filter.Metadata.Value"},
		"empty in":        {engram.Filter{Metadata: engram.MetaIn("a")}, "Filter.Metadata.Values"},
		"big in":          {engram.Filter{Metadata: engram.MetaIn("a", values...)}, "Filter.Metadata.Values"},
		"bad in value":    {engram.Filter{Metadata: engram.MetaIn("a", 1, []int{2})}, "Filter.Metadata.Values[1]"},
		"value and in":    {engram.Filter{Metadata: &engram.MetaCond{Op: engram.MetaOpIn, Key: "a", Value: 1, Values: []any{1}}}, "Filter.Metadata.Value"},
		"values on eq":    {engram.Filter{Metadata: &engram.MetaCond{Op: engram.MetaOpEq, Key: "a", Values: []any{1}}}, "Filter.Metadata.Values"},
		"empty and":       {engram.Filter{Metadata: engram.MetaAnd()}, "Filter.Metadata.Conds"},
		"nil in and":      {engram.Filter{Metadata: engram.MetaAnd(engram.MetaEq("a", 1), nil)}, "Filter.Metadata.Conds[1]"},
		"not of two":      {engram.Filter{Metadata: &engram.MetaCond{Op: engram.MetaOpNot, Conds: []*engram.MetaCond{engram.MetaExists("a"), engram.MetaExists("b")}}}, "Filter.Metadata.Conds"},
		"key on and":      {engram.Filter{Metadata: &engram.MetaCond{Op: engram.MetaOpAnd, Key: "a", Conds: []*engram.MetaCond{engram.MetaExists("a")}}}, "Filter.Metadata"},
		"conds on leaf":   {engram.Filter{Metadata: &engram.MetaCond{Op: engram.MetaOpExists, Key: "a", Conds: []*engram.MetaCond{engram.MetaExists("a")}}}, "Filter.Metadata.Conds"},
		"too deep":        {engram.Filter{Metadata: deep}, "Filter.Metadata" + strings.Repeat(".Conds[0]", engram.MaxMetaDepth)},
		"too many":        {engram.Filter{Metadata: engram.MetaOr(many...)}, "Filter.Metadata.Conds[63]"},
		"exists with val": {engram.Filter{Metadata: &engram.MetaCond{Op: engram.MetaOpExists, Key: "a", Value: 1}}, "Filter.Metadata"},
	}
}

func TestFilterValidation(t *testing.T) {
	ctx := context.Background()
	m, _ := openScopes(t)
	before, err := m.Stats(ctx)
	require.NoError(t, err)
	for name, c := range badFilters() {
		t.Run(name, func(t *testing.T) {
			f := c.f
			check := func(what string, err error) {
				t.Helper()
				require.ErrorIs(t, err, engram.ErrInvalid, what)
				var ie *engram.InvalidError
				require.True(t, errors.As(err, &ie), what)
				assert.Equal(t, c.part, ie.Field, what)
			}
			check("Validate", f.Validate())
			_, err := m.Search(ctx, engram.SearchOptions{Query: "kayak", Filter: &f})
			check("Search", err)
			_, err = m.Context(ctx, engram.ContextOptions{Query: "kayak", Filter: &f})
			check("Context", err)
			_, err = m.RecallWith(ctx, engram.RecallOptions{Query: "kayak", Filter: &f})
			check("RecallWith", err)
			_, err = m.List(ctx, engram.MemoryQuery{Filter: &f})
			check("List", err)
			_, err = m.Semantic().List(ctx, engram.ListOptions{Filter: &f})
			check("Semantic.List", err)
			var buf bytes.Buffer
			check("Export", m.Export(ctx, &buf, engram.ExportOptions{Filter: &f}))
			assert.Zero(t, buf.Len(), "nothing exported")
		})
	}
	w, err := m.Working().Items()
	require.NoError(t, err)
	assert.Empty(t, w, "no recall admitted anything")
	after, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.NoError(t, (engram.Filter{}).Validate())
	assert.True(t, (engram.Filter{}).IsZero())
}

// A memory with a bad user, session or metadata is refused and nothing is
// written.
func TestScopeOfAMemoryIsValidated(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	// The metadata is depth 1, a's value 2, …, d's 5.
	deep := map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": []any{1}}}}}
	big := map[string]any{"a": strings.Repeat("x", engram.MaxMetadataBytes)}
	many := map[string]any{}
	for i := range 65 {
		many[fmt.Sprint("k", i)] = i
	}
	bad := map[string]struct {
		user, session string
		meta          map[string]any
		part          string
	}{
		"user":        {user: "no spaces please", part: "UserID"},
		"session":     {session: "has space", part: "SessionID"},
		"deep":        {meta: deep, part: "Metadata[a][b][c][d]"},
		"big":         {meta: big, part: "Metadata"},
		"many keys":   {meta: many, part: "Metadata"},
		"bad key":     {meta: map[string]any{"a b": 1}, part: "Metadata"},
		"bad value":   {meta: map[string]any{"a": struct{}{}}, part: "Metadata[a]"},
		"NaN":         {meta: map[string]any{"a": math.Inf(1)}, part: "Metadata[a]"},
		"bad utf8":    {meta: map[string]any{"a": "\xff"}, part: "Metadata[a]"},
		"nested key":  {meta: map[string]any{"a": map[string]any{"": 1}}, part: "Metadata[a]"},
		"nested list": {meta: map[string]any{"a": []any{1, func() {}}}, part: "Metadata[a][1]"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				require.ErrorIs(t, err, engram.ErrInvalid, what)
				var ie *engram.InvalidError
				require.True(t, errors.As(err, &ie), what)
				assert.True(t, strings.HasSuffix(ie.Field, c.part), "%s: %q does not end in %q", what, ie.Field, c.part)
			}
			_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "x", UserID: c.user, SessionID: c.session, Metadata: c.meta})
			check("semantic", err)
			_, err = m.Procedural().Store(ctx, engram.Procedure{Name: "x", UserID: c.user, SessionID: c.session, Metadata: c.meta})
			check("procedure", err)
			if c.meta == nil {
				_, err = m.Episodic().Log(ctx, engram.Episode{Content: "x", UserID: c.user, SessionID: c.session})
				check("episode", err)
			}
		})
	}
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, engram.Stats{}, st)
	assert.ErrorIs(t, engram.ValidateUserID(""), engram.ErrInvalid)
	assert.NoError(t, engram.ValidateUserID("ada@example.com"))
	// Metadata of every kind of value a caller may give, times as UTC.
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "x", Metadata: map[string]any{
		"s": "a", "n": 3, "f": 1.5, "b": true, "nil": nil, "t": at, "l": []string{"a"}, "o": map[string]string{"k": "v"}}})
	require.NoError(t, err)
	e, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"s": "a", "n": 3.0, "f": 1.5, "b": true, "nil": nil, "t": "2026-01-02T02:04:05Z",
		"l": []any{"a"}, "o": map[string]any{"k": "v"}}, e.Metadata)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "x", Filter: &engram.Filter{Metadata: engram.MetaEq("t", at)}})
	require.NoError(t, err)
	assert.Equal(t, []string{id}, idsOf(res))
}

func TestForgetUser(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	md := filepath.Join(dir, "memory.md")
	ctx := context.Background()
	clock := testutil.NewClock(scopeStart)
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 2
	m := openOn(t, fileDB(t, path), "ada", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 32)), withMarkdownPath(t, md), engram.WithClock(clock.Now), engram.WithConfig(cfg))
	const secret, kept = "quillwhisker", "lanternmoss"
	var ids []string
	for i := range 3 {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{UserID: "u1", Importance: 0.1 + 0.3*float64(i),
			Content: fmt.Sprintf("the %s note %d of u1", secret, i)})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	changed := "the " + secret + " note changed"
	_, err := m.Semantic().Update(ctx, ids[2], engram.SemanticPatch{Content: &changed})
	require.NoError(t, err)
	ep, err := m.Episodic().Log(ctx, engram.Episode{UserID: "u1", Content: "u1 said " + secret})
	require.NoError(t, err)
	pr, err := m.Procedural().Store(ctx, engram.Procedure{UserID: "u1", Name: "drill " + secret, Description: secret})
	require.NoError(t, err)
	gone, err := m.Semantic().Store(ctx, engram.SemanticEntry{UserID: "u1", Content: "deleted before: " + secret})
	require.NoError(t, err)
	require.NoError(t, m.Semantic().Delete(ctx, gone))
	other, err := m.Semantic().Store(ctx, engram.SemanticEntry{UserID: "u2", Content: "u2 keeps " + kept, Importance: 0.9})
	require.NoError(t, err)
	none, err := m.Episodic().Log(ctx, engram.Episode{Content: "nobody's " + kept})
	require.NoError(t, err)
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: other, TargetID: ids[2], Type: engram.LinkSupports}))
	_, err = m.Recall(ctx, secret)
	require.NoError(t, err)
	// The least important of u1's entries leaves for the archive.
	_, err = m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	_, err = m.Semantic().Get(ctx, ids[0])
	require.ErrorIs(t, err, engram.ErrNotFound, "archived")
	require.NoError(t, m.Flush(ctx))
	require.NotEmpty(t, fileHolds(t, path, secret), "the test looks where the text is")

	_, err = m.ForgetUser(ctx, "not a user")
	require.ErrorIs(t, err, engram.ErrInvalid)
	n, err := m.ForgetUser(ctx, "u1")
	require.NoError(t, err)
	assert.Equal(t, 6, n, "three entries (one archived), an episode, a procedure, and the entry deleted before")

	assert.Empty(t, fileHolds(t, path, secret))
	assert.NotEmpty(t, fileHolds(t, path, kept), "the others' memories stay")
	mdText, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.NotContains(t, string(mdText), secret)
	for _, id := range append(slices.Clone(ids), ep, pr, gone) {
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		require.Len(t, h, 1, id)
		assert.Equal(t, engram.OpForget, h[0].Op)
		assert.Nil(t, h[0].Before)
		assert.Nil(t, h[0].After)
	}
	_, err = m.Semantic().Get(ctx, other)
	require.NoError(t, err)
	_, err = m.Episodic().Get(ctx, none)
	require.NoError(t, err)
	w, err := m.Working().Items()
	require.NoError(t, err)
	for _, it := range w {
		assert.NotContains(t, it.Content, secret)
	}
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Semantic)
	assert.Equal(t, 1, st.Episodes)
	assert.Equal(t, 0, st.Procedures)
	assert.Equal(t, 0, st.Archived)
	assert.Equal(t, 0, st.Links)
	require.NoError(t, m.CheckIntegrity(ctx))
	n, err = m.ForgetUser(ctx, "u1")
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left")
}

// Compaction keeps users apart: near-duplicates of two users never merge,
// and a day's digest holds one user's episodes.
func TestCompactionKeepsUsersApart(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(scopeStart)
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	cfg.Episodic.RetainDays = 2
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now), engram.WithConfig(cfg))
	var sem []string
	for _, u := range []string{"u1", "u2", "u1"} {
		clock.Advance(time.Minute)
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{UserID: u, Content: "The kayak lives in the garage by the door", Importance: 0.5})
		require.NoError(t, err)
		sem = append(sem, id)
		_, err = m.Episodic().Log(ctx, engram.Episode{UserID: u, Content: u + " paddled the kayak"})
		require.NoError(t, err)
	}
	clock.Advance(5 * 24 * time.Hour)
	rep, err := m.Compact(ctx, engram.CompactSemantic, engram.CompactTime)
	require.NoError(t, err)
	var merges, digests []engram.CompactionAction
	for _, a := range rep.Actions {
		switch a.Kind {
		case engram.ActionMerge:
			merges = append(merges, a)
		case engram.ActionDigest:
			digests = append(digests, a)
		}
	}
	require.Len(t, merges, 1, "u1's two entries, not u2's")
	assert.ElementsMatch(t, []string{sem[0], sem[2]}, []string{merges[0].ID, merges[0].Into})
	_, err = m.Semantic().Get(ctx, sem[1])
	require.NoError(t, err, "u2's entry stays")
	require.Len(t, digests, 2, "a digest per user")
	for _, d := range digests {
		ep, err := m.Episodic().Get(ctx, d.ID)
		require.NoError(t, err)
		other := map[string]string{"u1": "u2", "u2": "u1"}[ep.UserID]
		require.NotEmpty(t, other, "the digest of %q", ep.UserID)
		assert.Contains(t, ep.Content, ep.UserID+" paddled")
		assert.NotContains(t, ep.Content, other+" paddled")
	}
}

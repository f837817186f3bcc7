package engram_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// TestAddAllStoresEveryKindAtOnce: one call stores memories of four kinds
// in order, a fact linked to the note before it; a bad record anywhere,
// or a conflict found only while writing, stores nothing.
func TestAddAllStoresEveryKindAtOnce(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	added, err := m.AddAll(ctx, []engram.Record{
		{Semantic: &engram.SemanticEntry{ID: "note-1", Content: "Ada prefers short answers", Tags: []string{"user"}}},
		{Type: engram.TypeEpisodic, Episode: &engram.Episode{Content: "Deployed v2", Metadata: map[string]string{"via": "api"}}},
		{Procedure: &engram.Procedure{Name: "deploy", Pattern: "test, ship"}},
		{Fact: &engram.Fact{Subject: "Ada", Predicate: "works at", Object: "Acme", MemoryID: "note-1"}},
	})
	require.NoError(t, err)
	require.Len(t, added, 4)
	assert.Equal(t, []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeFact},
		[]engram.MemoryType{added[0].Type, added[1].Type, added[2].Type, added[3].Type})
	assert.Equal(t, "note-1", added[0].ID)
	require.NotNil(t, added[3].Assertion)
	assert.Equal(t, engram.FactInserted, added[3].Assertion.Action)
	assert.Nil(t, added[0].Assertion)
	ep, err := m.Episodic().Get(ctx, added[1].ID)
	require.NoError(t, err)
	assert.Equal(t, "api", ep.Metadata["via"])
	links, err := m.Links().For(ctx, "note-1")
	require.NoError(t, err)
	require.Len(t, links, 1, "the fact is linked to the note it names")

	before, err := m.Stats(ctx)
	require.NoError(t, err)
	for name, records := range map[string][]engram.Record{
		"an invalid last record": {
			{Semantic: &engram.SemanticEntry{Content: "fine"}},
			{Episode: &engram.Episode{Content: ""}},
		},
		"two memories in a record": {{Semantic: &engram.SemanticEntry{Content: "a"}, Episode: &engram.Episode{Content: "b"}}},
		"no memory in a record":    {{Type: engram.TypeSemantic}},
		"a type that is not the kind held": {
			{Type: engram.TypeFact, Semantic: &engram.SemanticEntry{Content: "a"}},
		},
		"a snapshot": {{Snapshot: &engram.SessionSnapshot{SessionID: "s"}}},
	} {
		_, err := m.AddAll(ctx, records)
		require.ErrorIs(t, err, engram.ErrInvalid, name)
	}
	_, err = m.AddAll(ctx, []engram.Record{{Episode: &engram.Episode{Content: "ok"}}, {Episode: &engram.Episode{}}})
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "records[1].Content", ie.Field)

	// A name taken already is found by the write: the note before it
	// is rolled back.
	_, err = m.AddAll(ctx, []engram.Record{
		{Semantic: &engram.SemanticEntry{Content: "rolled back"}},
		{Procedure: &engram.Procedure{Name: "deploy"}},
	})
	require.ErrorIs(t, err, engram.ErrExists)
	_, err = m.AddAll(ctx, []engram.Record{{Fact: &engram.Fact{Subject: "a", Predicate: "b", Object: "c", MemoryID: "nobody"}}})
	require.ErrorIs(t, err, engram.ErrNotFound)
	after, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing stored by a failed call")
}

// TestGetFindsEveryKind: Get answers with the kind and the memory, and
// refuses what the agent does not have.
func TestGetFindsEveryKind(t *testing.T) {
	ctx := context.Background()
	path := newDB(t)
	m := openOn(t, path, "ada", engram.Tier1)
	other := openOn(t, path, "bob", engram.Tier1)
	added, err := m.AddAll(ctx, []engram.Record{
		{Semantic: &engram.SemanticEntry{Content: "a note"}},
		{Episode: &engram.Episode{Content: "an event"}},
		{Procedure: &engram.Procedure{Name: "a procedure"}},
		{Fact: &engram.Fact{Subject: "Ada", Predicate: "likes", Object: "tea"}},
	})
	require.NoError(t, err)
	snapID, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s1", Summary: "a session"})
	require.NoError(t, err)

	for _, a := range added {
		r, err := m.Get(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, a.Type, r.Type)
		assert.Equal(t, a.ID, r.ID())
		assert.False(t, r.CreatedAt().IsZero())
		_, err = other.Get(ctx, a.ID)
		require.ErrorIs(t, err, engram.ErrNotFound, "another agent's memory")
	}
	r, err := m.Get(ctx, added[0].ID)
	require.NoError(t, err)
	require.NotNil(t, r.Semantic)
	assert.Equal(t, "a note", r.Semantic.Content)
	assert.Nil(t, r.Episode)
	r, err = m.Get(ctx, added[3].ID)
	require.NoError(t, err)
	assert.Equal(t, "Ada likes tea", r.Fact.String())
	r, err = m.Get(ctx, snapID)
	require.NoError(t, err)
	assert.Equal(t, engram.TypeSnapshot, r.Type)
	assert.Equal(t, "a session", r.Snapshot.Summary)

	_, err = m.Get(ctx, "no-such-id")
	require.ErrorIs(t, err, engram.ErrNotFound)
	_, err = m.Get(ctx, "")
	require.ErrorIs(t, err, engram.ErrInvalid)
}

// TestListPagesThroughEveryKind: newest first across kinds, page by page
// with the cursor, and filtered by kind, tags and time.
func TestListPagesThroughEveryKind(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	var want []string // newest first
	for i := range 3 {
		added, err := m.AddAll(ctx, []engram.Record{
			{Semantic: &engram.SemanticEntry{Content: "note " + string(rune('a'+i)), Tags: []string{"even"}[:1-i%2]}},
			{Episode: &engram.Episode{Content: "event " + string(rune('a'+i))}},
		})
		require.NoError(t, err)
		clock.Advance(time.Minute)
		p, err := m.Procedural().Store(ctx, engram.Procedure{Name: "p" + string(rune('a'+i)), Tags: []string{"ops"}})
		require.NoError(t, err)
		clock.Advance(time.Minute)
		a, err := m.Facts().Assert(ctx, engram.Fact{Subject: "x", Predicate: "likes", Object: string(rune('a' + i))})
		require.NoError(t, err)
		clock.Advance(time.Minute)
		// Same time for the note and the event: by ID, descending.
		first, second := added[0].ID, added[1].ID
		if first < second {
			first, second = second, first
		}
		want = append([]string{a.Fact.ID, p, first, second}, want...)
	}

	var got []string
	cursor := ""
	pages := 0
	for {
		page, err := m.List(ctx, engram.MemoryQuery{Limit: 5, Cursor: cursor})
		require.NoError(t, err)
		pages++
		for _, r := range page.Records {
			got = append(got, r.ID())
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 3, pages, "12 memories, 5 a page")

	page, err := m.List(ctx, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeProcedural, engram.TypeFact}})
	require.NoError(t, err)
	require.Len(t, page.Records, 6)
	assert.Equal(t, engram.TypeFact, page.Records[0].Type)
	assert.Empty(t, page.Next)

	page, err = m.List(ctx, engram.MemoryQuery{Tags: []string{"even", "ops"}})
	require.NoError(t, err)
	assert.Len(t, page.Records, 5, "two notes tagged even, three procedures; episodes and facts have no tags")

	start := time.Date(2026, 3, 1, 0, 3, 0, 0, time.UTC)
	page, err = m.List(ctx, engram.MemoryQuery{Since: start, Until: start.Add(3 * time.Minute)})
	require.NoError(t, err)
	assert.Equal(t, want[4:8], recordIDs(page.Records), "the second round only")

	for name, q := range map[string]engram.MemoryQuery{
		"working":        {Types: []engram.MemoryType{engram.TypeWorking}},
		"unknown":        {Types: []engram.MemoryType{"notes"}},
		"limit":          {Limit: engram.MaxListPage + 1},
		"negative limit": {Limit: -1},
		"cursor":         {Cursor: "not-a-cursor"},
		"until":          {Since: start, Until: start},
	} {
		_, err := m.List(ctx, q)
		require.ErrorIs(t, err, engram.ErrInvalid, name)
	}
}

func recordIDs(rs []engram.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID()
	}
	return out
}

// TestListPagesUnderAFilter: under each filter, the pages of a listing,
// of any size, put together are the memories the filter keeps, newest
// first, each once; the filter applies with the query's own kinds, tags
// and times; a bad filter is refused, named.
func TestListPagesUnderAFilter(t *testing.T) {
	ctx := context.Background()
	m, _ := openScopes(t)
	for _, c := range scopeCases() {
		t.Run(c.name, func(t *testing.T) {
			f := c.filter
			all, err := m.List(ctx, engram.MemoryQuery{Limit: engram.MaxListPage, Filter: &f})
			require.NoError(t, err)
			require.Empty(t, all.Next)
			require.NotEmpty(t, all.Records)
			assert.True(t, slices.IsSortedFunc(all.Records, func(a, b engram.Record) int {
				return cmp.Or(b.CreatedAt().Compare(a.CreatedAt()), cmp.Compare(b.ID(), a.ID()))
			}), "newest first, then by ID")
			for _, r := range all.Records {
				if !slices.Contains(c.want, r.ID()) && r.ID() != "none-fact" {
					t.Errorf("%s is listed, but the filter does not keep it", r.ID())
				}
			}
			for _, size := range []int{1, 2, 5} {
				var got []string
				cursor := ""
				for range len(all.Records) + 1 {
					page, err := m.List(ctx, engram.MemoryQuery{Limit: size, Cursor: cursor, Filter: &f})
					require.NoError(t, err)
					require.LessOrEqual(t, len(page.Records), size)
					got = append(got, recordIDs(page.Records)...)
					if cursor = page.Next; cursor == "" {
						break
					}
				}
				assert.Equal(t, recordIDs(all.Records), got, "pages of %d", size)
			}
		})
	}

	// The query's own fields and the filter's both apply.
	f := engram.Filter{UserID: "u1", Types: []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic}}
	page, err := m.List(ctx, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeEpisodic, engram.TypeProcedural}, Filter: &f})
	require.NoError(t, err)
	assert.Equal(t, []string{"u1-ep-s2", "u1-ep-s1"}, recordIDs(page.Records), "episodes, the one kind in both")
	page, err = m.List(ctx, engram.MemoryQuery{Tags: []string{"tag-s1"}, Filter: &engram.Filter{UserID: "u2", Tags: []string{"tag-s1", "tag-s2"}}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"u2-sem-s1", "u2-proc-s1"}, recordIDs(page.Records))
	page, err = m.List(ctx, engram.MemoryQuery{Since: scopeStart.AddDate(0, 0, 1), Filter: &engram.Filter{UserID: "u2", Until: scopeStart.AddDate(0, 0, 3)}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"u2-sem-s1", "u2-ep-s1", "u2-proc-s1"}, recordIDs(page.Records), "u2's first day: the second of all")

	for _, bad := range badFilters() {
		f := bad.f
		_, err := m.List(ctx, engram.MemoryQuery{Filter: &f})
		var ie *engram.InvalidError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, bad.part, ie.Field)
	}
}

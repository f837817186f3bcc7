package enginetest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// readTests read memories back: listings by cursor, searches with their
// filters, recall into the working set, and the context block.
var readTests = []test{
	{"List", testList},
	{"ListInvalid", testListInvalid},
	{"Search", testSearch},
	{"SearchFilters", testSearchFilters},
	{"SearchInvalid", testSearchInvalid},
	{"SearchTier2", testSearchTier2},
	{"Recall", testRecall},
	{"Context", testContext},
}

// seedKinds stores one memory of every stored kind but documents, each
// created a minute after the one before: s1, e1, p1, f1, n1, s2, e2.
func seedKinds(t *testing.T, m *engram.Memory) {
	t.Helper()
	ctx := context.Background()
	_, err := m.AddAll(ctx, []engram.Record{
		{Type: engram.TypeSemantic, Semantic: &engram.SemanticEntry{ID: "s1", Content: "Ada maintains the billing service", CreatedAt: at(1), Tags: []string{"team"}, UserID: "ada"}},
		{Type: engram.TypeEpisodic, Episode: &engram.Episode{ID: "e1", Content: "Ada reported a billing outage", CreatedAt: at(2), UserID: "ada", SessionID: "chat-1"}},
		{Type: engram.TypeProcedural, Procedure: &engram.Procedure{ID: "p1", Name: "incident", Description: "page the billing owner", CreatedAt: at(3), Tags: []string{"ops"}}},
	})
	require.NoError(t, err)
	_, err = m.Facts().Assert(ctx, engram.Fact{ID: "f1", Subject: "Ada", Predicate: "works at", Object: "Acme", ValidFrom: at(4)})
	require.NoError(t, err)
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "n1", SessionID: "chat-1", Summary: "the billing outage was fixed", StartedAt: at(5), EndedAt: at(5), CreatedAt: at(5)})
	require.NoError(t, err)
	_, err = m.AddAll(ctx, []engram.Record{
		{Type: engram.TypeSemantic, Semantic: &engram.SemanticEntry{ID: "s2", Content: "Bob prefers tea over coffee", CreatedAt: at(6), Tags: []string{"taste"}, UserID: "bob", SessionID: "chat-2", Metadata: map[string]any{"lang": "fr"}}},
		{Type: engram.TypeEpisodic, Episode: &engram.Episode{ID: "e2", Content: "Bob asked for the invoices", CreatedAt: at(7), UserID: "bob", SessionID: "chat-2"}},
	})
	require.NoError(t, err)
}

// recordIDs are the IDs of records, in order.
func recordIDs(rs []engram.Record) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID())
	}
	return ids
}

// resultIDs are the IDs of results, in order.
func resultIDs(rs []engram.Result) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// listAll pages through m.List with mq, limit records a page, and
// returns every page's IDs.
func listAll(t *testing.T, m *engram.Memory, mq engram.MemoryQuery) [][]string {
	t.Helper()
	var pages [][]string
	for {
		page, err := m.List(context.Background(), mq)
		require.NoError(t, err)
		pages = append(pages, recordIDs(page.Records))
		if page.Next == "" {
			return pages
		}
		require.Less(t, len(pages), 100, "List's cursor goes round")
		mq.Cursor = page.Next
	}
}

func testList(t *testing.T, e Engine) {
	o := memory(t, e)
	seedKinds(t, o.m)

	// The fact lists by when it was recorded (the clock's now, a day
	// after the others), not by its ValidFrom: it is the newest.
	assert.Equal(t, [][]string{{"f1", "e2", "s2"}, {"n1", "p1", "e1"}, {"s1"}}, listAll(t, o.m, engram.MemoryQuery{Limit: 3}))
	assert.Equal(t, [][]string{{"s2", "s1"}}, listAll(t, o.m, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeSemantic}}))
	assert.Equal(t, [][]string{{"e2"}, {"e1"}}, listAll(t, o.m, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeEpisodic}, Limit: 1}))
	assert.Equal(t, [][]string{{"p1", "s1"}}, listAll(t, o.m, engram.MemoryQuery{Tags: []string{"team", "ops"}}))
	assert.Equal(t, [][]string{{"n1", "p1"}}, listAll(t, o.m, engram.MemoryQuery{Since: at(3), Until: at(6), Types: []engram.MemoryType{engram.TypeProcedural, engram.TypeSnapshot}}))
	assert.Equal(t, [][]string{{"e2", "s2"}}, listAll(t, o.m, engram.MemoryQuery{Filter: &engram.Filter{UserID: "bob"}}))
	assert.Equal(t, [][]string{{"n1"}, {"e1"}}, listAll(t, o.m, engram.MemoryQuery{Filter: &engram.Filter{SessionID: "chat-1"}, Limit: 1}))
	assert.Equal(t, [][]string{{"s2"}}, listAll(t, o.m, engram.MemoryQuery{Filter: &engram.Filter{Metadata: engram.MetaEq("lang", "fr")}}))

	// Memories stored after a listing began are on none of its pages.
	page, err := o.m.List(context.Background(), engram.MemoryQuery{Limit: 4})
	require.NoError(t, err)
	_, err = o.m.Semantic().Store(context.Background(), engram.SemanticEntry{ID: "s3", Content: "stored meanwhile"})
	require.NoError(t, err)
	rest := listAll(t, o.m, engram.MemoryQuery{Limit: 4, Cursor: page.Next})
	assert.Equal(t, [][]string{{"p1", "e1", "s1"}}, rest)

	// Pages smaller than what a kind holds, a kind at a time.
	for i, id := range []string{"x1", "x2", "x3"} {
		_, err := o.m.Episodic().Log(context.Background(), engram.Episode{ID: id, Content: "episode " + id, CreatedAt: at(20 + i)})
		require.NoError(t, err)
	}
	assert.Equal(t, [][]string{{"x3"}, {"x2"}, {"x1"}, {"e2"}, {"e1"}}, listAll(t, o.m, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeEpisodic}, Limit: 1}))
	// s3 and f1 were stored at the clock's now, after the others: at one
	// time, the greater ID first.
	assert.Equal(t, [][]string{{"s3", "f1", "x3", "x2"}, {"x1", "e2", "s2", "n1"}, {"p1", "e1", "s1"}}, listAll(t, o.m, engram.MemoryQuery{Limit: 4}))
}

func testListInvalid(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	for name, mq := range map[string]engram.MemoryQuery{
		"working":      {Types: []engram.MemoryType{engram.TypeWorking}},
		"unknown kind": {Types: []engram.MemoryType{"dreams"}},
		"limit":        {Limit: engram.MaxListPage + 1},
		"negative":     {Limit: -1},
		"until":        {Since: at(3), Until: at(2)},
		"cursor":       {Cursor: "not-a-cursor"},
		"filter":       {Filter: &engram.Filter{UserID: "a\nb"}},
	} {
		_, err := o.m.List(ctx, mq)
		assert.ErrorIs(t, err, engram.ErrInvalid, name)
	}
}

func testSearch(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)

	res, err := o.m.Search(ctx, engram.SearchOptions{Query: "billing"})
	require.NoError(t, err)
	ids := resultIDs(res)
	// Every kind with the word and nothing else, in the order of their
	// scores (text relevance, importance, recency), the same on every
	// engine.
	assert.Equal(t, []string{"n1", "e1", "s1", "p1"}, ids)
	for i := 1; i < len(res); i++ {
		assert.GreaterOrEqual(t, res[i-1].Score, res[i].Score, "best first")
	}
	for _, r := range res {
		assert.Contains(t, r.Snippet, "**billing**", r.ID)
		assert.Greater(t, r.Score, 0.0)
	}
	// The same search gives the same results in the same order.
	again, err := o.m.Search(ctx, engram.SearchOptions{Query: "billing"})
	require.NoError(t, err)
	assert.Equal(t, ids, resultIDs(again))

	// A fact is found as "subject predicate object" while it holds.
	res, err = o.m.Search(ctx, engram.SearchOptions{Query: "Acme"})
	require.NoError(t, err)
	require.Equal(t, []string{"f1"}, resultIDs(res))
	assert.Equal(t, engram.TypeFact, res[0].Type)
	assert.Equal(t, "Ada works at Acme", res[0].Content)

	// The search of one kind.
	res, err = o.m.Semantic().Search(ctx, engram.SearchOptions{Query: "billing tea"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"s1", "s2"}, resultIDs(res))
	res, err = o.m.Search(ctx, engram.SearchOptions{Query: "billing", Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, ids[:2], resultIDs(res))

	// A query of no words finds nothing; one of words nobody wrote
	// neither; FTS5 syntax in a plain query is inert.
	for q, want := range map[string][]string{
		"?!":                {},
		"zebra":             {},
		`billing" OR "tea`:  {"s1", "s2"},
		"NOT billing":       {"s1"},
		"billing* OR zebra": {"s1"},
	} {
		res, err = o.m.Search(ctx, engram.SearchOptions{Query: q, Types: []engram.MemoryType{engram.TypeSemantic}})
		require.NoError(t, err, q)
		assert.ElementsMatch(t, want, resultIDs(res), q)
	}
	res, err = o.m.Search(ctx, engram.SearchOptions{Query: "billing AND Ada NOT outage", Advanced: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"s1"}, resultIDs(res))
}

func testSearchFilters(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)

	search := func(opts engram.SearchOptions) []string {
		t.Helper()
		res, err := o.m.Search(ctx, opts)
		require.NoError(t, err)
		ids := resultIDs(res)
		return ids
	}
	q := "billing outage Bob tea invoices Acme"
	assert.ElementsMatch(t, []string{"s1", "e1", "p1", "n1", "s2", "e2", "f1"}, search(engram.SearchOptions{Query: q}))
	assert.ElementsMatch(t, []string{"e1", "e2"}, search(engram.SearchOptions{Query: q, Types: []engram.MemoryType{engram.TypeEpisodic}}))
	assert.ElementsMatch(t, []string{"s1", "p1"}, search(engram.SearchOptions{Query: q, Tags: []string{"team", "ops"}}))
	assert.ElementsMatch(t, []string{"s2", "e2"}, search(engram.SearchOptions{Query: q, Filter: &engram.Filter{UserID: "bob"}}))
	assert.ElementsMatch(t, []string{"e1", "n1"}, search(engram.SearchOptions{Query: q, Filter: &engram.Filter{SessionID: "chat-1"}}))
	assert.ElementsMatch(t, []string{"p1", "n1", "s2"}, search(engram.SearchOptions{Query: q, Since: at(3), Until: at(7)}))
	assert.ElementsMatch(t, []string{"s2"}, search(engram.SearchOptions{Query: q, Filter: &engram.Filter{Metadata: engram.MetaEq("lang", "fr")}}))
	assert.ElementsMatch(t, []string{"e1"}, search(engram.SearchOptions{Query: q, Types: []engram.MemoryType{engram.TypeEpisodic},
		Filter: &engram.Filter{UserID: "ada", SessionID: "chat-1"}}))
	assert.Empty(t, search(engram.SearchOptions{Query: q, Filter: &engram.Filter{UserID: "carol"}}))
}

func testSearchInvalid(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	for name, opts := range map[string]engram.SearchOptions{
		"kind":      {Query: "billing", Types: []engram.MemoryType{"dreams"}},
		"limit":     {Query: "billing", Limit: 1001},
		"threshold": {Query: "billing", Threshold: 2},
		"filter":    {Query: "billing", Filter: &engram.Filter{UserID: "a\nb"}},
	} {
		_, err := o.m.Search(ctx, opts)
		assert.ErrorIs(t, err, engram.ErrInvalid, name)
	}
	_, err := o.m.Search(ctx, engram.SearchOptions{Query: `billing AND (`, Advanced: true})
	assert.ErrorIs(t, err, engram.ErrInvalidQuery)
	_, err = o.m.Search(ctx, engram.SearchOptions{Query: "billing", Mode: engram.SearchVector})
	assert.ErrorIs(t, err, engram.ErrTierUnsupported)
}

func testSearchTier2(t *testing.T, e Engine) {
	ctx := context.Background()
	o := tier2(t, e)
	seedKinds(t, o.m)
	require.Equal(t, engram.Tier2, o.m.Tier())

	for _, mode := range []engram.SearchMode{engram.SearchDefault, engram.SearchText, engram.SearchVector, engram.SearchHybrid} {
		found, err := o.m.Find(ctx, engram.SearchOptions{Query: "tea over coffee", Mode: mode, Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 1})
		require.NoError(t, err, mode)
		assert.Equal(t, []string{"s2"}, resultIDs(found.Results), mode)
	}
	s := stats(t, o.m)
	assert.Zero(t, s.PendingEmbeddings, "every memory has its vector")
	// A vector search honours the filters as a text search does.
	res, err := o.m.Search(ctx, engram.SearchOptions{Query: "billing", Mode: engram.SearchVector, Filter: &engram.Filter{UserID: "bob"}})
	require.NoError(t, err)
	for _, r := range res {
		assert.Contains(t, []string{"s2", "e2"}, r.ID)
	}
}

func testRecall(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)

	r, err := o.m.Recall(ctx, "Who maintains the billing service?")
	require.NoError(t, err)
	require.NotEmpty(t, r.Admitted)
	assert.Equal(t, "s1", r.Admitted[0].ID)
	assert.Equal(t, engram.TypeSemantic, r.Admitted[0].Type)
	require.NotEmpty(t, r.Working)
	assert.Equal(t, engram.RecalledID(engram.TypeSemantic, "s1"), r.Working[0].ID, "the best is the newest working item")
	var admitted []string
	for _, x := range r.Admitted {
		admitted = append(admitted, x.ID)
		assert.True(t, x.Admitted)
	}
	assert.NotContains(t, admitted, "s2")
	assert.NotContains(t, admitted, "e2")

	// The retrieval is counted, written by the next write.
	_, err = o.m.Semantic().Store(ctx, engram.SemanticEntry{Content: "a write"})
	require.NoError(t, err)
	s1, err := o.m.Semantic().Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, 1, s1.Retrievals)

	// A filter keeps other users' memories out.
	r, err = o.m.RecallWith(ctx, engram.RecallOptions{Query: "billing invoices", Filter: &engram.Filter{UserID: "bob"}})
	require.NoError(t, err)
	for _, x := range r.Admitted {
		assert.Contains(t, []string{"s2", "e2"}, x.ID)
	}
	_, err = o.m.Recall(ctx, "")
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func testContext(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	_, err := o.m.Semantic().Update(ctx, "s1", engram.SemanticPatch{Importance: new(0.9)})
	require.NoError(t, err)

	b, err := o.m.Context(ctx, engram.ContextOptions{Query: "invoices", MaxTokens: 200})
	require.NoError(t, err)
	assert.LessOrEqual(t, b.Tokens, 200)
	assert.Equal(t, engram.EstimateTokens(b.Text), b.Tokens)
	assert.True(t, strings.HasPrefix(b.Text, "# Memory of ada\n"), b.Text)
	first := strings.Index(b.Text, "Ada maintains the billing service")
	second := strings.Index(b.Text, "Bob prefers tea over coffee")
	assert.True(t, first >= 0 && second > first, "the more important entry first:\n%s", b.Text)
	assert.Contains(t, b.Text, "Ada works at Acme")
	assert.Contains(t, b.Text, "Bob asked for the invoices")

	// The same data, query and clock: the same block. Another query: the
	// same stable prefix.
	again, err := o.m.Context(ctx, engram.ContextOptions{Query: "invoices", MaxTokens: 200})
	require.NoError(t, err)
	assert.Equal(t, b.Text, again.Text)
	other, err := o.m.Context(ctx, engram.ContextOptions{Query: "outage", MaxTokens: 200})
	require.NoError(t, err)
	assert.Equal(t, b.Stable, other.Stable)
	assert.Equal(t, b.Text[:b.Stable], other.Text[:other.Stable])

	// A small budget is kept.
	small, err := o.m.Context(ctx, engram.ContextOptions{Query: "invoices", MaxTokens: 30})
	require.NoError(t, err)
	assert.LessOrEqual(t, small.Tokens, 30)
	assert.Less(t, small.Tokens, b.Tokens)

	_, err = o.m.Context(ctx, engram.ContextOptions{MaxTokens: -1})
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

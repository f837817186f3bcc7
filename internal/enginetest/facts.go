package enginetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// factTests assert facts and read them back through time, and walk the
// entity graph they make.
var factTests = []test{
	{"FactsTimeline", testFactsTimeline},
	{"FactsMergeRetractAlias", testFactsMergeRetractAlias},
	{"FactsInvalid", testFactsInvalid},
	{"Graph", testGraph},
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// factIDs are the IDs of facts, in order.
func factIDs(fs []engram.Fact) []string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return ids
}

func testFactsTimeline(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	facts := o.m.Facts()

	o.c.Set(date(2025, 4, 1))
	a, err := facts.Assert(ctx, engram.Fact{ID: "seattle", Subject: "Maya", Predicate: "lives in", Object: "Seattle", Sources: []string{"chat"}})
	require.NoError(t, err)
	assert.Equal(t, engram.FactInserted, a.Action)
	assert.True(t, a.Fact.ValidFrom.Equal(date(2025, 4, 1)), "a zero ValidFrom is the clock's now")
	assert.True(t, a.Fact.RecordedAt.Equal(date(2025, 4, 1)))

	// A new value of a single-valued predicate supersedes the old one,
	// back-dated to when it started.
	o.c.Set(date(2025, 8, 1))
	a, err = facts.Assert(ctx, engram.Fact{ID: "portland", Subject: "maya", Predicate: "Lives in", Object: "Portland", ValidFrom: date(2025, 7, 1)})
	require.NoError(t, err)
	assert.Equal(t, engram.FactSuperseded, a.Action)
	require.Len(t, a.Superseded, 1)
	assert.Equal(t, "seattle", a.Superseded[0].ID)
	assert.True(t, a.Superseded[0].ValidTo.Equal(date(2025, 7, 1)), "the old fact ends where the new one starts")
	assert.True(t, a.Superseded[0].ExpiredAt.Equal(date(2025, 8, 1)), "and is retired now")

	// A many-valued predicate keeps both.
	_, err = facts.Assert(ctx, engram.Fact{ID: "jazz", Subject: "Maya", Predicate: "likes", Object: "jazz", ValidFrom: date(2025, 1, 1)})
	require.NoError(t, err)
	_, err = facts.Assert(ctx, engram.Fact{ID: "tea", Subject: "Maya", Predicate: "likes", Object: "tea", ValidFrom: date(2025, 2, 1)})
	require.NoError(t, err)

	cur, err := facts.Current(ctx, engram.FactQuery{Entity: "Maya", Predicate: "lives in"})
	require.NoError(t, err)
	assert.Equal(t, []string{"portland"}, factIDs(cur))
	cur, err = facts.Current(ctx, engram.FactQuery{Entity: "MAYA"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"portland", "jazz", "tea"}, factIDs(cur), "entities match without case")

	for day, want := range map[time.Time][]string{
		date(2025, 5, 1):  {"seattle"},
		date(2025, 7, 20): {"portland"},
		date(2025, 3, 31): nil,
		date(2024, 1, 1):  nil,
	} {
		got, err := facts.AsOf(ctx, day, engram.FactQuery{Entity: "Maya", Predicate: "lives in"})
		require.NoError(t, err)
		assert.Equal(t, want, factIDs(got), "AsOf %v", day)
	}
	// What the agent believed on July 20 was Seattle: it learned of
	// Portland on August 1.
	known, err := facts.KnownAt(ctx, date(2025, 7, 20), engram.FactQuery{Entity: "Maya", Predicate: "lives in"})
	require.NoError(t, err)
	assert.Equal(t, []string{"seattle"}, factIDs(known))
	known, err = facts.KnownAt(ctx, date(2025, 3, 1), engram.FactQuery{Entity: "Maya"})
	require.NoError(t, err)
	assert.Empty(t, known, "nothing was recorded yet")

	hist, err := facts.History(ctx, "Maya", "lives in")
	require.NoError(t, err)
	assert.Equal(t, []string{"seattle", "portland"}, factIDs(hist))
	assert.Equal(t, []string{"chat"}, hist[0].Sources)
	assert.True(t, hist[1].ValidTo.IsZero())

	got, err := facts.Get(ctx, "seattle")
	require.NoError(t, err, "a past fact is kept")
	assert.Equal(t, "Maya lives in Seattle", got.String())
	assert.Equal(t, 4, stats(t, o.m).Facts)
}

func testFactsMergeRetractAlias(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	facts := o.m.Facts()
	o.c.Set(date(2025, 4, 1))

	a, err := facts.Assert(ctx, engram.Fact{ID: "f1", Subject: "Maya", Predicate: "likes", Object: "tea", ValidFrom: date(2025, 1, 1), Sources: []string{"chat-1"}})
	require.NoError(t, err)
	assert.Equal(t, engram.FactInserted, a.Action)
	a, err = facts.Assert(ctx, engram.Fact{Subject: "maya", Predicate: "likes", Object: "Tea", ValidFrom: date(2025, 2, 1), Sources: []string{"chat-2"}, Strength: 0.5})
	require.NoError(t, err)
	assert.Equal(t, engram.FactMerged, a.Action)
	assert.Equal(t, "f1", a.Fact.ID)
	assert.Equal(t, 1.5, a.Fact.Strength)
	assert.Equal(t, []string{"chat-1", "chat-2"}, a.Fact.Sources)
	assert.True(t, a.Fact.ValidFrom.Equal(date(2025, 1, 1)), "the earlier start is kept")

	// Retract ends a fact; it stays in the past.
	r, err := facts.Retract(ctx, "f1", date(2025, 3, 1))
	require.NoError(t, err)
	assert.True(t, r.ValidTo.Equal(date(2025, 3, 1)))
	cur, err := facts.Current(ctx, engram.FactQuery{Entity: "Maya"})
	require.NoError(t, err)
	assert.Empty(t, cur)
	past, err := facts.AsOf(ctx, date(2025, 2, 15), engram.FactQuery{Entity: "Maya"})
	require.NoError(t, err)
	assert.Equal(t, []string{"f1"}, factIDs(past))
	_, err = facts.Retract(ctx, "f1", time.Time{})
	require.ErrorIs(t, err, engram.ErrInvalid, "a fact that ended already")
	_, err = facts.Retract(ctx, "none", time.Time{})
	require.ErrorIs(t, err, engram.ErrNotFound)

	// An alias makes two names one entity, now and later.
	_, err = facts.Assert(ctx, engram.Fact{ID: "f2", Subject: "Maya Lopez", Predicate: "works at", Object: "Acme"})
	require.NoError(t, err)
	require.NoError(t, facts.Alias(ctx, "Maya", "Maya Lopez"))
	cur, err = facts.Current(ctx, engram.FactQuery{Entity: "maya"})
	require.NoError(t, err)
	assert.Equal(t, []string{"f2"}, factIDs(cur))
	a, err = facts.Assert(ctx, engram.Fact{Subject: "Maya", Predicate: "works at", Object: "acme"})
	require.NoError(t, err)
	assert.Equal(t, engram.FactMerged, a.Action)
	assert.Equal(t, "f2", a.Fact.ID)
	require.ErrorIs(t, facts.Alias(ctx, "Maya", "maya"), engram.ErrInvalid, "one name already")

	// Delete removes a fact for good.
	require.NoError(t, facts.Delete(ctx, "f1"))
	_, err = facts.Get(ctx, "f1")
	require.ErrorIs(t, err, engram.ErrNotFound)
	require.ErrorIs(t, facts.Delete(ctx, "f1"), engram.ErrNotFound)
	assert.Equal(t, 1, stats(t, o.m).Facts)
}

func testFactsInvalid(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	facts := o.m.Facts()
	_, err := facts.Assert(ctx, engram.Fact{ID: "f1", Subject: "Ada", Predicate: "lives in", Object: "London", ValidFrom: date(2020, 1, 1)})
	require.NoError(t, err)

	for name, f := range map[string]engram.Fact{
		"empty subject":   {Subject: "", Predicate: "likes", Object: "tea"},
		"empty object":    {Subject: "Ada", Predicate: "likes", Object: ""},
		"no words":        {Subject: "Ada", Predicate: "??", Object: "tea"},
		"ValidTo first":   {Subject: "Ada", Predicate: "likes", Object: "tea", ValidFrom: date(2021, 1, 1), ValidTo: date(2020, 1, 1)},
		"strength":        {Subject: "Ada", Predicate: "likes", Object: "tea", Strength: -1},
		"invalid UTF-8":   {Subject: "Ada\xff", Predicate: "likes", Object: "tea"},
		"bad MemoryID":    {Subject: "Ada", Predicate: "likes", Object: "tea", MemoryID: "a b"},
		"supersede twice": {ID: "f1", Subject: "Ada", Predicate: "lives in", Object: "Paris"},
	} {
		_, err := facts.Assert(ctx, f)
		if name == "supersede twice" {
			require.ErrorIs(t, err, engram.ErrExists, name)
			continue
		}
		require.ErrorIs(t, err, engram.ErrInvalid, name)
	}
	_, err = facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "likes", Object: "tea", MemoryID: "missing"})
	require.ErrorIs(t, err, engram.ErrNotFound)
	// An invalid fact in a list asserts none of it.
	_, err = facts.AssertAll(ctx, []engram.Fact{{Subject: "Ada", Predicate: "lives in", Object: "Paris"}, {Subject: "", Predicate: "x", Object: "y"}})
	require.ErrorIs(t, err, engram.ErrInvalid)

	cur, err := facts.Current(ctx, engram.FactQuery{})
	require.NoError(t, err)
	assert.Equal(t, []string{"f1"}, factIDs(cur), "nothing changed")
	_, err = facts.Current(ctx, engram.FactQuery{Limit: -1})
	require.ErrorIs(t, err, engram.ErrInvalid)
}

func testGraph(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	facts := o.m.Facts()
	_, err := facts.AssertAll(ctx, []engram.Fact{
		{ID: "g1", Subject: "Ada", Predicate: "works at", Object: "Acme", ValidFrom: date(2020, 1, 1)},
		{ID: "g2", Subject: "Bob", Predicate: "works at", Object: "Acme", ValidFrom: date(2020, 1, 1)},
		{ID: "g3", Subject: "Acme", Predicate: "is located in", Object: "Berlin", ValidFrom: date(2020, 1, 1)},
		{ID: "g4", Subject: "Carol", Predicate: "knows", Object: "Bob", ValidFrom: date(2020, 1, 1)},
		{ID: "g5", Subject: "Dan", Predicate: "knows", Object: "Eve", ValidFrom: date(2020, 1, 1)},
	})
	require.NoError(t, err)

	nb, err := facts.Neighbours(ctx, engram.FactQuery{Entity: "acme"})
	require.NoError(t, err)
	var names []string
	for _, n := range nb {
		names = append(names, n.Entity)
		require.Len(t, n.Hops, 1)
	}
	assert.Equal(t, []string{"Ada", "Berlin", "Bob"}, names)
	nb, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "Acme", Direction: engram.DirectionOut})
	require.NoError(t, err)
	require.Len(t, nb, 1)
	assert.Equal(t, "Berlin", nb[0].Entity)
	assert.Equal(t, "g3", nb[0].Hops[0].Fact.ID)

	paths, err := facts.Paths(ctx, "Ada", "Carol", 0)
	require.NoError(t, err)
	require.Len(t, paths, 1)
	var walked []string
	for _, h := range paths[0] {
		walked = append(walked, h.From()+">"+h.Fact.ID+">"+h.To())
	}
	assert.Equal(t, []string{"Ada>g1>Acme", "Acme>g2>Bob", "Bob>g4>Carol"}, walked)
	assert.Equal(t, []engram.Direction{engram.DirectionOut, engram.DirectionIn, engram.DirectionIn},
		[]engram.Direction{paths[0][0].Direction, paths[0][1].Direction, paths[0][2].Direction})
	paths, err = facts.Paths(ctx, "Ada", "Carol", 2)
	require.NoError(t, err)
	assert.Empty(t, paths, "no path of two hops")
	paths, err = facts.Paths(ctx, "Ada", "Eve", 0)
	require.NoError(t, err)
	assert.Empty(t, paths, "another component")

	reached, err := facts.Reachable(ctx, "Ada", 2)
	require.NoError(t, err)
	assert.Equal(t, []engram.Reached{{Entity: "Acme", Distance: 1}, {Entity: "Berlin", Distance: 2}, {Entity: "Bob", Distance: 2}}, reached)

	g, err := facts.Graph(ctx, engram.GraphOptions{Center: "Ada", Depth: 1})
	require.NoError(t, err)
	var nodes []string
	for _, n := range g.Nodes {
		nodes = append(nodes, n.ID)
	}
	assert.Equal(t, []string{"ada", "acme"}, nodes)
	require.Len(t, g.Edges, 1)
	assert.Equal(t, engram.GraphEdge{Source: "ada", Target: "acme", Predicate: "works at", FactID: "g1", ValidFrom: date(2020, 1, 1)}, g.Edges[0])

	// Errors.
	_, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "Zed"})
	require.ErrorIs(t, err, engram.ErrNotFound)
	_, err = facts.Paths(ctx, "Ada", "Zed", 0)
	require.ErrorIs(t, err, engram.ErrNotFound)
	_, err = facts.Paths(ctx, "Ada", "ada", 0)
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = facts.Reachable(ctx, "Ada", engram.MaxGraphDepth+1)
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = facts.Graph(ctx, engram.GraphOptions{Center: "Zed"})
	require.ErrorIs(t, err, engram.ErrNotFound)
}

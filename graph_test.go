package engram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// assertFacts asserts "subject | predicate | object" triples, a minute
// apart.
func assertFacts(t *testing.T, m *engram.Memory, clock *testutil.Clock, triples ...string) {
	t.Helper()
	for _, tr := range triples {
		parts := strings.Split(tr, " | ")
		require.Len(t, parts, 3, tr)
		_, err := m.Facts().Assert(context.Background(), engram.Fact{Subject: parts[0], Predicate: parts[1], Object: parts[2]})
		require.NoError(t, err, tr)
		if clock != nil {
			clock.Advance(time.Minute)
		}
	}
}

// pathStrings writes each path as its facts joined by " / ", each fact
// marked < when walked against it.
func pathStrings(paths []engram.Path) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		hops := make([]string, len(p))
		for j, h := range p {
			hops[j] = h.Fact.String()
			if h.Direction == engram.DirectionIn {
				hops[j] = "<" + hops[j]
			}
		}
		out[i] = strings.Join(hops, " / ")
	}
	return out
}

func neighbourStrings(ns []engram.Neighbour) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		hops := make([]string, len(n.Hops))
		for j, h := range n.Hops {
			hops[j] = h.Fact.String()
			if h.Direction == engram.DirectionIn {
				hops[j] = "<" + hops[j]
			}
		}
		out[i] = n.Entity + ": " + strings.Join(hops, ", ")
	}
	return out
}

func TestGraphNeighbours(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	assertFacts(t, m, clock,
		"Ada | lives in | London",
		"Ada | knows | Bob",
		"Bob | knows | Ada",
		"Ada | likes | Ada", // joins Ada to no one
		"Bob | works at | Acme",
		"Carol | likes | ada",
	)
	facts := m.Facts()

	ns, err := facts.Neighbours(ctx, engram.FactQuery{Entity: "ADA"})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"Bob: Ada knows Bob, <Bob knows Ada",
		"Carol: <Carol likes ada",
		"London: Ada lives in London",
	}, neighbourStrings(ns))
	assert.Equal(t, "Bob", ns[0].Hops[1].To(), "a hop against its fact reaches its subject")
	assert.Equal(t, "Ada", ns[0].Hops[1].From())

	ns, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "Ada", Direction: engram.DirectionIn})
	require.NoError(t, err)
	assert.Equal(t, []string{"Bob: <Bob knows Ada", "Carol: <Carol likes ada"}, neighbourStrings(ns))

	ns, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "Ada", Direction: engram.DirectionOut, Predicate: "Knows"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Bob: Ada knows Bob"}, neighbourStrings(ns))

	ns, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "Ada", Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"Bob", "Carol"}, []string{ns[0].Entity, ns[1].Entity}, "the first neighbours by name")
	assert.Len(t, ns, 2)

	// Ada moves: the fact that ended joins her to London no more.
	assertFacts(t, m, clock, "Ada | lives in | Paris")
	ns, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "Ada", Predicate: "lives in"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Paris: Ada lives in Paris"}, neighbourStrings(ns))
	ns, err = facts.Neighbours(ctx, engram.FactQuery{Entity: "London"})
	require.NoError(t, err)
	assert.Empty(t, ns, "London is known, but no fact of it holds")
}

// pathGraph is a small graph with a cycle (Ada and Cy like each other)
// and paths of two and three hops from Ada to Dee.
func pathGraph(t *testing.T) (*engram.Memory, *testutil.Clock) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	assertFacts(t, m, clock,
		"Ada | knows | Bo",
		"Bo | knows | Cy",
		"Cy | knows | Dee",
		"Ada | likes | Cy",
		"Cy | admires | Ada",
		"Dee | works at | Acme",
		"Eve | knows | Fay", // another component
	)
	return m, clock
}

func TestGraphPaths(t *testing.T) {
	m, clock := pathGraph(t)
	ctx := context.Background()
	facts := m.Facts()

	paths, err := facts.Paths(ctx, "ada", "Dee", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"<Cy admires Ada / Cy knows Dee",
		"Ada likes Cy / Cy knows Dee",
		"Ada knows Bo / Bo knows Cy / Cy knows Dee",
	}, pathStrings(paths), "shortest first, each fact its own path, none through an entity twice")

	back, err := facts.Paths(ctx, "Dee", "Ada", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"<Cy knows Dee / Cy admires Ada",
		"<Cy knows Dee / <Ada likes Cy",
		"<Cy knows Dee / <Bo knows Cy / <Ada knows Bo",
	}, pathStrings(back), "the same paths walked the other way")

	short, err := facts.Paths(ctx, "Ada", "Dee", 2)
	require.NoError(t, err)
	assert.Equal(t, pathStrings(paths[:2]), pathStrings(short))
	none, err := facts.Paths(ctx, "Ada", "Dee", 1)
	require.NoError(t, err)
	assert.Empty(t, none)
	none, err = facts.Paths(ctx, "Ada", "Fay", 3)
	require.NoError(t, err)
	assert.Empty(t, none, "another component")

	paths, err = facts.Paths(ctx, "Ada", "Acme", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"<Cy admires Ada / Cy knows Dee / Dee works at Acme",
		"Ada likes Cy / Cy knows Dee / Dee works at Acme",
	}, pathStrings(paths), "up to three hops")

	// Through an alias: Addy is Ada, before and after.
	require.NoError(t, facts.Alias(ctx, "Ada", "Addy"))
	assertFacts(t, m, clock, "Addy | knows | Gus")
	paths, err = facts.Paths(ctx, "Gus", "Bo", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"<Addy knows Gus / Ada knows Bo",
		"<Addy knows Gus / <Cy admires Ada / <Bo knows Cy",
		"<Addy knows Gus / Ada likes Cy / <Bo knows Cy",
	}, pathStrings(paths))
	paths, err = facts.Paths(ctx, "ADDY", "Cy", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"<Cy admires Ada", "Ada likes Cy"}, pathStrings(paths))

	// Dee leaves Acme: the fact that ended is not followed, though Acme
	// is still known.
	assertFacts(t, m, clock, "Dee | works at | Initech")
	paths, err = facts.Paths(ctx, "Ada", "Acme", 3)
	require.NoError(t, err)
	assert.Empty(t, paths)
	paths, err = facts.Paths(ctx, "Cy", "Initech", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"Cy knows Dee / Dee works at Initech"}, pathStrings(paths))
}

func TestGraphReachable(t *testing.T) {
	m, _ := pathGraph(t)
	ctx := context.Background()
	reached := func(entity string, depth int) []string {
		t.Helper()
		rs, err := m.Facts().Reachable(ctx, entity, depth)
		require.NoError(t, err)
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = fmt.Sprintf("%s %d", r.Entity, r.Distance)
		}
		return out
	}
	assert.Equal(t, []string{"Bo 1", "Cy 1", "Dee 2"}, reached("Ada", 0), "depth 2 by default, the cycle walked once")
	assert.Equal(t, []string{"Bo 1", "Cy 1"}, reached("ada", 1))
	assert.Equal(t, []string{"Bo 1", "Cy 1", "Dee 2", "Acme 3"}, reached("Ada", 3))
	assert.Equal(t, []string{"Eve 1"}, reached("Fay", 3))
}

func TestGraphView(t *testing.T) {
	m, clock := pathGraph(t)
	ctx := context.Background()
	facts := m.Facts()

	g, err := facts.Graph(ctx, engram.GraphOptions{Center: "Cy", Depth: 1})
	require.NoError(t, err)
	assert.Equal(t, "Cy", g.Center)
	assert.Equal(t, []engram.GraphNode{{ID: "cy", Label: "Cy"}, {ID: "ada", Label: "Ada"}, {ID: "bo", Label: "Bo"}, {ID: "dee", Label: "Dee"}}, g.Nodes,
		"the center, then by distance and ID")
	var edges []string
	for _, e := range g.Edges {
		edges = append(edges, e.Source+" "+e.Predicate+" "+e.Target)
		assert.NotEmpty(t, e.FactID)
		assert.True(t, e.ValidTo.IsZero())
	}
	assert.Equal(t, []string{"ada knows bo", "ada likes cy", "bo knows cy", "cy admires ada", "cy knows dee"}, edges,
		"every fact between the nodes, by subject, object and predicate")

	g, err = facts.Graph(ctx, engram.GraphOptions{Center: "Cy", Depth: 2, MaxNodes: 2})
	require.NoError(t, err)
	assert.Equal(t, []engram.GraphNode{{ID: "cy", Label: "Cy"}, {ID: "ada", Label: "Ada"}}, g.Nodes, "the nearest first")
	assert.Len(t, g.Edges, 2)

	// The most connected entities, without a center.
	g, err = facts.Graph(ctx, engram.GraphOptions{MaxNodes: 3})
	require.NoError(t, err)
	require.Len(t, g.Nodes, 3)
	assert.Equal(t, "cy", g.Nodes[0].ID, "Cy has four facts")
	assert.Equal(t, "ada", g.Nodes[1].ID, "Ada three")

	// History shows the fact that ended, with its end.
	assertFacts(t, m, clock, "Dee | works at | Initech")
	g, err = facts.Graph(ctx, engram.GraphOptions{Center: "Dee", Depth: 1})
	require.NoError(t, err)
	assert.Equal(t, []engram.GraphNode{{ID: "dee", Label: "Dee"}, {ID: "cy", Label: "Cy"}, {ID: "initech", Label: "Initech"}}, g.Nodes)
	g, err = facts.Graph(ctx, engram.GraphOptions{Center: "Dee", Depth: 1, History: true})
	require.NoError(t, err)
	assert.True(t, g.History)
	require.Len(t, g.Nodes, 4)
	require.Len(t, g.Edges, 3)
	assert.Equal(t, "acme", g.Edges[1].Target)
	assert.False(t, g.Edges[1].ValidTo.IsZero(), "Dee left Acme")

	b, err := json.Marshal(g)
	require.NoError(t, err)
	var shape map[string]any
	require.NoError(t, json.Unmarshal(b, &shape))
	assert.ElementsMatch(t, []string{"center", "nodes", "edges", "includeHistory"}, keys(shape))
	edge := shape["edges"].([]any)[1].(map[string]any)
	assert.ElementsMatch(t, []string{"source", "target", "predicate", "factId", "validFrom", "validTo"}, keys(edge))
	edge = shape["edges"].([]any)[0].(map[string]any)
	assert.NotContains(t, edge, "validTo", "a fact that holds has no end")
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestGraphRendering(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	assertFacts(t, m, clock,
		`Ada "the Countess" | works at | [Analytical] Engine|Co`,
		`Ada "the Countess" | likes | C:\Temp #1`,
		`C:\Temp #1 | knows | Zoë 東京`,
	)
	assertFacts(t, m, clock, `Ada "the Countess" | works at | end`)
	g, err := m.Facts().Graph(ctx, engram.GraphOptions{Center: `ada "the countess"`, Depth: 1, History: true})
	require.NoError(t, err)
	assert.Equal(t, `digraph engram {
	rankdir=LR;
	node [shape=box];
	"ada \"the countess\"" [label="Ada \"the Countess\"", style=bold];
	"[analytical] engine|co" [label="[Analytical] Engine|Co"];
	"c:\\temp #1" [label="C:\\Temp #1"];
	"end" [label="end"];
	"ada \"the countess\"" -> "[analytical] engine|co" [label="works at", style=dashed];
	"ada \"the countess\"" -> "c:\\temp #1" [label="likes"];
	"ada \"the countess\"" -> "end" [label="works at"];
}
`, g.DOT())
	assert.Equal(t, `flowchart LR
	n0["Ada #34;the Countess#34;"]
	n1["#91;Analytical#93; Engine#124;Co"]
	n2["C:\Temp #35;1"]
	n3["end"]
	n0 -.->|"works at"| n1
	n0 -->|"likes"| n2
	n0 -->|"works at"| n3
	classDef center font-weight:bold,stroke-width:3px
	class n0 center
`, g.Mermaid())
}

func TestGraphErrors(t *testing.T) {
	m, _ := pathGraph(t)
	ctx := context.Background()
	facts := m.Facts()
	long := strings.Repeat("x", 2000)
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"paths from unknown", engram.ErrNotFound, func() error { _, err := facts.Paths(ctx, "Nobody", "Ada", 0); return err }},
		{"paths to unknown", engram.ErrNotFound, func() error { _, err := facts.Paths(ctx, "Ada", "Nobody", 0); return err }},
		{"paths depth over max", engram.ErrInvalid, func() error {
			_, err := facts.Paths(ctx, "Ada", "Dee", engram.MaxGraphDepth+1)
			return err
		}},
		{"paths negative depth", engram.ErrInvalid, func() error { _, err := facts.Paths(ctx, "Ada", "Dee", -1); return err }},
		{"paths empty from", engram.ErrInvalid, func() error { _, err := facts.Paths(ctx, " ", "Dee", 0); return err }},
		{"paths over-long to", engram.ErrInvalid, func() error { _, err := facts.Paths(ctx, "Ada", long, 0); return err }},
		{"paths one entity", engram.ErrInvalid, func() error { _, err := facts.Paths(ctx, "Ada", " ada ", 0); return err }},
		{"paths multi-line", engram.ErrInvalid, func() error { _, err := facts.Paths(ctx, "Ada\nDee", "Dee", 0); return err }},
		{"neighbours unknown", engram.ErrNotFound, func() error {
			_, err := facts.Neighbours(ctx, engram.FactQuery{Entity: "Nobody"})
			return err
		}},
		{"neighbours no entity", engram.ErrInvalid, func() error { _, err := facts.Neighbours(ctx, engram.FactQuery{}); return err }},
		{"neighbours over-long", engram.ErrInvalid, func() error {
			_, err := facts.Neighbours(ctx, engram.FactQuery{Entity: long})
			return err
		}},
		{"neighbours bad direction", engram.ErrInvalid, func() error {
			_, err := facts.Neighbours(ctx, engram.FactQuery{Entity: "Ada", Direction: "up"})
			return err
		}},
		{"neighbours bad limit", engram.ErrInvalid, func() error {
			_, err := facts.Neighbours(ctx, engram.FactQuery{Entity: "Ada", Limit: -1})
			return err
		}},
		{"reachable unknown", engram.ErrNotFound, func() error { _, err := facts.Reachable(ctx, "Nobody", 0); return err }},
		{"reachable depth over max", engram.ErrInvalid, func() error { _, err := facts.Reachable(ctx, "Ada", 9); return err }},
		{"graph unknown center", engram.ErrNotFound, func() error {
			_, err := facts.Graph(ctx, engram.GraphOptions{Center: "Nobody"})
			return err
		}},
		{"graph depth over max", engram.ErrInvalid, func() error {
			_, err := facts.Graph(ctx, engram.GraphOptions{Center: "Ada", Depth: engram.MaxGraphDepth + 1})
			return err
		}},
		{"graph too many nodes", engram.ErrInvalid, func() error {
			_, err := facts.Graph(ctx, engram.GraphOptions{MaxNodes: engram.MaxGraphNodes + 1})
			return err
		}},
		{"graph negative nodes", engram.ErrInvalid, func() error {
			_, err := facts.Graph(ctx, engram.GraphOptions{MaxNodes: -1})
			return err
		}},
		{"graph over-long center", engram.ErrInvalid, func() error {
			_, err := facts.Graph(ctx, engram.GraphOptions{Center: long})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			assert.ErrorIs(t, err, tc.err)
		})
	}
	var ie *engram.InvalidError
	_, err := facts.Paths(ctx, "Ada", "Dee", 4)
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "maxDepth", ie.Field)
	_, err = facts.Paths(ctx, "Ada", "Nobody", 0)
	assert.ErrorContains(t, err, `"Nobody"`)

	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 7, st.Facts, "nothing written")

	require.NoError(t, m.Close())
	_, err = facts.Paths(ctx, "Ada", "Dee", 0)
	assert.ErrorIs(t, err, engram.ErrClosed)
	_, err = facts.Graph(ctx, engram.GraphOptions{})
	assert.ErrorIs(t, err, engram.ErrClosed)
}

// Two agents in one file, naming the same entities: each sees its own
// graph, as it would alone in a file of its own.
func TestGraphIsolation(t *testing.T) {
	path := newDB(t)
	own := map[string][]string{
		"alice": {"Ada | knows | Bo", "Bo | knows | Cy", "Cy | knows | Dee", "Ada | likes | Dee"},
		"bob":   {"Ada | knows | Cy", "Cy | likes | Bo", "Dee | knows | Ada", "Eve | knows | Bo"},
	}
	type answers struct {
		Neighbours []string
		Paths      []string
		Reached    []engram.Reached
		Nodes      []engram.GraphNode
		Edges      []string
	}
	ask := func(m *engram.Memory) answers {
		ctx := context.Background()
		var a answers
		ns, err := m.Facts().Neighbours(ctx, engram.FactQuery{Entity: "Ada"})
		require.NoError(t, err)
		a.Neighbours = neighbourStrings(ns)
		ps, err := m.Facts().Paths(ctx, "Ada", "Bo", 0)
		require.NoError(t, err)
		a.Paths = pathStrings(ps)
		a.Reached, err = m.Facts().Reachable(ctx, "Ada", 3)
		require.NoError(t, err)
		g, err := m.Facts().Graph(ctx, engram.GraphOptions{Center: "Ada", Depth: 3})
		require.NoError(t, err)
		a.Nodes = g.Nodes
		for _, e := range g.Edges {
			a.Edges = append(a.Edges, e.Source+" "+e.Predicate+" "+e.Target)
		}
		g, err = m.Facts().Graph(ctx, engram.GraphOptions{})
		require.NoError(t, err)
		a.Nodes = append(a.Nodes, g.Nodes...)
		return a
	}
	shared := map[string]*engram.Memory{}
	for _, agent := range []string{"alice", "bob"} {
		shared[agent] = openOn(t, path, agent, engram.Tier1, engram.WithClock(testutil.NewClock(date(2026, 1, 1)).Now))
		assertFacts(t, shared[agent], nil, own[agent]...)
	}
	for _, agent := range []string{"alice", "bob"} {
		alone := openOn(t, newDB(t), agent, engram.Tier1, engram.WithClock(testutil.NewClock(date(2026, 1, 1)).Now))
		assertFacts(t, alone, nil, own[agent]...)
		got, want := ask(shared[agent]), ask(alone)
		assert.Equal(t, want, got, agent)
		assert.NotEmpty(t, got.Paths, agent)
	}
	_, err := shared["alice"].Facts().Paths(context.Background(), "Ada", "Eve", 0)
	assert.ErrorIs(t, err, engram.ErrNotFound, "Eve is bob's")
}

// A graph where paths multiply: two hubs joined through a complete
// bipartite middle have 40×40 paths of three hops between them, and a
// star has more entities than Reachable returns. The answers stop at the
// caps.
func TestGraphBounds(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var batch []engram.Fact
	const side = 40
	for i := range side {
		batch = append(batch,
			engram.Fact{Subject: "Hub", Predicate: "knows", Object: fmt.Sprintf("L%d", i)},
			engram.Fact{Subject: fmt.Sprintf("R%d", i), Predicate: "knows", Object: "Other hub"})
		for j := range side {
			batch = append(batch, engram.Fact{Subject: fmt.Sprintf("L%d", i), Predicate: "knows", Object: fmt.Sprintf("R%d", j)})
		}
	}
	for i := range engram.MaxReachable + 200 {
		batch = append(batch, engram.Fact{Subject: fmt.Sprintf("Leaf %d", i), Predicate: "orbits", Object: "Hub"})
	}
	_, err := m.Facts().AssertAll(ctx, batch)
	require.NoError(t, err)

	start := time.Now()
	paths, err := m.Facts().Paths(ctx, "Hub", "Other hub", 0)
	require.NoError(t, err)
	assert.Len(t, paths, engram.MaxPaths)
	for _, p := range paths {
		require.Len(t, p, 3)
		assert.Equal(t, "Hub", p[0].From())
		assert.Equal(t, "Other hub", p[2].To())
	}
	back, err := m.Facts().Paths(ctx, "Other hub", "Hub", 0)
	require.NoError(t, err)
	assert.Len(t, back, engram.MaxPaths)

	rs, err := m.Facts().Reachable(ctx, "Hub", 2)
	require.NoError(t, err)
	assert.Len(t, rs, engram.MaxReachable)
	for i := 1; i < len(rs); i++ {
		require.LessOrEqual(t, rs[i-1].Distance, rs[i].Distance, "nearest first")
	}
	assert.Equal(t, 1, rs[len(rs)-1].Distance, "more than the cap one hop away")

	g, err := m.Facts().Graph(ctx, engram.GraphOptions{Center: "Hub", Depth: 3, MaxNodes: engram.MaxGraphNodes})
	require.NoError(t, err)
	assert.Len(t, g.Nodes, engram.MaxGraphNodes)
	assert.Less(t, time.Since(start), 20*time.Second)
}

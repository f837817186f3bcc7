package engram

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/graphview"
	"github.com/engram-go/engram/internal/store"
)

// The entity graph: the agent's facts seen as edges between the entities
// they name. Every query runs in one read transaction, scoped to the
// Memory's agent, over the facts that hold at the clock's now (or, for a
// [Graph] with History, over every fact). A fact joins its subject and
// its object whichever way it points; a fact of an entity with itself
// joins nothing.

// Bounds of the graph queries.
const (
	// MaxGraphDepth bounds the depth of [Facts.Paths], [Facts.Reachable]
	// and [Facts.Graph]. In a graph whose degrees follow a power law a few
	// hops reach nearly every entity, so deeper walks say little more.
	MaxGraphDepth = 3
	// MaxPaths caps the paths [Facts.Paths] returns.
	MaxPaths = 100
	// MaxReachable caps the entities [Facts.Reachable] returns.
	MaxReachable = 1000
	// MaxGraphNodes bounds [GraphOptions].MaxNodes.
	MaxGraphNodes = 1000
	// MaxGraphEdges caps the edges of a [Graph].
	MaxGraphEdges = 10_000
)

// Hop is one fact along a path, or joining an entity to a neighbour,
// with the way it is walked.
type Hop struct {
	Fact Fact
	// Direction is DirectionOut when the hop goes from the fact's subject
	// to its object, DirectionIn when it goes against the fact, from
	// object to subject.
	Direction Direction
}

// From is the name of the entity the hop leaves, as the fact writes it.
func (h Hop) From() string {
	if h.Direction == DirectionIn {
		return h.Fact.Object
	}
	return h.Fact.Subject
}

// To is the name of the entity the hop reaches, as the fact writes it.
func (h Hop) To() string {
	if h.Direction == DirectionIn {
		return h.Fact.Subject
	}
	return h.Fact.Object
}

// Neighbour is an entity one hop away from another, with the facts that
// join them.
type Neighbour struct {
	// Entity is the neighbour's name, as the first of Hops writes it.
	Entity string
	// Hops are the facts that join the two, each walked from the entity
	// asked about to the neighbour: those going out of it first, then by
	// predicate and start.
	Hops []Hop
}

// Path is the facts that lead from one entity to another, in order;
// its depth is its length.
type Path []Hop

// Reached is an entity within some hops of another.
type Reached struct {
	// Entity is the entity's name, as one of its facts writes it.
	Entity string
	// Distance is the fewest hops that reach it.
	Distance int
}

// Neighbours returns the entities one hop away from fq.Entity, each with
// the facts that join them, by the neighbours' names without case: the
// first fq.Limit of them (100 when 0). fq.Direction keeps the facts of
// which the entity is the subject (DirectionOut) or the object
// (DirectionIn), and fq.Predicate those of a predicate, as in
// [Facts.Current].
//
// It returns [ErrNotFound] if no fact of the agent names the entity
// (aliases resolved), an error matching [ErrInvalid] for a missing or bad
// Entity or another bad field, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (f *Facts) Neighbours(ctx context.Context, fq FactQuery) ([]Neighbour, error) {
	if fq.Entity == "" {
		return nil, invalid("Entity", "must not be empty")
	}
	if err := f.validateQuery(&fq); err != nil {
		return nil, err
	}
	sp := f.now()
	var out []Neighbour
	err := f.m.read(ctx, "facts.neighbours", func(q store.Tx) error {
		key, err := f.knownEntity(q, "Entity", fq.Entity)
		if err != nil {
			return err
		}
		pred := ""
		if fq.Predicate != "" {
			pred = f.m.preds.Key(fq.Predicate)
		}
		got, err := store.Neighbours(q, f.m.agent, sp, key, fq.Direction != DirectionIn, fq.Direction != DirectionOut, pred, fq.Limit)
		if err != nil {
			return err
		}
		type row struct {
			k   string
			hop Hop
		}
		list := make([]row, len(got))
		for i, n := range got {
			list[i] = row{k: n.Key, hop: Hop{Fact: factFromRow(n.Fact), Direction: DirectionIn}}
			if n.Out {
				list[i].hop.Direction = DirectionOut
			}
		}
		// By neighbour, the facts going out first, then by predicate and
		// start (sorted here, which costs less than SQLite's sorter).
		slices.SortFunc(list, func(x, y row) int {
			return cmp.Or(strings.Compare(x.k, y.k),
				-cmp.Compare(x.hop.Direction, y.hop.Direction), // DirectionOut first: "out" sorts after "in"
				strings.Compare(strings.ToLower(x.hop.Fact.Predicate), strings.ToLower(y.hop.Fact.Predicate)),
				x.hop.Fact.ValidFrom.Compare(y.hop.Fact.ValidFrom),
				strings.Compare(x.hop.Fact.ID, y.hop.Fact.ID))
		})
		hops := make([]Fact, len(list))
		for i := range list {
			hops[i] = list[i].hop.Fact
		}
		if err := overlayAll(f.m, q, hops); err != nil {
			return err
		}
		for i, x := range list {
			x.hop.Fact = hops[i]
			if len(out) == 0 || i == 0 || list[i-1].k != x.k {
				out = append(out, Neighbour{Entity: x.hop.To()})
			}
			n := &out[len(out)-1]
			n.Hops = append(n.Hops, x.hop)
		}
		return nil
	})
	return out, err
}

// Paths returns the paths from the entity from to the entity to along
// facts that hold now, of at most maxDepth hops (MaxGraphDepth when 0):
// the shortest first, at most [MaxPaths] of them. A path passes through
// an entity at most once, so cycles end nothing and repeat nothing. Every
// fact joining two entities makes a path of its own: two facts between
// the same entities are two paths of one hop.
//
// Paths of one length come from one statement that walks out from the
// end with fewer facts and stops once the cap is reached, so that paths
// between hubs of thousands of facts cost about what paths between
// ordinary entities cost. Paths of one length are ordered by the
// entities they pass through, then by their facts' predicates; when
// there are more than the cap, which of the longest are kept follows the
// order of the indexes instead.
//
// It returns [ErrNotFound] if no fact of the agent names from or to
// (aliases resolved), an error matching [ErrInvalid] for an empty, bad or
// over-long name, for from and to naming one entity or for maxDepth
// outside [0, MaxGraphDepth], [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (f *Facts) Paths(ctx context.Context, from, to string, maxDepth int) ([]Path, error) {
	if err := f.validateEntity("from", from); err != nil {
		return nil, err
	}
	if err := f.validateEntity("to", to); err != nil {
		return nil, err
	}
	depth, err := graphDepth("maxDepth", maxDepth, MaxGraphDepth)
	if err != nil {
		return nil, err
	}
	sp := f.now()
	var out []Path
	err = f.m.read(ctx, "facts.paths", func(q store.Tx) error {
		s, err := f.knownEntity(q, "from", from)
		if err != nil {
			return err
		}
		t, err := f.knownEntity(q, "to", to)
		if err != nil {
			return err
		}
		if s == t {
			return invalid("to", "%q is the entity from names", to)
		}
		out, err = f.paths(q, sp, s, t, depth)
		return err
	})
	return out, err
}

// pathPairBudget is how many pairs of neighbours a path of three hops
// may try by looking up the facts between each pair; beyond it the walk
// goes from one end through its neighbours' facts instead.
const pathPairBudget = 4096

// degreeProbe caps the facts counted for an entity's degree when choosing
// which end a path walk starts from: enough to tell a hub from an
// ordinary entity.
const degreeProbe = 1024

// paths finds the paths from s to t of at most depth hops, in q's
// transaction.
func (f *Facts) paths(q store.Tx, sp store.GraphSpan, s, t string, depth int) ([]Path, error) {
	ds, dt, err := store.Degrees(q, f.m.agent, sp, s, t, degreeProbe)
	if err != nil {
		return nil, err
	}
	if ds == 0 || dt == 0 {
		return nil, nil // an end with no fact holding now
	}
	// Walk from the end with fewer facts, and turn its paths round.
	a, b, turn := s, t, false
	if dt < ds {
		a, b, turn = t, s, true
	}
	var found [][]int64 // the facts of each path, from a to b
	for n := 1; n <= depth && len(found) < MaxPaths; n++ {
		got, err := store.Paths(q, f.m.agent, sp, a, b, n, ds*dt <= pathPairBudget, MaxPaths-len(found))
		if err != nil {
			return nil, err
		}
		found = append(found, got...)
	}
	if len(found) == 0 {
		return nil, nil
	}
	var pks []int64
	for _, p := range found {
		pks = append(pks, p...)
	}
	facts, err := f.byPK(q, pks)
	if err != nil {
		return nil, err
	}
	type keyedPath struct {
		path Path
		keys []string // the entities it reaches, in order
	}
	list := make([]keyedPath, len(found))
	for i, p := range found {
		at := a // the entity the next hop leaves
		kp := keyedPath{path: make(Path, len(p)), keys: make([]string, len(p))}
		for j, pk := range p {
			ef := facts[pk]
			h := Hop{Fact: ef.Fact, Direction: DirectionOut}
			if ef.subjectKey == at {
				at = ef.objectKey
			} else {
				h.Direction, at = DirectionIn, ef.subjectKey
			}
			kp.path[j], kp.keys[j] = h, at
		}
		if turn {
			slices.Reverse(kp.path)
			for j := range kp.path {
				kp.path[j].Direction = opposite(kp.path[j].Direction)
			}
			// The entities reached walking from s are those left walking
			// from t.
			kp.keys = append(kp.keys[:len(p)-1], a)
			slices.Reverse(kp.keys[:len(p)-1])
		}
		list[i] = kp
	}
	// Shortest first; among paths of one length, by the entities and
	// predicates along them, so that the order does not depend on the
	// end the walk started from.
	slices.SortStableFunc(list, func(x, y keyedPath) int {
		return cmp.Or(cmp.Compare(len(x.path), len(y.path)),
			slices.Compare(x.keys, y.keys),
			slices.CompareFunc(x.path, y.path, compareHop))
	})
	out := make([]Path, len(list))
	for i := range list {
		out[i] = list[i].path
	}
	return out, nil
}

// compareHop orders hops of the same entities by their predicate, their
// start, their direction and their ID.
func compareHop(x, y Hop) int {
	return cmp.Or(
		strings.Compare(strings.ToLower(x.Fact.Predicate), strings.ToLower(y.Fact.Predicate)),
		x.Fact.ValidFrom.Compare(y.Fact.ValidFrom),
		cmp.Compare(x.Direction, y.Direction),
		strings.Compare(x.Fact.ID, y.Fact.ID))
}

// opposite is the direction of a hop walked the other way.
func opposite(d Direction) Direction {
	if d == DirectionIn {
		return DirectionOut
	}
	return DirectionIn
}

// now is the span of the facts that hold at the clock's now.
func (f *Facts) now() store.GraphSpan { return store.GraphSpan{At: f.m.now()} }

// everSpan takes every fact, whenever it holds.
var everSpan = store.GraphSpan{Ever: true}

// edgeFact is a fact with the keys of its ends.
type edgeFact struct {
	Fact
	subjectKey, objectKey string
}

// byPK reads the facts of the given row keys, with their ends' keys.
func (f *Facts) byPK(q store.Tx, pks []int64) (map[int64]edgeFact, error) {
	got, err := store.FactsByPK(q, f.m.agent, pks)
	if err != nil {
		return nil, err
	}
	facts := make([]Fact, len(got))
	for i := range got {
		facts[i] = factFromRow(got[i].Fact)
	}
	if err := overlayAll(f.m, q, facts); err != nil {
		return nil, err
	}
	out := make(map[int64]edgeFact, len(got))
	for i, e := range got {
		out[e.PK] = edgeFact{Fact: facts[i], subjectKey: e.SubjectKey, objectKey: e.ObjectKey}
	}
	return out, nil
}

// Reachable returns the entities within depth hops of entity (2 when
// depth is 0) along facts that hold now, nearest first and then by name
// without case, each with its distance: at most [MaxReachable] of them,
// the nearest. The entity itself is not included. It runs as one
// recursive query that visits each entity at most once per distance, so
// cycles end nothing and hubs are walked once.
//
// It returns [ErrNotFound] if no fact of the agent names the entity
// (aliases resolved), an error matching [ErrInvalid] for an empty, bad or
// over-long name or a depth outside [0, MaxGraphDepth], [ErrClosed] after
// Close and a [*DatabaseError] when SQLite fails.
func (f *Facts) Reachable(ctx context.Context, entity string, depth int) ([]Reached, error) {
	if err := f.validateEntity("entity", entity); err != nil {
		return nil, err
	}
	depth, err := graphDepth("depth", depth, 2)
	if err != nil {
		return nil, err
	}
	sp := f.now()
	var out []Reached
	err = f.m.read(ctx, "facts.reachable", func(q store.Tx) error {
		key, err := f.knownEntity(q, "entity", entity)
		if err != nil {
			return err
		}
		nodes, err := f.walk(q, sp, key, depth, MaxReachable+1)
		if err != nil {
			return err
		}
		for _, n := range nodes[1:] { // the first is the entity itself
			out = append(out, Reached{Entity: n.label, Distance: n.distance})
		}
		return nil
	})
	return out, err
}

// node is an entity the graph reached.
type node struct {
	key, label string
	distance   int
}

// walk returns the entities within depth hops of the entity key along
// the facts of span sp, nearest first and then by key, the key itself
// first: at most limit of them.
//
// (See store.Walk.)
func (f *Facts) walk(q store.Tx, sp store.GraphSpan, key string, depth, limit int) ([]node, error) {
	got, err := store.Walk(q, f.m.agent, sp, key, depth, limit)
	if err != nil {
		return nil, err
	}
	out := make([]node, len(got))
	for i, n := range got {
		out[i] = node{key: n.Key, label: n.Label, distance: n.Distance}
	}
	return out, nil
}

// GraphOptions says which part of the graph [Facts.Graph] shows. The
// zero value shows the most connected entities and the facts between
// them.
type GraphOptions struct {
	// Center is the entity the view is around; "" shows the entities of
	// the most facts.
	Center string
	// Depth is how many hops from Center the view reaches: 0 means 2, at
	// most MaxGraphDepth. It is ignored without a Center.
	Depth int
	// MaxNodes caps the entities shown, the nearest to Center first: 0
	// means 50, at most MaxGraphNodes.
	MaxNodes int
	// History follows and shows every fact, those that ended or have not
	// started yet too, instead of those that hold now.
	History bool
}

// Graph is a view of the entity graph: entities and the facts between
// them. Its JSON has the shape of seed 004's visualization; [Graph.DOT]
// and [Graph.Mermaid] draw it.
type Graph struct {
	// Center is the entity asked about, as given; "" for a view of the
	// most connected entities.
	Center string      `json:"center"`
	Nodes  []GraphNode `json:"nodes"`
	Edges  []GraphEdge `json:"edges"`
	// History says the view holds every fact, not only those that hold
	// now.
	History bool `json:"includeHistory"`
}

// GraphNode is an entity of a [Graph].
type GraphNode struct {
	// ID is the entity's key: its name in lower case with single
	// spaces, aliases resolved.
	ID string `json:"id"`
	// Label is its name as one of its facts writes it.
	Label string `json:"label"`
}

// GraphEdge is a fact of a [Graph], from its subject to its object.
type GraphEdge struct {
	Source    string    `json:"source"` // the subject's node ID
	Target    string    `json:"target"` // the object's node ID
	Predicate string    `json:"predicate"`
	FactID    string    `json:"factId"`
	ValidFrom time.Time `json:"validFrom"`
	// ValidTo is when the fact stopped being true; zero while it holds.
	ValidTo time.Time `json:"validTo,omitzero"`
}

// Graph returns the entities around opts.Center up to opts.Depth hops,
// the nearest first and at most opts.MaxNodes of them, with the facts
// between them (at most [MaxGraphEdges], by subject, object, predicate
// and start). Nodes are ordered by distance from the center, the center
// first, then by ID; without a Center, by their number of facts, most
// first.
//
// It returns [ErrNotFound] if no fact of the agent names the Center
// (aliases resolved), an error matching [ErrInvalid] for a bad or
// over-long Center, a Depth outside [0, MaxGraphDepth] or a MaxNodes
// outside [0, MaxGraphNodes], [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (f *Facts) Graph(ctx context.Context, opts GraphOptions) (Graph, error) {
	if opts.Center != "" {
		if err := f.validateEntity("Center", opts.Center); err != nil {
			return Graph{}, err
		}
	}
	depth, err := graphDepth("Depth", opts.Depth, 2)
	if err != nil {
		return Graph{}, err
	}
	if opts.MaxNodes < 0 || opts.MaxNodes > MaxGraphNodes {
		return Graph{}, invalid("MaxNodes", "%d is outside [0, %d]", opts.MaxNodes, MaxGraphNodes)
	}
	maxNodes := cmp.Or(opts.MaxNodes, 50)
	sp := f.now()
	if opts.History {
		sp = everSpan
	}
	g := Graph{Center: opts.Center, History: opts.History, Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	err = f.m.read(ctx, "facts.graph", func(q store.Tx) error {
		var nodes []node
		if opts.Center == "" {
			top, err := store.TopEntities(q, f.m.agent, sp, maxNodes)
			if err != nil {
				return err
			}
			for _, n := range top {
				nodes = append(nodes, node{key: n.Key, label: n.Label})
			}
		} else {
			key, err := f.knownEntity(q, "Center", opts.Center)
			if err != nil {
				return err
			}
			if nodes, err = f.walk(q, sp, key, depth, maxNodes); err != nil {
				return err
			}
		}
		keys := make([]string, len(nodes))
		for i, n := range nodes {
			keys[i] = n.key
			g.Nodes = append(g.Nodes, GraphNode{ID: n.key, Label: n.label})
		}
		edges, err := store.GraphEdges(q, f.m.agent, sp, keys, MaxGraphEdges)
		for _, e := range edges {
			g.Edges = append(g.Edges, GraphEdge{Source: e.Source, Target: e.Target, Predicate: e.Predicate,
				FactID: e.FactID, ValidFrom: e.ValidFrom, ValidTo: e.ValidTo})
		}
		return err
	})
	if err != nil {
		return Graph{}, err
	}
	return g, nil
}

// DOT renders the graph in Graphviz's DOT language: the center in bold,
// facts that ended dashed.
func (g Graph) DOT() string { return graphview.DOT(g.view()) }

// Mermaid renders the graph as a Mermaid flowchart: the center in bold,
// facts that ended dotted.
func (g Graph) Mermaid() string { return graphview.Mermaid(g.view()) }

// view is the graph as internal/graphview draws it.
func (g Graph) view() graphview.Graph {
	v := graphview.Graph{Nodes: make([]graphview.Node, len(g.Nodes)), Edges: make([]graphview.Edge, len(g.Edges))}
	for i, n := range g.Nodes {
		// A view around a center lists it first.
		v.Nodes[i] = graphview.Node{ID: n.ID, Label: n.Label, Center: g.Center != "" && i == 0}
	}
	for i, e := range g.Edges {
		v.Edges[i] = graphview.Edge{Source: e.Source, Target: e.Target, Label: e.Predicate, Ended: !e.ValidTo.IsZero()}
	}
	return v
}

// validateEntity checks a name given to a graph query.
func (f *Facts) validateEntity(field, name string) error {
	return validateFactPart(field, name, f.m.cfg.Limits.MaxFactBytes)
}

// graphDepth checks a depth given to a graph query and returns it, or
// def for 0.
func graphDepth(field string, depth, def int) (int, error) {
	if depth < 0 || depth > MaxGraphDepth {
		return 0, invalid(field, "%d is outside [0, %d]", depth, MaxGraphDepth)
	}
	return cmp.Or(depth, def), nil
}

// knownEntity returns the key of the entity name stands for, aliases
// resolved, or ErrNotFound if no fact of the agent names it.
func (f *Facts) knownEntity(q store.Tx, field, name string) (string, error) {
	key, err := f.entityKey(q, name)
	if err != nil {
		return "", err
	}
	known, err := store.EntityKnown(q, f.m.agent, key)
	if err != nil {
		return "", err
	}
	if !known {
		return "", fmt.Errorf("engram: %s: entity %q: %w", field, name, ErrNotFound)
	}
	return key, nil
}

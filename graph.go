package engram

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
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
	err := f.m.read(ctx, "facts.neighbours", func(q *dbtx) error {
		key, err := f.knownEntity(q, "Entity", fq.Entity)
		if err != nil {
			return err
		}
		pred := ""
		if fq.Predicate != "" {
			pred = f.m.preds.Key(fq.Predicate)
		}
		rows, err := q.query(neighboursSQL(fq.Direction, pred != ""),
			f.m.agent, sp.from, sp.to, key, pred, fq.Limit)
		if err != nil {
			return err
		}
		type row struct {
			k   string
			hop Hop
		}
		list, err := store.ScanAll(rows, func(r store.Scanner) (row, error) {
			var x row
			var isOut bool
			fact, err := scanFact(prefixScanner{r, []any{&x.k, &isOut}})
			x.hop = Hop{Fact: fact, Direction: DirectionIn}
			if isOut {
				x.hop.Direction = DirectionOut
			}
			return x, err
		})
		if err != nil {
			return err
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

// neighboursSQL is the statement that reads the facts joining the
// entity ?4 to its first ?6 neighbours by key, in the direction d, those
// of the predicate ?5 only when pred is set. The neighbours' keys come
// off facts_out and facts_in in key order, merged and cut at the limit
// from the indexes alone (without a predicate); then the facts up to the
// last of those keys are read in one range of each index, in no order.
func neighboursSQL(d Direction, pred bool) string {
	onPred := ` AND ?5 = ''`
	if pred {
		onPred = ` AND e.predicate_key = ?5`
	}
	var keys, facts []string
	if d != DirectionIn {
		keys = append(keys, `SELECT e.object_key AS k FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND `+holds("e")+onPred)
		facts = append(facts, `SELECT e.object_key AS k, 1 AS out, `+prefixed("e.", factCols)+` FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.object_key <= (SELECT k FROM last)
				AND `+holds("e")+onPred)
	}
	if d != DirectionOut {
		keys = append(keys, `SELECT e.subject_key AS k FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND `+holds("e")+onPred)
		facts = append(facts, `SELECT e.subject_key AS k, 0 AS out, `+prefixed("e.", factCols)+` FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.subject_key <= (SELECT k FROM last)
				AND `+holds("e")+onPred)
	}
	return `WITH nb(k) AS (` + strings.Join(keys, " UNION ") + ` ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		` + strings.Join(facts, " UNION ALL ")
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
	err = f.m.read(ctx, "facts.paths", func(q *dbtx) error {
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
func (f *Facts) paths(q *dbtx, sp span, s, t string, depth int) ([]Path, error) {
	var ds, dt int
	err := q.queryRow(`SELECT `+degreeSQL("?4")+`, `+degreeSQL("?5"), []any{f.m.agent, sp.from, sp.to, s, t, degreeProbe}, &ds, &dt)
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
		query := pathSQL(n, ds*dt <= pathPairBudget)
		rows, err := q.query(query, f.m.agent, sp.from, sp.to, a, b, MaxPaths-len(found))
		if err != nil {
			return nil, err
		}
		got, err := store.ScanAll(rows, func(r store.Scanner) ([]int64, error) {
			pks := make([]int64, n)
			dest := make([]any, n)
			for i := range pks {
				dest[i] = &pks[i]
			}
			return pks, r.Scan(dest...)
		})
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

// pathSQL is the statement that finds paths of n hops (1 to 3) from the
// entity ?4 to the entity ?5, at most ?6 of them, as the keys of their
// facts in order. Hops of three try each pair of the ends' neighbours
// when pairs is set, and otherwise walk from ?4 through its neighbours'
// facts.
//
// Each way the hops can point is an arm of its own, so that each hop is
// an index search, through facts_out or facts_in, named (INDEXED BY)
// because without statistics SQLite takes agent_id for a narrow column
// and would scan the agent's facts; and the joins run in the order
// written (CROSS JOIN), so that the end with fewer facts, ?4, leads. The
// arms run one after the other and the statement ends at the limit.
func pathSQL(n int, pairs bool) string {
	var arms []string
	for mask := range 1 << n {
		d := func(i int) Direction {
			if mask&(1<<i) != 0 {
				return DirectionIn
			}
			return DirectionOut
		}
		var from, where []string
		add := func(f, w string) { from, where = append(from, f), append(where, w) }
		switch {
		case n == 1:
			add(hopPair("e1", "?4", "?5", d(0)))
		case n == 2:
			f, w, x := hopFrom("e1", "?4", d(0))
			add(f, w+` AND `+x+` NOT IN (?4, ?5)`)
			add(hopPair("e2", x, "?5", d(1)))
		case pairs:
			f, w, x := hopFrom("e1", "?4", d(0))
			add(f, w+` AND `+x+` NOT IN (?4, ?5)`)
			f, w, y := hopFrom("e3", "?5", d(2))
			add(f, w+` AND `+y+` NOT IN (?4, ?5, `+x+`)`)
			add(hopPair("e2", x, y, d(1)))
		default:
			f, w, x := hopFrom("e1", "?4", d(0))
			add(f, w+` AND `+x+` NOT IN (?4, ?5)`)
			f, w, y := hopFrom("e2", x, d(1))
			add(f, w+` AND `+y+` NOT IN (?4, ?5, `+x+`)`)
			add(hopPair("e3", y, "?5", d(2)))
		}
		cols := make([]string, n)
		for i := range cols {
			cols[i] = fmt.Sprintf("e%d.pk", i+1)
		}
		arms = append(arms, `SELECT `+strings.Join(cols, ", ")+` FROM `+strings.Join(from, " CROSS JOIN ")+
			` WHERE `+strings.Join(where, " AND "))
	}
	return strings.Join(arms, "\nUNION ALL\n") + ` LIMIT ?6`
}

// hopFrom is a hop along the fact e from the entity k, going out of it
// (d is DirectionOut) or into it: the table to join, the condition and the key of
// the entity it reaches.
func hopFrom(e, k string, d Direction) (from, where, next string) {
	if d == DirectionOut {
		return `facts ` + e + ` INDEXED BY facts_out`,
			e + `.agent_id = ?1 AND ` + e + `.subject_key = ` + k + ` AND ` + holds(e), e + `.object_key`
	}
	return `facts ` + e + ` INDEXED BY facts_in`,
		e + `.agent_id = ?1 AND ` + e + `.object_key = ` + k + ` AND ` + holds(e), e + `.subject_key`
}

// hopPair is a hop along the fact e from the entity j to the entity k,
// j its subject (d is DirectionOut) or its object: the table to join and the
// condition.
func hopPair(e, j, k string, d Direction) (from, where string) {
	if d == DirectionOut {
		return `facts ` + e + ` INDEXED BY facts_out`,
			e + `.agent_id = ?1 AND ` + e + `.subject_key = ` + j + ` AND ` + e + `.object_key = ` + k + ` AND ` + holds(e)
	}
	return `facts ` + e + ` INDEXED BY facts_in`,
		e + `.agent_id = ?1 AND ` + e + `.object_key = ` + j + ` AND ` + e + `.subject_key = ` + k + ` AND ` + holds(e)
}

// holds is the condition that the fact e counts: it started by ?2 and
// had not ended at ?3 (see span).
func holds(e string) string {
	return e + `.valid_from <= ?2 AND (` + e + `.valid_to IS NULL OR ` + e + `.valid_to > ?3)`
}

// degreeSQL counts the facts that name the entity k and hold, up to
// degreeProbe of each direction, from the indexes alone.
func degreeSQL(k string) string {
	return `(SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND e.subject_key = ` + k + ` AND ` + holds("e") + ` LIMIT ?6))
		+ (SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND e.object_key = ` + k + ` AND ` + holds("e") + ` LIMIT ?6))`
}

// span says which facts graph queries follow: those with valid_from ≤
// from and valid_to > to (or open).
type span struct{ from, to int64 }

// now is the span of the facts that hold at the clock's now.
func (f *Facts) now() span {
	t := ms(f.m.now())
	return span{t, t}
}

// everSpan takes every fact, whenever it holds.
var everSpan = span{math.MaxInt64, math.MinInt64}

// edgeFact is a fact with the keys of its ends.
type edgeFact struct {
	Fact
	subjectKey, objectKey string
}

// byPK reads the facts of the given row keys, with their ends' keys.
func (f *Facts) byPK(q *dbtx, pks []int64) (map[int64]edgeFact, error) {
	list, err := json.Marshal(pks)
	if err != nil {
		return nil, err
	}
	rows, err := q.query(byPKSQL, f.m.agent, string(list))
	if err != nil {
		return nil, err
	}
	type keyed struct {
		pk int64
		edgeFact
	}
	got, err := store.ScanAll(rows, func(r store.Scanner) (keyed, error) {
		var k keyed
		fact, err := scanFact(prefixScanner{r, []any{&k.pk, &k.subjectKey, &k.objectKey}})
		k.Fact = fact
		return k, err
	})
	if err != nil {
		return nil, err
	}
	facts := make([]Fact, len(got))
	for i := range got {
		facts[i] = got[i].Fact
	}
	if err := overlayAll(f.m, q, facts); err != nil {
		return nil, err
	}
	out := make(map[int64]edgeFact, len(got))
	for i, k := range got {
		k.Fact = facts[i]
		out[k.pk] = k.edgeFact
	}
	return out, nil
}

// byPKSQL reads the agent's facts of the row keys in the JSON list ?2,
// each by its row key.
var byPKSQL = `SELECT f.pk, f.subject_key, f.object_key, ` + prefixed("f.", factCols) + `
	FROM json_each(?2) j CROSS JOIN facts f ON f.pk = j.value WHERE f.agent_id = ?1`

// prefixScanner scans the columns before a row's fact into pre.
type prefixScanner struct {
	r   store.Scanner
	pre []any
}

func (p prefixScanner) Scan(dest ...any) error { return p.r.Scan(append(p.pre, dest...)...) }

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
	err = f.m.read(ctx, "facts.reachable", func(q *dbtx) error {
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
// The walk is breadth first: SQLite takes the rows of a recursive query
// in the order it made them. UNION drops an entity already reached at
// the same distance, so each is expanded at most once per distance and
// the work is bounded by entities × depth; and since the limit counts
// rows, of which an entity makes at most one per distance, stopping at
// limit × (depth+1) rows keeps the limit nearest entities.
func (f *Facts) walk(q *dbtx, sp span, key string, depth, limit int) ([]node, error) {
	rows, err := q.query(walkSQL,
		f.m.agent, sp.from, sp.to, key, depth, limit*(depth+1), limit)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, func(r store.Scanner) (node, error) {
		var n node
		return n, r.Scan(&n.key, &n.label, &n.distance)
	})
}

// walkSQL is the statement of walk: from the entity ?4, up to ?5 hops, at
// most ?6 rows of the walk and ?7 entities.
var walkSQL = `WITH RECURSIVE walk(k, d) AS (
			SELECT ?4, 0
			UNION
			SELECT e.object_key, w.d + 1 FROM walk w CROSS JOIN facts e INDEXED BY facts_out ON e.agent_id = ?1 AND e.subject_key = w.k
				WHERE w.d < ?5 AND ` + holds("e") + `
			UNION
			SELECT e.subject_key, w.d + 1 FROM walk w CROSS JOIN facts e INDEXED BY facts_in ON e.agent_id = ?1 AND e.object_key = w.k
				WHERE w.d < ?5 AND ` + holds("e") + `
			LIMIT ?6),
		near(k, d) AS (SELECT k, min(d) AS d FROM walk GROUP BY k ORDER BY d, k LIMIT ?7)
		SELECT k, ` + labelSQL("k") + `, d FROM near ORDER BY d, k`

// labelSQL is the name of the entity k as one of its facts writes it.
func labelSQL(k string) string {
	return `coalesce((SELECT l.subject FROM facts l INDEXED BY facts_out WHERE l.agent_id = ?1 AND l.subject_key = ` + k + ` LIMIT 1),
		(SELECT l.object FROM facts l INDEXED BY facts_in WHERE l.agent_id = ?1 AND l.object_key = ` + k + ` LIMIT 1), ` + k + `)`
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
	err = f.m.read(ctx, "facts.graph", func(q *dbtx) error {
		var nodes []node
		if opts.Center == "" {
			rows, err := q.query(topSQL, f.m.agent, sp.from, sp.to, maxNodes)
			if err != nil {
				return err
			}
			nodes, err = store.ScanAll(rows, func(r store.Scanner) (node, error) {
				var n node
				return n, r.Scan(&n.key, &n.label)
			})
			if err != nil {
				return err
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
		list, err := json.Marshal(keys)
		if err != nil {
			return err
		}
		rows, err := q.query(edgesSQL,
			f.m.agent, sp.from, sp.to, string(list), MaxGraphEdges)
		if err != nil {
			return err
		}
		edges, err := store.ScanAll(rows, func(r store.Scanner) (GraphEdge, error) {
			var e GraphEdge
			var from int64
			var to *int64
			err := r.Scan(&e.Source, &e.Target, &e.Predicate, &e.FactID, &from, &to)
			e.ValidFrom = fromMS(from)
			if to != nil {
				e.ValidTo = fromMS(*to)
			}
			return e, err
		})
		g.Edges = append(g.Edges, edges...)
		return err
	})
	if err != nil {
		return Graph{}, err
	}
	return g, nil
}

// topSQL is the statement that reads the ?4 entities of the most facts,
// with their labels.
var topSQL = `WITH deg(k, n) AS (
					SELECT e.subject_key, count(*) FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND ` + holds("e") + ` GROUP BY e.subject_key
					UNION ALL
					SELECT e.object_key, count(*) FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND ` + holds("e") + ` GROUP BY e.object_key),
				top(k, n) AS (SELECT k, sum(n) AS n FROM deg GROUP BY k ORDER BY n DESC, k LIMIT ?4)
				SELECT k, ` + labelSQL("k") + ` FROM top ORDER BY n DESC, k`

// edgesSQL is the statement that reads the facts between the entities of
// the JSON list ?4, at most ?5 of them: the facts out of each entity,
// kept when their object is another. (The unary + keeps SQLite from
// seeking every pair of entities in facts_out instead.)
var edgesSQL = `WITH n(k) AS MATERIALIZED (SELECT value FROM json_each(?4))
			SELECT e.subject_key, e.object_key, e.predicate, e.id, e.valid_from, e.valid_to
			FROM n CROSS JOIN facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = n.k AND +e.object_key IN n AND e.object_key <> e.subject_key
				AND ` + holds("e") + `
			ORDER BY e.subject_key, e.object_key, lower(e.predicate), e.valid_from, e.id LIMIT ?5`

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
func (f *Facts) knownEntity(q *dbtx, field, name string) (string, error) {
	key, err := f.entityKey(q, name)
	if err != nil {
		return "", err
	}
	var known bool
	err = q.queryRow(`SELECT EXISTS (SELECT 1 FROM facts INDEXED BY facts_out WHERE agent_id = ?1 AND subject_key = ?2)
		OR EXISTS (SELECT 1 FROM facts INDEXED BY facts_in WHERE agent_id = ?1 AND object_key = ?2)`, []any{f.m.agent, key}, &known)
	if err != nil {
		return "", err
	}
	if !known {
		return "", fmt.Errorf("engram: %s: entity %q: %w", field, name, ErrNotFound)
	}
	return key, nil
}

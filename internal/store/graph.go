package store

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// The entity graph: the agent's facts seen as edges between the entity
// keys of their subjects and objects. Every statement finds facts through
// the indexes of their ends, facts_out (agent, subject key, ...) and
// facts_in (agent, object key, ...), named (INDEXED BY) because without
// statistics SQLite takes agent_id for a narrow column and would scan the
// agent's facts; [GraphQueries] lists the statements so that a test can
// check their plans. In every statement ?1 is the agent and ?2, ?3 the
// bounds of the [GraphSpan].

// GraphSpan says which facts a graph statement follows: those that hold
// at At, or every fact, whenever it holds, when Ever is set.
type GraphSpan struct {
	At   time.Time
	Ever bool
}

// bounds are the span's parameters ?2 and ?3: a fact counts when its
// valid_from ≤ ?2 and its valid_to is unset or > ?3.
func (s GraphSpan) bounds() (from, to int64) {
	if s.Ever {
		return math.MaxInt64, math.MinInt64
	}
	t := MS(s.At)
	return t, t
}

// factHolds is the condition that the fact e counts: it started by ?2 and
// had not ended at ?3 (see GraphSpan).
func factHolds(e string) string {
	return e + `.valid_from <= ?2 AND (` + e + `.valid_to IS NULL OR ` + e + `.valid_to > ?3)`
}

// EntityKnown reports whether a fact of the agent names the entity key at
// either end. It returns the driver's errors unchanged.
func EntityKnown(q Querier, agent, key string) (bool, error) {
	var known bool
	err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM facts INDEXED BY facts_out WHERE agent_id = ?1 AND subject_key = ?2)
		OR EXISTS (SELECT 1 FROM facts INDEXED BY facts_in WHERE agent_id = ?1 AND object_key = ?2)`, []any{agent, key}, &known)
	return known, err
}

// NeighbourFact is a fact joining an entity to a neighbour.
type NeighbourFact struct {
	// Key is the neighbour's entity key.
	Key string
	// Out says the entity is the fact's subject (and the neighbour its
	// object); otherwise the entity is its object.
	Out  bool
	Fact FactRow
}

// Neighbours returns the facts of span sp joining the entity key to its
// first limit neighbours by key, in no order: those of which the entity
// is the subject when out is set, the object when in is set, and of the
// predicate key pred only unless it is "". A fact of the entity with
// itself joins nothing. It returns the driver's errors unchanged, or an
// error decoding a row.
func Neighbours(q Querier, agent string, sp GraphSpan, key string, out, in bool, pred string, limit int) ([]NeighbourFact, error) {
	from, to := sp.bounds()
	rows, err := q.Query(neighboursSQL(out, in, pred != ""), agent, from, to, key, pred, limit)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (NeighbourFact, error) {
		var n NeighbourFact
		fact, err := ScanFact(factPrefixScanner{r, []any{&n.Key, &n.Out}})
		n.Fact = fact
		return n, err
	})
}

// neighboursSQL is the statement that reads the facts joining the
// entity ?4 to its first ?6 neighbours by key, going out of it when out
// is set and into it when in is, those of the predicate ?5 only when
// pred is set. The neighbours' keys come off facts_out and facts_in in
// key order, merged and cut at the limit from the indexes alone (without
// a predicate); then the facts up to the last of those keys are read in
// one range of each index, in no order.
func neighboursSQL(out, in, pred bool) string {
	onPred := ` AND ?5 = ''`
	if pred {
		onPred = ` AND e.predicate_key = ?5`
	}
	var keys, facts []string
	if out {
		keys = append(keys, `SELECT e.object_key AS k FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND `+factHolds("e")+onPred)
		facts = append(facts, `SELECT e.object_key AS k, 1 AS out, `+prefixedCols("e.", FactCols)+` FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.object_key <= (SELECT k FROM last)
				AND `+factHolds("e")+onPred)
	}
	if in {
		keys = append(keys, `SELECT e.subject_key AS k FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND `+factHolds("e")+onPred)
		facts = append(facts, `SELECT e.subject_key AS k, 0 AS out, `+prefixedCols("e.", FactCols)+` FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.subject_key <= (SELECT k FROM last)
				AND `+factHolds("e")+onPred)
	}
	return `WITH nb(k) AS (` + strings.Join(keys, " UNION ") + ` ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		` + strings.Join(facts, " UNION ALL ")
}

// Degrees returns how many facts of span sp name the entity key a and
// how many name b, counting up to probe facts of each direction, from
// the indexes alone. It returns the driver's errors unchanged.
func Degrees(q Querier, agent string, sp GraphSpan, a, b string, probe int) (int, int, error) {
	from, to := sp.bounds()
	var da, db int
	err := q.QueryRow(degreesSQL, []any{agent, from, to, a, b, probe}, &da, &db)
	return da, db, err
}

// degreesSQL is the statement of Degrees: the degrees of ?4 and ?5, up to
// ?6 facts each way.
var degreesSQL = `SELECT ` + degreeSQL("?4") + `, ` + degreeSQL("?5")

// degreeSQL counts the facts that name the entity k and hold, up to ?6
// of each direction, from the indexes alone.
func degreeSQL(k string) string {
	return `(SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND e.subject_key = ` + k + ` AND ` + factHolds("e") + ` LIMIT ?6))
		+ (SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND e.object_key = ` + k + ` AND ` + factHolds("e") + ` LIMIT ?6))`
}

// Paths returns up to limit paths of n hops (1 to 3) of span sp from the
// entity key from to the entity key to, each as the row keys of its
// facts in order; a path passes through an entity at most once. Paths of
// three hops try each pair of the ends' neighbours when pairs is set, and
// otherwise walk from from through its neighbours' facts. Each way the
// hops can point is an arm of its own; the arms run one after the other
// and the walk ends at the limit, so which paths are kept when there are
// more follows the order of the indexes. It returns the driver's errors
// unchanged.
func Paths(q Querier, agent string, sp GraphSpan, from, to string, n int, pairs bool, limit int) ([][]int64, error) {
	lo, hi := sp.bounds()
	rows, err := q.Query(pathSQL(n, pairs), agent, lo, hi, from, to, limit)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) ([]int64, error) {
		pks := make([]int64, n)
		dest := make([]any, n)
		for i := range pks {
			dest[i] = &pks[i]
		}
		return pks, r.Scan(dest...)
	})
}

// pathSQL is the statement that finds paths of n hops (1 to 3) from the
// entity ?4 to the entity ?5, at most ?6 of them, as the keys of their
// facts in order. Hops of three try each pair of the ends' neighbours
// when pairs is set, and otherwise walk from ?4 through its neighbours'
// facts.
//
// Each way the hops can point is an arm of its own, so that each hop is
// an index search, through facts_out or facts_in; and the joins run in
// the order written (CROSS JOIN), so that the end the caller chose
// (that of fewer facts), ?4, leads.
func pathSQL(n int, pairs bool) string {
	var arms []string
	for mask := range 1 << n {
		out := func(i int) bool { return mask&(1<<i) == 0 }
		var from, where []string
		add := func(f, w string) { from, where = append(from, f), append(where, w) }
		switch {
		case n == 1:
			add(hopPair("e1", "?4", "?5", out(0)))
		case n == 2:
			f, w, x := hopFrom("e1", "?4", out(0))
			add(f, w+` AND `+x+` NOT IN (?4, ?5)`)
			add(hopPair("e2", x, "?5", out(1)))
		case pairs:
			f, w, x := hopFrom("e1", "?4", out(0))
			add(f, w+` AND `+x+` NOT IN (?4, ?5)`)
			f, w, y := hopFrom("e3", "?5", out(2))
			add(f, w+` AND `+y+` NOT IN (?4, ?5, `+x+`)`)
			add(hopPair("e2", x, y, out(1)))
		default:
			f, w, x := hopFrom("e1", "?4", out(0))
			add(f, w+` AND `+x+` NOT IN (?4, ?5)`)
			f, w, y := hopFrom("e2", x, out(1))
			add(f, w+` AND `+y+` NOT IN (?4, ?5, `+x+`)`)
			add(hopPair("e3", y, "?5", out(2)))
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
// (out is set) or into it: the table to join, the condition and the key
// of the entity it reaches.
func hopFrom(e, k string, out bool) (from, where, next string) {
	if out {
		return `facts ` + e + ` INDEXED BY facts_out`,
			e + `.agent_id = ?1 AND ` + e + `.subject_key = ` + k + ` AND ` + factHolds(e), e + `.object_key`
	}
	return `facts ` + e + ` INDEXED BY facts_in`,
		e + `.agent_id = ?1 AND ` + e + `.object_key = ` + k + ` AND ` + factHolds(e), e + `.subject_key`
}

// hopPair is a hop along the fact e from the entity j to the entity k,
// j its subject (out is set) or its object: the table to join and the
// condition.
func hopPair(e, j, k string, out bool) (from, where string) {
	if out {
		return `facts ` + e + ` INDEXED BY facts_out`,
			e + `.agent_id = ?1 AND ` + e + `.subject_key = ` + j + ` AND ` + e + `.object_key = ` + k + ` AND ` + factHolds(e)
	}
	return `facts ` + e + ` INDEXED BY facts_in`,
		e + `.agent_id = ?1 AND ` + e + `.object_key = ` + j + ` AND ` + e + `.subject_key = ` + k + ` AND ` + factHolds(e)
}

// EdgeFact is a fact with its row key and the keys of its ends.
type EdgeFact struct {
	PK                    int64
	SubjectKey, ObjectKey string
	Fact                  FactRow
}

// FactsByPK returns the agent's facts of the row keys pks, in no order
// (a key that is none of the agent's facts is left out). It returns the
// driver's errors unchanged, or an error decoding a row.
func FactsByPK(q Querier, agent string, pks []int64) ([]EdgeFact, error) {
	list, err := json.Marshal(pks)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(byPKSQL, agent, string(list))
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (EdgeFact, error) {
		var e EdgeFact
		fact, err := ScanFact(factPrefixScanner{r, []any{&e.PK, &e.SubjectKey, &e.ObjectKey}})
		e.Fact = fact
		return e, err
	})
}

// byPKSQL reads the agent's facts of the row keys in the JSON list ?2,
// each by its row key.
var byPKSQL = `SELECT f.pk, f.subject_key, f.object_key, ` + prefixedCols("f.", FactCols) + `
	FROM json_each(?2) j CROSS JOIN facts f ON f.pk = CAST(j.value AS INTEGER) WHERE f.agent_id = ?1`

// GraphNode is an entity a graph statement reached.
type GraphNode struct {
	// Key is the entity's key; Label its name as one of its facts writes
	// it.
	Key, Label string
	// Distance is the fewest hops from where the walk started (0 in
	// TopEntities).
	Distance int
}

// Walk returns the entities within depth hops of the entity key along
// the facts of span sp, nearest first and then by key, the key itself
// first: at most limit of them.
//
// The walk is breadth first: SQLite takes the rows of a recursive query
// in the order it made them. UNION drops an entity already reached at
// the same distance, so each is expanded at most once per distance and
// the work is bounded by entities × depth; and since the walk's limit
// counts rows, of which an entity makes at most one per distance,
// stopping at limit × (depth+1) rows keeps the limit nearest entities.
// It returns the driver's errors unchanged.
func Walk(q Querier, agent string, sp GraphSpan, key string, depth, limit int) ([]GraphNode, error) {
	from, to := sp.bounds()
	stmt := walkSQL
	if Postgres(q) {
		stmt = walkPG
	}
	rows, err := q.Query(stmt, agent, from, to, key, depth, limit*(depth+1), limit)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (GraphNode, error) {
		var n GraphNode
		return n, r.Scan(&n.Key, &n.Label, &n.Distance)
	})
}

// walkSQL is the statement of Walk: from the entity ?4, up to ?5 hops, at
// most ?6 rows of the walk and ?7 entities.
var walkSQL = `WITH RECURSIVE walk(k, d) AS (
			SELECT ?4, 0
			UNION
			SELECT e.object_key, w.d + 1 FROM walk w CROSS JOIN facts e INDEXED BY facts_out ON e.agent_id = ?1 AND e.subject_key = w.k
				WHERE w.d < ?5 AND ` + factHolds("e") + `
			UNION
			SELECT e.subject_key, w.d + 1 FROM walk w CROSS JOIN facts e INDEXED BY facts_in ON e.agent_id = ?1 AND e.object_key = w.k
				WHERE w.d < ?5 AND ` + factHolds("e") + `
			LIMIT ?6),
		near(k, d) AS (SELECT k, min(d) AS d FROM walk GROUP BY k ORDER BY d, k LIMIT ?7)
		SELECT k, ` + labelSQL("k") + `, d FROM near ORDER BY d, k`

// walkPG is walkSQL for PostgreSQL, whose recursive query may name walk
// once only (the two directions are one LATERAL join) and holds no LIMIT
// (the bound on the walk's rows is the outer query's: PostgreSQL
// computes no more of a recursive query than its reader takes).
var walkPG = `WITH RECURSIVE walk(k, d) AS (
			SELECT CAST(?4 AS TEXT) COLLATE "C", 0
			UNION
			SELECT x.k, w.d + 1 FROM walk w CROSS JOIN LATERAL (
				SELECT e.object_key AS k FROM facts e WHERE e.agent_id = ?1 AND e.subject_key = w.k AND ` + factHolds("e") + `
				UNION ALL
				SELECT e.subject_key FROM facts e WHERE e.agent_id = ?1 AND e.object_key = w.k AND ` + factHolds("e") + `) x
			WHERE w.d < ?5),
		near(k, d) AS (SELECT k, min(d) AS d FROM (SELECT k, d FROM walk LIMIT ?6) b GROUP BY k ORDER BY d, k LIMIT ?7)
		SELECT k, ` + labelSQL("k") + `, d FROM near ORDER BY d, k`

// labelSQL is the name of the entity k as one of its facts writes it:
// the first of its facts in the order of the index that finds them (the
// other end, the times, then pk; an open end first, as SQLite sorts NULL),
// said in the statement, so that PostgreSQL, which has no INDEXED BY,
// picks the same fact when two of them write the entity differently
// ("Émile" and "émile").
func labelSQL(k string) string {
	return `coalesce((SELECT l.subject FROM facts l INDEXED BY facts_out WHERE l.agent_id = ?1 AND l.subject_key = ` + k + `
			ORDER BY l.object_key, l.valid_from, l.valid_to NULLS FIRST, l.pk LIMIT 1),
		(SELECT l.object FROM facts l INDEXED BY facts_in WHERE l.agent_id = ?1 AND l.object_key = ` + k + `
			ORDER BY l.subject_key, l.valid_from, l.valid_to NULLS FIRST, l.pk LIMIT 1), ` + k + `)`
}

// TopEntities returns the limit entities named by the most facts of span
// sp, most first, then by key. It returns the driver's errors unchanged.
func TopEntities(q Querier, agent string, sp GraphSpan, limit int) ([]GraphNode, error) {
	from, to := sp.bounds()
	rows, err := q.Query(topSQL, agent, from, to, limit)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (GraphNode, error) {
		var n GraphNode
		return n, r.Scan(&n.Key, &n.Label)
	})
}

// topSQL is the statement that reads the ?4 entities of the most facts,
// with their labels.
var topSQL = `WITH deg(k, n) AS (
					SELECT e.subject_key, count(*) FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND ` + factHolds("e") + ` GROUP BY e.subject_key
					UNION ALL
					SELECT e.object_key, count(*) FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND ` + factHolds("e") + ` GROUP BY e.object_key),
				top(k, n) AS (SELECT k, sum(n) AS n FROM deg GROUP BY k ORDER BY n DESC, k LIMIT ?4)
				SELECT k, ` + labelSQL("k") + ` FROM top ORDER BY n DESC, k`

// GraphEdge is a fact between two entities of a graph view.
type GraphEdge struct {
	Source, Target     string // the keys of the subject and the object
	Predicate, FactID  string
	ValidFrom, ValidTo time.Time // ValidTo zero while the fact holds
}

// GraphEdges returns the facts of span sp between the entity keys keys,
// at most limit of them, by subject key, object key, predicate without
// case, start and ID. A fact of an entity with itself is left out. It
// returns the driver's errors unchanged.
func GraphEdges(q Querier, agent string, sp GraphSpan, keys []string, limit int) ([]GraphEdge, error) {
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	from, to := sp.bounds()
	rows, err := q.Query(edgesSQL, agent, from, to, string(list), limit)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (GraphEdge, error) {
		var e GraphEdge
		var from int64
		var to *int64
		err := r.Scan(&e.Source, &e.Target, &e.Predicate, &e.FactID, &from, &to)
		e.ValidFrom = FromMS(from)
		if to != nil {
			e.ValidTo = FromMS(*to)
		}
		return e, err
	})
}

// edgesSQL is the statement that reads the facts between the entities of
// the JSON list ?4, at most ?5 of them: the facts out of each entity,
// kept when their object is another. (The unary + keeps SQLite from
// seeking every pair of entities in facts_out instead.)
var edgesSQL = `WITH n(k) AS MATERIALIZED (SELECT value FROM json_each(?4))
			SELECT e.subject_key, e.object_key, e.predicate, e.id, e.valid_from, e.valid_to
			FROM n CROSS JOIN facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = n.k AND +e.object_key IN n AND e.object_key <> e.subject_key
				AND ` + factHolds("e") + `
			ORDER BY e.subject_key, e.object_key, lower(e.predicate), e.valid_from, e.id LIMIT ?5`

// GraphQueries returns, by a name for each, the statements of the graph
// that must find facts through the indexes of their ends, never by
// scanning the agent's facts: every form of those of Neighbours and
// Paths, and those of Degrees, Walk, GraphEdges and FactsByPK (not that
// of TopEntities, which counts every fact). It is for tests that check
// their query plans.
func GraphQueries() map[string]string {
	return map[string]string{
		"neighbours both":      neighboursSQL(true, true, false),
		"neighbours out":       neighboursSQL(true, false, false),
		"neighbours in":        neighboursSQL(false, true, false),
		"neighbours predicate": neighboursSQL(true, true, true),
		"paths 1":              pathSQL(1, false),
		"paths 2":              pathSQL(2, false),
		"paths 3 walk":         pathSQL(3, false),
		"paths 3 pairs":        pathSQL(3, true),
		"walk":                 walkSQL,
		"edges":                edgesSQL,
		"by pk":                byPKSQL,
		"degree":               degreesSQL,
	}
}

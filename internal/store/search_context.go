package store

import (
	"encoding/json"
	"math"
	"sync"
)

// SearchFilter is what a search keeps of its agent's rows besides the
// scope: rows created in [Since, Until) (Unix ms; Until is math.MaxInt64
// when open) carrying one of Tags (a JSON list, or "" for any), and the
// rest of the search's filter.
type SearchFilter struct {
	Since, Until int64
	Tags         string
	Scope        Scope
}

// None reports whether f keeps every row.
func (f SearchFilter) None() bool {
	return f.Tags == "" && f.Since <= ZeroMS && f.Until == math.MaxInt64 && f.Scope.empty()
}

// empty reports whether the scope keeps every row of a kind.
func (sc Scope) empty() bool {
	return sc.Tags == "" && sc.Since <= ZeroMS && sc.Until == math.MaxInt64 && sc.User == "" && sc.Session == "" && sc.Meta == nil
}

// scoped returns query, whose rows of kind k are named alias, with the
// scope's condition in place of its ScopeMark, and the condition's
// arguments, numbered from base (one past the query's own).
func (sc Scope) scoped(query string, k *Kind, alias string, base int) (string, []any) {
	if sc.empty() {
		return query, nil
	}
	cond, args := sc.Where(k, alias, base)
	return Scoped(query, cond), args
}

// Neighbour is a row logged just before or after a matched row in its
// session: what ranking needs of it, and the ID of the match (Of).
type Neighbour struct {
	RankedRow
	Of string
}

// neighbourSQL holds the statement of SessionNeighbours by kind.
var neighbourSQL sync.Map // *Kind → string

// NeighbourQuery returns the statement of SessionNeighbours: for each
// matched row of k whose pk is listed in ?2 (a JSON list), the rows of
// agent ?1 logged just before and just after it in its session, within
// [?3, ?4), in the scope that replaces its ScopeMark (alias "e"):
// RankCols, then the match's ID. Each neighbour is one seek in the index
// of the session (a partial index: the query must say x's session is not
// empty). The neighbours are MATERIALIZED: once per match, never again for
// each row they are joined to, which PostgreSQL's planner did when its
// statistics were those of an emptied table (after ForgetAgent): 37,000
// seeks and 200 ms a search where 100 do.
func NeighbourQuery(k *Kind) string {
	if q, ok := neighbourSQL.Load(k); ok {
		return q.(string)
	}
	s := k.SessionCol
	q := `
	WITH hit AS (
		SELECT e.id, e.` + s + `, e.created_at, e.pk FROM json_each(?2) j CROSS JOIN ` + k.Table + ` e ON e.pk = CAST(j.value AS INTEGER)
		WHERE e.agent_id = ?1 AND e.` + s + ` <> ''),
	near(hit, pk) AS MATERIALIZED (
		SELECT h.id, (SELECT x.pk FROM ` + k.Table + ` x
			WHERE x.agent_id = ?1 AND x.` + s + ` = h.` + s + ` AND x.` + s + ` <> '' AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM ` + k.Table + ` x
			WHERE x.agent_id = ?1 AND x.` + s + ` = h.` + s + ` AND x.` + s + ` <> '' AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT ` + RankCols(k, "e") + `, n.hit FROM near n JOIN ` + k.Table + ` e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND ` + ScopeMark
	neighbourSQL.Store(k, q)
	return q
}

// SessionNeighbours reads, for each of agent's rows of kind k (a kind
// with a session column, the episodic log) whose pks are hits, the rows
// logged just before and just after it in its session, among those
// created in [f.Since, f.Until) in f.Scope (f.Tags is not applied). It
// returns the driver's errors, or a tag list's decoding error.
func SessionNeighbours(q Querier, k *Kind, agent string, hits []int64, f SearchFilter) ([]Neighbour, error) {
	list, err := json.Marshal(hits)
	if err != nil {
		return nil, err
	}
	query, scoped := f.Scope.scoped(NeighbourQuery(k), k, "e", 5)
	rows, err := q.Query(query, append([]any{agent, string(list), f.Since, f.Until}, scoped...)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (Neighbour, error) {
		var n Neighbour
		err := ScanRanked(r, &n.RankedRow, &n.Of)
		return n, err
	})
}

// traitsSQL holds the statement of Traits by kind.
var traitsSQL sync.Map // *Kind → string

// TraitsQuery returns the statement of Traits: the pk, session and
// whether it asks a question (Kind.AsksOver) of each of agent ?1's rows of
// k whose pk is listed in ?2 (a JSON list).
func TraitsQuery(k *Kind) string {
	if q, ok := traitsSQL.Load(k); ok {
		return q.(string)
	}
	q := `SELECT e.pk, e.` + k.SessionCol + `, ` + k.AsksOver("e") + ` FROM json_each(?2) j CROSS JOIN ` + k.Table + ` e ON e.pk = CAST(j.value AS INTEGER)
	WHERE e.agent_id = ?1`
	traitsSQL.Store(k, q)
	return q
}

// Trait is what Traits reads of a row: its session ("" for none) and
// whether it asks a question.
type Trait struct {
	Session string
	Asks    bool
}

// Traits returns, by pk, the session and whether it asks a question of
// each of agent's rows of kind k (a kind with a session column, the
// episodic log) whose pk is in pks; a row not found is not in it. It
// returns the driver's errors.
func Traits(q Querier, k *Kind, agent string, pks []int64) (map[int64]Trait, error) {
	list, err := json.Marshal(pks)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(TraitsQuery(k), agent, string(list))
	if err != nil {
		return nil, err
	}
	type row struct {
		pk int64
		Trait
	}
	all, err := ScanAll(rows, func(r Scanner) (row, error) {
		var x row
		err := r.Scan(&x.pk, &x.Session, &x.Asks)
		return x, err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Trait, len(all))
	for _, x := range all {
		out[x.pk] = x.Trait
	}
	return out, nil
}

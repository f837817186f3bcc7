package engram

import "github.com/engram-go/engram/internal/store"

// listScope validates a listing's or an export's filter and compiles it;
// nil for none.
func (m *Memory) listScope(f *Filter) (*scope, error) {
	if f == nil {
		return nil, nil
	}
	if err := f.validate("Filter", m.cfg.Limits); err != nil {
		return nil, err
	}
	sc := newScope(f.clone())
	return &sc, nil
}

// listWhere returns the condition, order and limit of one kind's part of
// a [Memory.List] page, over k's table (see Memory.records: the agent is
// ?1), with ?2 and ?3 the times [since, until) in Unix ms, ?4 to ?6 the
// cursor (time, ID, kind), ?7 the tags as a JSON list ("" for none), ?8
// the limit, and the scope's arguments, returned, from ?9 on. The scope
// (nil for none) admits k. With a user or a session, the order is made
// an expression (see scope.orderBy), so that the rows are found by the
// index of the user or session and sorted, not by a walk of the agent's
// rows in time order; with a user and no session, the times too.
func listWhere(k *kind, sc *scope, tagged bool) (string, []any) {
	// With a user and no session, the time is made an expression: else
	// the index of the agent's times serves the bounds, and the user's
	// rows are looked for among all of the agent's.
	byTime := sc == nil || sc.user == "" || sc.session != ""
	cond := "1"
	var args []any
	if sc != nil {
		cond, args = sc.where(k, k.Table, 9)
	}
	return store.ListWhere(string(k.typ), byTime, tagged, cond, sc.orderBy("created_at DESC, id DESC")), args
}

package store

// ListWhere returns the condition, order and limit of one kind's part of
// a listing page over the kind's table, whose rows are of type typ (the
// agent is ?1), with ?2 and ?3 the times [since, until) in Unix ms, ?4 to
// ?6 the cursor (time, ID, kind), ?7 the tags as a JSON list (with tagged
// set) and ?8 the limit. scope is the condition of the listing's filter
// ("1" for none; its arguments from ?9 on) and order its ORDER BY; both
// are fragments the root builds from the filter and the kind registry,
// never from input. With byTime unset the time is made an expression, so
// that the rows are found by another index (a user's) and sorted, not by
// a walk of the agent's rows in time order.
func ListWhere(typ string, byTime, tagged bool, scope, order string) string {
	at := "created_at"
	if !byTime {
		at = "+created_at"
	}
	where := at + ` >= ?2 AND ` + at + ` < ?3 AND (` + at + `, id, '` + typ + `') < (?4, ?5, ?6)`
	if tagged {
		where += ` AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?7)))`
	}
	if scope != "1" {
		where += ` AND ` + scope
	}
	return where + ` ORDER BY ` + order + ` LIMIT ?8`
}

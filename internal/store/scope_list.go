package store

import "math"

// Selection selects rows of one kind for a read of memories of any kind
// (Memory.Get, Memory.List, ForgetMatching): by ID, or a listing's page.
// It is made by ByID or ListPage.Select, never from a caller's SQL.
type Selection struct {
	cond string // over the kind's table, the agent being ?1
	args []any  // from ?2 on
}

// ByID selects the row with the given ID.
func ByID(id string) Selection { return Selection{cond: `id = ?2`, args: []any{id}} }

// ListPage is one kind's part of a page of a listing: the rows created
// in [Since, Until) (Unix milliseconds) that come before the cursor
// (At, ID, Type) in the order of (created_at, id, kind) descending,
// carrying one of Tags (a JSON list, "" for any), at most Limit of them
// (math.MaxInt for no limit: PostgreSQL refuses SQLite's -1).
type ListPage struct {
	Since, Until, At int64
	ID, Type, Tags   string
	Limit            int
}

// AllRows is the page that holds every row: from the first time to the
// last, before a cursor past every row, with no limit.
var AllRows = ListPage{Since: math.MinInt64, Until: math.MaxInt64, At: math.MaxInt64, Limit: math.MaxInt}

// Select returns the selection of the page of kind k in the scope sc
// (nil for none, which admits k), newest first. With a user or a
// session, the order is made an expression (see OrderBy), so that the
// rows are found by the index of the user or session and sorted, not by
// a walk of the agent's rows in time order; with a user and no session,
// the times too (else the index of the agent's times serves the bounds,
// and the user's rows are looked for among all of the agent's).
func (p ListPage) Select(k *Kind, sc *Scope) Selection {
	byTime := sc == nil || sc.User == "" || sc.Session != ""
	tagged := p.Tags != ""
	at := "created_at"
	if !byTime {
		at = "+created_at"
	}
	where := at + ` >= ?2 AND ` + at + ` < ?3 AND (` + at + `, id, '` + k.Name + `') < (?4, ?5, ?6)`
	// Every parameter is used (PostgreSQL cannot type one that is not):
	// the tags are ?8 when there are some, and the scope's follow.
	args := []any{p.Since, p.Until, p.At, p.ID, p.Type, p.Limit}
	if tagged {
		where += ` AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?8)))`
		args = append(args, p.Tags)
	}
	if sc != nil {
		if cond, scArgs := sc.Where(k, k.Table, len(args)+2); cond != "1" {
			where += ` AND ` + cond
			args = append(args, scArgs...)
		}
	}
	return Selection{cond: where + ` ORDER BY ` + sc.orderBy("created_at DESC, id DESC") + ` LIMIT ?7`, args: args}
}

// Statement returns the statement that reads cols of the rows of kind k
// that s selects, and its arguments (the agent as ?1): for the plans the
// tests check.
func (s Selection) Statement(k *Kind, cols, agent string) (string, []any) {
	return `SELECT ` + cols + ` FROM ` + k.Table + ` WHERE agent_id = ?1 AND ` + s.cond, append([]any{agent}, s.args...)
}

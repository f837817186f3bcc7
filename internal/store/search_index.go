package store

import "encoding/json"

// The statements of text search without FTS5 (the root's
// search_index.go): the in-memory text index finds a search's matches,
// and the rows say which of them the search's filters keep.

// textFilteredSQL returns, for kind k, (a JSON list of pks, agent, since,
// until, the tags as JSON or an empty string, and for a kind with live
// rows now) → each of the agent's rows at those pks: its pk, whether it
// was created in [since, until), carries one of the tags and is in the
// scope that replaces its ScopeMark (alias "t", arguments from the one
// after now, or after the tags), as TextBestSQL and TextWindowSQL test
// it, and whether it is live at now (see Kind.LiveAt). A kind without
// live rows takes no now: PostgreSQL refuses an argument no parameter
// names.
func textFilteredSQL(k *Kind) string {
	live := "1"
	if k.Live != "" {
		live = k.LiveAt("t", "?6")
	}
	return `SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ` + k.TagFilter("t", "?5") + ` AND ` + ScopeMark + `), ` +
		live + ` FROM json_each(?1) j CROSS JOIN ` + k.Table + ` t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2`
}

// TextFiltered calls fn with each of agent's rows of kind k at the pks,
// whether the filter f keeps it and whether it is live at now (Unix ms).
// Errors are the driver's.
func TextFiltered(q Querier, k *Kind, agent string, pks []int64, f SearchFilter, now int64, fn func(pk int64, kept, live bool)) error {
	list, err := json.Marshal(pks)
	if err != nil {
		return err
	}
	args := []any{string(list), agent, f.Since, f.Until, f.Tags}
	if k.Live != "" {
		args = append(args, now)
	}
	stmt, scoped := f.Scope.scoped(textFilteredSQL(k), k, "t", len(args)+1)
	rows, err := q.Query(stmt, append(args, scoped...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var kept, live bool
		if err := rows.Scan(&pk, &kept, &live); err != nil {
			return err
		}
		fn(pk, kept, live)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

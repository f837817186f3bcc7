package store

import "encoding/json"

// AccessNote is what the access log adds to one memory: N accesses and R
// retrievals, the last access at At (Unix milliseconds, as the column
// holds it).
type AccessNote struct {
	ID string `json:"id"`
	N  int    `json:"n"`
	R  int    `json:"r"`
	At int64  `json:"at"`
}

// AddAccess adds notes to agent's rows of table, in one statement: each
// row's retrievals go up by its note's R and, with accesses set (a kind
// that keeps access counts: semantic entries), its access count by N and
// its last access to At if later. A note whose memory is gone is skipped.
// The table name comes from the caller's kind registry. Errors are the
// driver's.
func AddAccess(q Querier, table, agent string, accesses bool, notes []AccessNote) error {
	b, err := json.Marshal(notes)
	if err != nil {
		return err
	}
	// The list is materialized first so that it drives the update;
	// joined to json_each directly, the planner scans the agent's rows
	// and parses the list once for each.
	set := `retrievals = retrievals + j.r`
	if accesses {
		set += `, access_count = access_count + j.n, last_accessed_at = max(last_accessed_at, j.at)`
	}
	_, err = q.Exec(`WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE `+table+` SET `+set+`
		FROM j WHERE `+table+`.agent_id = ?1 AND `+table+`.id = j.id`,
		agent, string(b))
	return err
}

package store

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// The statements of a memory's summary. Table names, the condition that
// picks an agent's rows (scan: "agent_id = ?" or "+agent_id = ?", with
// the agent its one parameter) and the lists of indexed texts (indexed:
// SQL over the row named t, as the kind registry makes them) come from
// the caller's kind registry, never from input.

// MaxPK returns the largest rowid of table, 0 when it is empty. Errors
// are the driver's.
func MaxPK(q Querier, table string) (int64, error) {
	var size int64
	err := q.QueryRow(`SELECT coalesce(max(pk), 0) FROM `+table, nil, &size)
	return size, err
}

// AgentScan returns the condition that picks agent's n rows of table
// (with the agent as its one parameter) for a pass over all of them.
// Through the agent's index each row costs a lookup in the table, in the
// order of the index: at 100K entries ten times slower than reading the
// whole table in order. So the condition keeps SQLite off the index (the
// unary +) unless the agent holds under an eighth of the table's rows (by
// its largest pk), where reading every row costs more. Errors are the
// driver's.
func AgentScan(q Querier, table string, n int) (string, error) {
	size, err := MaxPK(q, table)
	if err != nil {
		return "", err
	}
	if int64(n)*8 >= size {
		return "+agent_id = ?", nil
	}
	return "agent_id = ?", nil
}

// Newest returns the ID and creation time of the newest (by creation
// time, then ID) of agent's rows of table that scan picks; sql.ErrNoRows
// when there is none. Other errors are the driver's.
func Newest(q Querier, table, scan, agent string) (string, time.Time, error) {
	var id string
	var created int64
	err := q.QueryRow(`SELECT id, created_at FROM `+table+` WHERE `+scan+`
		ORDER BY created_at DESC, id DESC LIMIT 1`, []any{agent}, &id, &created)
	return id, FromMS(created), err
}

// SemanticCounts counts, in one pass over agent's semantic entries that
// scan picks, those whose importance is at least threshold and those last
// accessed after cutoff, and returns the earliest last access of the
// latter (the zero time when there are none). Errors are the driver's.
func SemanticCounts(q Querier, agent, scan string, threshold float64, cutoff time.Time) (high, recent int, first time.Time, err error) {
	var at sql.NullInt64
	err = q.QueryRow(`SELECT count(*) FILTER (WHERE importance >= ?2), count(*) FILTER (WHERE last_accessed_at > ?3),
		min(last_accessed_at) FILTER (WHERE last_accessed_at > ?3) FROM semantic_memory WHERE `+strings.ReplaceAll(scan, "?", "?1"),
		[]any{agent, threshold, MS(cutoff)}, &high, &recent, &at)
	if at.Valid {
		first = time.UnixMilli(at.Int64).UTC()
	}
	return high, recent, first, err
}

// SemanticNotAccessedSince returns which of ids are IDs of agent's
// entries last accessed at cutoff or before. Errors are the driver's.
func SemanticNotAccessedSince(q Querier, agent string, cutoff time.Time, ids []string) ([]string, error) {
	list, _ := json.Marshal(ids) // a []string always marshals
	rows, err := q.Query(`SELECT id FROM semantic_memory WHERE agent_id = ? AND last_accessed_at <= ?
		AND id IN (SELECT value FROM json_each(?))`, agent, MS(cutoff), string(list))
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
}

// EachVocabTerm calls fn with each term of the fts5vocab table vocab and how
// many documents hold it. It returns fn's first error, or the driver's.
func EachVocabTerm(q Querier, vocab string, fn func(term string, docs int) error) error {
	rows, err := q.Query(`SELECT term, doc FROM ` + vocab)
	if err != nil {
		return err
	}
	_, err = ScanAll(rows, func(r Scanner) (struct{}, error) {
		var term string
		var n int
		if err := r.Scan(&term, &n); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fn(term, n)
	})
	return err
}

// AgentTerms calls fn with the term vector of each of agent's rows of
// table that has one. It returns the driver's errors.
func AgentTerms(q Querier, table, agent string, fn func(terms []byte)) error {
	rows, err := q.Query(`SELECT t.terms FROM `+table+` t WHERE t.agent_id = ? AND t.terms IS NOT NULL`, agent)
	if err != nil {
		return err
	}
	_, err = ScanAll(rows, func(r Scanner) (struct{}, error) {
		var terms []byte
		err := r.Scan(&terms)
		fn(terms)
		return struct{}{}, err
	})
	return err
}

// AgentTexts calls fn with the n indexed texts (indexed, NULL read as
// "") of each of agent's rows of table, and its term vector (nil for
// none); with noTerms, of the rows without a term vector only. texts is
// reused from row to row. It returns fn's first error, or the driver's.
func AgentTexts(q Querier, table, indexed string, n int, agent string, noTerms bool, fn func(terms []byte, texts []string) error) error {
	where := ``
	if noTerms {
		where = ` AND t.terms IS NULL`
	}
	rows, err := q.Query(`SELECT t.terms, `+indexed+` FROM `+table+` t WHERE t.agent_id = ?`+where, agent)
	if err != nil {
		return err
	}
	texts := make([]string, n)
	var terms []byte
	dest := []any{&terms}
	for i := range texts {
		dest = append(dest, &texts[i])
	}
	_, err = ScanAll(rows, func(r Scanner) (struct{}, error) {
		if err := r.Scan(dest...); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fn(terms, texts)
	})
	return err
}

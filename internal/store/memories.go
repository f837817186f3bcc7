package store

import "strings"

// RowCounter counts an agent's rows in a list of tables in one
// statement.
type RowCounter struct{ query string }

// NewRowCounter returns the RowCounter of tables: names of the root
// package's registry of kinds and of engram's schema, passed as strings
// for now.
func NewRowCounter(tables []string) RowCounter {
	counts := make([]string, len(tables))
	for i, t := range tables {
		counts[i] = `(SELECT count(*) FROM ` + t + ` WHERE agent_id = ?1)`
	}
	return RowCounter{query: "SELECT " + strings.Join(counts, ", ")}
}

// Count scans the counts of the agent's rows in c's tables into dest, one
// each, in order. It returns the driver's errors unchanged.
func (c RowCounter) Count(q Querier, agent string, dest ...any) error {
	return q.QueryRow(c.query, []any{agent}, dest...)
}

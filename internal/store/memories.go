package store

import (
	"database/sql"
	"strings"
)

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

// MemoriesSelected runs the query of the columns cols (a kind's, as its
// scanner reads them) of the agent's rows of kind k that sel selects, in
// the order and number it says, and returns its rows for the caller to
// scan and close. It returns the driver's errors unchanged.
func MemoriesSelected(q Querier, k *Kind, cols, agent string, sel Selection) (*sql.Rows, error) {
	stmt, args := sel.Statement(k, cols, agent)
	return q.Query(stmt, args...)
}

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

// MemoriesWhere runs the query of the columns cols of the agent's rows of
// table that the SQL condition where selects (with the agent as ?1 and
// args from ?2 on), in the order and number its ORDER BY and LIMIT say,
// and returns its rows for the caller to scan and close. table and cols
// are a kind's (from the root package's registry and its scanner), where
// is a listing's scope: the root package passes them as strings for now.
// It returns the driver's errors unchanged.
func MemoriesWhere(q Querier, table, cols, agent, where string, args ...any) (*sql.Rows, error) {
	all := make([]any, 0, 1+len(args))
	return q.Query(`SELECT `+cols+` FROM `+table+` WHERE agent_id = ?1 AND `+where, append(append(all, agent), args...)...)
}

// PKsWhere returns the SQL condition over the rows of table that holds
// for those of the agent bound as ?1 that where selects (with args from ?2
// on; its ORDER BY and LIMIT apply): for the root package's readers that
// take a condition, as a string for now.
func PKsWhere(table, where string) string {
	return `pk IN (SELECT pk FROM ` + table + ` WHERE agent_id = ?1 AND ` + where + `)`
}

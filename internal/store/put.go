package store

import (
	"strings"
)

// Put writes rows of one table with one set of columns, as an import
// does: insert, and on a conflict with a row the agent holds, replace it
// or leave it. Its statements are made once per table and set of columns.
type Put struct {
	n                      int // the columns written besides agent_id
	exists, insert, update string
	// kind is the kind whose table it writes, or nil: its inserts and
	// changes of text are reported (see [Change]).
	kind  *Kind
	where string // the condition that selects the row of a key
}

// NewPut returns the statements that write rows of table into the
// columns written (the row's columns besides agent_id, in order), a row
// being the agent's row whose key columns (besides agent_id) hold the
// same values.
func NewPut(table string, written, key []string) *Put {
	where := "agent_id = ?"
	for _, c := range key {
		where += " AND " + c + " = ?"
	}
	return &Put{
		kind:   KindOfTable(table),
		where:  where,
		n:      len(written),
		exists: `SELECT count(*) FROM ` + table + ` WHERE ` + where,
		insert: `INSERT INTO ` + table + ` (agent_id, ` + strings.Join(written, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(written)) + `)`,
		update: `UPDATE ` + table + ` SET ` + strings.Join(written, " = ?, ") + ` = ? WHERE ` + where,
	}
}

// Insert writes rows rows, whose values args holds in order, each the
// agent's ID and then the written columns', in one statement. A row that
// conflicts with one the table holds fails it (see IsUniqueViolation),
// and writes nothing: SQLite checks the unique indexes before it writes.
// Errors are the driver's.
func (p *Put) Insert(q Querier, rows int, args []any) error {
	stmt := p.insert
	if rows > 1 {
		stmt += strings.Repeat(`, (?`+strings.Repeat(", ?", p.n)+`)`, rows-1)
	}
	if p.kind != nil {
		_, err := changing(q, p.kind, ChangeInsert, stmt, args...)
		return err
	}
	_, err := q.Exec(stmt, args...)
	return err
}

// Exists reports whether the table holds the row whose agent and key
// values key holds, in order.
// Errors are the driver's.
func (p *Put) Exists(q Querier, key []any) (bool, error) {
	var n int
	err := q.QueryRow(p.exists, key, &n)
	return n > 0, err
}

// Update writes the written columns' values vals (in order) into the row
// whose agent and key values key holds.
// Errors are the driver's.
func (p *Put) Update(q Querier, vals, key []any) error {
	args := append(vals[:len(vals):len(vals)], key...)
	if p.kind != nil {
		_, err := updatingText(q, p.kind, p.update, args, p.where, key...)
		return err
	}
	_, err := q.Exec(p.update, args...)
	return err
}

// Column is a column of a table as its schema declares it.
type Column struct {
	Name, Type string // Type in capitals
	NotNull    bool
	// Required says the column is NOT NULL without a default: a row must
	// name it.
	Required bool
}

// Columns returns the columns of table, generated ones aside, with
// SQLite's names of their types (INTEGER, REAL, TEXT, BLOB) on either
// engine; an identity column has a default.
// Errors are the driver's.
func Columns(q Querier, table string) ([]Column, error) {
	stmt := `SELECT name, upper(type), "notnull", dflt_value IS NOT NULL FROM pragma_table_info(?)`
	if Postgres(q) {
		stmt = PG(`SELECT a.attname::text,
				CASE WHEN a.atttypid IN ('bigint'::regtype, 'integer'::regtype, 'smallint'::regtype) THEN 'INTEGER'
					WHEN a.atttypid IN ('double precision'::regtype, 'real'::regtype, 'numeric'::regtype) THEN 'REAL'
					WHEN a.atttypid = 'bytea'::regtype THEN 'BLOB' ELSE 'TEXT' END,
				a.attnotnull, a.atthasdef OR a.attidentity <> ''
			FROM pg_attribute a
			WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
			ORDER BY a.attnum`)
	}
	rows, err := q.Query(stmt, table)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (Column, error) {
		var c Column
		var dflt bool
		err := r.Scan(&c.Name, &c.Type, &c.NotNull, &dflt)
		c.Required = c.NotNull && !dflt
		return c, err
	})
}

// HistoryHead returns the largest sequence number of the history table,
// 0 when it is empty: what a transaction writes after it is numbered
// above it.
// Errors are the driver's.
func HistoryHead(q Querier) (int64, error) {
	var pk int64
	err := q.QueryRow(`SELECT coalesce(max(pk), 0) FROM history`, nil, &pk)
	return pk, err
}

// DropHistoryAfter removes the history entries of the agent's memory of
// the kind named typ with the given ID numbered above after.
// Errors are the driver's.
func DropHistoryAfter(q Querier, agent, typ, id string, after int64) error {
	_, err := q.Exec(`DELETE FROM history WHERE agent_id = ? AND id = ? AND memory_type = ? AND pk > ?`, agent, id, typ, after)
	return err
}

// Package store holds engram's SQL: the statements that read and write a
// memory's rows, and the encodings of its columns. The root package
// validates, converts and decides; it calls the functions here inside the
// transactions it runs, and speaks no SQL itself.
//
// Every function takes the transaction to run in as a [Querier], so a
// statement runs wherever its caller's transaction is: a write on the
// writer connection, or a read on a reader. Functions return the driver's
// errors unchanged; the root package wraps them (see [IsUniqueViolation]
// and [Code] for the ones it tells apart).
//
// The transaction is an engine's: the root package speaks to it through
// [Tx] (statements, callbacks at its end, savepoints, the change log that
// feeds the [Follower]s). The engines are SQLite (internal/store/sqlite)
// and PostgreSQL (internal/store/postgres). The statements are written in
// SQLite's dialect, in the forms both share where there is one;
// PostgreSQL's engine translates the rest as it runs them. The few that
// have no translation (SQLite's catalog, vec0's tables) choose their
// engine's statement by [Postgres]. Times are stored as Unix milliseconds
// (see [MS]), tag lists as JSON arrays (see [EncodeTags]).
package store

import (
	"database/sql"
	"errors"
)

// Querier runs statements in one transaction. An engine's transaction
// (see [Tx]) implements it: statements are prepared once per connection
// and kept.
type Querier interface {
	// Exec runs a statement that returns no rows.
	Exec(query string, args ...any) (sql.Result, error)
	// Query runs a statement that returns rows; the caller closes them.
	Query(query string, args ...any) (*sql.Rows, error)
	// QueryRow scans the single row of query into dest; it returns
	// sql.ErrNoRows when there is none.
	QueryRow(query string, args []any, dest ...any) error
	// Changed hears of a change a statement of this package made to a
	// memory row (see [Change]): the functions that make one report it.
	Changed(c Change)
}

// Dialecter is a Querier that names the SQL dialect it runs
// (DialectPostgres for PostgreSQL's engine). A Querier that is not one
// runs SQLite's.
type Dialecter interface {
	Dialect() Dialect
}

// Postgres reports whether q runs on PostgreSQL (see [Dialecter]): the
// functions whose statements have no form PostgreSQL's engine translates
// choose their statement by it.
func Postgres(q Querier) bool {
	d, ok := q.(Dialecter)
	return ok && d.Dialect() == DialectPostgres
}

// PG marks stmt as written in PostgreSQL's own dialect: its engine runs
// it as it is, untranslated. A function that chose its statement by
// [Postgres] passes PG(stmt).
func PG(stmt string) string { return PGMark + stmt }

// PGMark begins a statement in PostgreSQL's own dialect (see [PG]).
const PGMark = "/* postgres */ "

// Scanner is a *sql.Rows or a *sql.Row.
type Scanner interface{ Scan(dest ...any) error }

// ScanAll scans every row with scan and closes rows.
// Errors are the driver's or scan's.
func ScanAll[T any](rows *sql.Rows, scan func(Scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}

// affected reports whether the statement whose result and error it is
// changed a row.
func affected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// noRow turns sql.ErrNoRows into found = false.
func noRow[T any](v T, err error) (T, bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		var zero T
		return zero, false, nil
	}
	return v, err == nil, err
}

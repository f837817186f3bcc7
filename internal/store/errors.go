package store

import (
	"errors"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Code returns the extended SQLite result code in err, or 0.
func Code(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// SQLState returns the SQLSTATE of a PostgreSQL error in err's chain
// (pgx's *pgconn.PgError has the method), or "".
func SQLState(err error) string {
	var pe interface{ SQLState() string }
	if errors.As(err, &pe) {
		return pe.SQLState()
	}
	return ""
}

// IsUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint failure (SQLite's, or PostgreSQL's 23505).
func IsUniqueViolation(err error) bool {
	switch Code(err) {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return SQLState(err) == "23505"
}

// IsBusy reports whether err says the database was locked by another
// connection for longer than the busy timeout (SQLITE_BUSY or
// SQLITE_LOCKED), or, on PostgreSQL, that a transaction lost to another
// (a serialization failure, a deadlock) or a lock was not to be had.
func IsBusy(err error) bool {
	code := Code(err) & 0xff
	if code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED {
		return true
	}
	switch SQLState(err) {
	case "40001", "40P01", "55P03":
		return true
	}
	return false
}

// IsReadOnly reports whether err says the database may not be written
// (SQLITE_READONLY; PostgreSQL's 25006, a read-only transaction).
func IsReadOnly(err error) bool {
	return Code(err)&0xff == sqlite3.SQLITE_READONLY || SQLState(err) == "25006"
}

// IsCorrupt reports whether err says the file is damaged or is not a
// database (SQLITE_CORRUPT or SQLITE_NOTADB; PostgreSQL's data corrupted
// or index corrupted, XX001 and XX002).
func IsCorrupt(err error) bool {
	code := Code(err) & 0xff
	if code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB {
		return true
	}
	s := SQLState(err)
	return s == "XX001" || s == "XX002"
}

// IsConstraint reports whether err is a failed constraint of any sort
// (SQLITE_CONSTRAINT, PostgreSQL's class 23: UNIQUE, CHECK, NOT NULL,
// FOREIGN KEY, ...).
func IsConstraint(err error) bool {
	return Code(err)&0xff == sqlite3.SQLITE_CONSTRAINT || strings.HasPrefix(SQLState(err), "23")
}

// IsCantOpen reports whether err says a file could not be opened
// (SQLITE_CANTOPEN).
func IsCantOpen(err error) bool { return Code(err)&0xff == sqlite3.SQLITE_CANTOPEN }

// IsInterrupt reports whether err says a statement was interrupted
// (SQLITE_INTERRUPT; PostgreSQL's query_canceled, 57014), as a cancelled
// context does.
func IsInterrupt(err error) bool {
	return Code(err)&0xff == sqlite3.SQLITE_INTERRUPT || SQLState(err) == "57014"
}

// The sentinel errors of an engine, which the root package exports under
// the same names (engram.ErrClosed is ErrClosed, …), so that an engine's
// error matches them with errors.Is.
var (
	// ErrClosed reports a call after the database was closed.
	ErrClosed = errors.New("engram: memory is closed")
	// ErrSchemaTooNew reports a database written by a newer engram.
	ErrSchemaTooNew = errors.New("engram: database schema is newer than this version of engram")
	// ErrCorrupt reports a damaged file, or one that is not a database.
	ErrCorrupt = errors.New("engram: database file is corrupt or not a database")
	// ErrNotEngram reports a database that belongs to another program.
	ErrNotEngram = errors.New("engram: not an engram database")
	// ErrBusy reports a lock held by another connection longer than the
	// busy timeout.
	ErrBusy = errors.New("engram: database is busy")
	// ErrReadOnly reports a write to a database that may only be read.
	ErrReadOnly = errors.New("engram: database is read-only")
	// ErrNotFound reports something that does not exist: a memory, a
	// database.
	ErrNotFound = errors.New("engram: not found")
)

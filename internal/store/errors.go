package store

import (
	"errors"

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

// IsUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint failure.
func IsUniqueViolation(err error) bool {
	switch Code(err) {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return false
}

// IsBusy reports whether err says the database was locked by another
// connection for longer than the busy timeout (SQLITE_BUSY or
// SQLITE_LOCKED).
func IsBusy(err error) bool {
	code := Code(err) & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// IsReadOnly reports whether err says the database may not be written
// (SQLITE_READONLY).
func IsReadOnly(err error) bool { return Code(err)&0xff == sqlite3.SQLITE_READONLY }

// IsCorrupt reports whether err says the file is damaged or is not a
// database (SQLITE_CORRUPT or SQLITE_NOTADB).
func IsCorrupt(err error) bool {
	code := Code(err) & 0xff
	return code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB
}

// IsConstraint reports whether err is a failed constraint of any sort
// (SQLITE_CONSTRAINT: UNIQUE, CHECK, NOT NULL, FOREIGN KEY, ...).
func IsConstraint(err error) bool { return Code(err)&0xff == sqlite3.SQLITE_CONSTRAINT }

// IsCantOpen reports whether err says a file could not be opened
// (SQLITE_CANTOPEN).
func IsCantOpen(err error) bool { return Code(err)&0xff == sqlite3.SQLITE_CANTOPEN }

// IsInterrupt reports whether err says a statement was interrupted
// (SQLITE_INTERRUPT), as a cancelled context does.
func IsInterrupt(err error) bool { return Code(err)&0xff == sqlite3.SQLITE_INTERRUPT }

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
)

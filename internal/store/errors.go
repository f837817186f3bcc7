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

package sqlite

import "sync/atomic"

// recorder is the function RecordStatements installed, nil when none is.
var recorder atomic.Pointer[func(query string)]

// RecordStatements makes every statement run through a Tx's Querier
// methods (Exec, Query, QueryRow, RawQuery: the statements of
// internal/store and of the root package's tests) be handed to f before
// it runs, from whichever goroutine runs it, so that a test binary can
// list the statements the SQLite engine runs (the PostgreSQL engine's
// tests translate and prepare that list). The engine's own statements
// (BEGIN, COMMIT, SAVEPOINT, PRAGMA, the migrations' scripts, the
// integrity checks) are not handed over; those of internal/store that a
// migration's Go step runs are. f must be safe for concurrent use; nil stops the recording. Off
// by default: then a statement pays one atomic load.
func RecordStatements(f func(query string)) {
	if f == nil {
		recorder.Store(nil)
		return
	}
	recorder.Store(&f)
}

// note hands query to the recorder, if one is installed.
func note(query string) {
	if f := recorder.Load(); f != nil {
		(*f)(query)
	}
}

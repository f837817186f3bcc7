// Package sqlite is engram's SQLite engine (through the pure-Go driver
// modernc.org/sqlite): it opens a database file, or one in memory, and
// pools its connections (one writer, a few query-only readers); sets the
// pragmas; applies the migrations of internal/schema and their Go steps;
// runs transactions and savepoints ([DB.Write], [DB.Read], [Tx]), whose
// callbacks and savepoint levels it keeps in a [store.WriteState]; keeps
// the change log, a [store.ChangeLog], that hands the rows' changes, as
// the statements of internal/store report them, to the in-memory
// followers (and, in tests, checks the reports against SQLite's
// pre-update hook and TEMP triggers, its [store.LogCheck]); installs
// history's TEMP
// triggers; checkpoints, parks and wakes a file's connections; reads the
// file's version; runs the integrity check; and copies a database by
// VACUUM INTO and checks the copy.
//
// Its transaction, [Tx], implements [store.Tx], the seam through which the
// root package speaks to an engine: the statements of internal/store run
// in it, and the root's followers are [store.Follower]s. A second engine
// is a package beside this one that implements the same seam.
//
// Errors: the driver's errors pass through unchanged inside a
// transaction; [DB.Write], [DB.Read] and the other methods of [DB] return
// [store.ErrClosed] after Close, the context's error when it ended a
// statement, the sentinels of internal/store ([store.ErrReadOnly],
// [store.ErrSchemaTooNew], [store.ErrNotEngram], [store.ErrBusy],
// [store.ErrCorrupt]) where they say so, and any other failure as
// [Config].Wrap makes it (the root package's *DatabaseError).
package sqlite

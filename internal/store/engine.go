package store

import (
	"context"
	"errors"
)

// DB is an engine's database as the root package sees it: where its
// transactions run, who follows its changes, and what it says of itself.
// An engine (internal/store/sqlite, internal/store/postgres) implements
// it; what only some engines can do is in an interface of its own
// ([Copier]), which the root asks for by a type assertion and, on an
// engine without it, reports as [ErrUnsupported].
//
// Every method is safe for concurrent use.
type DB interface {
	// Write runs fn in one write transaction and commits it when fn
	// returns nil; op names the operation in errors. Writes that change
	// the same agent are serialised, across processes too.
	Write(ctx context.Context, op string, fn func(q Tx) error) error
	// Read runs fn in one read transaction: every statement sees one
	// snapshot of the database. Reads are not held up by writes.
	Read(ctx context.Context, op string, fn func(q Tx) error) error
	// Follow hands the changes of agent's rows made through this DB to
	// followers, from the next write transaction on (see [Follower]).
	Follow(ctx context.Context, agent string, followers ...Follower) error
	// Unfollow stops handing agent's changes to followers.
	Unfollow(agent string, followers ...Follower)
	// Refresh asks the followers what they watch now (see
	// Follower.Watches), outside a write transaction.
	Refresh(ctx context.Context) error
	// RefreshHeld is Refresh inside a write transaction that locked agent
	// (see Tx.LockAgent), or one of its callbacks, for agent's followers.
	RefreshHeld(ctx context.Context, agent string) error
	// StartHistory makes the database's write transactions record history
	// (see [HistoryKind]) of kinds, whose entries take createOp,
	// updateOp, deleteOp and decayOp when the transaction's context
	// names no operation.
	StartHistory(ctx context.Context, h HistorySpec) error
	// History reports whether history was started.
	History() bool
	// DataVersion returns a mark that moves with every commit to the
	// database, other processes' included; equal marks mean nothing was
	// committed in between.
	DataVersion(ctx context.Context) (Version, error)
	// IntegrityCheck checks the database's own structures as far as the
	// engine can, then runs derived in a read transaction to check what
	// engram derives from the rows. It returns store.ErrCorrupt (wrapped)
	// on damage.
	IntegrityCheck(ctx context.Context, derived func(q Tx) error) error
	// Scrub makes what deletes removed go from the engine's storage as
	// far as it can (SQLite: checkpoint and truncate the write-ahead log;
	// PostgreSQL: vacuum the tables), after a forget.
	Scrub(ctx context.Context) error
	// ReadOnly reports whether the database is only read.
	ReadOnly() bool
	// InMemory reports whether the database lives only in this process's
	// memory.
	InMemory() bool
	// Pooled reports whether reads run on connections of their own,
	// beside the writer (a read may then run while a write does).
	Pooled() bool
	// Close closes the database; later calls return ErrClosed.
	Close() error
	// Closed reports whether Close was called.
	Closed() bool
	// Engine names the engine: "sqlite" or "postgres".
	Engine() string
	// FullText reports whether the engine has SQLite's FTS5 tables; without
	// them every text search runs on the root's in-memory index.
	FullText() bool
}

// HistorySpec is what an engine needs to record history: the kinds and
// the operations their entries take when the transaction's context names
// none.
type HistorySpec struct {
	Kinds                                 []HistoryKind
	CreateOp, UpdateOp, DeleteOp, DecayOp string
}

// Version is a DataVersion mark: comparable, and equal only when nothing
// was committed between the two readings. Its fields are the engine's.
type Version struct {
	Epoch uint64
	Mark  int64
}

// Copier is a DB that copies itself whole to a file (SQLite's VACUUM
// INTO): Memory.Backup's engines. The copy is a SQLite file whatever the
// engine, which internal/store/sqlite checks.
type Copier interface {
	// VacuumInto writes a consistent copy of the database to the new file
	// path.
	VacuumInto(ctx context.Context, path string) error
	// UnrecordInCopy deletes, in the copy at path, the meta rows whose
	// key starts with prefix.
	UnrecordInCopy(ctx context.Context, path, prefix string) error
}

// Vacuumer is a DB that rebuilds its file packed (SQLite's VACUUM):
// Memory.Optimize's last step on the engines that have it.
type Vacuumer interface {
	// Vacuum writes the database anew, every table and index packed in
	// key order, and gives the pages left free back to the file system.
	Vacuum(ctx context.Context) error
}

// ErrUnsupported is returned (wrapped, naming the operation and the
// engine) by an operation the engine cannot do: a backup by file copy on
// PostgreSQL, for one.
var ErrUnsupported = errors.New("engram: not supported by this engine")

package engram

import (
	"context"
	"errors"
	"fmt"

	"github.com/engram-go/engram/internal/modelapi"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// Sentinel errors. Callers classify failures with [errors.Is]; the message
// text is for people and may change.
var (
	// ErrBadAnswer reports an answer from a model's API (an [LLM] or an
	// [Embedder]) that engram cannot use: not the JSON asked for (for
	// extraction, no JSON object or none of the lists asked for), cut
	// short, too large, or holding a vector of the wrong dimension.
	// Nothing is stored from it. (An extraction answer's invalid items
	// are not an error: see [ExtractionResult] Rejected.)
	ErrBadAnswer = modelapi.ErrBadAnswer

	// ErrNotFound reports that no memory with the given ID exists for the
	// Memory's agent. A memory that belongs to another agent is not found.
	ErrNotFound = store.ErrNotFound

	// ErrInvalid reports bad input: an empty or oversized content, an
	// importance outside [0, 1], an unknown enum value, an invalid agent ID,
	// invalid UTF-8 and so on. The concrete error is an [*InvalidError]
	// naming the field. Nothing was written.
	ErrInvalid = errors.New("engram: invalid input")

	// ErrExists reports that a memory with the same ID (or a procedure with
	// the same name) already exists for the agent. Nothing was written.
	ErrExists = errors.New("engram: already exists")

	// ErrClosed is returned by every call made after [Memory.Close].
	ErrClosed = store.ErrClosed

	// ErrSchemaTooNew reports a database written by a newer version of
	// engram. engram refuses to open it rather than risk damaging it.
	ErrSchemaTooNew = store.ErrSchemaTooNew

	// ErrTierUnsupported reports a call that needs a capability the Memory's
	// tier does not have, or a tier this build cannot open.
	ErrTierUnsupported = errors.New("engram: not supported by this tier")

	// ErrEmbedding reports that an [Embedder] failed or answered with
	// something that is not a usable vector. A memory stored meanwhile is
	// kept, without its vector until [Memory.Flush] or [Memory.Reindex]
	// embeds it.
	ErrEmbedding = errors.New("engram: embedding failed")

	// ErrInvalidQuery reports a search expression that cannot be compiled.
	ErrInvalidQuery = errors.New("engram: invalid query")

	// ErrCorrupt reports a database file that SQLite cannot read as a
	// database: damaged (SQLITE_CORRUPT) or not a database at all
	// (SQLITE_NOTADB). It is reported by [New] and by any later call that
	// reaches a damaged page. Restore the file from a backup.
	ErrCorrupt = store.ErrCorrupt

	// ErrNotEngram reports a SQLite database that belongs to something
	// else: it holds tables and is not marked as engram's (see
	// [ApplicationID]). [New] leaves such a file untouched.
	ErrNotEngram = store.ErrNotEngram

	// ErrBusy reports that another process held the database's write lock
	// longer than [StorageConfig].BusyTimeout, so a write (or, rarely, a
	// read) gave up; nothing was written. Retry later, raise BusyTimeout, or
	// make the other process's transactions shorter (a large
	// [Semantic.StoreBatch] holds the lock for all of its entries). On
	// PostgreSQL ([WithPostgres]) it also reports a server that could not
	// be reached or ended the session (it restarts, shuts down or
	// crashed): retry once it is back.
	ErrBusy = store.ErrBusy

	// ErrUnsupported reports a call the engine of the memory's database
	// cannot serve: [Memory.Backup] of a whole PostgreSQL database, for
	// one (use [Memory.BackupAgent], [Memory.Export] or PostgreSQL's own
	// tools). Nothing was changed.
	ErrUnsupported = store.ErrUnsupported

	// ErrReadOnly reports a write to a database that this process may
	// only read: one opened with [WithReadOnly], or whose file, directory
	// (where SQLite makes its -wal and -shm files) or file system is
	// read-only, which [New] opens for reading only by itself (or, for
	// storage that became read-only while it was open, SQLITE_READONLY).
	// Nothing was written. Check the permissions, or open a copy.
	ErrReadOnly = store.ErrReadOnly

	// ErrNoVectors reports a Tier 2 Memory opened with
	// [WithExistingVectors] on a database that holds no vectors yet: no
	// embedder was ever recorded in it. Nothing was written; open it at
	// Tier 1, or without the option to set its vectors up.
	ErrNoVectors = errors.New("engram: the database holds no vectors yet")
)

// VectorMismatchError reports a Tier 2 database whose vectors are not the
// embedder's: of another dimension, which [New] refuses unless
// [WithDimensionChange], or, with [WithExistingVectors], of another model.
// Nothing was written. It wraps an [*InvalidError] for the field
// "WithEmbedder", so it matches [ErrInvalid].
type VectorMismatchError struct {
	Dims          int    // the dimension of the database's vectors
	Model         string // the model that made them
	EmbedderDims  int    // the embedder's dimension
	EmbedderModel string // the embedder's model
	err           error
}

// Error implements error.
func (e *VectorMismatchError) Error() string { return e.err.Error() }

// Unwrap returns the [*InvalidError].
func (e *VectorMismatchError) Unwrap() error { return e.err }

// ApplicationID is the SQLite application_id engram writes in the header of
// every database it creates ("engr"), so that it never mistakes another
// program's SQLite file for its own (see [ErrNotEngram]).
const ApplicationID = sqlite.ApplicationID

// APIError is an unsuccessful HTTP response from a model's API (an [LLM]
// or an [Embedder]), after any retries. Status is the HTTP status, URL what
// was asked (without any password it held) and Body the start of the
// response body. The provider packages (openai, ollama, gemini) return it.
type APIError = modelapi.APIError

// InvalidError describes bad input. It matches [ErrInvalid] with
// [errors.Is], and its Field names what was wrong ("content",
// "importance", "tags[3]", …).
type InvalidError struct {
	Field  string // the offending field or argument
	Reason string // what is wrong with it
}

// Error implements error.
func (e *InvalidError) Error() string {
	return fmt.Sprintf("engram: invalid %s: %s", e.Field, e.Reason)
}

// Is reports whether target is [ErrInvalid].
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// DatabaseError wraps a failure of the underlying SQLite database or of
// its files (a directory that cannot be made, a file that cannot be
// created). Op names the engram operation that failed ("semantic.store",
// "open", …). Use [errors.As] to reach the driver's or the file system's
// error (errors.Is(err, fs.ErrPermission) works through it), and
// errors.Is with [ErrBusy] or [ErrCorrupt] rather than the message text to
// classify it.
type DatabaseError struct {
	Op  string
	Err error
}

// Error implements error.
func (e *DatabaseError) Error() string {
	msg := "engram: " + e.Op + ": " + e.Err.Error()
	if e.Busy() {
		msg += " (another connection held the write lock longer than Config.Storage.BusyTimeout; retry, raise BusyTimeout or shorten the other writer's transactions)"
	}
	return msg
}

// Is reports whether the failure is the one target names: [ErrBusy] for a
// database locked longer than the busy timeout, [ErrCorrupt] for a damaged
// file or one that is not a database, [ErrReadOnly] for a write the
// process may not make.
func (e *DatabaseError) Is(target error) bool {
	switch target {
	case ErrBusy:
		return e.Busy()
	case ErrReadOnly:
		return store.IsReadOnly(e.Err)
	case ErrCorrupt:
		return store.IsCorrupt(e.Err)
	}
	return false
}

// Unwrap returns the underlying error.
func (e *DatabaseError) Unwrap() error { return e.Err }

// Busy reports whether the database was locked by another process for
// longer than the busy timeout (SQLITE_BUSY or SQLITE_LOCKED).
func (e *DatabaseError) Busy() bool {
	return store.IsBusy(e.Err)
}

// dbErr wraps err as a *DatabaseError unless it is already one of engram's
// own errors or a context error, which pass through unchanged.
func dbErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *DatabaseError
	var ie *InvalidError
	var imp *ImportError
	switch {
	case errors.As(err, &de), errors.As(err, &ie), errors.As(err, &imp),
		errors.Is(err, ErrNotFound), errors.Is(err, ErrExists), errors.Is(err, ErrClosed),
		errors.Is(err, ErrSchemaTooNew), errors.Is(err, ErrInvalidQuery), errors.Is(err, ErrNotEngram),
		errors.Is(err, ErrTierUnsupported), errors.Is(err, ErrEmbedding), errors.Is(err, ErrReadOnly):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &DatabaseError{Op: op, Err: err}
}

func notFound(kind, id string) error {
	return fmt.Errorf("engram: %s %q: %w", kind, id, ErrNotFound)
}

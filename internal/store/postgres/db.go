package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/engram-go/engram/internal/store"
)

// Config is how Open opens a database.
type Config struct {
	// DSN names the database: a URL or key=value pairs, as pgx reads
	// them.
	DSN string
	// ReadOnly: nothing is written, not even a migration; a schema older
	// than this engram's is an error matching store.ErrReadOnly.
	ReadOnly bool
	// MaxConns bounds the connections the process opens to the database
	// (0: DefaultMaxConns).
	MaxConns int
	// Wrap makes the error of a failure of the operation op that is not
	// ErrClosed or a context's: the root package's *DatabaseError. Nil
	// wraps err with op by fmt.Errorf.
	Wrap func(op string, err error) error
}

// RandomPageCost is the planner's random_page_cost in the sessions Open
// opens, unless the DSN sets its own.
const RandomPageCost = "1.1"

// DefaultMaxConns is the connections a DB opens at most when
// Config.MaxConns is 0.
const DefaultMaxConns = 16

// DB is engram's database on PostgreSQL: a pool of connections, whose
// write transactions lock the agents they change (see Tx.LockAgent) and
// whose read transactions each see one snapshot. It implements
// store.DB. It is safe for concurrent use.
type DB struct {
	cfg  Config
	pool *sql.DB
	// stmts are the translations of the store's statements (see
	// Translate), by the SQLite statement.
	stmts sync.Map

	// recording, once ForgetStatements was called, keeps in ran the
	// statements run since, in PostgreSQL's dialect (see Statements).
	recording atomic.Bool
	ran       sync.Map // statement → struct{}

	closed  atomic.Bool
	history atomic.Bool // StartHistory was called

	// locks are this process's locks of the agents (see Tx.LockAgent):
	// PostgreSQL's advisory lock serialises the transactions of many
	// processes, this one the callbacks that follow each commit in this
	// process too, which run after the advisory lock is let go.
	locksMu sync.Mutex
	locks   map[string]*agentLock

	// logs are the change logs of the agents followed in this process
	// (see changelog.go), each guarded by its agent's lock.
	logsMu sync.Mutex
	logs   map[string]*store.ChangeLog
}

// agentLock is a process-local lock of an agent, counted so that it is
// dropped when no write holds or waits for it.
type agentLock struct {
	ch    chan struct{} // holds one token while the agent is unlocked
	users int           // writes holding or waiting for it; guarded by DB.locksMu
}

// Open connects to the database cfg.DSN names and brings its schema up to
// date (see Migrate), unless cfg.ReadOnly. It returns an error matching
// store.ErrSchemaTooNew for a schema newer than this engram's,
// store.ErrReadOnly for a read-only database whose schema is older (or
// absent), and otherwise the driver's error as cfg.Wrap makes it for
// "open" (a DSN pgx cannot read, a server that cannot be reached).
func Open(ctx context.Context, cfg Config) (*DB, error) {
	pc, err := pgx.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, cfg.fail("open", fmt.Errorf("the PostgreSQL DSN: %w", err))
	}
	// engram reads a few rows by their keys, from a JSON list of them
	// (see Translate's json_each), which the planner takes for 100 rows:
	// at PostgreSQL's default random_page_cost (4, a disk that seeks) a
	// hash join over a sequential scan of the whole table looked cheaper
	// than the index up to tens of thousands of rows, and took 1 ms for
	// 10 rows of 10,000 where the index takes 60 µs. 1.1 is the usual
	// setting for an SSD or a database in memory; a DSN that sets
	// random_page_cost keeps its own.
	if _, ok := pc.RuntimeParams["random_page_cost"]; !ok {
		pc.RuntimeParams["random_page_cost"] = RandomPageCost
	}
	s := &DB{cfg: cfg, locks: map[string]*agentLock{}, logs: map[string]*store.ChangeLog{}}
	s.pool = stdlib.OpenDB(*pc)
	conns := cfg.MaxConns
	if conns <= 0 {
		conns = DefaultMaxConns
	}
	s.pool.SetMaxOpenConns(conns)
	s.pool.SetMaxIdleConns(4)
	s.pool.SetConnMaxIdleTime(5 * time.Minute)
	if err := s.pool.PingContext(ctx); err != nil {
		s.pool.Close()
		return nil, cfg.fail("open", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// migrate brings the schema up to date, or, read-only, checks that it is.
func (s *DB) migrate(ctx context.Context) error {
	if s.cfg.ReadOnly {
		v, err := schemaVersionOf(ctx, s.pool)
		if err != nil {
			return s.fail("open", err)
		}
		switch want := Latest(); {
		case v == 0:
			return fmt.Errorf("engram: open: the PostgreSQL database holds no engram schema, and may only be read: %w", store.ErrNotFound)
		case v > want:
			return fmt.Errorf("engram: open: the database's schema is version %d, this engram's %d: %w", v, want, store.ErrSchemaTooNew)
		case v < want:
			return fmt.Errorf("engram: open: the database's schema is version %d, older than this engram's %d, and it may only be read: %w", v, want, store.ErrReadOnly)
		}
		return nil
	}
	if _, err := Migrate(ctx, s.pool); err != nil {
		if errors.Is(err, store.ErrSchemaTooNew) {
			return err
		}
		return s.fail("open", err)
	}
	return nil
}

// fail makes the error of a failure of the operation op, as Config.Wrap
// says (see Config.fail).
func (s *DB) fail(op string, err error) error { return s.cfg.fail(op, err) }

// fail makes the error of a failure of the operation op, as c.Wrap says,
// or else as the driver's error wrapped with op.
func (c Config) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if c.Wrap != nil {
		return c.Wrap(op, err)
	}
	return fmt.Errorf("engram: %s: %w", op, err)
}

// wrap makes the error of op's failure: ctx's error when ctx ended (the
// statement PostgreSQL cancelled for it), store.ErrClosed and the errors
// that are already engram's as they are, an *UnavailableError for a
// server that cannot be reached or ended the session, and otherwise
// fail's.
func (s *DB) wrap(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && (errors.Is(err, ctxErr) || store.IsInterrupt(err)) {
		return fmt.Errorf("engram: %s: %w", op, ctxErr)
	}
	if errors.Is(err, store.ErrClosed) || errors.Is(err, sql.ErrConnDone) && s.closed.Load() {
		return store.ErrClosed
	}
	if unavailable(err) && !errors.As(err, new(*UnavailableError)) {
		err = &UnavailableError{Err: err}
	}
	return s.fail(op, err)
}

// UnavailableError is the failure of an operation because the PostgreSQL
// server could not be reached (a connection refused, a socket that is
// not there while the server restarts) or ended the session (it shuts
// down, restarts or crashed). It matches store.ErrBusy (engram.ErrBusy):
// the failure passes, retry later. A transaction whose session ended
// before its COMMIT was answered may have been committed nonetheless;
// any other was rolled back.
type UnavailableError struct{ Err error }

// Error implements error.
func (e *UnavailableError) Error() string {
	return "the PostgreSQL server is unavailable (retry later): " + e.Err.Error()
}

// Is reports whether target is store.ErrBusy.
func (e *UnavailableError) Is(target error) bool { return target == store.ErrBusy }

// Unwrap returns the driver's error.
func (e *UnavailableError) Unwrap() error { return e.Err }

// unavailable reports whether err says the server could not be reached
// or ended the session: a failed connection, SQLSTATE class 08
// (connection exception), 57P01, 57P02 or 57P03 (the server shuts down,
// crashed or is starting), a connection database/sql found broken, or one
// that broke in a read or a write.
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	switch st := store.SQLState(err); {
	case errors.As(err, &ce), strings.HasPrefix(st, "08"), st == "57P01", st == "57P02", st == "57P03":
		return true
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &ne):
		return true
	}
	return false
}

// translate returns query in PostgreSQL's dialect (see Translate), from
// the cache when it was translated before.
func (s *DB) translate(query string) (string, error) {
	t, err := s.translated(query)
	if err == nil && s.recording.Load() {
		s.ran.Store(t, struct{}{})
	}
	return t, err
}

func (s *DB) translated(query string) (string, error) {
	if strings.HasPrefix(query, store.PGMark) {
		return query, nil // PostgreSQL's own (see store.PG)
	}
	if t, ok := s.stmts.Load(query); ok {
		return t.(string), nil
	}
	t, err := Translate(query)
	if err != nil {
		return "", err
	}
	s.stmts.Store(query, t)
	return t, nil
}

// ForgetStatements forgets the statements s ran so far and records
// those it runs from now on, for Statements: the plan tests of the root
// package see which statements an operation runs.
func (s *DB) ForgetStatements() {
	s.recording.Store(true)
	s.ran.Clear()
}

// Statements returns the statements s ran since ForgetStatements, in
// PostgreSQL's dialect, sorted; none before ForgetStatements is called.
func (s *DB) Statements() []string {
	var out []string
	s.ran.Range(func(k, _ any) bool {
		out = append(out, k.(string))
		return true
	})
	slices.Sort(out)
	return out
}

// ReadOnly reports whether the database is only read: Write refuses.
func (s *DB) ReadOnly() bool { return s.cfg.ReadOnly }

// InMemory reports false: the database is PostgreSQL's.
func (s *DB) InMemory() bool { return false }

// Pooled reports true: reads run on connections of their own.
func (s *DB) Pooled() bool { return true }

// Engine names the engine: "postgres".
func (s *DB) Engine() string { return "postgres" }

// FullText reports false: PostgreSQL has no FTS5 tables, so every text
// search runs on the root's in-memory index.
func (s *DB) FullText() bool { return false }

// Closed reports whether Close was called.
func (s *DB) Closed() bool { return s.closed.Load() }

// Close closes the pool: reads and writes under way finish first. It
// returns the driver's error as Config.Wrap makes it for "close".
func (s *DB) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.fail("close", s.pool.Close())
}

// DataVersion returns a mark of the database that moves with every
// commit: PostgreSQL's write-ahead log insert position (Mark), which
// every commit advances, in any process. It returns store.ErrClosed after
// Close, and the driver's error as Config.Wrap makes it.
func (s *DB) DataVersion(ctx context.Context) (store.Version, error) {
	if s.closed.Load() {
		return store.Version{}, store.ErrClosed
	}
	var v store.Version
	err := s.pool.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn`).Scan(&v.Mark)
	return v, s.wrap(ctx, "version", err)
}

// IntegrityCheck checks what PostgreSQL cannot check for engram (it
// checks its own pages as it reads them): derived, the checks of the data
// derived from the rows, in one read transaction. It returns derived's
// error or the driver's, as Read returns them.
func (s *DB) IntegrityCheck(ctx context.Context, derived func(q store.Tx) error) error {
	return s.Read(ctx, "integrity", derived)
}

// Scrub vacuums the tables of memories after a forget, so that the
// deleted rows leave their pages and the space is reused, and analyzes
// them, so that the planner knows their sizes (a table written in bulk
// and never analyzed was read by a sequential scan where its primary key
// finds the rows). It skips the indexes (INDEX_CLEANUP OFF): their whole
// scan would make every forget cost as much as the tables are large, and
// autovacuum does it in its time; ANALYZE reads a sample of bounded size.
// A table another vacuum holds (autovacuum's) for more than
// scrubLockWait is left to it. PostgreSQL overwrites nothing: the bytes
// of deleted rows may stay in free space of its files until it is reused,
// and in its write-ahead log, replicas and backups. It returns the
// driver's error as Config.Wrap makes it for "forget".
func (s *DB) Scrub(ctx context.Context) error {
	if s.cfg.ReadOnly {
		return nil
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	conn, err := s.pool.Conn(ctx)
	if err != nil {
		return s.wrap(ctx, "forget", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET lock_timeout = %d", scrubLockWait.Milliseconds())); err != nil {
		return s.wrap(ctx, "forget", err)
	}
	var errs []error
	for _, t := range scrubbed() {
		_, err := conn.ExecContext(ctx, "VACUUM (INDEX_CLEANUP OFF, ANALYZE) "+t)
		if err != nil && store.SQLState(err) != "55P03" { // lock_not_available: autovacuum has it
			errs = append(errs, err)
		}
	}
	_, err = conn.ExecContext(context.Background(), "RESET lock_timeout")
	return s.wrap(ctx, "forget", errors.Join(append(errs, err)...))
}

// scrubLockWait is how long Scrub waits for a table another vacuum holds.
const scrubLockWait = 2 * time.Second

// scrubbed are the tables Scrub vacuums: those that hold the text of
// memories.
func scrubbed() []string {
	var out []string
	for _, k := range store.Kinds {
		out = append(out, k.Table)
	}
	return append(out, "history", "archive")
}

var _ store.DB = (*DB)(nil)

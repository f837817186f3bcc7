package engram

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/engram-go/engram/internal/schema"
)

// store owns the SQLite database.
//
// Writes go through one pinned writer connection, serialised by wmu and run
// as BEGIN IMMEDIATE transactions, so concurrent writers in this process
// queue in Go instead of meeting SQLITE_BUSY. A read runs in one read
// transaction on one of a few query-only reader connections, which WAL
// lets run beside the writer: every statement of a read sees the same
// snapshot, and no read, however long, makes a write wait. Readers are
// opened when first needed (opening one costs about as much as a hundred
// small queries: SQLite parses the whole schema) and kept. An in-memory
// database lives on its single connection, so there every read waits for
// wmu.
//
// Statements are prepared once per connection and kept: on the writer in
// wstmts (a statement may be prepared in the middle of a transaction, which
// database/sql's Tx cannot reuse across transactions), on each reader in
// its own map.
type store struct {
	memory bool
	closed atomic.Bool

	wmu    sync.Mutex // guards wconn and wstmts; held for a whole transaction
	wdb    *sql.DB
	wconn  *sql.Conn
	wstmts map[string]*sql.Stmt
	// rolledBack, if set, runs after a write transaction is rolled back,
	// with wmu held, so that state kept beside the database can be dropped.
	rolledBack func()
	// beforeCommit, if set, runs in every write transaction after its
	// work and before COMMIT; an error rolls the transaction back.
	// committed, if set, runs after a COMMIT succeeds, with wmu held.
	beforeCommit func(q *dbtx) error
	committed    func()

	rdb     *sql.DB      // nil in memory mode
	readers chan *reader // idle readers; opened counts them all
	ropenMu sync.Mutex   // guards ropened
	ropened int
	rmax    int
}

// reader is a connection of the reader pool with its prepared statements.
// It is used by one read at a time.
type reader struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

func (r *reader) prep(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := r.stmts[query]; ok {
		return st, nil
	}
	st, err := r.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	r.stmts[query] = st
	return st, nil
}

// close releases the reader's statements and connection.
func (r *reader) close() error {
	var errs []error
	for _, st := range r.stmts {
		errs = append(errs, st.Close())
	}
	clear(r.stmts)
	return errors.Join(append(errs, r.conn.Close())...)
}

// dbtx runs statements on one handle: the writer inside a transaction, or
// the reader pool. Its methods take the context of the operation.
type dbtx struct {
	ctx  context.Context
	prep func(ctx context.Context, query string) (*sql.Stmt, error)
}

func (q *dbtx) exec(query string, args ...any) (sql.Result, error) {
	st, err := q.prep(q.ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(q.ctx, args...)
}

func (q *dbtx) query(query string, args ...any) (*sql.Rows, error) {
	st, err := q.prep(q.ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(q.ctx, args...)
}

// queryRow scans the single row of query into dest; it returns
// sql.ErrNoRows when there is none.
func (q *dbtx) queryRow(query string, args []any, dest ...any) error {
	st, err := q.prep(q.ctx, query)
	if err != nil {
		return err
	}
	return st.QueryRowContext(q.ctx, args...).Scan(dest...)
}

// writerCacheMiB caps the writer connection's page cache. A write that
// splits a B-tree page can leave SQLite's page cache holding a page
// number past the end of the file (balance_nonroot renumbers pages
// through the one at the pending byte), and the commit then walks the
// whole cache to drop it: with 64 MiB, once warm (after a Reindex, or in a
// long-lived process), that cost a Tier 2 store about 60 µs, one store in
// seven paying 400. A write's pages are few, so 8 MiB is plenty; the
// readers, which scan, keep Config.Storage.CacheMiB.
const writerCacheMiB = 8

// openStore opens (creating if needed) the database at path, or an
// in-memory one when path is empty, and brings its schema up to date.
func openStore(ctx context.Context, path string, cfg StorageConfig) (_ *store, err error) {
	s := &store{memory: path == "", wstmts: make(map[string]*sql.Stmt)}
	defer func() {
		if err != nil {
			_ = s.close() // the open error is the one worth reporting
		}
	}()

	pragmas := []string{
		fmt.Sprintf("busy_timeout(%d)", cfg.BusyTimeout.Milliseconds()),
		"foreign_keys(1)",
		"temp_store(memory)",
	}
	cache := func(mib int) string { return fmt.Sprintf("cache_size(%d)", -mib*1024) }
	writer := slices.Concat(pragmas, []string{cache(min(cfg.CacheMiB, writerCacheMiB)), "synchronous(" + strings.ToUpper(string(cfg.Synchronous)) + ")"})
	if s.memory {
		s.wdb, err = sql.Open("sqlite", dsn(":memory:", writer))
	} else {
		// WAL is turned on below, once the file is known to be engram's:
		// it rewrites the file's header.
		s.wdb, err = sql.Open("sqlite", dsn(path, writer))
	}
	if err != nil {
		return nil, &DatabaseError{Op: "open", Err: err}
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetConnMaxIdleTime(0)
	s.wdb.SetConnMaxLifetime(0)
	if s.wconn, err = s.wdb.Conn(ctx); err != nil {
		return nil, &DatabaseError{Op: "open", Err: err}
	}

	app, err := s.checkOwner(ctx)
	if err != nil {
		return nil, err
	}
	if !s.memory {
		var mode string
		if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
			return nil, &DatabaseError{Op: "open", Err: err}
		}
		if !strings.EqualFold(mode, "wal") {
			return nil, &DatabaseError{Op: "open", Err: fmt.Errorf("journal_mode is %q, want wal (does the file system support shared memory?)", mode)}
		}
	}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	if app != ApplicationID {
		if _, err := s.wconn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
			return nil, &DatabaseError{Op: "open", Err: err}
		}
	}

	if !s.memory {
		s.rdb, err = sql.Open("sqlite", dsn(path, slices.Concat(pragmas, []string{cache(cfg.CacheMiB), "query_only(1)"})))
		if err != nil {
			return nil, &DatabaseError{Op: "open", Err: err}
		}
		s.rdb.SetMaxOpenConns(cfg.ReadConns)
		s.rdb.SetMaxIdleConns(cfg.ReadConns)
		s.rdb.SetConnMaxIdleTime(0)
		s.rdb.SetConnMaxLifetime(0)
		s.readers = make(chan *reader, cfg.ReadConns)
		s.rmax = cfg.ReadConns
	}
	return s, nil
}

// checkOwner makes sure the database is engram's before anything is
// written to it, and returns its application_id: ApplicationID, or 0 for
// a new database or one written by an engram older than the mark (which
// openStore then marks). Any other SQLite database, one with another
// application_id or with tables but no engram schema, is ErrNotEngram; a
// file that is not a database is a *DatabaseError matching ErrCorrupt.
func (s *store) checkOwner(ctx context.Context) (int, error) {
	var app, version, tables int
	var engramTables bool
	err := s.wconn.QueryRowContext(ctx, `SELECT (SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version),
		(SELECT count(*) FROM sqlite_schema),
		EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta')
			AND EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'semantic_memory')`).
		Scan(&app, &version, &tables, &engramTables)
	if err != nil {
		return 0, &DatabaseError{Op: "open", Err: err}
	}
	switch {
	case app == ApplicationID:
		return app, nil
	case app != 0:
		return 0, fmt.Errorf("engram: open: the file's application_id is %#x, engram's is %#x: %w", app, ApplicationID, ErrNotEngram)
	case tables == 0 && version == 0:
		return 0, nil // new
	case version > 0 && engramTables:
		return 0, nil // engram's, from before the mark
	}
	return 0, fmt.Errorf("engram: open: the file holds %d schema objects and no engram schema: %w", tables, ErrNotEngram)
}

func dsn(path string, pragmas []string) string {
	v := url.Values{}
	for _, p := range pragmas {
		v.Add("_pragma", p)
	}
	return path + "?" + v.Encode()
}

// migrate applies the embedded migrations the database lacks, each in its
// own BEGIN IMMEDIATE transaction that re-reads user_version first, so two
// processes opening one new file at once cannot both apply a step.
func (s *store) migrate(ctx context.Context) error {
	migrations := schema.Migrations()
	latest := len(migrations)
	for {
		version, err := s.userVersion(ctx)
		if err != nil {
			return err
		}
		if version > latest {
			return fmt.Errorf("engram: open: schema version %d, this engram knows %d: %w", version, latest, ErrSchemaTooNew)
		}
		if version == latest {
			return nil
		}
		m := migrations[version]
		err = s.write(ctx, "migrate", func(q *dbtx) error {
			var v int
			if err := q.queryRow("PRAGMA user_version", nil, &v); err != nil {
				return err
			}
			if v != version {
				return nil // another process got here first; look again
			}
			if _, err := s.wconn.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := s.wconn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version))
			return err
		})
		if err != nil {
			return err
		}
	}
}

func (s *store) userVersion(ctx context.Context) (int, error) {
	var v int
	err := s.read(ctx, "migrate", func(q *dbtx) error {
		return q.queryRow("PRAGMA user_version", nil, &v)
	})
	return v, err
}

// write runs fn in one BEGIN IMMEDIATE transaction on the writer
// connection: it commits when fn returns nil and rolls back when fn returns
// an error or panics. Errors are wrapped as *DatabaseError with op unless
// they are engram's own.
func (s *store) write(ctx context.Context, op string, fn func(q *dbtx) error) (err error) {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.execWriter(ctx, "BEGIN IMMEDIATE"); err != nil {
		return s.wrap(ctx, op, err)
	}
	done := false
	defer func() {
		if !done {
			// The transaction may already be gone (a failed COMMIT rolls
			// back by itself); that error is harmless and not worth a log.
			_ = s.execWriter(context.Background(), "ROLLBACK")
			if s.rolledBack != nil {
				s.rolledBack()
			}
		}
	}()
	q := &dbtx{ctx: ctx, prep: s.prepWriter}
	if err := fn(q); err != nil {
		return s.wrap(ctx, op, err)
	}
	if s.beforeCommit != nil {
		if err := s.beforeCommit(q); err != nil {
			return s.wrap(ctx, op, err)
		}
	}
	// COMMIT ignores ctx: once fn has succeeded the work is kept.
	if err := s.execWriter(context.Background(), "COMMIT"); err != nil {
		return s.wrap(ctx, op, err)
	}
	done = true
	if s.committed != nil {
		s.committed()
	}
	return nil
}

// read runs fn in one read transaction on a reader connection, so that
// every statement it runs sees one snapshot of the database; in memory
// mode, on the writer connection. fn must not call read or write itself.
// A statement still running when ctx ends is interrupted.
func (s *store) read(ctx context.Context, op string, fn func(q *dbtx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.memory || s.rdb == nil {
		s.wmu.Lock()
		defer s.wmu.Unlock()
		if s.closed.Load() {
			return ErrClosed
		}
		return s.wrap(ctx, op, fn(&dbtx{ctx: ctx, prep: s.prepWriter}))
	}
	r, err := s.acquire(ctx)
	if err != nil {
		return s.wrap(ctx, op, err)
	}
	healthy, err := s.readTx(ctx, r, fn)
	s.release(r, healthy)
	return s.wrap(ctx, op, err)
}

// readTx runs fn between BEGIN and COMMIT on r (a deferred transaction
// takes its snapshot at its first read) and reports whether r is still fit
// for use: whether its transaction ended.
func (s *store) readTx(ctx context.Context, r *reader, fn func(q *dbtx) error) (healthy bool, err error) {
	begin, err := r.prep(ctx, "BEGIN")
	if err != nil {
		return false, err
	}
	if _, err := begin.ExecContext(ctx); err != nil {
		return ctx.Err() != nil, err // a BEGIN cut short by ctx began nothing
	}
	err = fn(&dbtx{ctx: ctx, prep: r.prep})
	// The end of a read changes nothing, whatever ctx says: it runs
	// without it, so that a cancelled read still ends its transaction.
	st, endErr := r.prep(context.Background(), "COMMIT")
	if endErr == nil {
		_, endErr = st.ExecContext(context.Background())
	}
	if err == nil {
		err = endErr
	}
	return endErr == nil, err
}

// acquire returns an idle reader, opening one while fewer than rmax are
// open, or else waits for one.
func (s *store) acquire(ctx context.Context) (*reader, error) {
	select {
	case r := <-s.readers:
		return r, nil
	default:
	}
	s.ropenMu.Lock()
	if s.ropened < s.rmax {
		s.ropened++
		s.ropenMu.Unlock()
		conn, err := s.rdb.Conn(ctx)
		if err != nil {
			s.ropenMu.Lock()
			s.ropened--
			s.ropenMu.Unlock()
			return nil, err
		}
		return &reader{conn: conn, stmts: map[string]*sql.Stmt{}}, nil
	}
	s.ropenMu.Unlock()
	select {
	case r := <-s.readers:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// release returns r to the pool, or closes it when it is not healthy
// (its transaction may still be open) or the store is closed.
func (s *store) release(r *reader, healthy bool) {
	if !healthy || s.closed.Load() {
		_ = r.close()
		s.ropenMu.Lock()
		s.ropened--
		s.ropenMu.Unlock()
		return
	}
	s.readers <- r
}

// wrap turns a failure into engram's error vocabulary.
func (s *store) wrap(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// SQLite reports an interrupted statement as SQLITE_INTERRUPT;
		// the caller wants to know it was their context.
		return fmt.Errorf("engram: %s: %w", op, ctxErr)
	}
	return dbErr(op, err)
}

// execWriter runs a prepared statement without arguments on the writer.
// The caller holds wmu.
func (s *store) execWriter(ctx context.Context, query string) error {
	st, err := s.prepWriter(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}

// prepWriter returns the writer's prepared statement for query. The
// caller holds wmu.
func (s *store) prepWriter(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.wstmts[query]; ok {
		return st, nil
	}
	st, err := s.wconn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.wstmts[query] = st
	return st, nil
}

// close releases everything; it waits for a running transaction to end.
func (s *store) close() error {
	s.closed.Store(true)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var errs []error
	for _, st := range s.wstmts {
		errs = append(errs, st.Close())
	}
	clear(s.wstmts)
	for done := false; !done; {
		select {
		case r := <-s.readers:
			errs = append(errs, r.close())
		default:
			done = true
		}
	}
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.wconn != nil {
		errs = append(errs, s.wconn.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return &DatabaseError{Op: "close", Err: err}
	}
	return nil
}

// integrityCheck runs PRAGMA integrity_check and the FTS5 integrity check
// of every full-text index; it returns nil when all are clean.
func (s *store) integrityCheck(ctx context.Context) error {
	return s.write(ctx, "integrity", func(q *dbtx) error {
		// FTS5's own check first. It goes through FTS5's normal write path,
		// which reloads the index structure this connection has cached if
		// another connection (another Memory on the same file) changed it
		// since. PRAGMA integrity_check also checks FTS5 tables but reads
		// that cache as it is, and reported a stale structure as
		// corruption in about 1 run in 20 of the two-handle stress test
		// while a fresh connection found the file clean.
		for _, t := range []string{"semantic_fts", "episodic_fts", "procedural_fts"} {
			if _, err := q.exec(fmt.Sprintf("INSERT INTO %s(%s, rank) VALUES ('integrity-check', 1)", t, t)); err != nil {
				return fmt.Errorf("%s integrity-check: %w", t, err)
			}
		}
		rows, err := q.query("PRAGMA integrity_check")
		if err != nil {
			return err
		}
		var problems []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return err
			}
			if line != "ok" {
				problems = append(problems, line)
			}
		}
		// A check cut short (cancelled, or failing on a damaged page) is
		// no clean bill of health.
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if len(problems) > 0 {
			return fmt.Errorf("integrity_check: %s", strings.Join(problems, "; "))
		}
		return checkVectors(q)
	})
}

// setMeta writes a meta value in q's transaction.
func setMeta(q *dbtx, key, value string) error {
	_, err := q.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// counter reads a meta counter: a per-agent change counter that an
// in-process cache compares with what it last saw (0 before the first
// change).
func counter(q *dbtx, key string) (int64, error) {
	var v int64
	err := q.queryRow(`SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)`, []any{key}, &v)
	return v, err
}

// bumpCounter moves a meta counter on by n, in q's transaction. (The
// triggers of migration 0002 and of the Tier 2 schema do the same in SQL.)
func bumpCounter(q *dbtx, key string, n int) error {
	_, err := q.exec(`INSERT INTO meta (key, value) VALUES (?1, ?2)
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + ?2`, key, n)
	return err
}

// Encoding shared by the stores.

// scanner is a *sql.Rows or *sql.Row.
type scanner interface{ Scan(dest ...any) error }

// scanAll scans every row with scan and closes rows.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
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

// ms encodes a time as Unix milliseconds. Every time engram stores is in
// [MinTime, MaxTime] (validateTime), where this cannot overflow; the zero
// time, which stands for "unset", encodes as its own Unix milliseconds
// (those of year 1), so it never meets the Unix epoch, which is 0.
func ms(t time.Time) int64 { return t.UnixMilli() }

// zeroMS is the zero time's encoding.
var zeroMS = time.Time{}.UnixMilli()

// fromMS decodes Unix milliseconds as a UTC time, and zeroMS as the zero
// time.
func fromMS(v int64) time.Time {
	if v == zeroMS {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func encodeTags(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags) // a []string always marshals
	return string(b)
}

func decodeTags(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var tags []string
	if err := json.Unmarshal([]byte(s), &tags); err != nil {
		return nil, fmt.Errorf("decoding tags: %w", err)
	}
	return tags, nil
}

// deleteByID deletes the agent's row with the given ID from table, or
// returns ErrNotFound. The table's triggers remove its full-text entry and
// links.
func deleteByID(q *dbtx, table, kind, agent, id string) error {
	res, err := q.exec(`DELETE FROM `+table+` WHERE agent_id = ? AND id = ?`, agent, id)
	return notFoundUnless(res, err, kind, id)
}

// notFoundUnless passes on the error of a statement that changes the row
// named by kind and id, and returns ErrNotFound when it changed none.
func notFoundUnless(res sql.Result, err error, kind, id string) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound(kind, id)
	}
	return nil
}

const (
	defaultListLimit = 100
	maxListLimit     = 10_000
)

// resolve returns the limit and offset to use, or an error matching
// ErrInvalid.
func (o ListOptions) resolve() (limit, offset int, err error) {
	switch {
	case o.Limit < 0 || o.Limit > maxListLimit:
		return 0, 0, invalid("Limit", "%d is outside [0, %d]", o.Limit, maxListLimit)
	case o.Offset < 0:
		return 0, 0, invalid("Offset", "%d is negative", o.Offset)
	case o.Limit == 0:
		return defaultListLimit, o.Offset, nil
	}
	return o.Limit, o.Offset, nil
}

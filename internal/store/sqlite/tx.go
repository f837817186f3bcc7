package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// reader is a connection of the reader pool with its prepared statements.
// It is used by one read at a time.
type reader struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	// raw are the driver's own statements of rawQuery, by query.
	raw map[string]driver.Stmt
}

// rawQuery runs query with args on the reader's connection through the
// driver itself, and calls row with each row's values (valid until the
// next call): database/sql's conversions and locks cost more than
// SQLite's work on a read of a few dozen short rows.
func (r *reader) rawQuery(ctx context.Context, query string, args []any, row func(vals []driver.Value) error) error {
	return r.conn.Raw(func(dc any) error {
		st, ok := r.raw[query]
		if !ok {
			pc, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return fmt.Errorf("the SQLite driver's connection (%T) prepares no statement with a context", dc)
			}
			var err error
			if st, err = pc.PrepareContext(ctx, query); err != nil {
				return err
			}
			if r.raw == nil {
				r.raw = map[string]driver.Stmt{}
			}
			r.raw[query] = st
		}
		sq, ok := st.(driver.StmtQueryContext)
		if !ok {
			return fmt.Errorf("the SQLite driver's statement (%T) runs no query with a context", st)
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := sq.QueryContext(ctx, named)
		if err != nil {
			return err
		}
		vals := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(vals); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				rows.Close()
				return err
			}
			if err := row(vals); err != nil {
				rows.Close()
				return err
			}
		}
		return rows.Close()
	})
}

// prep returns the reader's prepared statement for query.
func (r *reader) prep(ctx context.Context, query string) (*sql.Stmt, error) {
	return prepared(ctx, r.conn, r.stmts, query)
}

// prepared returns conn's statement for query from stmts, the statements
// prepared on conn so far, preparing it and keeping it there the first
// time. It returns the driver's error.
func prepared(ctx context.Context, conn *sql.Conn, stmts map[string]*sql.Stmt, query string) (*sql.Stmt, error) {
	if st, ok := stmts[query]; ok {
		return st, nil
	}
	st, err := conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	stmts[query] = st
	return st, nil
}

// close releases the reader's statements and connection.
func (r *reader) close() error {
	return errors.Join(r.forget(), r.conn.Close())
}

// forget closes the statements the reader has prepared, through
// database/sql and through the driver itself (see rawQuery), and forgets
// them. It returns the driver's errors.
func (r *reader) forget() error {
	var errs []error
	for _, st := range r.stmts {
		errs = append(errs, st.Close())
	}
	clear(r.stmts)
	if len(r.raw) > 0 {
		errs = append(errs, r.conn.Raw(func(any) error {
			var errs []error
			for _, st := range r.raw {
				errs = append(errs, st.Close())
			}
			return errors.Join(errs...)
		}))
		clear(r.raw)
	}
	return errors.Join(errs...)
}

// Tx runs statements in one transaction: a write transaction on the
// writer connection, or a read transaction on a reader. It implements
// store.Tx: its statements take the context of the operation, and in a
// write, tx holds what runs when the transaction ends (see OnCommit,
// OnRollback and Savepoint). Its methods return the driver's errors
// unchanged; DB.Write and DB.Read wrap them.
type Tx struct {
	ctx  context.Context
	prep func(ctx context.Context, query string) (*sql.Stmt, error)
	// tx is the state of the write transaction, as every engine keeps
	// it: the savepoints open in it and the callbacks that in-memory
	// state beside the database (indexes, caches, pending access counts)
	// registers to follow it; nil in a read.
	tx *store.WriteState
	// s is the database of a write transaction, nil in a read.
	s *DB
	// raw runs a query through the driver itself (see reader.rawQuery):
	// only in a read on a reader, nil elsewhere.
	raw func(ctx context.Context, query string, args []any, row func(vals []driver.Value) error) error
}

// Context returns the context of the operation q runs.
func (q *Tx) Context() context.Context { return q.ctx }

// Write returns q's write transaction (the same for every Tx of one), or
// nil in a read: see store.Tx.
func (q *Tx) Write() any {
	if q.tx == nil {
		return nil
	}
	return q.tx
}

// History reports whether the writer records changes in history (see
// DB.StartHistory).
func (q *Tx) History() bool { return q.tx != nil && q.s.history }

// BeforeCommit runs f just before the transaction commits, after the
// followers have the transaction's last changes; an error rolls the
// transaction back. Unlike the other callbacks, a savepoint that rolls
// back keeps it: it must check what is left to do.
func (q *Tx) BeforeCommit(f func(q store.Tx) error) { q.tx.BeforeCommit(f) }

// OnCommit runs f after the transaction commits (with the writer lock
// still held). A savepoint that rolls back drops the callbacks registered
// in it.
func (q *Tx) OnCommit(f func()) { q.tx.OnCommit(f) }

// OnRollback runs f if the transaction, or the savepoint open when f was
// registered, rolls back: in-memory state that followed the transaction's
// writes is dropped with them. Callbacks run last registered first, with
// the writer lock held.
func (q *Tx) OnRollback(f func()) { q.tx.OnRollback(f) }

// OnRollbackIn registers the callback undo makes, as OnRollback does,
// unless s says one is registered already in the innermost savepoint open
// in q's transaction (in the transaction, outside any savepoint), and
// records in s where it is (see store.Tx).
func (q *Tx) OnRollbackIn(s *store.RollbackScope, undo func() func()) { q.tx.OnRollbackIn(s, undo) }

// Savepoint runs fn inside a SAVEPOINT of q's write transaction, so that
// one operation can run another inside its transaction and recover from
// its failure: when fn returns an error (or panics), what fn wrote is
// rolled back, the OnRollback callbacks registered in it run (the
// followers forget what they applied in it, and the change log hands out
// again what it handed out in it of the changes made before) and its
// OnCommit callbacks are dropped, while the enclosing transaction goes on
// (see store.WriteState.Savepoint). It returns fn's error, joined with
// the driver's when the rollback fails.
func (q *Tx) Savepoint(fn func(q store.Tx) error) error {
	return q.tx.Savepoint(q, q.execStmt, fn)
}

// execStmt runs a statement without arguments of q's connection with
// ctx: Savepoint's SAVEPOINT, RELEASE and ROLLBACK TO. It returns the
// driver's error.
func (q *Tx) execStmt(ctx context.Context, query string) error {
	st, err := q.prep(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}

// Changed logs the change c that a statement of q's write transaction
// reported (see store.Querier), when a follower watches such changes now;
// in a read it does nothing.
func (q *Tx) Changed(c store.Change) {
	if q.tx != nil {
		q.tx.Changed(c)
	}
}

// Changes hands the changes logged so far in q's write transaction to
// every follower. A follower that must be current in the middle of a
// transaction (auto-linking's stem index) calls it before it looks. It
// returns the driver's error, ErrChangeLog when the log checks and the
// reports differ from what SQLite saw, or the first follower's.
func (q *Tx) Changes() error { return q.tx.Changes(q) }

// KnowTerms tells the change log the term vector of text, which the write
// made already, so that an insert of text that the log hands out in q's
// transaction carries it (store.Change Terms) instead of having it made
// again.
func (q *Tx) KnowTerms(text string, terms map[string]uint32) { q.tx.KnowTerms(text, terms) }

// Background returns q running its statements without q's context, for
// what must run whatever the context says (the end of a transaction, a
// connection's setting put back).
func (q *Tx) Background() store.Tx { return q.WithContext(context.Background()) }

// WithContext returns q running its statements with ctx instead of q's
// context.
func (q *Tx) WithContext(ctx context.Context) *Tx {
	b := *q
	b.ctx = ctx
	return &b
}

// LockAgent does nothing: SQLite's one writer connection serialises every
// write transaction already, in this process (the writer lock) and in
// others (BEGIN IMMEDIATE). It returns nil.
func (q *Tx) LockAgent(agent string) error { return nil }

// ExecScript runs script, which may hold several statements (a step of a
// migration), on q's connection in its transaction: a prepared statement
// holds one statement only. It returns the driver's error; in a read it
// runs nothing and returns errReadTx.
func (q *Tx) ExecScript(script string) error {
	if q.tx == nil {
		return errReadTx
	}
	_, err := q.s.wconn.ExecContext(q.ctx, script)
	return err
}

// errReadTx is ExecScript's error in a read transaction.
var errReadTx = errors.New("engram: a script runs only in a write transaction")

func (q *Tx) exec(query string, args ...any) (sql.Result, error) {
	st, err := q.prep(q.ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(q.ctx, args...)
}

func (q *Tx) query(query string, args ...any) (*sql.Rows, error) {
	st, err := q.prep(q.ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(q.ctx, args...)
}

// queryRow scans the single row of query into dest; it returns
// sql.ErrNoRows when there is none.
func (q *Tx) queryRow(query string, args []any, dest ...any) error {
	st, err := q.prep(q.ctx, query)
	if err != nil {
		return err
	}
	return st.QueryRowContext(q.ctx, args...).Scan(dest...)
}

// Exec, Query and QueryRow make q a store.Querier: the functions of
// package store run their statements in q's transaction. They return the
// driver's errors.

// Exec runs a statement that returns no rows.
func (q *Tx) Exec(query string, args ...any) (sql.Result, error) {
	note(query)
	return q.exec(query, args...)
}

// Query runs a statement that returns rows.
func (q *Tx) Query(query string, args ...any) (*sql.Rows, error) {
	note(query)
	return q.query(query, args...)
}

// QueryRow scans the single row of query into dest; it returns
// sql.ErrNoRows when there is none.
func (q *Tx) QueryRow(query string, args []any, dest ...any) error {
	note(query)
	return q.queryRow(query, args, dest...)
}

// Write runs fn in one BEGIN IMMEDIATE transaction on the writer
// connection: it commits when fn returns nil and rolls back when fn returns
// an error or panics. Just before COMMIT it hands the transaction's changes
// to the in-memory state that follows them (see store.Follower); after
// COMMIT it runs the OnCommit callbacks, after a rollback the OnRollback
// ones.
//
// fn must not call Write or Read itself: an operation that runs another
// inside its transaction calls that operation's transactional form with
// q, and wraps it in q.Savepoint when it must survive its failure.
//
// It returns store.ErrClosed after Close; on a read-only database an
// error matching store.ErrReadOnly, running nothing; the error of ctx
// when it ended before or while a statement ran; and fn's error or the
// driver's as Config.Wrap makes them (see DB.wrap).
func (s *DB) Write(ctx context.Context, op string, fn func(q store.Tx) error) (err error) {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if s.readOnly {
		return fmt.Errorf("engram: %s: %w", op, store.ErrReadOnly)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if err := s.execWriter(ctx, "BEGIN IMMEDIATE"); err != nil {
		return s.wrap(ctx, op, err)
	}
	w := &store.WriteState{Log: s.log}
	done := false
	defer func() {
		if !done {
			// The transaction may already be gone (a failed COMMIT rolls
			// back by itself); that error is harmless and not worth a log.
			_ = s.execWriter(context.Background(), "ROLLBACK")
			w.RolledBack()
		}
	}()
	q := &Tx{ctx: ctx, prep: s.prepWriter, tx: w, s: s}
	if err := fn(q); err != nil {
		return s.wrap(ctx, op, err)
	}
	if err := w.Settle(q); err != nil {
		return s.wrap(ctx, op, err)
	}
	// COMMIT ignores ctx: once fn has succeeded the work is kept.
	if err := s.execWriter(context.Background(), "COMMIT"); err != nil {
		return s.wrap(ctx, op, err)
	}
	done = true
	if s.watchVersion.Load() {
		_, _ = s.readVersion(context.Background()) // a failure leaves no version: the next caller reads it
	}
	w.Committed()
	return nil
}

// Read runs fn in one read transaction on a reader connection, so that
// every statement it runs sees one snapshot of the database; in memory
// mode, on the writer connection. fn must not call Read or Write itself.
// A statement still running when ctx ends is interrupted. It returns the
// errors Write returns, but for store.ErrReadOnly.
func (s *DB) Read(ctx context.Context, op string, fn func(q store.Tx) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.memory || s.rdb == nil {
		s.wmu.Lock()
		defer s.wmu.Unlock()
		if s.closed.Load() {
			return store.ErrClosed
		}
		return s.wrap(ctx, op, fn(&Tx{ctx: ctx, prep: s.prepWriter}))
	}
	s.active.Add(1)
	defer s.active.Add(-1)
	s.lastUse.Store(time.Now().UnixNano())
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
func (s *DB) readTx(ctx context.Context, r *reader, fn func(q store.Tx) error) (healthy bool, err error) {
	begin, err := r.prep(ctx, "BEGIN")
	if err != nil {
		return false, err
	}
	if _, err := begin.ExecContext(ctx); err != nil {
		return ctx.Err() != nil, err // a BEGIN cut short by ctx began nothing
	}
	err = fn(&Tx{ctx: ctx, prep: r.prep, raw: r.rawQuery})
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

// acquire returns an idle reader, opening one while fewer than the
// pool's size are open, or else waits for one, for a permit to open one
// (a reader closed instead of returned), for ctx to end or for the store
// to close.
func (s *DB) acquire(ctx context.Context) (*reader, error) {
	select {
	case r := <-s.readers:
		return r, nil
	default:
	}
	select {
	case r := <-s.readers:
		return r, nil
	case <-s.permits:
		conn, err := s.rdb.Conn(ctx)
		if err != nil {
			s.permits <- struct{}{}
			return nil, err
		}
		s.woke()
		return &reader{conn: conn, stmts: map[string]*sql.Stmt{}}, nil
	case <-s.done:
		return nil, store.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// release returns r to the pool, or closes it when it is not healthy
// (its transaction may still be open) or the store is closed, and hands
// its permit back so that a waiting read may open another.
func (s *DB) release(r *reader, healthy bool) {
	if healthy && !s.closed.Load() {
		s.readers <- r
		if !s.closed.Load() {
			return
		}
		// close may have emptied the pool before r went back: take one
		// out again.
		select {
		case r = <-s.readers:
		default:
			return
		}
	}
	_ = r.close()
	s.permits <- struct{}{}
}

// wrap turns a failure into the caller's error vocabulary: after Close
// store.ErrClosed, a failure of a statement that ctx interrupted ctx's
// error, and any other as Config.Wrap makes it.
func (s *DB) wrap(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	if ctxErr := ctx.Err(); ctxErr != nil && (errors.Is(err, ctxErr) || store.IsInterrupt(err)) {
		// SQLite reports a statement the context interrupted as
		// SQLITE_INTERRUPT; the caller wants to know it was their
		// context. Any other failure keeps its error, whenever the
		// context ended.
		return fmt.Errorf("engram: %s: %w", op, ctxErr)
	}
	return s.fail(op, err)
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

// execWriter runs a prepared statement without arguments on the writer.
// The caller holds wmu.
func (s *DB) execWriter(ctx context.Context, query string) error {
	st, err := s.prepWriter(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}

// prepWriter returns the writer's prepared statement for query. The
// caller holds wmu.
func (s *DB) prepWriter(ctx context.Context, query string) (*sql.Stmt, error) {
	return prepared(ctx, s.wconn, s.wstmts, query)
}

// RawQuery runs query with args through the driver itself (see
// reader.rawQuery) and reports true, in a read on a reader; elsewhere it
// runs nothing and reports false. It implements store.RawQuerier, and
// returns the driver's errors or row's.
func (q *Tx) RawQuery(query string, args []any, row func(vals []driver.Value) error) (bool, error) {
	if q.raw == nil {
		return false, nil
	}
	note(query)
	return true, q.raw(q.ctx, query, args, row)
}

// ForgetStatements closes the statements the writer and the idle readers
// have prepared, so that those that Prepared reports afterwards are the
// ones used since: the plan tests of the root package see which
// statements an operation runs. It returns the driver's errors.
func (s *DB) ForgetStatements() error {
	var errs []error
	s.wmu.Lock()
	for _, st := range s.wstmts {
		errs = append(errs, st.Close())
	}
	clear(s.wstmts)
	s.wmu.Unlock()
	for _, r := range s.idleReaders() {
		errs = append(errs, r.forget())
		s.readers <- r
	}
	return errors.Join(errs...)
}

// Prepared returns the statements the writer and the idle readers hold
// prepared, sorted.
func (s *DB) Prepared() (writes, reads []string) {
	s.wmu.Lock()
	for q := range s.wstmts {
		writes = append(writes, q)
	}
	s.wmu.Unlock()
	seen := map[string]bool{}
	for _, r := range s.idleReaders() {
		for q := range r.stmts {
			seen[q] = true
		}
		for q := range r.raw {
			seen[q] = true
		}
		s.readers <- r
	}
	for q := range seen {
		reads = append(reads, q)
	}
	slices.Sort(writes)
	slices.Sort(reads)
	return writes, reads
}

// idleReaders takes the idle readers out of s's pool; the caller puts
// them back. With no read under way, they are all the readers.
func (s *DB) idleReaders() []*reader {
	var out []*reader
	for {
		select {
		case r := <-s.readers:
			out = append(out, r)
		default:
			return out
		}
	}
}

// Callbacks returns how many BeforeCommit, OnCommit and OnRollback
// callbacks q's write transaction holds (0 in a read): the root package's
// tests check that in-memory state registers each once.
func (q *Tx) Callbacks() (before, commit, rollback int) {
	if q.tx == nil {
		return 0, 0, 0
	}
	return q.tx.Callbacks()
}

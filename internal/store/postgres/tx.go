package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// Tx is one transaction on PostgreSQL: a write transaction (READ
// COMMITTED, whose writes lock the agents they change: see LockAgent) or
// a read transaction (REPEATABLE READ, READ ONLY: one snapshot for every
// statement). It implements store.Tx. It runs the store's statements,
// written in SQLite's dialect, translated (see Translate).
type Tx struct {
	ctx context.Context
	s   *DB
	tx  *sql.Tx
	w   *writeTx // nil in a read
}

// writeTx is the state of one write transaction: the engine-independent
// part (callbacks, savepoints, the changes reported) and the agents it
// locked.
type writeTx struct {
	store.WriteState
	locked  []string // the agents LockAgent locked, in order
	held    []*agentLock
	changed []string // the agents whose rows the transaction changed (see Changed)
}

// Context returns the context of the operation q runs.
func (q *Tx) Context() context.Context { return q.ctx }

// Background returns q running its statements without its context.
func (q *Tx) Background() store.Tx { return q.WithContext(context.Background()) }

// WithContext returns q running its statements in ctx.
func (q *Tx) WithContext(ctx context.Context) *Tx {
	c := *q
	c.ctx = ctx
	return &c
}

// Write returns q's write transaction (the same for every Tx of one), or
// nil in a read: see store.Tx.
func (q *Tx) Write() any {
	if q.w == nil {
		return nil
	}
	return q.w
}

// Dialect names PostgreSQL's dialect (see store.Dialecter).
func (q *Tx) Dialect() store.Dialect { return store.DialectPostgres }

// History reports whether the transaction records history (see
// DB.StartHistory).
func (q *Tx) History() bool { return q.w != nil && q.s.history.Load() }

// args makes the store's arguments PostgreSQL's: SQLite takes a bool as 0
// or 1, where engram's columns are integers.
func args(in []any) []any {
	var out []any
	for i, a := range in {
		b, ok := a.(bool)
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(in)
		}
		out[i] = int64(0)
		if b {
			out[i] = int64(1)
		}
	}
	if out == nil {
		return in
	}
	return out
}

// Exec runs a statement that returns no rows.
func (q *Tx) Exec(query string, a ...any) (sql.Result, error) {
	t, err := q.s.translate(query)
	if err != nil {
		return nil, err
	}
	return q.tx.ExecContext(q.ctx, t, args(a)...)
}

// Query runs a statement that returns rows; the caller closes them.
func (q *Tx) Query(query string, a ...any) (*sql.Rows, error) {
	t, err := q.s.translate(query)
	if err != nil {
		return nil, err
	}
	return q.tx.QueryContext(q.ctx, t, args(a)...)
}

// QueryRow scans the single row of query into dest; it returns
// sql.ErrNoRows when there is none.
func (q *Tx) QueryRow(query string, a []any, dest ...any) error {
	t, err := q.s.translate(query)
	if err != nil {
		return err
	}
	return q.tx.QueryRowContext(q.ctx, t, args(a)...).Scan(dest...)
}

// ExecScript runs script, which may hold several statements, in the
// write transaction, in PostgreSQL's dialect as it is (not translated).
func (q *Tx) ExecScript(script string) error {
	_, err := q.tx.ExecContext(q.ctx, script)
	return err
}

// lockKey is the key of agent's advisory lock: a 64-bit hash of its ID
// in a space of its own.
func lockKey(agent string) int64 {
	h := fnv.New64a()
	h.Write([]byte("engram agent\x00"))
	h.Write([]byte(agent))
	return int64(h.Sum64())
}

// LockAgent serialises the write transaction with every other that locks
// agent: in this process by a lock of its own, held until the
// transaction's commit callbacks have run, and in every process by
// PostgreSQL's transaction-scoped advisory lock (pg_advisory_xact_lock),
// held until the transaction ends. A transaction that locked agent
// already goes on. It returns ctx's error when ctx ends while it waits,
// and the driver's error.
func (q *Tx) LockAgent(agent string) error {
	w := q.w
	if slices.Contains(w.locked, agent) {
		return nil
	}
	l, err := q.s.lockAgent(q.ctx, agent)
	if err != nil {
		return err
	}
	w.held = append(w.held, l)
	w.locked = append(w.locked, agent)
	if err := q.s.follow(w, agent); err != nil {
		return err
	}
	// The session's history context (see history.go) rides on the
	// lock's round trip: made when history is on and the session has
	// none yet.
	var made sql.NullString
	err = q.tx.QueryRowContext(q.ctx, `SELECT pg_advisory_xact_lock($1)::text, current_setting('engram.history_ctx', true)`, lockKey(agent)).Scan(new(sql.NullString), &made)
	if err != nil || !q.s.history.Load() || made.String == "on" {
		return err
	}
	_, err = q.tx.ExecContext(q.ctx, HistoryContextSQL+`; SET engram.history_ctx = 'on'`)
	return err
}

// lockAgent takes this process's lock of agent, waiting while another
// write holds it, until ctx ends.
func (s *DB) lockAgent(ctx context.Context, agent string) (*agentLock, error) {
	s.locksMu.Lock()
	l := s.locks[agent]
	if l == nil {
		l = &agentLock{ch: make(chan struct{}, 1)}
		l.ch <- struct{}{}
		s.locks[agent] = l
	}
	l.users++
	s.locksMu.Unlock()
	select {
	case <-l.ch:
		return l, nil
	case <-ctx.Done():
		s.unlockAgent(agent, l, false)
		return nil, ctx.Err()
	}
}

// unlockAgent lets go of l, agent's lock, which the caller held (held)
// or gave up waiting for.
func (s *DB) unlockAgent(agent string, l *agentLock, held bool) {
	if held {
		l.ch <- struct{}{}
	}
	s.locksMu.Lock()
	if l.users--; l.users == 0 {
		delete(s.locks, agent)
	}
	s.locksMu.Unlock()
}

// release lets go of this process's locks of the agents w locked.
func (s *DB) release(w *writeTx) {
	for i, l := range w.held {
		s.unlockAgent(w.locked[i], l, true)
	}
	w.held, w.locked = nil, nil
}

// unlocked returns the agents whose rows w changed without locking them
// (see LockAgent): a write that does is a bug, which would let two
// processes' writes to the agent interleave.
func (w *writeTx) unlocked() []string {
	var out []string
	for _, a := range w.changed {
		if !slices.Contains(w.locked, a) {
			out = append(out, a)
		}
	}
	return out
}

// errUnlocked is the error of a write that changed agents' rows without
// locking them.
func errUnlocked(agents []string) error {
	return fmt.Errorf("engram: a write changed the rows of agents %s without locking them (Tx.LockAgent)", strings.Join(agents, ", "))
}

// Write runs fn in one write transaction (READ COMMITTED) and commits it
// when fn returns nil: the followers get its changes and its BeforeCommit
// callbacks run first, its OnCommit callbacks after, with the agents it
// locked still locked in this process. A failure rolls it back and runs
// its OnRollback callbacks. fn must not call Write or Read itself.
//
// It returns store.ErrClosed after Close; on a read-only database an
// error matching store.ErrReadOnly, running nothing; the error of ctx
// when it ended before or while a statement ran; and fn's error or the
// driver's as Config.Wrap makes them.
func (s *DB) Write(ctx context.Context, op string, fn func(q store.Tx) error) (err error) {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if s.cfg.ReadOnly {
		return fmt.Errorf("engram: %s: %w", op, store.ErrReadOnly)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Not ctx: database/sql would roll the transaction back when ctx
	// ends, and a COMMIT after fn succeeded keeps the work whatever ctx
	// says. ctx cancels the statements.
	tx, err := s.pool.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return s.wrap(ctx, op, err)
	}
	w := &writeTx{}
	q := &Tx{ctx: ctx, s: s, tx: tx, w: w}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback() // a failed COMMIT ended it already
			w.RolledBack()
		}
		s.release(w)
	}()
	if err := fn(q); err != nil {
		return s.wrap(ctx, op, err)
	}
	if err := w.Settle(q); err != nil {
		return s.wrap(ctx, op, err)
	}
	if bad := w.unlocked(); len(bad) > 0 {
		return s.fail(op, errUnlocked(bad))
	}
	// COMMIT ignores ctx: once fn has succeeded the work is kept.
	if err := tx.Commit(); err != nil {
		return s.wrap(ctx, op, err)
	}
	done = true
	w.Committed()
	return nil
}

// Read runs fn in one read transaction (REPEATABLE READ, READ ONLY), so
// that every statement it runs sees one snapshot of the database. A
// statement still running when ctx ends is cancelled. It returns the
// errors Write returns, but for store.ErrReadOnly.
func (s *DB) Read(ctx context.Context, op string, fn func(q store.Tx) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tx, err := s.pool.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return s.wrap(ctx, op, err)
	}
	err = fn(&Tx{ctx: ctx, s: s, tx: tx})
	// The end of a read changes nothing, whatever ctx says.
	if endErr := tx.Commit(); err == nil && !errors.Is(endErr, sql.ErrTxDone) {
		err = endErr
	}
	return s.wrap(ctx, op, err)
}

var _ store.Dialecter = (*Tx)(nil)

package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/engram-go/engram/internal/store"
)

// The change log on PostgreSQL. Each agent followed in this process has
// a store.ChangeLog of its own, guarded by the agent's lock in this
// process (see Tx.LockAgent): writes to different agents run at once, each
// handing its changes to its agent's followers, where SQLite's one writer
// has one log for the whole file. The statements report every change
// (store.Querier's Changed); there is no hook to check them against, as
// SQLite's tests do. Other processes' writes reach the followers through
// the per-agent counters that the triggers move (schema.sql), as other
// connections' do on SQLite.

// logOf returns agent's change log, made when create and there is none;
// nil when there is none. The caller holds agent's lock.
func (s *DB) logOf(agent string, create bool) *store.ChangeLog {
	s.logsMu.Lock()
	defer s.logsMu.Unlock()
	l := s.logs[agent]
	if l == nil && create {
		l = store.NewChangeLog(nil)
		s.logs[agent] = l
	}
	return l
}

// Follow hands the changes of agent's rows made through this DB to
// followers, from the next write transaction that locks agent on (see
// store.ChangeLog.Follow). It waits for agent's lock in this process. It
// returns ctx's error when ctx ends first, store.ErrClosed after Close,
// and the log's error (one matching store.ErrWatch for a watch the log
// cannot follow), as Config.Wrap makes it for "open".
func (s *DB) Follow(ctx context.Context, agent string, followers ...store.Follower) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	l, err := s.lockAgent(ctx, agent)
	if err != nil {
		return err
	}
	defer s.unlockAgent(agent, l, true)
	return s.fail("open", s.logOf(agent, true).Follow(ctx, agent, followers...))
}

// Unfollow stops handing agent's changes to followers; it waits for
// agent's lock in this process.
func (s *DB) Unfollow(agent string, followers ...store.Follower) {
	l, err := s.lockAgent(context.Background(), agent)
	if err != nil {
		return
	}
	defer s.unlockAgent(agent, l, true)
	if log := s.logOf(agent, false); log != nil {
		_ = log.Unfollow(context.Background(), agent, followers...) // nothing to turn off: no hook
	}
}

// Refresh asks every agent's followers what they watch now (see
// store.ChangeLog.Refresh), taking each agent's lock in turn. It returns
// ctx's error when ctx ends while it waits, and the first log's error
// (one matching store.ErrWatch).
func (s *DB) Refresh(ctx context.Context) error {
	s.logsMu.Lock()
	agents := make([]string, 0, len(s.logs))
	for a := range s.logs {
		agents = append(agents, a)
	}
	s.logsMu.Unlock()
	for _, a := range agents {
		l, err := s.lockAgent(ctx, a)
		if err != nil {
			return err
		}
		err = s.RefreshHeld(ctx, a)
		s.unlockAgent(a, l, true)
		if err != nil {
			return err
		}
	}
	return nil
}

// RefreshHeld is Refresh of agent's followers for a caller that holds
// agent's lock: a write transaction that locked it, or its callbacks. It
// returns the log's error (one matching store.ErrWatch).
func (s *DB) RefreshHeld(ctx context.Context, agent string) error {
	if l := s.logOf(agent, false); l != nil {
		return l.Refresh(ctx)
	}
	return nil
}

// follow makes w's transaction hand its changes to agent's followers,
// when LockAgent locked agent. A transaction hands its changes to one
// agent's followers: it returns an error for a second agent that has
// followers of its own.
func (s *DB) follow(w *writeTx, agent string) error {
	l := s.logOf(agent, false)
	switch {
	case l == nil || w.Log == l:
	case w.Log == nil:
		w.Log = l
	default:
		return fmt.Errorf("engram: a write locked agents %q and %q, which both have followers: a write changes one agent", w.locked[0], agent)
	}
	return nil
}

// Changed records that the write changed agent c.Agent's rows (see
// LockAgent) and logs c for its followers.
func (q *Tx) Changed(c store.Change) {
	w := q.w
	if c.Agent != "" && !slices.Contains(w.changed, c.Agent) {
		w.changed = append(w.changed, c.Agent)
	}
	w.Changed(c)
}

// Changes hands the changes made so far in the write transaction to the
// followers of the agent it locked (see store.Tx).
func (q *Tx) Changes() error { return q.w.Changes(q) }

// KnowTerms tells the change log the term vector of text (see store.Tx).
func (q *Tx) KnowTerms(text string, terms map[string]uint32) { q.w.KnowTerms(text, terms) }

// BeforeCommit runs f just before the transaction commits (see store.Tx).
func (q *Tx) BeforeCommit(f func(q store.Tx) error) { q.w.BeforeCommit(f) }

// OnCommit runs f after the transaction commits, with the agents it
// locked still locked in this process (see store.Tx).
func (q *Tx) OnCommit(f func()) { q.w.OnCommit(f) }

// OnRollback runs f if the transaction, or the savepoint open when f was
// registered, rolls back (see store.Tx).
func (q *Tx) OnRollback(f func()) { q.w.OnRollback(f) }

// OnRollbackIn registers the callback undo makes unless one is registered
// in the innermost savepoint open (see store.Tx).
func (q *Tx) OnRollbackIn(s *store.RollbackScope, undo func() func()) { q.w.OnRollbackIn(s, undo) }

// Savepoint runs fn inside a SAVEPOINT of the write transaction (see
// store.Tx): PostgreSQL aborts a transaction at a failed statement, and
// ROLLBACK TO the savepoint lets it go on.
func (q *Tx) Savepoint(fn func(q store.Tx) error) error {
	return q.w.Savepoint(q, func(ctx context.Context, stmt string) error {
		_, err := q.tx.ExecContext(ctx, stmt)
		return err
	}, fn)
}

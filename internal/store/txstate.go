package store

import (
	"context"
	"errors"
	"strconv"
)

// WriteState is the part of a write transaction that is the same on every
// engine: the callbacks that in-memory state beside the database
// registers to follow the transaction (BeforeCommit, OnCommit, OnRollback,
// OnRollbackIn), the savepoints open in it, which own the callbacks
// registered inside them, and the term vectors known for the change log
// (KnowTerms).
//
// An engine makes one for each write transaction, with Log set to its
// change log (nil while nothing follows the database), and its [Tx]
// implements BeforeCommit, OnCommit, OnRollback, OnRollbackIn, KnowTerms
// and Changes by calling the methods of the same name, and Savepoint by
// calling [WriteState.Savepoint] with a function that runs the engine's
// own SAVEPOINT, RELEASE and ROLLBACK TO statements. Around its own BEGIN
// and COMMIT, the engine calls [WriteState.Settle] just before COMMIT,
// [WriteState.Committed] after it succeeds, and [WriteState.RolledBack]
// after a ROLLBACK. A WriteState is used by one goroutine at a time: the
// engine's writer lock guards it, and its Log.
type WriteState struct {
	// Log is the engine's change log, or nil when nothing follows the
	// database's rows: the changes reported in the transaction go to it.
	Log *ChangeLog
	// levels holds, per open savepoint (outermost first), how many
	// rollback callbacks were registered when it began: those after are
	// its own.
	levels []int
	// terms are the term vectors of texts inserted in the transaction,
	// known before the change log hands the inserts out (see KnowTerms).
	terms    map[string]map[string]uint32
	before   []func(q Tx) error // just before COMMIT, in order (see Settle)
	commit   []func()           // after COMMIT succeeds, in order
	rollback []func()           // when what registered them is rolled back, last first
}

// BeforeCommit registers f to run in Settle, just before the transaction
// commits, after the followers have the transaction's last changes (see
// [Tx]).
func (w *WriteState) BeforeCommit(f func(q Tx) error) { w.before = append(w.before, f) }

// OnCommit registers f to run in Committed, after the transaction
// commits. A savepoint that rolls back drops the callbacks registered in
// it.
func (w *WriteState) OnCommit(f func()) { w.commit = append(w.commit, f) }

// OnRollback registers f to run if the transaction, or the savepoint open
// when f was registered, rolls back. Callbacks run last registered first.
func (w *WriteState) OnRollback(f func()) { w.rollback = append(w.rollback, f) }

// OnRollbackIn registers the callback undo makes, as OnRollback does,
// unless s says one is registered already in the innermost savepoint open
// (in the transaction, outside any savepoint), and records in s where it
// is (see [Tx]). When the callback runs, s goes back to what it was
// before, the enclosing savepoint's callback, which is still registered.
func (w *WriteState) OnRollbackIn(s *RollbackScope, undo func() func()) {
	if s.Tx == any(w) && s.At >= w.level() {
		return
	}
	prev, f := *s, undo()
	*s = RollbackScope{Tx: w, At: len(w.rollback)}
	w.rollback = append(w.rollback, func() {
		f()
		*s = prev // the enclosing savepoint's callback, if any, is still there
	})
}

// level is how many rollback callbacks were registered when the
// innermost open savepoint began (0 outside any).
func (w *WriteState) level() int {
	if n := len(w.levels); n > 0 {
		return w.levels[n-1]
	}
	return 0
}

// Savepoint runs fn with q inside a savepoint of the transaction, as
// [Tx]'s Savepoint says: run executes the engine's statement stmt
// ("SAVEPOINT spN", "RELEASE spN" or "ROLLBACK TO spN", standard SQL) in
// the transaction with ctx. When fn returns an error (or panics), what fn
// wrote is rolled back (ROLLBACK TO, then RELEASE, both without q's
// context), the change log goes back to where it was when the savepoint
// began (see [ChangeLog]), the OnRollback callbacks registered in it run,
// last first, and its OnCommit callbacks are dropped; BeforeCommit
// callbacks stay. It returns the error of run for SAVEPOINT or RELEASE,
// or fn's, joined with those of the rollback's statements and of the
// change log's rewind when they fail.
func (w *WriteState) Savepoint(q Tx, run func(ctx context.Context, stmt string) error, fn func(q Tx) error) (err error) {
	name := "sp" + strconv.Itoa(len(w.levels))
	if err := run(q.Context(), "SAVEPOINT "+name); err != nil {
		return err
	}
	nc, nr, m := len(w.commit), len(w.rollback), w.Log.mark()
	w.levels = append(w.levels, nr)
	done := false
	defer func() {
		if done {
			w.levels = w.levels[:len(w.levels)-1]
			return
		}
		// ROLLBACK TO ignores the context: what fn did must go whatever
		// happens to the caller's.
		rbErr := run(context.Background(), "ROLLBACK TO "+name)
		relErr := run(context.Background(), "RELEASE "+name)
		logErr := w.Log.rewind(m)
		w.undo(nr)
		w.levels = w.levels[:len(w.levels)-1]
		w.commit = w.commit[:nc]
		if e := errors.Join(rbErr, relErr, logErr); e != nil && err != nil {
			err = errors.Join(err, e)
		}
	}()
	if err = fn(q); err != nil {
		return err
	}
	if err = run(q.Context(), "RELEASE "+name); err != nil {
		return err
	}
	done = true
	return nil
}

// undo runs, last first, the rollback callbacks registered since the
// first n, and forgets them.
func (w *WriteState) undo(n int) {
	for i := len(w.rollback) - 1; i >= n; i-- {
		w.rollback[i]()
	}
	w.rollback = w.rollback[:n]
}

// KnowTerms tells the change log the term vector of text, which the write
// made already, so that an insert of text that the log hands out in the
// transaction carries it ([Change] Terms) instead of having it made again.
// It keeps nothing while the log records nothing.
func (w *WriteState) KnowTerms(text string, terms map[string]uint32) {
	if terms == nil || w.Log == nil || !w.Log.on {
		return
	}
	if w.terms == nil {
		w.terms = map[string]map[string]uint32{}
	}
	w.terms[text] = terms
}

// Changed logs c, a change a statement of q's transaction reported (see
// [Querier]), in the change log, when a follower watches such changes
// now.
func (w *WriteState) Changed(c Change) {
	if w.Log != nil {
		w.Log.Changed(c)
	}
}

// Changes hands the changes logged so far in the transaction to the
// followers of the agents they change, calling their Follow with q (see
// [ChangeLog]). It returns the error of the change log's check, or the
// first follower's.
func (w *WriteState) Changes(q Tx) error {
	if w.Log == nil {
		return nil
	}
	return w.Log.handOut(q, w.terms)
}

// Settle runs at the end of a write transaction, before the engine's
// COMMIT: the followers get the changes not handed out yet (Changes), then
// the BeforeCommit callbacks run in order, those they register too. It
// returns the first error of those, and the engine rolls back then.
func (w *WriteState) Settle(q Tx) error {
	if err := w.Changes(q); err != nil {
		return err
	}
	for i := 0; i < len(w.before); i++ { // a callback may register another
		if err := w.before[i](q); err != nil {
			return err
		}
	}
	return nil
}

// Committed runs the OnCommit callbacks in order, after the engine's
// COMMIT succeeded.
func (w *WriteState) Committed() {
	for _, f := range w.commit {
		f()
	}
}

// RolledBack runs after the engine rolled the transaction back (or found
// it gone): the change log forgets what the transaction logged, and the
// OnRollback callbacks run, last first.
func (w *WriteState) RolledBack() {
	w.Log.reset()
	w.undo(0)
}

// Callbacks returns how many BeforeCommit, OnCommit and OnRollback
// callbacks the transaction holds: tests check that in-memory state
// registers each once.
func (w *WriteState) Callbacks() (before, commit, rollback int) {
	return len(w.before), len(w.commit), len(w.rollback)
}

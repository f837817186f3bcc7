package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fakeTx is an engine's write transaction with no database: it records
// the statements WriteState asks it to run, and fails those that begin
// with fail.
type fakeTx struct {
	w     *WriteState
	stmts *[]string
	fail  string
}

var errFake = errors.New("the fake engine failed")

func newFakeTx(log *ChangeLog) *fakeTx {
	return &fakeTx{w: &WriteState{Log: log}, stmts: new([]string)}
}

func (q *fakeTx) run(_ context.Context, stmt string) error {
	*q.stmts = append(*q.stmts, stmt)
	if q.fail != "" && strings.HasPrefix(stmt, q.fail) {
		return fmt.Errorf("%s: %w", stmt, errFake)
	}
	return nil
}

func (q *fakeTx) Exec(string, ...any) (sql.Result, error) { return nil, errFake }
func (q *fakeTx) Query(string, ...any) (*sql.Rows, error) { return nil, errFake }
func (q *fakeTx) QueryRow(string, []any, ...any) error    { return errFake }
func (q *fakeTx) Changed(c Change)                        { q.w.Changed(c) }
func (q *fakeTx) Context() context.Context                { return context.Background() }
func (q *fakeTx) Background() Tx                          { return q }
func (q *fakeTx) Write() any                              { return q.w }
func (q *fakeTx) BeforeCommit(f func(q Tx) error)         { q.w.BeforeCommit(f) }
func (q *fakeTx) OnCommit(f func())                       { q.w.OnCommit(f) }
func (q *fakeTx) OnRollback(f func())                     { q.w.OnRollback(f) }
func (q *fakeTx) OnRollbackIn(s *RollbackScope, undo func() func()) {
	q.w.OnRollbackIn(s, undo)
}
func (q *fakeTx) Savepoint(fn func(q Tx) error) error { return q.w.Savepoint(q, q.run, fn) }
func (q *fakeTx) Changes() error                      { return q.w.Changes(q) }
func (q *fakeTx) KnowTerms(text string, terms map[string]uint32) {
	q.w.KnowTerms(text, terms)
}
func (q *fakeTx) History() bool           { return false }
func (q *fakeTx) ExecScript(string) error { return errFake }
func (q *fakeTx) LockAgent(string) error  { return nil }

// commit ends q as an engine does: Settle, then COMMIT and Committed, or
// ROLLBACK and RolledBack when Settle fails.
func (q *fakeTx) commit() error {
	if err := q.w.Settle(q); err != nil {
		_ = q.run(context.Background(), "ROLLBACK")
		q.w.RolledBack()
		return err
	}
	if err := q.run(context.Background(), "COMMIT"); err != nil {
		return err
	}
	q.w.Committed()
	return nil
}

// The callbacks run when the transaction ends, in their order: the
// followers get the last changes, then BeforeCommit's in order (those
// they register too), then after COMMIT OnCommit's in order; OnRollback's
// run, last first, only when it rolls back.
func TestWriteStateCallbacks(t *testing.T) {
	kind := Kinds[0].Name
	t.Run("commit", func(t *testing.T) {
		log := NewChangeLog(nil)
		var got []string
		f := &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "i"}}, got: &got}
		if err := log.Follow(context.Background(), "a", f); err != nil {
			t.Fatal(err)
		}
		q := newFakeTx(log)
		q.OnRollback(func() { got = append(got, "rollback") })
		q.BeforeCommit(func(q Tx) error {
			got = append(got, "before 1")
			q.BeforeCommit(func(Tx) error { got = append(got, "before 3"); return nil })
			return nil
		})
		q.OnCommit(func() { got = append(got, "commit 1") })
		q.BeforeCommit(func(Tx) error { got = append(got, "before 2"); return nil })
		q.OnCommit(func() { got = append(got, "commit 2") })
		q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 1, Agent: "a", ID: "x"})
		if err := q.commit(); err != nil {
			t.Fatal(err)
		}
		want := []string{"follow [i1]", "before 1", "before 2", "before 3", "commit 1", "commit 2"}
		if !slices.Equal(got, want) {
			t.Fatalf("ran %q, want %q", got, want)
		}
	})
	t.Run("rollback", func(t *testing.T) {
		q := newFakeTx(nil)
		var got []string
		q.OnRollback(func() { got = append(got, "rollback 1") })
		q.OnCommit(func() { got = append(got, "commit") })
		q.OnRollback(func() { got = append(got, "rollback 2") })
		q.BeforeCommit(func(Tx) error { got = append(got, "before"); return errFake })
		if err := q.commit(); !errors.Is(err, errFake) {
			t.Fatalf("commit returned %v, want the BeforeCommit's error", err)
		}
		want := []string{"before", "rollback 2", "rollback 1"}
		if !slices.Equal(got, want) {
			t.Fatalf("ran %q, want %q", got, want)
		}
		if _, _, r := q.w.Callbacks(); r != 0 {
			t.Fatalf("%d rollback callbacks left after the rollback", r)
		}
	})
}

// A savepoint runs the engine's SAVEPOINT and RELEASE; when what runs in
// it fails, ROLLBACK TO and RELEASE, its OnRollback callbacks (only its
// own, last first), and its OnCommit callbacks are dropped while those of
// the enclosing transaction and every BeforeCommit stay; it returns fn's
// error, joined with the engine's.
func TestWriteStateSavepoint(t *testing.T) {
	q := newFakeTx(nil)
	var got []string
	q.OnRollback(func() { got = append(got, "outer rollback") })
	q.OnCommit(func() { got = append(got, "outer commit") })
	err := q.Savepoint(func(q Tx) error {
		q.OnCommit(func() { got = append(got, "kept commit") })
		q.OnRollback(func() { got = append(got, "kept rollback") })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = q.Savepoint(func(q Tx) error {
		q.OnRollback(func() { got = append(got, "sp rollback 1") })
		q.OnCommit(func() { got = append(got, "sp commit") })
		q.BeforeCommit(func(Tx) error { got = append(got, "sp before"); return nil })
		if err := q.Savepoint(func(q Tx) error {
			q.OnRollback(func() { got = append(got, "inner rollback") })
			return nil
		}); err != nil {
			return err
		}
		q.OnRollback(func() { got = append(got, "sp rollback 2") })
		return errFake
	})
	if !errors.Is(err, errFake) {
		t.Fatalf("the savepoint returned %v, want fn's error", err)
	}
	wantStmts := []string{"SAVEPOINT sp0", "RELEASE sp0", "SAVEPOINT sp0", "SAVEPOINT sp1", "RELEASE sp1", "ROLLBACK TO sp0", "RELEASE sp0"}
	if !slices.Equal(*q.stmts, wantStmts) {
		t.Fatalf("ran %q, want %q", *q.stmts, wantStmts)
	}
	if want := []string{"sp rollback 2", "inner rollback", "sp rollback 1"}; !slices.Equal(got, want) {
		t.Fatalf("the savepoint's rollback ran %q, want %q", got, want)
	}
	if b, c, r := q.w.Callbacks(); b != 1 || c != 2 || r != 2 {
		t.Fatalf("after the savepoint's rollback: %d BeforeCommit, %d OnCommit, %d OnRollback callbacks, want 1, 2, 2", b, c, r)
	}
	got = nil
	if err := q.commit(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"sp before", "outer commit", "kept commit"}; !slices.Equal(got, want) {
		t.Fatalf("the commit ran %q, want %q", got, want)
	}

	t.Run("engine fails", func(t *testing.T) {
		q := newFakeTx(nil)
		q.fail = "ROLLBACK TO"
		err := q.Savepoint(func(Tx) error { return errFake })
		if !errors.Is(err, errFake) || !strings.Contains(err.Error(), "ROLLBACK TO sp0") {
			t.Fatalf("the savepoint returned %v, want fn's error joined with ROLLBACK TO's", err)
		}
		q = newFakeTx(nil)
		q.fail = "SAVEPOINT"
		ran := false
		err = q.Savepoint(func(Tx) error { ran = true; return nil })
		if !errors.Is(err, errFake) || ran {
			t.Fatalf("a failed SAVEPOINT: returned %v, ran fn %v; want SAVEPOINT's error, fn not run", err, ran)
		}
		if len(q.w.levels) != 0 {
			t.Fatalf("a failed SAVEPOINT left %d savepoints open", len(q.w.levels))
		}
	})
	t.Run("panic", func(t *testing.T) {
		q := newFakeTx(nil)
		rolled := false
		func() {
			defer func() { _ = recover() }()
			_ = q.Savepoint(func(q Tx) error {
				q.OnRollback(func() { rolled = true })
				panic("fn panics")
			})
		}()
		if want := []string{"SAVEPOINT sp0", "ROLLBACK TO sp0", "RELEASE sp0"}; !rolled || !slices.Equal(*q.stmts, want) {
			t.Fatalf("a panic in a savepoint: ran %q, rollback callback %v; want %q and true", *q.stmts, rolled, want)
		}
	})
}

// OnRollbackIn registers one callback per transaction and savepoint the
// state changes in, whatever how often it is called there, makes undo
// only when it registers, and puts the scope back when a savepoint's
// rollback runs it, so that the enclosing level's callback is not
// registered again.
func TestWriteStateOnRollbackIn(t *testing.T) {
	q := newFakeTx(nil)
	var scope RollbackScope
	var made, undone []int
	level := 0
	change := func(q Tx) {
		l := level
		q.OnRollbackIn(&scope, func() func() {
			made = append(made, l)
			return func() { undone = append(undone, l) }
		})
	}
	rollbacks := func() int { _, _, r := q.w.Callbacks(); return r }
	change(q)
	change(q)
	if rollbacks() != 1 {
		t.Fatalf("two changes in the transaction registered %d callbacks, want 1", rollbacks())
	}
	err := q.Savepoint(func(q Tx) error {
		level = 1
		change(q)
		change(q)
		if rollbacks() != 2 {
			t.Fatalf("two changes in a savepoint: %d callbacks, want 2", rollbacks())
		}
		err := q.Savepoint(func(q Tx) error {
			level = 2
			change(q)
			change(q)
			if rollbacks() != 3 {
				t.Fatalf("two changes in a nested savepoint: %d callbacks, want 3", rollbacks())
			}
			return errFake
		})
		if !errors.Is(err, errFake) {
			t.Fatalf("the nested savepoint returned %v", err)
		}
		if !slices.Equal(undone, []int{2}) {
			t.Fatalf("the nested savepoint's rollback undid %v, want [2]", undone)
		}
		level = 1
		change(q) // the savepoint's callback is still there
		if rollbacks() != 2 {
			t.Fatalf("a change after the nested savepoint's rollback: %d callbacks, want 2", rollbacks())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	level = 0
	change(q) // the released savepoint's callback now belongs to the transaction
	if rollbacks() != 2 || !slices.Equal(made, []int{0, 1, 2}) {
		t.Fatalf("after the savepoint: %d callbacks, undo made at levels %v; want 2 and [0 1 2]", rollbacks(), made)
	}
	q.w.RolledBack()
	if !slices.Equal(undone, []int{2, 1, 0}) {
		t.Fatalf("the rollback undid %v, want [2 1 0]", undone)
	}
	if scope != (RollbackScope{}) {
		t.Fatalf("the scope after the rollback is %+v, want the zero value", scope)
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fakeFollower is a follower that records each batch it gets in got, as
// "follow [i1:text d2]" (the op, PK and text of each change), and keeps the PKs of
// the changes it applied in applied, which a rollback takes back.
type fakeFollower struct {
	agent   string
	watches []Watch
	all     []Watch // Watches(true); watches when nil
	got     *[]string
	applied []int64
	terms   []map[string]uint32 // the Terms of each insert it got
	scope   RollbackScope
	err     error // Follow's
}

func (f *fakeFollower) Watches(all bool) []Watch {
	if all && f.all != nil {
		return f.all
	}
	return f.watches
}

func (f *fakeFollower) Follow(q Tx, cs []Change) error {
	if f.err != nil {
		return f.err
	}
	q.OnRollbackIn(&f.scope, func() func() {
		n := len(f.applied)
		return func() { f.applied = f.applied[:n] }
	})
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%c%d", c.Op, c.PK)
		if c.Text != "" {
			b.WriteString(":" + c.Text)
		}
		if c.Agent == f.agent {
			f.applied = append(f.applied, c.PK)
		}
		if c.Op == ChangeInsert {
			f.terms = append(f.terms, c.Terms)
		}
	}
	if f.got != nil {
		*f.got = append(*f.got, "follow ["+b.String()+"]")
	}
	return nil
}

// The log hands the changes its followers watch to the followers of the
// agents they change, once, with the term vectors the write knew, and
// nothing while no follower watches anything.
func TestChangeLogHandsOut(t *testing.T) {
	kind, other := Kinds[0].Name, Kinds[1].Name
	ctx := context.Background()
	log := NewChangeLog(nil)
	var gotA, gotB []string
	a := &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "id", Text: true}}, got: &gotA}
	b := &fakeFollower{agent: "b", all: []Watch{{Kind: kind, Ops: "idu", Text: true}}, got: &gotB}
	if err := log.Follow(ctx, "a", a); err != nil {
		t.Fatal(err)
	}
	if err := log.Follow(ctx, "b", b); err != nil {
		t.Fatal(err)
	}
	if !log.On() {
		t.Fatal("the log is off with a follower that watches inserts")
	}
	q := newFakeTx(log)
	q.KnowTerms("hello", map[string]uint32{"hello": 1})
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 1, Agent: "a", Text: "hello"})
	q.Changed(Change{Kind: other, Op: ChangeInsert, PK: 2, Agent: "a"})   // a kind nobody watches
	q.Changed(Change{Kind: kind, Op: ChangeText, PK: 3, Agent: "a"})      // b may watch them: logged
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 4, Agent: "b"})    // b's: b watches nothing now
	q.Changed(Change{Kind: kind, Op: ChangeDelete, PK: 5, Agent: "a"})    // a's
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 6, Agent: "zzzz"}) // nobody's follower
	if err := q.Changes(); err != nil {
		t.Fatal(err)
	}
	if err := q.commit(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"follow [i1:hello u3 i4 d5 i6]"}; !slices.Equal(gotA, want) {
		t.Fatalf("a's follower got %q, want %q", gotA, want)
	}
	if gotB == nil || len(gotB) != 1 {
		t.Fatalf("b's follower got %q, want the one batch that changes b's rows", gotB)
	}
	if len(a.terms) != 3 || a.terms[0]["hello"] != 1 || a.terms[1] != nil {
		t.Fatalf("the inserts carried the terms %v, want the known vector on the first only", a.terms)
	}

	// Once no follower watches anything, the log records nothing.
	a.watches = nil
	if err := log.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if log.On() {
		t.Fatal("the log is on with no follower watching")
	}
	q = newFakeTx(log)
	q.KnowTerms("x", map[string]uint32{"x": 1})
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 7, Agent: "a"})
	if err := q.commit(); err != nil {
		t.Fatal(err)
	}
	if len(gotA) != 1 || q.w.terms != nil {
		t.Fatalf("with the log off: a's follower got %q, terms kept %v; want nothing", gotA, q.w.terms)
	}
	if err := log.Unfollow(ctx, "a", a); err != nil {
		t.Fatal(err)
	}
	if err := log.Unfollow(ctx, "b", b); err != nil {
		t.Fatal(err)
	}
	if len(log.followers) != 0 {
		t.Fatalf("after Unfollow the log still has followers %v", log.followers)
	}
}

// A savepoint that rolls back takes back what was reported in it, and
// hands out again what it handed out of the changes made before it,
// which the followers forgot with its rollback; a transaction that rolls
// back leaves nothing to hand out.
func TestChangeLogSavepointRewinds(t *testing.T) {
	kind := Kinds[0].Name
	ctx := context.Background()
	log := NewChangeLog(nil)
	var got []string
	f := &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "id"}}, got: &got}
	if err := log.Follow(ctx, "a", f); err != nil {
		t.Fatal(err)
	}
	q := newFakeTx(log)
	// The follower watches neither the text of inserts nor changes of
	// text: the log keeps neither.
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 1, Agent: "a", Text: "not kept"})
	q.Changed(Change{Kind: kind, Op: ChangeText, PK: 1, Agent: "a"})
	err := q.Savepoint(func(q Tx) error {
		q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 2, Agent: "a"})
		if err := q.Changes(); err != nil {
			return err
		}
		q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 3, Agent: "a"})
		return errFake
	})
	if !errors.Is(err, errFake) {
		t.Fatal(err)
	}
	if len(f.applied) != 0 {
		t.Fatalf("after the savepoint's rollback the follower holds %v, want nothing", f.applied)
	}
	q.Changed(Change{Kind: kind, Op: ChangeDelete, PK: 4, Agent: "a"})
	if err := q.commit(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"follow [i1 i2]", "follow [i1 d4]"}; !slices.Equal(got, want) {
		t.Fatalf("the follower got %q, want %q", got, want)
	}

	// A transaction that rolls back hands nothing to the next.
	got = nil
	q = newFakeTx(log)
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 5, Agent: "a"})
	q.w.RolledBack()
	q = newFakeTx(log)
	if err := q.commit(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("after a rollback the next transaction handed out %q", got)
	}
}

// A watch the log cannot follow is refused with ErrWatch and registers
// nothing; a follower's error stops the hand-out and is returned.
func TestChangeLogErrors(t *testing.T) {
	ctx := context.Background()
	kind := Kinds[0].Name
	log := NewChangeLog(nil)
	good := &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "i"}}}
	bad := &fakeFollower{agent: "a", watches: []Watch{{Kind: "no such kind", Ops: "i"}}}
	if err := log.Follow(ctx, "a", good, bad); !errors.Is(err, ErrWatch) {
		t.Fatalf("Follow of an unknown kind returned %v, want ErrWatch", err)
	}
	if len(log.followers) != 0 || len(log.kinds) != 0 || log.On() {
		t.Fatalf("a refused Follow left followers %v, kinds %v, on %v", log.followers, log.kinds, log.On())
	}
	failing := &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "i"}}, err: errFake}
	if err := log.Follow(ctx, "a", failing); err != nil {
		t.Fatal(err)
	}
	q := newFakeTx(log)
	q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 1, Agent: "a"})
	ran := false
	q.BeforeCommit(func(Tx) error { ran = true; return nil })
	if err := q.commit(); !errors.Is(err, errFake) || ran {
		t.Fatalf("a follower's failure: commit returned %v, BeforeCommit ran %v; want the follower's error, not run", err, ran)
	}
}

// fakeCheck is a LogCheck that records the calls the log makes, and
// compares the reports with the changes in saw.
type fakeCheck struct {
	calls []string
	saw   []Change
}

func (c *fakeCheck) Prepare(_ context.Context, added, texts []*Kind) error {
	c.calls = append(c.calls, fmt.Sprintf("prepare %d %d", len(added), len(texts)))
	return nil
}
func (c *fakeCheck) Record(_ context.Context, on bool) error {
	c.calls = append(c.calls, fmt.Sprintf("record %v", on))
	return nil
}
func (c *fakeCheck) Check(_ Tx, reported []Change) error {
	c.calls = append(c.calls, fmt.Sprintf("check %d", len(reported)))
	saw := c.saw
	c.saw = nil
	if len(saw) != len(reported) {
		return errFake
	}
	return nil
}
func (c *fakeCheck) Mark() any {
	c.calls = append(c.calls, "mark")
	return slices.Clip(c.saw)
}
func (c *fakeCheck) Rewind(m any) error {
	c.calls = append(c.calls, "rewind")
	c.saw = m.([]Change)
	return nil
}
func (c *fakeCheck) Reset() { c.calls = append(c.calls, "reset"); c.saw = nil }

// A log with a check prepares it for the kinds first watched, starts and
// stops it with the log, marks and rewinds it with a savepoint, resets it
// with a rollback, and checks every batch before it hands it out: a
// check that fails stops the hand-out.
func TestChangeLogCheck(t *testing.T) {
	ctx := context.Background()
	kind := Kinds[0].Name
	c := &fakeCheck{}
	log := NewChangeLog(c)
	f := &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "iu"}}}
	if err := log.Follow(ctx, "a", f); err != nil {
		t.Fatal(err)
	}
	if err := log.Follow(ctx, "a", &fakeFollower{agent: "a", watches: []Watch{{Kind: kind, Ops: "u"}}}); err != nil {
		t.Fatal(err)
	}
	if w := log.Watched(kind); w == nil || !w.Insert || !w.TextChanges || w.Delete {
		t.Fatalf("the log records %+v of %s, want inserts and changes of text", w, kind)
	}
	q := newFakeTx(log)
	one := Change{Kind: kind, Op: ChangeInsert, PK: 1, Agent: "a"}
	q.Changed(one)
	c.saw = append(c.saw, one)
	_ = q.Savepoint(func(q Tx) error {
		q.Changed(Change{Kind: kind, Op: ChangeInsert, PK: 2, Agent: "a"})
		c.saw = append(c.saw, one)
		return errFake
	})
	if err := q.commit(); err != nil {
		t.Fatal(err)
	}
	q = newFakeTx(log)
	q.Changed(one) // the check saw nothing: it fails
	if err := q.commit(); !errors.Is(err, errFake) || len(f.applied) != 1 {
		t.Fatalf("a failed check: commit returned %v, the follower applied %v; want the check's error, [1]", err, f.applied)
	}
	want := []string{"prepare 1 1", "record true", "prepare 0 0", "mark", "rewind", "check 1", "check 1", "reset"}
	if !slices.Equal(c.calls, want) {
		t.Fatalf("the log called %q, want %q", c.calls, want)
	}
}

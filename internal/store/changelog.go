package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The change log keeps in-memory state beside the database (the text
// index, the stem index of auto-linking, the vector index) in step with
// the rows it is made from. It needs no hook of the engine: every
// function of this package that inserts or deletes a memory row, or
// changes its text, reports the rows it changed to the transaction it
// runs in (Querier's Changed), which logs those its followers watch (see
// changes.go).
//
// A write transaction hands what was logged to its followers before it
// commits (WriteState.Settle), or earlier when a follower needs to be
// current in the middle of it (Tx.Changes). Changes made through other
// connections (another Memory on the same file, another process) are not
// logged here: each follower also checks a per-agent counter that
// triggers move on with every change, and starts again from the table
// when the counter moved further than its own changes explain.

// ChangeLog is an engine's change log: the followers of each agent whose
// Memory is open on the database, what they watch, and the changes
// reported in the write transaction under way that it has not handed out
// yet. The engine makes one (NewChangeLog) when the first Memory opens,
// keeps it for the database, and gives it to each write transaction's
// [WriteState]; its writer lock guards it. Only while some follower
// watches something does the log record: a database nobody follows pays
// nothing for it.
//
// An engine with its own record of the rows its statements change (SQLite's
// pre-update hook) gives it to NewChangeLog as a [LogCheck], and the log
// compares that record with the reports before it hands them out: tests
// find so a statement that does not report a row it changed.
type ChangeLog struct {
	check LogCheck // nil: the reports are not checked
	// kinds is what the log records of each kind a follower watches, by
	// the kind's name.
	kinds map[string]*Watched
	// followers are the followers of each agent, in the order they were
	// registered.
	followers map[string][]Follower
	on        bool     // some follower needs changes now: the log records
	pending   []Change // reported by the writes, not handed out yet
}

// Watched is what a change log records of one kind now (see
// [ChangeLog.Watched]).
type Watched struct {
	Insert, Delete bool // inserts, deletes
	Text           bool // the text of inserts
	// TextChanges says changes of text are recorded: set when a follower
	// that may watch them is registered, and kept.
	TextChanges bool
}

// LogCheck is an engine's own record of the memory rows its statements
// change, which a change log compares with the changes the statements
// report (see [NewChangeLog]). The log calls its methods with the
// engine's writer lock held.
type LogCheck interface {
	// Prepare readies the record for the kinds followed for the first
	// time, added, and for the changes of text of texts, the kinds whose
	// changes of text are watched for the first time. What the log
	// records of each is ChangeLog.Watched's, which the log updates as
	// the followers' needs change. It returns the engine's error.
	Prepare(ctx context.Context, added, texts []*Kind) error
	// Record starts or stops the record, as the log turns on or off. It
	// returns the engine's error.
	Record(ctx context.Context, on bool) error
	// Check compares reported, the changes reported since the last Check
	// of q's transaction, with what the record holds since then, and
	// forgets what it holds. It returns an error when they differ, or the
	// engine's.
	Check(q Tx, reported []Change) error
	// Mark returns the record's state when a savepoint begins, for
	// Rewind.
	Mark() any
	// Rewind puts the record back to mark, Mark's, when the savepoint
	// rolls back. It returns the engine's error.
	Rewind(mark any) error
	// Reset forgets what the record holds, when the transaction rolls
	// back.
	Reset()
}

// ErrWatch is the error of a follower's watch that the change log cannot
// follow: of a kind it does not know, or asking for the text of a kind
// whose text Go cannot make.
var ErrWatch = errors.New("engram: the change log cannot follow a watch")

// NewChangeLog returns an empty change log, which compares the reports
// with check's record when check is not nil.
func NewChangeLog(check LogCheck) *ChangeLog {
	return &ChangeLog{check: check, kinds: map[string]*Watched{}, followers: map[string][]Follower{}}
}

// On reports whether the log records: whether some follower watches
// something now.
func (l *ChangeLog) On() bool { return l.on }

// Watched returns what the log records of the kind named kind, or nil
// when no follower ever watched it. The log changes it as the followers'
// needs change: an engine's record (see [LogCheck]) reads it.
func (l *ChangeLog) Watched(kind string) *Watched { return l.kinds[kind] }

// Follow registers agent's followers, when a Memory opens: it checks
// every watch they may ever make (Watches(true)), prepares the check's
// record for the kinds and changes of text watched for the first time,
// and turns the log on when a follower needs changes now (see Refresh).
// It returns an error matching ErrWatch, registering nothing, when a
// watch cannot be followed, and the check's or Refresh's error,
// registering none of followers.
func (l *ChangeLog) Follow(ctx context.Context, agent string, followers ...Follower) error {
	var added, texts []*Kind
	for _, f := range followers {
		for _, w := range f.Watches(true) {
			k := KindNamed(w.Kind)
			if k == nil {
				return fmt.Errorf("%w: no kind %q", ErrWatch, w.Kind)
			}
			if w.Text && k.TextErr != nil {
				return fmt.Errorf("%w: the text of a %s: %w", ErrWatch, k.Noun, k.TextErr)
			}
			lg := l.kinds[k.Name]
			if lg == nil && !slices.Contains(added, k) {
				added = append(added, k)
			}
			if strings.IndexByte(w.Ops, ChangeText) >= 0 && (lg == nil || !lg.TextChanges) && !slices.Contains(texts, k) {
				texts = append(texts, k)
			}
		}
	}
	for _, k := range added {
		l.kinds[k.Name] = &Watched{}
	}
	if l.check != nil {
		if err := l.check.Prepare(ctx, added, texts); err != nil {
			for _, k := range added {
				delete(l.kinds, k.Name)
			}
			return err
		}
	}
	for _, k := range texts {
		l.kinds[k.Name].TextChanges = true
	}
	l.followers[agent] = append(l.followers[agent], followers...)
	if err := l.Refresh(ctx); err != nil {
		l.followers[agent] = l.followers[agent][:len(l.followers[agent])-len(followers)]
		return err
	}
	return nil
}

// Unfollow forgets agent's followers, when its Memory closes, and turns
// the log off when no other follower needs it. It returns Refresh's
// error.
func (l *ChangeLog) Unfollow(ctx context.Context, agent string, followers ...Follower) error {
	l.followers[agent] = slices.DeleteFunc(l.followers[agent], func(f Follower) bool { return slices.Contains(followers, f) })
	if len(l.followers[agent]) == 0 {
		delete(l.followers, agent)
	}
	return l.Refresh(ctx)
}

// Refresh asks the followers what they watch now (Watches(false)) and
// turns the log on when any watches something, or off when none does,
// starting or stopping the check's record with it. A follower whose needs
// change (an index built, or thrown away) has the engine call it. It
// returns an error matching ErrWatch for a watch of a kind no follower
// watched when it was registered, and the check's error; either leaves the
// log on or off as it was.
func (l *ChangeLog) Refresh(ctx context.Context) error {
	for _, lg := range l.kinds {
		lg.Insert, lg.Delete, lg.Text = false, false, false
	}
	need := false
	for _, fs := range l.followers {
		for _, f := range fs {
			for _, w := range f.Watches(false) {
				lg := l.kinds[w.Kind]
				if lg == nil {
					return fmt.Errorf("%w: %q, not among those watched when the follower was registered", ErrWatch, w.Kind)
				}
				for _, op := range []byte(w.Ops) {
					switch op {
					case ChangeInsert:
						lg.Insert = true
					case ChangeDelete:
						lg.Delete = true
					}
				}
				lg.Text = lg.Text || w.Text
				need = true
			}
		}
	}
	if need == l.on {
		return nil
	}
	if l.check != nil {
		if err := l.check.Record(ctx, need); err != nil {
			return err
		}
	}
	l.on = need
	return nil
}

// Changed logs c, a change a statement of the write transaction reported
// (see [Querier]), when a follower watches such changes now: an insert
// without its text when none watches the text.
func (l *ChangeLog) Changed(c Change) {
	if !l.on {
		return
	}
	lg := l.kinds[c.Kind]
	if lg == nil {
		return
	}
	switch c.Op {
	case ChangeInsert:
		if !lg.Insert {
			return
		}
		if !lg.Text {
			c.Text = ""
		}
	case ChangeDelete:
		if !lg.Delete {
			return
		}
	case ChangeText:
		if !lg.TextChanges {
			return
		}
	default:
		return
	}
	l.pending = append(l.pending, c)
}

// handOut hands the changes logged so far to every follower of the
// agents they change, checking them first when the log checks, and gives
// the inserts the term vectors of known (see WriteState.KnowTerms), which
// it then clears. It returns the check's error or the first follower's.
func (l *ChangeLog) handOut(q Tx, known map[string]map[string]uint32) error {
	cs := l.pending
	l.pending = nil
	if l.check != nil {
		if err := l.check.Check(q, cs); err != nil {
			return err
		}
	}
	if len(cs) == 0 {
		return nil
	}
	if len(known) > 0 {
		for i := range cs {
			if c := &cs[i]; c.Terms == nil && c.Op == ChangeInsert {
				c.Terms = known[c.Text]
			}
		}
		clear(known)
	}
	// A follower needs only the batches that hold changes of its agent's
	// rows (see Follower): with many agents open on one database, a write
	// costs the followers of the agents it writes for.
	var agents []string
	for _, c := range cs {
		if c.Agent != "" && !slices.Contains(agents, c.Agent) {
			agents = append(agents, c.Agent)
		}
	}
	for _, agent := range agents {
		for _, f := range l.followers[agent] {
			if err := f.Follow(q, cs); err != nil {
				return err
			}
		}
	}
	return nil
}

// logMark is a change log's state when a savepoint began: the changes
// not handed out yet, and the check's mark.
type logMark struct {
	pending []Change
	check   any
}

// mark and rewind keep the log in step with a savepoint: what was
// reported in a savepoint that rolls back never happened, and what was
// handed out in it of the changes made before it is handed out again,
// since the followers that applied it forgot it (see Follower). Both
// take a nil log, which logs nothing; rewind returns the check's error.
func (l *ChangeLog) mark() logMark {
	if l == nil {
		return logMark{}
	}
	// Clipped, so that what is appended does not write over it.
	m := logMark{pending: slices.Clip(l.pending)}
	if l.check != nil {
		m.check = l.check.Mark()
	}
	return m
}

func (l *ChangeLog) rewind(m logMark) error {
	if l == nil {
		return nil
	}
	l.pending = m.pending
	if l.check != nil {
		return l.check.Rewind(m.check)
	}
	return nil
}

// reset forgets what a transaction that rolled back logged. It takes a
// nil log.
func (l *ChangeLog) reset() {
	if l == nil {
		return
	}
	l.pending = nil
	if l.check != nil {
		l.check.Reset()
	}
}

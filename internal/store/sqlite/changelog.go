package sqlite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/engram-go/engram/internal/store"
	modernc "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The change log (store.ChangeLog) keeps in-memory state beside the
// database (the text index, the stem index of auto-linking, the vector
// index) in step with the rows it is made from, from the changes the
// statements of internal/store report; it is the same on every engine.
// What is SQLite's is the check of those reports: with CheckChangeLog set
// (the root package's tests set it), SQLite's pre-update hook and
// temporary triggers on the writer connection record the same changes
// from below (checker, the log's store.LogCheck), and a transaction whose
// reports differ from what they saw fails (see compare).

// CheckChangeLog makes every change log made from then on check the
// writes' reports against SQLite's own record of the rows changed (see
// compare). Tests set it; it costs a hook call per row changed.
var CheckChangeLog = false

// checker is SQLite's record of the memory rows the writer connection
// changes, which the change log compares with the writes' reports: it
// implements store.LogCheck. The writer lock guards it.
type checker struct {
	s      *DB
	log    *store.ChangeLog
	tables map[string]*logged // by table name
	// installed are the statements that made the temporary tables and
	// triggers on the writer connection, in order: a writer opened again
	// (see DB.wake) runs them again.
	installed []string
	seen      []store.Change // the inserts and deletes the hook saw
	// texts says a statement updated a table whose changes of text the
	// temporary triggers log: temp.changes may hold some.
	texts bool
	// flagged says Record wrote temp.changes_on, maybe inside a write
	// transaction, since a rollback last put it back in step with the
	// log: a rollback may take the write back (see restoreFlag).
	flagged bool
}

// logged is where a kind's table keeps the columns the hook reads, and
// what the log records of the kind.
type logged struct {
	k         *store.Kind
	w         *store.Watched
	id, agent int // the columns' positions in the table
	textCols  []int
	width     int // how many columns a row read needs
}

// Follow registers agent's followers with the database's change log,
// making the log when it is the first (see store.ChangeLog.Follow). The
// log records while some follower needs changes (see Refresh): a memory
// nobody follows pays nothing for it. When the log checks the reports
// (CheckChangeLog), it prepares on the writer connection what SQLite's
// own record needs: the temporary log table and the triggers for changes
// of text. It is called when a Memory opens. It returns store.ErrClosed
// after Close, and the driver's error, or one matching store.ErrWatch for
// a watch the log cannot follow, as Config.Wrap makes it for "open".
func (s *DB) Follow(ctx context.Context, agent string, followers ...store.Follower) error {
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if s.log == nil {
		if CheckChangeLog {
			s.check = &checker{s: s, tables: map[string]*logged{}}
			s.log = store.NewChangeLog(s.check)
			s.check.log = s.log
		} else {
			s.log = store.NewChangeLog(nil)
		}
	}
	return s.fail("open", s.log.Follow(ctx, agent, followers...))
}

// Unfollow forgets agent's followers, when its Memory closes, and
// turns the log off when no other follower needs it. A writer that
// cannot be opened again leaves nothing to turn off.
func (s *DB) Unfollow(agent string, followers ...store.Follower) {
	if s.lockWriter(context.Background()) != nil {
		return
	}
	defer s.wmu.Unlock()
	if s.log != nil {
		_ = s.log.Unfollow(context.Background(), agent, followers...) // the hook only costs time
	}
}

// Prepare makes on the writer connection the temporary log table, the
// flag the triggers read, and a trigger for the changes of text of each
// kind of texts, and finds the columns the hook reads of each kind of
// added. It implements store.LogCheck; the writer lock is held. It
// returns the driver's error.
func (c *checker) Prepare(ctx context.Context, added, texts []*store.Kind) error {
	stmts := []string{`CREATE TEMP TABLE IF NOT EXISTS changes (
			seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, pk INTEGER NOT NULL, agent_id TEXT NOT NULL,
			id TEXT NOT NULL)`,
		// One row while the hook is registered: the triggers log only then.
		`CREATE TEMP TABLE IF NOT EXISTS changes_on (on_ INTEGER PRIMARY KEY)`}
	var cols []*logged
	for _, k := range added {
		lg, err := c.s.columnsOf(ctx, k)
		if err != nil {
			return err
		}
		lg.w = c.log.Watched(k.Name)
		cols = append(cols, lg)
	}
	for _, k := range texts {
		stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS changes_`+k.Table+` AFTER UPDATE ON main.`+k.Table+
			` WHEN (`+k.TextChanged()+`) AND EXISTS (SELECT 1 FROM temp.changes_on) BEGIN INSERT INTO temp.changes (kind, pk, agent_id, id) VALUES ('`+
			k.Name+`', new.pk, new.agent_id, new.id); END`)
	}
	for _, stmt := range stmts {
		if slices.Contains(c.installed, stmt) {
			continue
		}
		if _, err := c.s.wconn.ExecContext(ctx, stmt); err != nil {
			return err
		}
		c.installed = append(c.installed, stmt)
	}
	for _, lg := range cols {
		c.tables[lg.k.Table] = lg
	}
	return nil
}

// install makes the log's temporary tables and triggers again on a new
// writer connection, and registers the hook when the log is on. The
// writer lock is held.
func (c *checker) install(ctx context.Context) error {
	for _, stmt := range c.installed {
		if _, err := c.s.wconn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if !c.log.On() {
		return nil
	}
	return c.Record(ctx, true)
}

// Record registers the pre-update hook and lets the triggers log (the
// flag's row) when on, or unregisters it and stops them. It implements
// store.LogCheck; the writer lock is held. It returns the driver's error.
func (c *checker) Record(ctx context.Context, on bool) error {
	if err := c.setFlag(ctx, on); err != nil {
		return err
	}
	var hook modernc.PreUpdateHookFn
	if on {
		hook = c.hook
	}
	return c.s.wconn.Raw(func(dc any) error {
		hr, ok := dc.(modernc.HookRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver's connection (%T) takes no pre-update hook", dc)
		}
		hr.RegisterPreUpdateHook(hook)
		return nil
	})
}

// setFlag writes temp.changes_on: one row when on, which lets the
// triggers log. The writer lock is held.
func (c *checker) setFlag(ctx context.Context, on bool) error {
	flag := `DELETE FROM temp.changes_on`
	if on {
		flag = `INSERT OR IGNORE INTO temp.changes_on VALUES (1)`
	}
	c.flagged = true
	_, err := c.s.wconn.ExecContext(ctx, flag)
	return err
}

// restoreFlag puts temp.changes_on back in step with the hook after a
// rollback (of a transaction or a savepoint) that may have taken back
// Record's write of it, so that the triggers log exactly while the hook
// is registered.
func (c *checker) restoreFlag() error {
	if !c.flagged {
		return nil
	}
	return c.setFlag(context.Background(), c.log.On())
}

// columnsOf finds where a kind's table keeps the columns the log reads.
// It returns the driver's error.
func (s *DB) columnsOf(ctx context.Context, k *store.Kind) (*logged, error) {
	rows, err := s.wconn.QueryContext(ctx, `SELECT cid, name FROM pragma_table_info(?)`, k.Table)
	if err != nil {
		return nil, err
	}
	at := map[string]int{}
	_, err = store.ScanAll(rows, func(r store.Scanner) (struct{}, error) {
		var cid int
		var name string
		err := r.Scan(&cid, &name)
		at[name] = cid
		return struct{}{}, err
	})
	if err != nil {
		return nil, err
	}
	lg := &logged{k: k}
	need := append([]string{"id", "agent_id"}, k.TextCols...)
	for i, name := range need {
		c, ok := at[name]
		if !ok {
			return nil, fmt.Errorf("table %s has no column %s", k.Table, name)
		}
		switch i {
		case 0:
			lg.id = c
		case 1:
			lg.agent = c
		default:
			lg.textCols = append(lg.textCols, c)
		}
		lg.width = max(lg.width, c+1)
	}
	return lg, nil
}

// hook is the writer connection's pre-update hook, while the log checks
// the writes' reports: it records the watched inserts and deletes of
// memory rows, and notes updates of tables whose changes of text the
// triggers log.
func (c *checker) hook(d modernc.SQLitePreUpdateData) {
	lg := c.tables[d.TableName]
	if lg == nil || d.DatabaseName != "main" {
		return
	}
	w := lg.w
	if d.Op == sqlite3.SQLITE_UPDATE {
		c.texts = c.texts || w.TextChanges
		return
	}
	var ch store.Change
	var row func(dest ...any) error
	switch d.Op {
	case sqlite3.SQLITE_INSERT:
		if !w.Insert {
			return
		}
		ch.Op, ch.PK, row = store.ChangeInsert, d.NewRowID, d.New
	case sqlite3.SQLITE_DELETE:
		if !w.Delete {
			return
		}
		ch.Op, ch.PK, row = store.ChangeDelete, d.OldRowID, d.Old
	default:
		return
	}
	ch.Kind = lg.k.Name
	width := lg.width
	if !w.Text {
		width = max(lg.id, lg.agent) + 1
	}
	vals := make([]any, width)
	if err := row(vals...); err != nil {
		// A row the hook cannot read is logged without its values: the
		// followers that need them start again from the table.
		ch.ID, ch.Agent = "", ""
	} else {
		ch.ID, _ = vals[lg.id].(string)
		ch.Agent, _ = vals[lg.agent].(string)
		if w.Text {
			ch.Text = lg.k.TextFrom(func(i int) string { s, _ := vals[lg.textCols[i]].(string); return s })
		}
	}
	c.seen = append(c.seen, ch)
}

// Check compares reported with what the hook and the triggers saw since
// the last Check, and forgets what they saw. It implements
// store.LogCheck, and returns ErrChangeLog when they differ, or the
// driver's error.
func (c *checker) Check(q store.Tx, reported []store.Change) error {
	seen := c.seen
	c.seen = nil
	if c.texts {
		c.texts = false
		rows, err := q.Query(`DELETE FROM temp.changes RETURNING kind, pk, agent_id, id`)
		if err != nil {
			return err
		}
		texts, err := store.ScanAll(rows, func(r store.Scanner) (store.Change, error) {
			ch := store.Change{Op: store.ChangeText}
			err := r.Scan(&ch.Kind, &ch.PK, &ch.Agent, &ch.ID)
			return ch, err
		})
		if err != nil {
			return err
		}
		seen = append(seen, texts...)
	}
	return compare(reported, seen)
}

// checkMark is the record's state when a savepoint began: what the hook
// saw, and whether temp.changes may hold some.
type checkMark struct {
	seen  []store.Change
	texts bool
}

// Mark returns the record's state for Rewind. It implements
// store.LogCheck.
func (c *checker) Mark() any {
	// Clipped, so that what is appended does not write over it.
	return checkMark{seen: slices.Clip(c.seen), texts: c.texts}
}

// Rewind puts the record back to mark when a savepoint rolls back: what
// the hook saw in it never happened; the rows of temp.changes drained in
// it come back with the rollback. It puts the triggers' flag back in
// step with the hook, and returns the driver's error. It implements
// store.LogCheck.
func (c *checker) Rewind(mark any) error {
	m, _ := mark.(checkMark)
	c.seen, c.texts = m.seen, m.texts
	return c.restoreFlag()
}

// Reset forgets what a transaction that rolled back saw, and puts the
// triggers' flag back in step with the hook: outside a transaction, for
// good (should that fail, the next rollback tries again). It implements
// store.LogCheck.
func (c *checker) Reset() {
	c.seen, c.texts = nil, false
	if c.restoreFlag() == nil {
		c.flagged = false
	}
}

// ErrChangeLog is the error of a transaction whose writes' reports differ
// from what SQLite saw them change (see CheckChangeLog): a statement that
// changes memory rows without reporting them.
var ErrChangeLog = errors.New("engram: the change log: the writes' reports differ from the rows SQLite saw change")

// compare checks the changes the writes reported, reported, against those
// SQLite's hook and triggers saw, seen: the same inserts and deletes in
// the same order, each insert with the same text when the log keeps it,
// and the same changes of text, in any order (the triggers log them by
// row, the writes by statement). It returns ErrChangeLog, with both
// lists, when they differ.
func compare(reported, seen []store.Change) error {
	type key struct {
		kind      string
		op        byte
		pk        int64
		agent, id string
		text      string
	}
	split := func(cs []store.Change) (order, texts []key) {
		for _, c := range cs {
			k := key{c.Kind, c.Op, c.PK, c.Agent, c.ID, ""}
			if c.Op == store.ChangeText {
				texts = append(texts, k)
				continue
			}
			if c.Op == store.ChangeInsert {
				k.text = c.Text
			}
			order = append(order, k)
		}
		slices.SortFunc(texts, func(a, b key) int { return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.pk, b.pk)) })
		return order, texts
	}
	ro, rt := split(reported)
	so, st := split(seen)
	if slices.Equal(ro, so) && slices.Equal(rt, st) {
		return nil
	}
	return fmt.Errorf("%w: reported %+v %+v, SQLite saw %+v %+v", ErrChangeLog, ro, rt, so, st)
}

// Refresh asks the followers what they need now and turns the log on or
// off (see store.ChangeLog.Refresh), taking the writer lock. A follower
// whose needs change outside a write calls it; one in a write (or in its
// callbacks, with the lock held) calls RefreshHeld. It returns
// store.ErrClosed after Close, and the driver's error.
func (s *DB) Refresh(ctx context.Context) error {
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	return s.RefreshHeld(ctx, "")
}

// RefreshHeld is Refresh for a caller that holds the writer lock: inside
// a write transaction, or in its callbacks. The database's one log holds
// every agent's followers: agent is not needed. It does nothing before the
// first Follow, and returns the driver's error, or one matching
// store.ErrWatch for a watch of a kind its follower did not say it might
// watch when it was registered.
func (s *DB) RefreshHeld(ctx context.Context, agent string) error {
	if s.log == nil {
		return nil
	}
	return s.log.Refresh(ctx)
}

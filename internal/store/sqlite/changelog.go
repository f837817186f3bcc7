package sqlite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/engram-go/engram/internal/store"
	modernc "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The change log keeps in-memory state beside the database (the text
// index, the stem index of auto-linking, the vector index) in step with
// the rows it is made from. It needs no hook of the engine: every
// function of internal/store that inserts or deletes a memory row, or
// changes its text, reports the rows it changed to the transaction it
// runs in (store.Querier's Changed), which logs those its followers
// watch. The statements report what they did from their RETURNING rows
// or their own values; an update of text compares the row's text columns
// before and after, so that the bulk updates of decay and access counts
// report nothing.
//
// A write transaction hands what was logged to its followers
// (store.Follower, watching what store.Watch says) before it commits
// (DB.settle), or earlier when a follower needs to be current in the
// middle of it (Tx.Changes). Changes made through other connections
// (another Memory on the same file, another process) are not logged here:
// each follower also checks a per-agent counter in meta that triggers
// move on with every change, and starts again from the table when the
// counter moved further than its own changes explain.
//
// The tests check that the reports are whole: with CheckChangeLog set
// (the root package's tests set it), SQLite's pre-update hook and
// temporary triggers on the writer connection log the same changes from
// below, and a transaction whose reports differ from what they saw fails
// (see compare).

// CheckChangeLog makes every change log made from then on check the
// writes' reports against SQLite's own record of the rows changed (see
// compare). Tests set it; it costs a hook call per row changed.
var CheckChangeLog = false

// changeLog is the writer connection's log. The writer lock guards it.
type changeLog struct {
	s      *DB
	tables map[string]*logged // by table name
	// followers are the followers of each agent whose Memory is open on
	// the database, in the order they were registered.
	followers map[string][]store.Follower
	on        bool           // some follower needs changes now: the log records
	pending   []store.Change // reported by the writes, not handed out yet

	// check is CheckChangeLog when the log was made: the hook and the
	// triggers below log what SQLite saw, to compare with the reports.
	check bool
	// installed are the statements that made the temporary tables and
	// triggers on the writer connection, in order: a writer opened again
	// (see DB.wake) runs them again.
	installed []string
	seen      []store.Change // the inserts and deletes the hook saw
	// texts says a statement updated a table whose changes of text the
	// temporary triggers log: temp.changes may hold some.
	texts bool
	// flagged says refresh wrote temp.changes_on, maybe inside a write
	// transaction, since a rollback last put it back in step with on: a
	// rollback may take the write back (see restoreFlag).
	flagged bool
}

// logged is what the log records of one kind.
type logged struct {
	k              *store.Kind
	insert, delete bool // the hook records these now
	text           bool // with the text of inserts and deletes
	id, agent      int  // the columns' positions in the table
	textCols       []int
	width          int  // how many columns a row read needs
	onUpdateOfText bool // a trigger logs changes of text
}

// Follow registers agent's followers with the database's change log,
// making the log when it is the first. The log records while some
// follower needs changes (see Refresh): a memory nobody follows pays
// nothing for it. When the log checks the reports (CheckChangeLog), it
// prepares on the writer connection what SQLite's own record needs: the
// temporary log table and the triggers for changes of text. It is called
// when a Memory opens. It returns
// store.ErrClosed after Close, and the driver's error (or a watch of a
// kind the log cannot follow) as Config.Wrap makes it for "open".
func (s *DB) Follow(ctx context.Context, agent string, followers ...store.Follower) error {
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if s.log == nil {
		s.log = &changeLog{s: s, tables: map[string]*logged{}, followers: map[string][]store.Follower{}, check: CheckChangeLog}
	}
	l := s.log
	var stmts []string
	if l.check {
		stmts = []string{`CREATE TEMP TABLE IF NOT EXISTS changes (
			seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, pk INTEGER NOT NULL, agent_id TEXT NOT NULL,
			id TEXT NOT NULL)`,
			// One row while the hook is registered: the triggers log only then.
			`CREATE TEMP TABLE IF NOT EXISTS changes_on (on_ INTEGER PRIMARY KEY)`}
	}
	var texts []*logged
	for _, f := range followers {
		for _, w := range f.Watches(true) {
			k := store.KindNamed(w.Kind)
			if k == nil {
				return s.fail("open", fmt.Errorf("the change log knows no kind %q", w.Kind))
			}
			if w.Text && k.TextErr != nil {
				return s.fail("open", fmt.Errorf("the change log cannot make the text of a %s: %w", k.Noun, k.TextErr))
			}
			lg := l.tables[k.Table]
			if lg == nil {
				lg = &logged{k: k}
				if l.check {
					var err error
					if lg, err = s.columnsOf(ctx, k); err != nil {
						return err
					}
				}
				l.tables[k.Table] = lg
			}
			if strings.IndexByte(w.Ops, store.ChangeText) >= 0 && !lg.onUpdateOfText {
				lg.onUpdateOfText = true
				texts = append(texts, lg)
			}
		}
	}
	for _, lg := range texts {
		if !l.check {
			break
		}
		k := lg.k
		stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS changes_`+k.Table+` AFTER UPDATE ON main.`+k.Table+
			` WHEN (`+k.TextChanged()+`) AND EXISTS (SELECT 1 FROM temp.changes_on) BEGIN INSERT INTO temp.changes (kind, pk, agent_id, id) VALUES ('`+
			k.Name+`', new.pk, new.agent_id, new.id); END`)
	}
	for _, stmt := range stmts {
		if slices.Contains(l.installed, stmt) {
			continue
		}
		if _, err := s.wconn.ExecContext(ctx, stmt); err != nil {
			return s.fail("open", err)
		}
		l.installed = append(l.installed, stmt)
	}
	l.followers[agent] = append(l.followers[agent], followers...)
	if err := l.refresh(ctx); err != nil {
		l.followers[agent] = l.followers[agent][:len(l.followers[agent])-len(followers)]
		return s.fail("open", err)
	}
	return nil
}

// Unfollow forgets agent's followers, when its Memory closes, and
// turns the log off when no other follower needs it. A writer that
// cannot be opened again leaves nothing to turn off.
func (s *DB) Unfollow(agent string, followers ...store.Follower) {
	if s.lockWriter(context.Background()) != nil {
		return
	}
	defer s.wmu.Unlock()
	l := s.log
	if l == nil {
		return
	}
	l.followers[agent] = slices.DeleteFunc(l.followers[agent], func(f store.Follower) bool { return slices.Contains(followers, f) })
	if len(l.followers[agent]) == 0 {
		delete(l.followers, agent)
	}
	_ = l.refresh(context.Background()) // the hook only costs time
}

// install makes the log's temporary tables and triggers again on a new
// writer connection, and registers the hook when the log was on and
// checks. The writer lock is held.
func (l *changeLog) install(ctx context.Context) error {
	for _, stmt := range l.installed {
		if _, err := l.s.wconn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if !l.on {
		return nil
	}
	l.on = false
	return l.refresh(ctx)
}

// refresh asks the followers what they need now, and turns the log on
// when any needs something, or off when none does; a log that checks
// registers the pre-update hook (and lets the triggers log) while it is
// on. The writer lock is held.
func (l *changeLog) refresh(ctx context.Context) error {
	for _, lg := range l.tables {
		lg.insert, lg.delete, lg.text = false, false, false
	}
	need := false
	for _, f := range l.all() {
		for _, w := range f.Watches(false) {
			lg := l.tables[store.KindNamed(w.Kind).Table]
			for _, op := range []byte(w.Ops) {
				switch op {
				case store.ChangeInsert:
					lg.insert = true
				case store.ChangeDelete:
					lg.delete = true
				}
			}
			lg.text = lg.text || w.Text
			need = true
		}
	}
	if need == l.on {
		return nil
	}
	if !l.check {
		l.on = need
		return nil
	}
	if err := l.setFlag(ctx, need); err != nil {
		return err
	}
	var hook modernc.PreUpdateHookFn
	if need {
		hook = l.hook
	}
	err := l.s.wconn.Raw(func(dc any) error {
		hr, ok := dc.(modernc.HookRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver's connection (%T) takes no pre-update hook", dc)
		}
		hr.RegisterPreUpdateHook(hook)
		return nil
	})
	if err != nil {
		return err
	}
	l.on = need
	return nil
}

// setFlag writes temp.changes_on: one row when on, which lets the
// triggers log. The writer lock is held.
func (l *changeLog) setFlag(ctx context.Context, on bool) error {
	flag := `DELETE FROM temp.changes_on`
	if on {
		flag = `INSERT OR IGNORE INTO temp.changes_on VALUES (1)`
	}
	l.flagged = true
	_, err := l.s.wconn.ExecContext(ctx, flag)
	return err
}

// restoreFlag puts temp.changes_on back in step with the hook after a
// rollback (of a transaction or a savepoint) that may have taken back
// refresh's write of it, so that the triggers log exactly while the hook
// is registered.
func (l *changeLog) restoreFlag() error {
	if l == nil || !l.flagged {
		return nil
	}
	return l.setFlag(context.Background(), l.on)
}

// columnsOf finds where a kind's table keeps the columns the log reads.
func (s *DB) columnsOf(ctx context.Context, k *store.Kind) (*logged, error) {
	rows, err := s.wconn.QueryContext(ctx, `SELECT cid, name FROM pragma_table_info(?)`, k.Table)
	if err != nil {
		return nil, s.fail("open", err)
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
		return nil, s.fail("open", err)
	}
	lg := &logged{k: k}
	need := append([]string{"id", "agent_id"}, k.TextCols...)
	for i, name := range need {
		c, ok := at[name]
		if !ok {
			return nil, s.fail("open", fmt.Errorf("table %s has no column %s", k.Table, name))
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
func (l *changeLog) hook(d modernc.SQLitePreUpdateData) {
	lg := l.tables[d.TableName]
	if lg == nil || d.DatabaseName != "main" {
		return
	}
	if d.Op == sqlite3.SQLITE_UPDATE {
		l.texts = l.texts || lg.onUpdateOfText
		return
	}
	var c store.Change
	var row func(dest ...any) error
	switch d.Op {
	case sqlite3.SQLITE_INSERT:
		if !lg.insert {
			return
		}
		c.Op, c.PK, row = store.ChangeInsert, d.NewRowID, d.New
	case sqlite3.SQLITE_DELETE:
		if !lg.delete {
			return
		}
		c.Op, c.PK, row = store.ChangeDelete, d.OldRowID, d.Old
	default:
		return
	}
	c.Kind = lg.k.Name
	width := lg.width
	if !lg.text {
		width = max(lg.id, lg.agent) + 1
	}
	vals := make([]any, width)
	if err := row(vals...); err != nil {
		// A row the hook cannot read is logged without its values: the
		// followers that need them start again from the table.
		c.ID, c.Agent = "", ""
	} else {
		c.ID, _ = vals[lg.id].(string)
		c.Agent, _ = vals[lg.agent].(string)
		if lg.text {
			c.Text = lg.k.TextFrom(func(i int) string { s, _ := vals[lg.textCols[i]].(string); return s })
		}
	}
	l.seen = append(l.seen, c)
}

// Changed logs the change c that a statement of q's write transaction
// reported (see store.Querier), when a follower watches such changes now.
func (q *Tx) Changed(c store.Change) {
	if q.tx == nil || q.tx.s.log == nil || !q.tx.s.log.on {
		return
	}
	l := q.tx.s.log
	k := store.KindNamed(c.Kind)
	if k == nil {
		return
	}
	lg := l.tables[k.Table]
	if lg == nil {
		return
	}
	switch c.Op {
	case store.ChangeInsert:
		if !lg.insert {
			return
		}
		if !lg.text {
			c.Text = ""
		}
	case store.ChangeDelete:
		if !lg.delete {
			return
		}
	case store.ChangeText:
		if !lg.onUpdateOfText {
			return
		}
	default:
		return
	}
	l.pending = append(l.pending, c)
}

// Changes hands the changes logged so far in q's write transaction to
// every follower. A follower that must be current in the middle of a
// transaction (auto-linking's stem index) calls it before it looks. It
// returns the driver's error or the first follower's.
func (q *Tx) Changes() error {
	l := q.tx.s.log
	if l == nil {
		return nil
	}
	cs := l.pending
	l.pending = nil
	if l.check {
		seen := l.seen
		l.seen = nil
		if l.texts {
			l.texts = false
			rows, err := q.query(`DELETE FROM temp.changes RETURNING kind, pk, agent_id, id`)
			if err != nil {
				return err
			}
			texts, err := store.ScanAll(rows, func(r store.Scanner) (store.Change, error) {
				c := store.Change{Op: store.ChangeText}
				err := r.Scan(&c.Kind, &c.PK, &c.Agent, &c.ID)
				return c, err
			})
			if err != nil {
				return err
			}
			seen = append(seen, texts...)
		}
		if err := compare(cs, seen); err != nil {
			return err
		}
	}
	if len(cs) == 0 {
		return nil
	}
	if known := q.tx.terms; len(known) > 0 {
		for i := range cs {
			if c := &cs[i]; c.Terms == nil && c.Op == store.ChangeInsert {
				c.Terms = known[c.Text]
			}
		}
		clear(known)
	}
	// A follower needs only the batches that hold changes of its agent's
	// rows (see store.Follower): with many agents open on one file, a write
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

// KnowTerms tells the change log the term vector of text, which the write
// made already, so that an insert of text that the log hands out in q's
// transaction carries it (store.Change Terms) instead of having it made
// again.
func (q *Tx) KnowTerms(text string, terms map[string]uint32) {
	if terms == nil || q.tx.s.log == nil || !q.tx.s.log.on {
		return
	}
	if q.tx.terms == nil {
		q.tx.terms = map[string]map[string]uint32{}
	}
	q.tx.terms[text] = terms
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

// all returns every agent's followers.
func (l *changeLog) all() []store.Follower {
	var out []store.Follower
	for _, fs := range l.followers {
		out = append(out, fs...)
	}
	return out
}

// logMark is the log's state when a savepoint began: the changes not
// handed out yet, and, when it checks, those SQLite saw and whether
// temp.changes may hold some.
type logMark struct {
	pending, seen []store.Change
	texts         bool
}

// mark and rewind keep the log in step with a savepoint: what was
// reported (or seen) in a savepoint that rolls back never happened, and what was handed
// out in it of the changes made before it is handed out again, since the
// followers that applied it forgot it (see store.Follower). The rows of
// temp.changes drained in it come back with the rollback.
func (l *changeLog) mark() logMark {
	if l == nil {
		return logMark{}
	}
	// Clipped, so that what is appended does not write over it.
	return logMark{pending: slices.Clip(l.pending), seen: slices.Clip(l.seen), texts: l.texts}
}

func (l *changeLog) rewind(m logMark) {
	if l != nil {
		l.pending, l.seen, l.texts = m.pending, m.seen, m.texts
	}
}

// reset forgets what a transaction that rolled back logged, and puts
// the triggers' flag back in step with the hook: outside a transaction,
// for good (should that fail, the next rollback tries again).
func (l *changeLog) reset() {
	if l != nil {
		l.pending, l.seen, l.texts = nil, nil, false
		if l.restoreFlag() == nil {
			l.flagged = false
		}
	}
}

// settle runs at the end of a write transaction, before COMMIT: the
// followers get the changes not handed out yet, then the BeforeCommit
// callbacks run.
func (s *DB) settle(q *Tx) error {
	if err := q.Changes(); err != nil {
		return err
	}
	for i := 0; i < len(q.tx.before); i++ { // a callback may register another
		if err := q.tx.before[i](q); err != nil {
			return err
		}
	}
	return nil
}

// Refresh asks the followers what they need now and turns the log on or
// off, as refresh does, taking the writer lock. A follower whose needs change outside a write calls it; one in a
// write (or in its callbacks, with the lock held) calls RefreshHeld. It
// returns store.ErrClosed after Close, and the driver's error.
func (s *DB) Refresh(ctx context.Context) error {
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	return s.RefreshHeld(ctx)
}

// RefreshHeld is Refresh for a caller that holds the writer lock: inside
// a write transaction, or in its callbacks. It does nothing before the
// first Follow.
func (s *DB) RefreshHeld(ctx context.Context) error {
	if s.log == nil {
		return nil
	}
	return s.log.refresh(ctx)
}

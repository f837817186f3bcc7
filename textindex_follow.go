package engram

import (
	"context"

	"github.com/engram-go/engram/internal/store"
)

// The text index follows its own Memory's writes. A search after a
// write would otherwise catch the index up itself: read the rows inserted
// since on a reader connection, whose page cache SQLite drops whenever
// another connection has written, so that the agent loop's search after
// every Log paid for that read from cold pages. The writer reads them
// instead, at the end of the write transaction that inserted them, on a
// connection whose pages are warm, and the index is caught up when the
// transaction commits: the next search finds it as of its own snapshot.
// Writes from other connections and processes are still caught up by the
// search (see textIndex.view), through the same version counter.

// textFollower is the change log's follower (see store.Follower) that keeps
// m's text index caught up with m's own inserts.
type textFollower struct {
	m *Memory
	// tx is the write transaction whose end catches the index up, once
	// it has inserted a searchable row of the agent.
	tx any
}

// Watches asks for inserts of every searchable kind while the index is
// built (a Memory that never searches by text pays nothing), or, with
// all, for every change it may ever need.
func (f *textFollower) Watches(all bool) []store.Watch {
	if !all {
		x := &f.m.text
		x.mu.RLock()
		built := x.data != nil
		x.mu.RUnlock()
		if !built {
			return nil
		}
	}
	ws := make([]store.Watch, 0, len(ftsSources))
	for _, src := range ftsSources {
		ws = append(ws, store.Watch{Kind: string(src.kind.typ), Ops: "i"})
	}
	return ws
}

// followText tells the change log that the text index is built, so that
// m's own inserts reach textFollower from now on. Should that fail (the
// writer cannot be had: the Memory is closing, or its database is
// read-only), searches catch the index up themselves, as they do after
// other connections' writes.
func (m *Memory) followText(ctx context.Context) {
	if m.db.ReadOnly() {
		return
	}
	_ = m.db.Refresh(ctx)
}

// Follow notes that q's transaction inserted searchable rows of the
// agent, so that the index catches up with them as it ends.
func (f *textFollower) Follow(q store.Tx, cs []store.Change) error {
	if f.tx == q.Write() {
		return nil
	}
	for _, c := range cs {
		if c.Op == store.ChangeInsert && c.Agent == f.m.agent {
			f.tx = q.Write()
			q.BeforeCommit(f.catchUp)
			return nil
		}
	}
	return nil
}

// catchUp reads, at the end of q's write transaction, the rows the index
// lacks of the transaction's snapshot, and installs them when the
// transaction commits. It reads the database as it is then, so a
// savepoint that rolled back leaves nothing behind; when anything but
// inserts changed the texts since the index's version, it leaves the
// index to the next search, which builds it again.
func (f *textFollower) catchUp(q store.Tx) error {
	x := &f.m.text
	x.mu.RLock()
	d := x.data
	var from int64
	var last []int64
	if d != nil {
		from, last = d.version, d.lasts()
	}
	x.mu.RUnlock()
	if d == nil {
		return nil
	}
	version, err := store.TextVersion(q, f.m.agent)
	if err != nil {
		return err
	}
	if version <= from || version-from > textCatchUpMax {
		return nil
	}
	up, err := readCatchUp(q, f.m, last, version-from)
	if err != nil || up == nil {
		return err
	}
	q.OnCommit(func() { x.install(d, from, version, up) })
	return nil
}

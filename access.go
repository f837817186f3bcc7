package engram

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// accessLog holds the accesses searches noted and not yet written: writing
// them costs a write transaction, and each write makes every reader
// connection drop its page cache (WAL readers start afresh after another
// connection's commit), which at 100K memories cost searches a third of
// their speed when the hits were written every second. So the hits of up
// to accessDelay of searches (or of accessBatch entries) are written
// together, in one statement. A search that fills the batch leaves the
// write to a goroutine of its own (background), so that no search waits
// for it. Every write of the Memory writes what is pending first, in its
// own transaction (Memory.write), so that the write paths that work on
// access counts in SQL (compaction, consolidation, updates) see them.
//
// Reads never write them: a read that returns access counts overlays
// what is pending on what it read, so that it cannot fail, or wait, for
// want of a write (another process holding the write lock, a full disk).
// To overlay exactly, each write of accesses moves the meta counter
// access.version:{agent} on in its transaction, and the batch it wrote is
// kept for a while with that version (batches): a read whose snapshot has
// an older version adds the batch, one with its version or a newer one
// already holds it.
type accessLog struct {
	mu      sync.Mutex // guards the fields below
	pending map[string]accessNote
	oldest  time.Time     // when the oldest pending access was noted, in real time
	batches []*accessSent // being written or written recently, oldest first

	background sync.WaitGroup // the goroutine writing a full batch, if any
	busy       atomic.Bool    // a background write is under way
	startMu    sync.Mutex     // guards stopped and background's Add
	stopped    bool           // Close has begun: no more background writes
}

// stop lets no more background write start and waits for the one under
// way, if any.
func (a *accessLog) stop() {
	a.startMu.Lock()
	a.stopped = true
	a.startMu.Unlock()
	a.background.Wait()
}

// accessSent is a batch of accesses being written (version 0 until its
// transaction knows its version) or written at the given real time.
type accessSent struct {
	notes   map[string]accessNote
	version int64
	at      time.Time
}

// accessKeep is how long a written batch is kept for reads whose snapshot
// is older than its write: far longer than any read takes.
const accessKeep = time.Minute

// metaAccessVersion (+ agent) counts the agent's writes of accesses.
const metaAccessVersion = "access.version:"

// overlay adds to e the accesses not in a snapshot whose access version
// is version: those pending and those of batches written after it.
func (a *accessLog) overlay(e *SemanticEntry, version int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	add := func(n accessNote, ok bool) {
		if ok {
			e.AccessCount += n.N
			if at := fromMS(n.At); at.After(e.LastAccessedAt) {
				e.LastAccessedAt = at
			}
		}
	}
	for _, b := range a.batches {
		if b.version == 0 || b.version > version {
			n, ok := b.notes[e.ID]
			add(n, ok)
		}
	}
	n, ok := a.pending[e.ID]
	add(n, ok)
}

// overlayAccess reads the agent's access version in q's snapshot and
// overlays the accesses it does not hold on entries.
func (m *Memory) overlayAccess(q *dbtx, entries []SemanticEntry) error {
	v, err := counter(q, metaAccessVersion+m.agent)
	if err != nil {
		return err
	}
	for i := range entries {
		m.access.overlay(&entries[i], v)
	}
	return nil
}

// accessNote is what to add to one entry.
type accessNote struct {
	N  int   `json:"n"`
	At int64 `json:"at"` // the latest access, Unix ms
}

const (
	accessDelay = 30 * time.Second
	accessBatch = 4096
)

// note adds one access of each entry at now and reports whether the
// pending accesses are due to be written.
func (a *accessLog) note(ids []string, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = make(map[string]accessNote)
	}
	if len(a.pending) == 0 {
		a.oldest = time.Now()
	}
	for _, id := range ids {
		n := a.pending[id]
		n.N++
		n.At = max(n.At, ms(now))
		a.pending[id] = n
	}
	return len(a.pending) >= accessBatch || time.Since(a.oldest) >= accessDelay
}

// count returns how many entries have accesses not written.
func (a *accessLog) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending)
}

// take empties the log and returns what it held, as a batch being written.
func (a *accessLog) take() *accessSent {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.pending) == 0 {
		return nil
	}
	b := &accessSent{notes: a.pending}
	a.pending = nil
	a.batches = append(a.batches, b)
	return b
}

// setVersion records that batch b's transaction makes it version v.
func (a *accessLog) setVersion(b *accessSent, v int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.version = v
}

// written records that batch b was committed, and forgets batches written
// more than accessKeep ago.
func (a *accessLog) written(b *accessSent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	b.at = now
	a.batches = slices.DeleteFunc(a.batches, func(x *accessSent) bool {
		return !x.at.IsZero() && now.Sub(x.at) > accessKeep
	})
}

// putBack returns the accesses of batch b, whose write failed, to the log.
func (a *accessLog) putBack(b *accessSent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.batches = slices.DeleteFunc(a.batches, func(x *accessSent) bool { return x == b })
	p := b.notes
	if a.pending == nil {
		a.pending = make(map[string]accessNote, len(p))
		a.oldest = time.Now()
	}
	for id, n := range p {
		cur := a.pending[id]
		cur.N += n.N
		cur.At = max(cur.At, n.At)
		a.pending[id] = cur
	}
}

// flushAccessSoon writes the pending accesses in a goroutine of its own,
// unless one is doing so already. A failure is logged; the accesses stay
// pending.
func (m *Memory) flushAccessSoon() {
	a := &m.access
	if !a.busy.CompareAndSwap(false, true) {
		return
	}
	a.startMu.Lock()
	if a.stopped {
		a.startMu.Unlock()
		return
	}
	a.background.Add(1)
	a.startMu.Unlock()
	go func() {
		defer a.background.Done()
		defer a.busy.Store(false)
		if err := m.flushAccess(context.Background()); err != nil && !errors.Is(err, ErrClosed) {
			m.log.Warn("engram: access counts not written yet", "err", err)
		}
	}()
}

// flushAccess writes the pending accesses, if any, in a transaction of
// their own. (Every write of the Memory writes them anyway: see write.)
func (m *Memory) flushAccess(ctx context.Context) error {
	if m.access.count() == 0 {
		return nil
	}
	return m.write(ctx, "search.record_access", func(*dbtx) error { return nil })
}

// write runs fn in one write transaction of the Memory's store (see
// store.write), which first writes the accesses searches noted and no
// write has written yet: every write of the Memory keeps the access counts
// in step, so that compaction, decay, consolidation and updates work on
// them as they are, and no write path has to remember them.
func (m *Memory) write(ctx context.Context, op string, fn func(q *dbtx) error) error {
	return m.db.write(ctx, op, func(q *dbtx) error {
		if err := m.writeAccess(q); err != nil {
			return err
		}
		return fn(q)
	})
}

// writeAccess writes the pending accesses in q's transaction, in one
// statement. An entry deleted since it was found is skipped. If the
// transaction rolls back they are pending again.
func (m *Memory) writeAccess(q *dbtx) error {
	batch := m.access.take()
	if batch == nil {
		return nil
	}
	q.onRollback(func() { m.access.putBack(batch) })
	q.onCommit(func() { m.access.written(batch) })
	type row struct {
		ID string `json:"id"`
		accessNote
	}
	list := make([]row, 0, len(batch.notes))
	for id, n := range batch.notes {
		list = append(list, row{id, n})
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	// The list is materialized first so that it drives the update;
	// joined to json_each directly, the planner scans the agent's entries
	// and parses the list once for each.
	_, err = q.exec(`WITH j(id, n, at) AS MATERIALIZED (
			SELECT value ->> '$.id', value ->> '$.n', value ->> '$.at' FROM json_each(?2))
		UPDATE semantic_memory SET access_count = access_count + j.n, last_accessed_at = max(last_accessed_at, j.at)
		FROM j WHERE semantic_memory.agent_id = ?1 AND semantic_memory.id = j.id`,
		m.agent, string(b))
	if err != nil {
		return err
	}
	key := metaAccessVersion + m.agent
	if err := bumpCounter(q, key, 1); err != nil {
		return err
	}
	v, err := counter(q, key)
	if err != nil {
		return err
	}
	// Before COMMIT: from the moment a snapshot can hold the batch, its
	// version says so.
	m.access.setVersion(batch, v)
	return nil
}

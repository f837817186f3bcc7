package engram

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// accessLog holds the accesses searches noted (a search's semantic hits)
// and the retrievals Recall noted (the memories, of any kind, it admitted
// into the working set), not yet written: writing them costs a write
// transaction, and each write makes every reader connection drop its page
// cache (WAL readers start afresh after another connection's commit),
// which at 100K memories cost searches a third of their speed when the
// hits were written every second. So the notes of up to accessDelay of
// searches (or of accessBatch memories) are written together, one
// statement per kind. A search that fills the batch leaves the write to a
// goroutine of its own (background), so that no search waits for it.
// Every write of the Memory writes what is pending first, in the write's
// own transaction (see Memory.write), so that the write paths that work on
// access counts in SQL (compaction, consolidation, updates) see them.
//
// Reads never write them: a read that returns access or retrieval counts
// overlays what is pending on what it read, so that it cannot fail, or
// wait, for want of a write (another process holding the write lock, a
// full disk). To overlay exactly, each write of notes moves the meta
// counter access.version:{agent} on in its transaction, and the batch it
// wrote is kept for a while with that version (batches): a read whose
// snapshot has an older version adds the batch, one with its version or a
// newer one already holds it.
type accessLog struct {
	mu      sync.Mutex // guards the fields below
	pending map[noteKey]accessNote
	noted   uint64        // moves on with every note (see Memory.summaryKey)
	oldest  time.Time     // when the oldest pending note was taken, in real time
	batches []*accessSent // being written or written recently, oldest first

	background sync.WaitGroup // the goroutine writing a full batch, if any
	busy       atomic.Bool    // a background write is under way
	startMu    sync.Mutex     // guards stopped and background's Add
	stopped    bool           // Close has begun: no more background writes
}

// noteKey names a memory of any stored kind.
type noteKey struct {
	kind MemoryType
	id   string
}

// accessNote is what to add to one memory.
type accessNote struct {
	N  int   // accesses (searches that found a semantic entry)
	R  int   // retrievals (Recall admitted it into the working set)
	At int64 // the latest access, Unix ms
}

// add merges o into n.
func (n accessNote) add(o accessNote) accessNote {
	return accessNote{N: n.N + o.N, R: n.R + o.R, At: max(n.At, o.At)}
}

// stop lets no more background write start and waits for the one under
// way, if any.
func (a *accessLog) stop() {
	a.startMu.Lock()
	a.stopped = true
	a.startMu.Unlock()
	a.background.Wait()
}

// accessSent is a batch of notes being written (version 0 until its
// transaction knows its version) or written at the given real time.
type accessSent struct {
	notes   map[noteKey]accessNote
	version int64
	at      time.Time
}

// accessKeep is how long a written batch is kept for reads whose snapshot
// is older than its write: far longer than any read takes.
const accessKeep = time.Minute

// metaAccessVersion (+ agent) counts the agent's writes of notes.
const metaAccessVersion = "access.version:"

// unwritten returns what the notes add to the memory k in a snapshot whose
// access version is version: those pending and those of batches written
// after it.
func (a *accessLog) unwritten(k noteKey, version int64) accessNote {
	a.mu.Lock()
	defer a.mu.Unlock()
	var sum accessNote
	for _, b := range a.batches {
		if b.version == 0 || b.version > version {
			sum = sum.add(b.notes[k])
		}
	}
	return sum.add(a.pending[k])
}

// counts is where a read memory keeps what the access log adds to.
type counts struct {
	kind       MemoryType
	id         string
	accesses   *int       // nil for kinds without access counts
	lastAccess *time.Time // likewise
	retrievals *int
}

func (e *SemanticEntry) counts() counts {
	return counts{TypeSemantic, e.ID, &e.AccessCount, &e.LastAccessedAt, &e.Retrievals}
}
func (e *Episode) counts() counts         { return counts{TypeEpisodic, e.ID, nil, nil, &e.Retrievals} }
func (p *Procedure) counts() counts       { return counts{TypeProcedural, p.ID, nil, nil, &p.Retrievals} }
func (s *SessionSnapshot) counts() counts { return counts{TypeSnapshot, s.ID, nil, nil, &s.Retrievals} }

// counted is a memory whose counts the access log adds to.
type counted[T any] interface {
	*T
	counts() counts
}

// overlayAll overlays the unwritten notes on every memory of list (see
// overlayAccess).
func overlayAll[T any, P counted[T]](m *Memory, q store.Tx, list []T) error {
	cs := make([]counts, len(list))
	for i := range list {
		cs[i] = P(&list[i]).counts()
	}
	return m.overlayAccess(q, cs...)
}

// readCounted runs query in one read, scans every row with scan and
// overlays the unwritten notes on them.
func readCounted[T any, P counted[T]](ctx context.Context, m *Memory, op string, scan func(store.Scanner) (T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := m.read(ctx, op, func(q store.Tx) error {
		var err error
		out, err = queryCounted[T, P](m, q, scan, query, args...)
		return err
	})
	return out, err
}

// queryCounted is readCounted in q's transaction.
func queryCounted[T any, P counted[T]](m *Memory, q store.Tx, scan func(store.Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	out, err := store.ScanAll(rows, scan)
	if err != nil {
		return nil, err
	}
	return out, overlayAll[T, P](m, q, out)
}

// overlayAccess reads the agent's access version in q's snapshot and adds
// to each of cs the notes that snapshot does not hold.
func (m *Memory) overlayAccess(q store.Tx, cs ...counts) error {
	if len(cs) == 0 || m.access.idle() {
		return nil
	}
	v, err := store.Counter(q, metaAccessVersion+m.agent)
	if err != nil {
		return err
	}
	for _, c := range cs {
		n := m.access.unwritten(noteKey{c.kind, c.id}, v)
		*c.retrievals += n.R
		if c.accesses != nil {
			*c.accesses += n.N
			if at := store.FromMS(n.At); n.At != 0 && at.After(*c.lastAccess) {
				*c.lastAccess = at
			}
		}
	}
	return nil
}

const (
	accessDelay = 30 * time.Second
	accessBatch = 4096
)

// note adds n to each memory of kind k with the given IDs and reports
// whether the pending notes are due to be written.
func (a *accessLog) note(k MemoryType, ids []string, n accessNote) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = make(map[noteKey]accessNote)
	}
	if len(a.pending) == 0 {
		a.oldest = time.Now()
	}
	a.noted++
	for _, id := range ids {
		key := noteKey{k, id}
		a.pending[key] = a.pending[key].add(n)
	}
	return len(a.pending) >= accessBatch || time.Since(a.oldest) >= accessDelay
}

// idle reports whether the log adds nothing to any read: no notes
// pending, no batch kept.
func (a *accessLog) idle() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending) == 0 && len(a.batches) == 0
}

// notes returns how many times note was called: what the log adds to
// reads changes only when it moves on (or when a write commits).
func (a *accessLog) notes() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.noted
}

// unwrittenOf returns what the notes add to each memory of kind k in a
// snapshot whose access version is version (see unwritten).
func (a *accessLog) unwrittenOf(k MemoryType, version int64) map[string]accessNote {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]accessNote{}
	add := func(notes map[noteKey]accessNote) {
		for key, n := range notes {
			if key.kind == k {
				out[key.id] = out[key.id].add(n)
			}
		}
	}
	for _, b := range a.batches {
		if b.version == 0 || b.version > version {
			add(b.notes)
		}
	}
	add(a.pending)
	return out
}

// discard drops the notes not written yet: those of an agent whose memory
// is gone (see ForgetAgent), which writing would bring back in part.
func (a *accessLog) discard() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = nil
}

// count returns how many memories have notes not written.
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

// putBack returns the notes of batch b, whose write failed, to the log.
func (a *accessLog) putBack(b *accessSent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.batches = slices.DeleteFunc(a.batches, func(x *accessSent) bool { return x == b })
	if a.pending == nil {
		a.pending = make(map[noteKey]accessNote, len(b.notes))
		a.oldest = time.Now()
	}
	for k, n := range b.notes {
		a.pending[k] = a.pending[k].add(n)
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
	return m.write(ctx, "search.record_access", func(store.Tx) error { return nil })
}

// write runs fn in one write transaction of the Memory's database (see
// the engine's DB.Write), which first tells history who makes the changes (see
// beginChanges; an invalid actor or reason in ctx is an error matching
// ErrInvalid) and writes the accesses searches noted and no write has
// written yet: every write of the Memory keeps the access counts
// in step, so that compaction, decay, consolidation and updates work on
// them as they are, and no write path has to remember them.
func (m *Memory) write(ctx context.Context, op string, fn func(q store.Tx) error) error {
	if m.closed.Load() {
		return ErrClosed
	}
	actor, reason, err := m.changeContext(ctx)
	if err != nil {
		return err
	}
	err = m.db.Write(ctx, op, func(q store.Tx) error {
		if err := q.LockAgent(m.agent); err != nil {
			return err
		}
		if m.db.History() {
			if err := beginChanges(q, actor, reason, m.now()); err != nil {
				return err
			}
		}
		if err := m.writeAccess(q); err != nil {
			return err
		}
		return fn(q)
	})
	// Counted whether or not it committed: a summary computed meanwhile
	// is computed again, never kept past a change (see summaryKey).
	m.writes.Add(1)
	return err
}

// writeAccess writes the pending notes in q's transaction, one statement
// per kind. A memory deleted since it was noted is skipped. If the
// transaction rolls back they are pending again.
func (m *Memory) writeAccess(q store.Tx) error {
	batch := m.access.take()
	if batch == nil {
		return nil
	}
	q.OnRollback(func() { m.access.putBack(batch) })
	q.OnCommit(func() { m.access.written(batch) })
	byKind := map[MemoryType][]store.AccessNote{}
	for k, n := range batch.notes {
		byKind[k.kind] = append(byKind[k.kind], store.AccessNote{ID: k.id, N: n.N, R: n.R, At: n.At})
	}
	for _, k := range kinds {
		list := byKind[k.typ]
		if len(list) == 0 {
			continue
		}
		if err := store.AddAccess(q, k.Table, m.agent, k.typ == TypeSemantic, list); err != nil {
			return err
		}
	}
	key := metaAccessVersion + m.agent
	if err := store.BumpCounter(q, key, 1); err != nil {
		return err
	}
	v, err := store.Counter(q, key)
	if err != nil {
		return err
	}
	// Before COMMIT: from the moment a snapshot can hold the batch, its
	// version says so.
	m.access.setVersion(batch, v)
	return nil
}

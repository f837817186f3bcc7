package engram

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// accessLog holds the accesses searches noted and not yet written: writing
// them costs a write transaction, a tenth of a search, so the hits of up
// to a second of searches (or of accessBatch entries) are written
// together, in one statement, and before anything reads access counts.
// A search that fills the batch leaves the write to a goroutine of its
// own (background), so that no search waits for it; anything that reads
// access counts writes what is pending itself, after that goroutine's
// write (flushing).
type accessLog struct {
	mu      sync.Mutex // guards the fields below
	pending map[string]accessNote
	oldest  time.Time // when the oldest pending access was noted, in real time

	flushing   sync.Mutex     // held by every write of accesses, for all of it
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

// accessNote is what to add to one entry.
type accessNote struct {
	N  int   `json:"n"`
	At int64 `json:"at"` // the latest access, Unix ms
}

const (
	accessDelay = time.Second
	accessBatch = 256
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

// take empties the log and returns what it held.
func (a *accessLog) take() map[string]accessNote {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pending
	a.pending = nil
	return p
}

// putBack returns accesses whose write failed to the log.
func (a *accessLog) putBack(p map[string]accessNote) {
	a.mu.Lock()
	defer a.mu.Unlock()
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

// flushAccess writes the pending accesses, in one statement, after any
// write of them already under way. An entry deleted since it was found is
// skipped. On failure they stay pending.
func (m *Memory) flushAccess(ctx context.Context) error {
	m.access.flushing.Lock()
	defer m.access.flushing.Unlock()
	p := m.access.take()
	if len(p) == 0 {
		return nil
	}
	type row struct {
		ID string `json:"id"`
		accessNote
	}
	list := make([]row, 0, len(p))
	for id, n := range p {
		list = append(list, row{id, n})
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	err = m.db.write(ctx, "search.record_access", func(q *dbtx) error {
		// The list is materialized first so that it drives the update;
		// joined to json_each directly, the planner scans the agent's
		// entries and parses the list once for each.
		_, err := q.exec(`WITH j(id, n, at) AS MATERIALIZED (
				SELECT value ->> '$.id', value ->> '$.n', value ->> '$.at' FROM json_each(?2))
			UPDATE semantic_memory SET access_count = access_count + j.n, last_accessed_at = max(last_accessed_at, j.at)
			FROM j WHERE semantic_memory.agent_id = ?1 AND semantic_memory.id = j.id`,
			m.agent, string(b))
		return err
	})
	if err != nil {
		m.access.putBack(p)
	}
	return err
}

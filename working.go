package engram

import (
	"slices"
	"strings"
	"sync"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/store"
)

// Working is the agent's working set: a few items (7 by default) kept in
// process, never written to the database by themselves. When it is full,
// [Working.Add] evicts one item according to the [EvictionPolicy];
// [Memory.Flush] keeps the important items in semantic memory.
//
// Working is safe for concurrent use. Items are copied in and out: changing
// a returned item does not change the set.
type Working struct {
	m        *Memory
	capacity int
	policy   EvictionPolicy

	mu    sync.Mutex    // guards items and clock
	items []workingSlot // in the order they were added
	clock uint64        // logical time of the last add or use
}

type workingSlot struct {
	item  WorkingItem
	lower string // lowercased content, for Find
	terms []byte // the term vector of its content and tags, for searches
	ntok  int    // and its length (see bm25.Vector)
	added uint64 // logical time the item was added
	used  uint64 // logical time the item was last added or used
}

func newWorking(m *Memory) *Working {
	return &Working{
		m:        m,
		capacity: m.cfg.Working.Capacity,
		policy:   m.cfg.Working.Eviction,
		items:    make([]workingSlot, 0, m.cfg.Working.Capacity),
	}
}

// Capacity returns how many items the working set holds at most.
func (w *Working) Capacity() int { return w.capacity }

// Add puts an item in the working set and returns the items it evicted to
// make room (none or one). An empty ID gets a new time-ordered ID and a
// zero AddedAt the clock's now. Adding an item whose ID is already present
// replaces it, counts as a use and evicts nothing.
//
// It returns an error matching [ErrInvalid] for bad input and [ErrClosed]
// after Close; on error the set is unchanged.
func (w *Working) Add(item WorkingItem) ([]WorkingItem, error) {
	lim := w.m.cfg.Limits
	if item.ID != "" {
		if err := validateID("ID", item.ID); err != nil {
			return nil, err
		}
	}
	if err := validateText("Content", item.Content, true, lim.MaxContentBytes); err != nil {
		return nil, err
	}
	if err := validateImportance("Importance", item.Importance); err != nil {
		return nil, err
	}
	if err := validateTags("Tags", item.Tags, lim); err != nil {
		return nil, err
	}
	if err := validateText("Source", item.Source, false, lim.MaxTagBytes); err != nil {
		return nil, err
	}
	if err := validateTime("AddedAt", item.AddedAt); err != nil {
		return nil, err
	}
	if item.Recalled != "" && kindOf(item.Recalled) == nil {
		return nil, invalid("Recalled", "%q is not a stored kind of memory", string(item.Recalled))
	}
	if item.ID == "" || item.AddedAt.IsZero() {
		now := w.m.now()
		if item.ID == "" {
			item.ID = w.m.newID(now)
		}
		if item.AddedAt.IsZero() {
			item.AddedAt = now
		}
	}
	return w.put(item)
}

// put adds valid items in order, as Add does, all or none: it returns the
// items evicted to make room, or ErrClosed, having added nothing.
func (w *Working) put(items ...WorkingItem) ([]WorkingItem, error) {
	slots := make([]workingSlot, len(items))
	for i, item := range items {
		item.Tags = cloneStrings(item.Tags)
		slots[i] = workingSlot{item: item, lower: strings.ToLower(item.Content)}
		slots[i].terms, slots[i].ntok = bm25.Vector(item.Content, store.EncodeTags(item.Tags))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return nil, ErrClosed
	}
	var evicted []WorkingItem
	for _, slot := range slots {
		w.clock++
		slot.added, slot.used = w.clock, w.clock
		i := slices.IndexFunc(w.items, func(s workingSlot) bool { return s.item.ID == slot.item.ID })
		if i >= 0 {
			slot.added = w.items[i].added
			w.items[i] = slot
			continue
		}
		if len(w.items) >= w.capacity {
			evicted = append(evicted, w.evictLocked())
		}
		w.items = append(w.items, slot)
	}
	return evicted, nil
}

// Get returns the item with the given ID and counts it as used. It returns
// [ErrNotFound] if it is not in the set and [ErrClosed] after Close.
func (w *Working) Get(id string) (WorkingItem, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return WorkingItem{}, ErrClosed
	}
	for i := range w.items {
		if w.items[i].item.ID == id {
			w.clock++
			w.items[i].used = w.clock
			return copyItem(w.items[i].item), nil
		}
	}
	return WorkingItem{}, notFound("working item", id)
}

// Find returns the items whose content contains query, ignoring case,
// newest first, and counts each as used. It returns an error matching
// [ErrInvalid] for an empty query and [ErrClosed] after Close.
func (w *Working) Find(query string) ([]WorkingItem, error) {
	if strings.TrimSpace(query) == "" {
		return nil, invalid("query", "must not be empty")
	}
	q := strings.ToLower(query)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return nil, ErrClosed
	}
	var out []WorkingItem
	for i := len(w.items) - 1; i >= 0; i-- {
		if strings.Contains(w.items[i].lower, q) {
			w.clock++
			w.items[i].used = w.clock
			out = append(out, copyItem(w.items[i].item))
		}
	}
	return out, nil
}

// Items returns every item, newest first, without counting them as used.
// It returns [ErrClosed] after Close.
func (w *Working) Items() ([]WorkingItem, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return nil, ErrClosed
	}
	out := make([]WorkingItem, 0, len(w.items))
	for i := len(w.items) - 1; i >= 0; i-- {
		out = append(out, copyItem(w.items[i].item))
	}
	return out, nil
}

// Len returns the number of items (0 after Close).
func (w *Working) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.items)
}

// Remove takes the item with the given ID out of the set. It returns
// [ErrNotFound] if it is not there and [ErrClosed] after Close.
func (w *Working) Remove(id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return ErrClosed
	}
	for i := range w.items {
		if w.items[i].item.ID == id {
			w.items = append(w.items[:i], w.items[i+1:]...)
			return nil
		}
	}
	return notFound("working item", id)
}

// Evict removes the item the eviction policy would remove next and returns
// it. It returns [ErrNotFound] if the set is empty and [ErrClosed] after
// Close.
func (w *Working) Evict() (WorkingItem, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return WorkingItem{}, ErrClosed
	}
	if len(w.items) == 0 {
		return WorkingItem{}, notFound("working item", "(the working set is empty)")
	}
	return w.evictLocked(), nil
}

// Clear empties the set. It returns [ErrClosed] after Close.
func (w *Working) Clear() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.closed.Load() {
		return ErrClosed
	}
	w.items = w.items[:0]
	return nil
}

func (w *Working) clearOnClose() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.items = nil
}

// evictLocked removes and returns the policy's victim; the set is not
// empty and w.mu is held.
func (w *Working) evictLocked() WorkingItem {
	victim := 0
	for i := 1; i < len(w.items); i++ {
		c, v := &w.items[i], &w.items[victim]
		switch w.policy {
		case EvictFIFO:
			// The slice is in insertion order: the first slot is the victim.
		case EvictLRU:
			if c.used < v.used {
				victim = i
			}
		case EvictImportance:
			if c.item.Importance < v.item.Importance ||
				(c.item.Importance == v.item.Importance && c.added < v.added) {
				victim = i
			}
		}
	}
	out := w.items[victim].item
	w.items = append(w.items[:victim], w.items[victim+1:]...)
	return out
}

func copyItem(it WorkingItem) WorkingItem {
	it.Tags = cloneStrings(it.Tags)
	return it
}

// candidates matches the working set against the search's terms, as the
// stored memories are matched (stems), and scores each item by BM25 with
// the agent's statistics, as if it were stored.
func (w *Working) candidates(s *search) []candidate {
	terms, opts := s.terms, s.opts
	if len(terms) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []candidate
	for _, slot := range w.items {
		it := slot.item
		if it.Recalled != "" && s.wantsType(it.Recalled) {
			continue // the search finds the memory itself
		}
		if added := store.MS(it.AddedAt); added < s.filter.since || added >= s.filter.until {
			continue
		}
		if len(opts.Tags) > 0 && !slices.ContainsFunc(it.Tags, func(t string) bool { return slices.Contains(opts.Tags, t) }) {
			continue
		}
		if tl := s.filter.tagList; len(tl) > 0 && !slices.ContainsFunc(it.Tags, func(t string) bool { return slices.Contains(tl, t) }) {
			continue
		}
		terms, ntok := slot.terms, slot.ntok
		if len(s.prefixes) > 0 { // see bm25.VectorPrefixed
			terms, ntok = bm25.VectorPrefixed(s.prefixes, it.Content, store.EncodeTags(it.Tags))
		}
		score, held := s.scorer.Score(terms, ntok)
		if score == 0 {
			continue
		}
		out = append(out, candidate{
			Result: Result{Type: TypeWorking, ID: it.ID, Content: it.Content,
				Tags: cloneStrings(it.Tags), CreatedAt: it.AddedAt},
			text:       score,
			held:       held,
			importance: it.Importance,
			touched:    it.AddedAt,
			strength:   1,
		})
	}
	return out
}

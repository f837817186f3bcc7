package engram

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/store"
)

// Summary is an overview of an agent's memory: see [Memory.Summary].
type Summary struct {
	AgentID string
	// Kinds holds, for each kind of stored memory (semantic, episodic,
	// procedural, snapshot, fact, in that order), how many the agent has
	// and which is the newest. Archived memories are not counted.
	Kinds []KindSummary
	// HighImportance counts the semantic entries whose importance is at
	// least [SemanticConfig.ImportanceThreshold]: the other kinds have no
	// importance of their own.
	HighImportance int
	// RecentlyAccessed counts the semantic entries last accessed less than
	// RecentWindow before the clock's time when Summary ran (or later):
	// found by a search since, or, never found, stored since. Only
	// semantic entries keep a time of access.
	RecentlyAccessed int
	RecentWindow     time.Duration
	// Keywords are the agent's most common words: the Porter stems of the
	// full-text indexes of every kind (what the indexes hold, "deploy" for
	// deploys, deployed and deploying), by how many of the agent's memories
	// hold them, most first, then alphabetically; at most
	// [SummaryKeywords]. Stopwords and numbers are left out.
	Keywords []Keyword
}

// KindSummary is one kind's part of a [Summary].
type KindSummary struct {
	Type  MemoryType
	Count int
	// LastID and LastCreatedAt are the ID and creation time of the
	// newest memory of the kind (by creation time, then ID); "" and the
	// zero time when there is none.
	LastID        string
	LastCreatedAt time.Time
}

// Keyword is a stem of a [Summary]'s keywords and how many of the
// agent's memories hold it.
type Keyword struct {
	Stem     string
	Memories int
}

// SummaryKeywords is how many keywords a [Summary] lists at most.
const SummaryKeywords = 10

// SummaryRecentWindow is a [Summary]'s RecentWindow.
const SummaryRecentWindow = 7 * 24 * time.Hour

// Summary returns an overview of the agent's memory: counts of each kind
// with its newest memory, how many semantic entries are important and how
// many were accessed recently, and the agent's most common words. Like
// every read it sees the agent's memory alone, even in a file shared with
// other agents (whose words never appear, nor count).
//
// A summary is kept and returned again until the agent's memory may have
// changed: a commit of this Memory's, a commit to the file by another
// connection (another Memory opened with New, another process: any
// agent's), a search's access noted, or a recently accessed entry leaving
// the window, make the next call compute it anew. The writes of the other
// agents of a [Store] sharing the file do not, and Summary never waits for
// them: while a write holds the store's writer, the file's version is the
// one read when the writer last committed (a commit of another process
// just before that write shows once it ends). The first call costs a pass
// over the agent's memory (at 100K memories, see BENCHMARKS.md); later
// ones, while nothing changed, a pragma at most.
//
// It returns [ErrClosed] after Close and a [*DatabaseError] when SQLite
// fails.
func (m *Memory) Summary(ctx context.Context) (Summary, error) {
	now := m.now()
	key, err := m.summaryKey(ctx)
	if err != nil {
		return Summary{}, err
	}
	if s, ok := m.summary.get(key, now); ok {
		return s, nil
	}
	var s Summary
	var until time.Time
	err = m.read(ctx, "summary", func(q store.Tx) error {
		var err error
		s, until, err = m.summarize(q, now)
		return err
	})
	if err != nil {
		return Summary{}, err
	}
	m.summary.put(key, now, until, s)
	return s.clone(), nil
}

// summaryKey is what a summary was computed from: how many writes of
// this Memory committed, the database's version (see the engine's
// Version: it moves with every commit of another connection to the file, another process's
// included) and the access log's notes. Other agents' writes through the
// same database (a Store's shared file) move neither, so they leave this
// agent's summary be. A summary is computed after its key is read, so it
// is at least as new as its key says; while the key stays the same,
// nothing it counts changed.
type summaryKey struct {
	writes  uint64
	version store.Version
	notes   uint64
}

// summaryKey reads the key of the agent's memory as it is now.
func (m *Memory) summaryKey(ctx context.Context) (summaryKey, error) {
	if m.closed.Load() {
		return summaryKey{}, ErrClosed
	}
	k := summaryKey{writes: m.writes.Load(), notes: m.access.notes()}
	v, err := m.db.DataVersion(ctx)
	k.version = v
	return k, err
}

// summaryCache keeps the last summary with its key.
type summaryCache struct {
	mu    sync.Mutex // guards the fields below
	ok    bool
	key   summaryKey
	at    time.Time // the clock's time it was computed at
	until time.Time // when its oldest recently accessed entry leaves the window
	sum   Summary
}

// get returns a copy of the kept summary if it was computed with key and
// still counts the recently accessed entries right at now.
func (c *summaryCache) get(key summaryKey, now time.Time) (Summary, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ok || c.key != key || now.Before(c.at) || !now.Before(c.until) {
		return Summary{}, false
	}
	return c.sum.clone(), true
}

func (c *summaryCache) put(key summaryKey, at, until time.Time, s Summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok, c.key, c.at, c.until, c.sum = true, key, at, until, s
}

func (s Summary) clone() Summary {
	s.Kinds = slices.Clone(s.Kinds)
	s.Keywords = slices.Clone(s.Keywords)
	return s
}

// summarize computes the summary in q's read at the clock's time now,
// and returns with it when the oldest entry it counts as recently
// accessed leaves the window.
func (m *Memory) summarize(q store.Tx, now time.Time) (Summary, time.Time, error) {
	s := Summary{AgentID: m.agent, RecentWindow: SummaryRecentWindow}
	var st Stats
	if err := countStats(q, m.agent, &st); err != nil {
		return Summary{}, time.Time{}, err
	}
	var semanticScan string
	for _, k := range kinds {
		ks := KindSummary{Type: k.typ, Count: *k.count(&st)}
		if ks.Count > 0 {
			scan, err := store.AgentScan(q, k.Table, ks.Count)
			if err != nil {
				return Summary{}, time.Time{}, err
			}
			if k == semanticKind {
				semanticScan = scan
			}
			ks.LastID, ks.LastCreatedAt, err = store.Newest(q, k.Table, scan, m.agent)
			if err != nil {
				return Summary{}, time.Time{}, err
			}
		}
		s.Kinds = append(s.Kinds, ks)
	}
	until := farFuture
	if semanticScan != "" {
		var err error
		if until, err = m.semanticCounts(q, semanticScan, now, &s); err != nil {
			return Summary{}, time.Time{}, err
		}
	}
	var err error
	if s.Keywords, err = m.keywords(q); err != nil {
		return Summary{}, time.Time{}, err
	}
	return s, until, nil
}

// semanticCounts counts, in one pass over the agent's semantic entries,
// those of high importance and those last accessed after now −
// SummaryRecentWindow (the accesses searches noted and no write has
// written yet included: see accessLog), and returns when the oldest of
// the latter leaves the window (the far future for none).
func (m *Memory) semanticCounts(q store.Tx, scan string, now time.Time, s *Summary) (time.Time, error) {
	window := now.Add(-SummaryRecentWindow)
	cutoff := store.MS(window)
	oldest := int64(-1)
	n := &s.RecentlyAccessed
	high, recent, first, err := store.SemanticCounts(q, m.agent, scan, m.cfg.Semantic.ImportanceThreshold, window)
	if err != nil {
		return time.Time{}, err
	}
	s.HighImportance, *n = high, recent
	if !first.IsZero() {
		oldest = store.MS(first)
	}
	if !m.access.idle() {
		v, err := store.Counter(q, metaAccessVersion+m.agent)
		if err != nil {
			return time.Time{}, err
		}
		var ids []string
		at := map[string]int64{}
		for id, note := range m.access.unwrittenOf(TypeSemantic, v) {
			if note.At > cutoff {
				ids = append(ids, id)
				at[id] = note.At
			}
		}
		if len(ids) > 0 {
			// The entries the notes bring into the window: those that
			// exist and were not in it already.
			added, err := store.SemanticNotAccessedSince(q, m.agent, window, ids)
			if err != nil {
				return time.Time{}, err
			}
			*n += len(added)
			for _, id := range added {
				if oldest < 0 || at[id] < oldest {
					oldest = at[id]
				}
			}
		}
	}
	if oldest < 0 {
		return farFuture, nil
	}
	return time.UnixMilli(oldest).Add(SummaryRecentWindow), nil
}

// farFuture is when a summary that counts no recent access expires.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// keywords returns the agent's most common stems (see Summary.Keywords).
// Where the agent is alone in a full-text index, the index's vocabulary
// counts its documents; where it shares the index with other agents, its
// own rows' term vectors do (see keywordsShared), so that other agents'
// words never appear, nor count.
func (m *Memory) keywords(q store.Tx) ([]Keyword, error) {
	counts := map[string]int{}
	for _, src := range ftsSources {
		sc, err := m.scopeOf(q, src)
		if err != nil {
			return nil, err
		}
		switch {
		case !sc.held:
		case !m.fullText:
			err = m.keywordsFromTexts(q, src, counts)
		case sc.shared:
			err = m.keywordsShared(q, src, counts)
		default:
			err = keywordsAlone(q, src, sc.agentTok, counts)
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]Keyword, 0, len(counts))
	for stem, n := range counts {
		out = append(out, Keyword{Stem: stem, Memories: n})
	}
	slices.SortFunc(out, func(a, b Keyword) int {
		return cmp.Or(cmp.Compare(b.Memories, a.Memories), cmp.Compare(a.Stem, b.Stem))
	})
	if len(out) > SummaryKeywords {
		out = out[:SummaryKeywords]
	}
	return slices.Clip(out), nil
}

// isKeyword says whether a stem of the vocabulary may be a keyword: not
// a stopword's, not a number.
func isKeyword(stem string) bool {
	if stem == "" || query.IsStopStem(stem) {
		return false
	}
	for _, r := range stem {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

// keywordsAlone adds to counts the stems of src's index, which holds the
// agent's documents only, by how many documents hold them. The index's
// agent_tok column holds the agent's token, which is no word.
func keywordsAlone(q store.Tx, src ftsSource, agentTok string, counts map[string]int) error {
	return store.EachVocabTerm(q, src.Vocab, func(term string, n int) error {
		if term != agentTok && isKeyword(term) {
			counts[term] += n
		}
		return nil
	})
}

// keywordsFromTexts adds to counts the stems of the agent's documents of
// src, by how many of them hold each, read from their texts: what the
// index's vocabulary counts, for a Memory that searches without FTS5
// (see Memory.fullText). It reads every document of the agent's.
func (m *Memory) keywordsFromTexts(q store.Tx, src ftsSource, counts map[string]int) error {
	return store.AgentTexts(q, src.Table, src.IndexedOver("t"), len(src.kind.Indexed), m.agent, false, func(_ []byte, texts []string) error {
		seen := map[string]bool{}
		for _, t := range texts {
			for _, tok := range query.Tokens(t) {
				if stem := query.Stem(tok); !seen[stem] {
					seen[stem] = true
					if isKeyword(stem) {
						counts[stem]++
					}
				}
			}
		}
		return nil
	})
}

// keywordsShared adds to counts the stems of the agent's documents of
// src's shared index, by how many of them hold each. A term vector holds
// hashes of stems: the index's vocabulary (every agent's) names them,
// and only the hashes the agent's own documents hold are looked up in it.
// Two stems of the vocabulary with the same hash (32 bits: a few pairs
// in a vocabulary of 100K stems) are told apart by reading the texts of
// the agent's documents holding the hash, so that a word of another
// agent's sharing a hash with one of this agent's never counts.
func (m *Memory) keywordsShared(q store.Tx, src ftsSource, counts map[string]int) error {
	docs := map[uint32]int{}
	add := func(v []byte) { bm25.Each(v, func(h uint32, _ int) { docs[h]++ }) }
	if err := store.AgentTerms(q, src.Table, m.agent, add); err != nil {
		return err
	}
	// A row without a term vector is scored from its texts (see
	// checkText); so is it counted.
	err := store.AgentTexts(q, src.Table, src.IndexedOver("t"), len(src.kind.Indexed), m.agent, true, func(_ []byte, texts []string) error {
		v, _ := bm25.Vector(texts...)
		add(v)
		return nil
	})
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		return nil
	}
	named := map[uint32][]string{}
	if err := store.EachVocabTerm(q, src.Vocab, func(term string, _ int) error {
		if h := bm25.Hash(term); docs[h] > 0 {
			named[h] = append(named[h], term)
		}
		return nil
	}); err != nil {
		return err
	}
	ambiguous := map[uint32]bool{}
	for h, stems := range named {
		if len(stems) > 1 {
			ambiguous[h] = true
			continue
		}
		if isKeyword(stems[0]) {
			counts[stems[0]] += docs[h]
		}
	}
	if len(ambiguous) == 0 {
		return nil
	}
	return m.resolveStems(q, src, ambiguous, counts)
}

// resolveStems adds to counts the stems whose hashes are in ambiguous by
// how many of the agent's documents of src hold them, read from the
// documents' texts.
func (m *Memory) resolveStems(q store.Tx, src ftsSource, ambiguous map[uint32]bool, counts map[string]int) error {
	return store.AgentTexts(q, src.Table, src.IndexedOver("t"), len(src.kind.Indexed), m.agent, false, func(terms []byte, texts []string) error {
		held := terms == nil
		bm25.Each(terms, func(h uint32, _ int) { held = held || ambiguous[h] })
		if !held {
			return nil
		}
		seen := map[string]bool{}
		for _, t := range texts {
			for _, tok := range query.Tokens(t) {
				stem := query.Stem(tok)
				if !seen[stem] && ambiguous[bm25.Hash(stem)] {
					seen[stem] = true
					if isKeyword(stem) {
						counts[stem]++
					}
				}
			}
		}
		return nil
	})
}

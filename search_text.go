package engram

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/query"
)

// Full-text candidates: each kind with a full-text index is searched by
// FTS5 for the query's terms, within a budget of documents to score.

// ftsSource is how one kind is searched by full text.
type ftsSource struct {
	*kind
	// sql takes (expr, agent, since, until, the tags as JSON or an empty
	// string, candidate limit, lowest rowid to score) and returns pk, id,
	// tags, created_at, importance, last touched, bm25. The content is
	// read later, for the results only (see Memory.present).
	//
	// CROSS JOIN keeps the FTS table as the outer loop: FTS5 finds and
	// ranks the matches and the join looks up only those rows. (Left to
	// itself, the planner may scan the agent's rows and probe the index
	// once per row, hundreds of times slower.) The best matches are found
	// on row IDs alone and only they are read in full. bm25() rather than
	// rank: ORDER BY rank makes FTS5 prepare a statement of its own for
	// every query.
	sql string
	// window finds the rowid of the agent's (?3) match of expr (?1) that
	// is newest but ?2, among those created in [?4, ?5) carrying one of
	// the tags ?6 (a JSON list, or '' for any); see Memory.window.
	window string
}

// ftsSources are the kinds searched by full text, with their queries.
var ftsSources = func() []ftsSource {
	var out []ftsSource
	for _, k := range kindsWith(func(k *kind) bool { return k.fts != "" }) {
		out = append(out, ftsSource{
			kind: k,
			sql: `WITH top(pk, b) AS MATERIALIZED (
					SELECT t.pk, bm25(` + k.fts + `, ` + k.ftsWeights + `) AS b
					FROM ` + k.fts + ` CROSS JOIN ` + k.table + ` t ON t.pk = ` + k.fts + `.rowid
					WHERE ` + k.fts + ` MATCH ?1 AND ` + k.fts + `.rowid >= ?7 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ` + k.tagFilter("t", "?5") + `
					ORDER BY b LIMIT ?6)
				SELECT t.pk, t.id, ` + k.tagsOver("t") + `, t.created_at, ` + over(k.importance, "t") + `, ` + over(k.touched, "t") + `, top.b
				FROM top CROSS JOIN ` + k.table + ` t ON t.pk = top.pk`,
			window: `SELECT t.pk FROM ` + k.fts + ` CROSS JOIN ` + k.table + ` t ON t.pk = ` + k.fts + `.rowid
				WHERE ` + k.fts + ` MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ` + k.tagFilter("t", "?6") + `
				ORDER BY ` + k.fts + `.rowid DESC LIMIT 1 OFFSET ?2`,
		})
	}
	return out
}()

// textCandidates finds, per kind with a full-text index, the agent's
// memories that best match the search's expression, in one read.
func (m *Memory) textCandidates(ctx context.Context, s *search) ([]candidate, error) {
	var cands []candidate
	err := m.db.read(ctx, "search", func(q *dbtx) error {
		for _, src := range ftsSources {
			if !s.wants(src.kind) {
				continue
			}
			found, err := m.ftsMatches(q, s, src)
			if err != nil {
				return err
			}
			cands = append(cands, found...)
		}
		return nil
	})
	return cands, err
}

// ftsMatches runs the search's plans on src's index until they found k
// candidates.
func (m *Memory) ftsMatches(q *dbtx, s *search, src ftsSource) ([]candidate, error) {
	// Planning and full-text queries cost a few hundred microseconds even
	// on an empty index; an index lookup tells whether the agent has any
	// such memory. (An Advanced expression always runs, so that a
	// malformed one is reported however empty memory is.)
	sc, err := m.scopeOf(q, src)
	if err != nil {
		return nil, err
	}
	if !sc.held && !s.opts.Advanced {
		return nil, nil
	}
	plans := []ftsPlan{{expr: sc.restrict(s.expr)}}
	if !s.opts.Advanced {
		if plans, err = m.plan(q, src, sc, s.terms, s.filter, m.cfg.Search.PostingBudget); err != nil {
			return nil, err
		}
	}
	var found []candidate
	for _, p := range plans {
		rows, err := q.query(src.sql, p.expr, m.agent, s.filter.since, s.filter.until, s.filter.tags, s.k, p.from)
		if err != nil {
			return nil, err
		}
		got, err := scanAll(rows, scanCandidate(src.typ, func(c *candidate) any { return &c.bm25 }))
		if err != nil {
			return nil, err
		}
		for _, c := range got {
			if !slices.ContainsFunc(found, func(f candidate) bool { return f.ID == c.ID }) {
				found = append(found, c)
			}
		}
		if len(found) >= s.k {
			break
		}
	}
	return found, nil
}

// scanCandidate scans what ranking needs of a row of typ (pk, id, tags,
// created_at, importance, last touched; see ftsSources and vectorSQL),
// then one more column into where last points.
func scanCandidate(typ MemoryType, last func(*candidate) any) func(scanner) (candidate, error) {
	return func(r scanner) (candidate, error) {
		c := candidate{Result: Result{Type: typ}}
		var tags string
		var created, touched int64
		err := r.Scan(&c.pk, &c.ID, &tags, &created, &c.importance, &touched, last(&c))
		if err != nil {
			return c, err
		}
		c.CreatedAt, c.touched = fromMS(created), fromMS(touched)
		c.Tags, err = decodeTags(tags)
		return c, err
	}
}

// dfCache remembers how many documents hold a stem, per index. fts5vocab
// counts them by walking the stem's whole posting list (a quarter of a
// millisecond for a common word at 10K documents, ten times that at 100K),
// while pruning and auto-linking only need the order of magnitude, so a
// count is reused for dfCacheTTL. A stale count can only make pruning a
// little off: a term counted as absent is kept, never dropped.
//
// It follows the change log when other followers make it run: a semantic
// entry stored raises the counts of its stems when auto-linking made its
// term vector, and a memory leaving (deleted or archived) drops the cache.
type dfCache struct {
	mu      sync.Mutex // guards entries
	entries map[string]dfEntry
}

type dfEntry struct {
	df int
	at time.Time
}

const (
	dfCacheTTL = time.Minute
	dfCacheMax = 1 << 16
)

// watches asks for nothing: the counts are a cache, refreshed every
// dfCacheTTL. The cache makes use of the batches other followers' needs
// bring: an insert whose term vector auto-linking made, a delete.
func (c *dfCache) watches(bool) []watch { return nil }

func (c *dfCache) follow(_ *dbtx, cs []change) error {
	for i := range cs {
		switch ch := &cs[i]; {
		case ch.op == changeDelete:
			c.mu.Lock()
			c.entries = nil
			c.mu.Unlock()
		case ch.op == changeInsert && ch.kind == TypeSemantic && ch.terms != nil:
			// Only when auto-linking's index made the term vector anyway:
			// the counts are a cache, refreshed every dfCacheTTL.
			c.added(semanticKind.vocab, ch.terms)
		}
	}
	return nil
}

// added counts a new document holding stems in the index named by vocab,
// so that counts cached before it stay right without a lookup.
func (c *dfCache) added(vocab string, stems map[string]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for st := range stems {
		if e, ok := c.entries[vocab+"\x00"+st]; ok {
			e.df++
			c.entries[vocab+"\x00"+st] = e
		}
	}
}

// docFreqs returns the Porter stems of the terms and the number of the
// agent's documents of the index src holding each stem; a stem none of
// them holds is absent from the map. When the agent is alone in the index
// (sc.shared is false) the index's own counts (fts5vocab) are the agent's;
// otherwise the agent's documents holding the term are counted inside
// FTS5, so that other agents' data never changes how a query is planned.
func (m *Memory) docFreqs(q *dbtx, src ftsSource, sc ftsScope, terms []string) ([]string, map[string]int, error) {
	now := time.Now() // the cache ages in real time, whatever the clock says
	stems := make([]string, len(terms))
	df := make(map[string]int, len(terms))
	var missing []int // indexes into terms
	c := &m.dfs
	c.mu.Lock()
	for i, t := range terms {
		stems[i] = query.Stem(t)
		e, ok := c.entries[src.vocab+"\x00"+stems[i]]
		if ok && now.Sub(e.at) < dfCacheTTL {
			if e.df > 0 {
				df[stems[i]] = e.df
			}
		} else {
			missing = append(missing, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return stems, df, nil
	}
	found := make(map[string]int, len(missing))
	for _, i := range missing {
		st := stems[i]
		if _, done := found[st]; done {
			continue
		}
		var n int
		var err error
		if sc.shared {
			err = q.queryRow(`SELECT count(*) FROM `+src.fts+` WHERE `+src.fts+` MATCH ?`,
				[]any{sc.restrict(query.Or([]string{terms[i]}))}, &n)
		} else {
			err = q.queryRow(`SELECT doc FROM `+src.vocab+` WHERE term = ?`, []any{st}, &n)
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, nil, err
		}
		found[st] = n
		if n > 0 {
			df[st] = n
		}
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) > dfCacheMax {
		c.entries = make(map[string]dfEntry)
	}
	for st, n := range found {
		c.entries[src.vocab+"\x00"+st] = dfEntry{df: n, at: now}
	}
	c.mu.Unlock()
	return stems, df, nil
}

// ftsPlan is one full-text query to score: an FTS5 expression and the
// lowest rowid worth scoring.
type ftsPlan struct {
	expr string
	from int64
}

// plan decides what a natural-language query makes FTS5 score in the index
// src, so that it scores about budget of the agent's documents at most,
// however common the query's words are. BM25 has to score every document
// matching an ORed query, and a common word can be held by a large part of
// a big index.
//
// Terms are taken rarest first while the agent's documents holding them
// add up to at most budget: the common words left out are the ones that
// weigh least in BM25. Below the budget nothing changes. When even the
// rarest term is held by more documents than the budget, two plans are
// returned: first the documents holding both of the two rarest terms, then
// the rarest term alone; each is limited to its newest budget matches that
// pass the filters f when it has more. Terms are looked up by their Porter
// stem, as the index holds them; a term not found (absent, or newer than
// the cached count) costs nothing and is kept. Every expression is
// restricted to the agent's documents when other agents share the index.
func (m *Memory) plan(q *dbtx, src ftsSource, sc ftsScope, terms []string, f ftsFilter, budget int) ([]ftsPlan, error) {
	stems, df, err := m.docFreqs(q, src, sc, terms)
	if err != nil {
		return nil, err
	}
	// Terms not found cost nothing and are always kept; the others are
	// taken rarest first.
	type termDF struct {
		term string
		df   int
	}
	var keep []string
	var known []termDF
	seen := make(map[string]bool, len(terms))
	for i, t := range terms {
		if seen[stems[i]] {
			continue
		}
		seen[stems[i]] = true
		if d := df[stems[i]]; d == 0 {
			keep = append(keep, t)
		} else {
			known = append(known, termDF{t, d})
		}
	}
	slices.SortStableFunc(known, func(a, b termDF) int { return cmp.Compare(a.df, b.df) })
	spent := 0
	for i, t := range known {
		if i > 0 && spent+t.df > budget {
			break
		}
		spent += t.df
		keep = append(keep, t.term)
	}
	if spent <= budget {
		return []ftsPlan{{expr: sc.restrict(query.Or(keep))}}, nil
	}
	// Every known term is common: known[0] alone is over the budget.
	var plans []ftsPlan
	if len(known) > 1 {
		p, err := m.window(q, src, sc, query.And([]string{known[0].term, known[1].term}), f, budget)
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
	}
	p, err := m.window(q, src, sc, query.Or(keep), f, budget)
	if err != nil {
		return nil, err
	}
	return append(plans, p), nil
}

// window limits expr to the agent's newest budget matches in src's index
// that pass the filters f. Finding them walks row IDs (and, with filters,
// the rows they name), which costs far less than scoring; only the agent's
// documents are walked.
func (m *Memory) window(q *dbtx, src ftsSource, sc ftsScope, expr string, f ftsFilter, budget int) (ftsPlan, error) {
	expr = sc.restrict(expr)
	var from int64
	var err error
	if f.none() {
		err = q.queryRow(`SELECT rowid FROM `+src.fts+` WHERE `+src.fts+` MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2`,
			[]any{expr, budget - 1}, &from)
	} else {
		err = q.queryRow(src.window, []any{expr, budget - 1, m.agent, f.since, f.until, f.tags}, &from)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return ftsPlan{}, err
	}
	return ftsPlan{expr: expr, from: from}, nil
}

// ftsFilter is what a search keeps besides its agent: memories created in
// [since, until) (Unix ms) carrying one of the tags (a JSON list, or "" for
// any).
type ftsFilter struct {
	since, until int64
	tags         string
}

func (f ftsFilter) none() bool { return f.tags == "" && f.since <= zeroMS && f.until == math.MaxInt64 }

// ftsScope is where a search looks in one full-text index: whether the
// agent has any memory of its kind (held), and whether other agents have
// some in the same index (shared). In a shared index every FTS5 query is
// restricted to the agent's documents inside FTS5, by the token agentTok
// of the index's agent_tok column (migration 0004), so that other agents'
// documents are neither scored, nor counted against a budget, nor walked.
// Alone in the index, the agent needs no restriction: the restriction
// costs a walk of all its documents (for BM25's statistics) on every query.
type ftsScope struct {
	held, shared bool
	agentTok     string
}

// restrict returns expr limited to the agent's documents when the index
// is shared.
func (sc ftsScope) restrict(expr string) string {
	if !sc.shared || expr == "" {
		return expr
	}
	return "agent_tok : " + sc.agentTok + " AND (" + expr + ")"
}

// scopeOf finds the agent's scope in src's index: two index lookups.
func (m *Memory) scopeOf(q *dbtx, src ftsSource) (ftsScope, error) {
	sc := ftsScope{agentTok: agentToken(m.agent)}
	err := q.queryRow(`SELECT EXISTS (SELECT 1 FROM `+src.table+` WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM `+src.table+` WHERE agent_id < ?1 OR agent_id > ?1)`,
		[]any{m.agent}, &sc.held, &sc.shared)
	return sc, err
}

// agentToken is the token the agent_tok column of the full-text indexes
// holds for agent (see migration 0004).
func agentToken(agent string) string { return "x" + hex.EncodeToString([]byte(agent)) + "0" }

// stemSet returns the Porter stems of the lowercase tokens toks.
func stemSet(toks []string) map[string]bool {
	set := make(map[string]bool, len(toks))
	for _, t := range toks {
		set[query.Stem(t)] = true
	}
	return set
}

package engram

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/store"
)

// Full-text candidates: each kind with a full-text index is searched by
// FTS5 for the query's terms, within a budget of documents to score.

// ftsSource is how one kind is searched by full text (see
// store.TextBestSQL).
type ftsSource struct {
	*kind
}

// ftsSources are the kinds searched by full text.
var ftsSources = func() []ftsSource {
	var out []ftsSource
	for _, k := range kindsWith(func(k *kind) bool { return k.FTS != "" }) {
		out = append(out, ftsSource{kind: k})
	}
	return out
}()

// textCandidates finds, per kind with a full-text index, the agent's
// memories that best match the search's terms, in one read, and scores
// them by BM25 over the statistics of the agent's whole memory (see
// scorer): each kind's k best.
//
// When the in-memory text index answers (see textIndex), it also adds
// the working set's candidates and the session context, and reads the
// rows that ranking needs (see readRanked, need as for find), all in the
// same read: s.fromIndex then says so.
func (m *Memory) textCandidates(ctx context.Context, s *search, need int) ([]candidate, error) {
	var cands []candidate
	err := m.read(ctx, "search", func(q store.Tx) error {
		docs, tokens, err := m.textStats(q, s)
		if err != nil {
			return err
		}
		if s.indexable() || !m.fullText {
			d, err := m.text.view(q, m, s.textVersion, docs)
			if err != nil {
				return err
			}
			if d != nil && !s.indexable() {
				// Without FTS5: the kinds' candidates as ftsBest finds
				// them, with their rows read; the rest is find's.
				if s.opts.Advanced {
					cands, err = m.advancedMatches(q, s, d, docs, tokens)
				} else {
					cands, err = m.indexMatches(q, s, d, docs, tokens)
				}
				m.text.mu.RUnlock()
				if err != nil {
					return err
				}
				cands, err = m.readRanked(q, s, cands, 0)
				return err
			}
			if d != nil {
				cands, err = m.indexCandidates(q, s, d, docs, tokens)
				m.text.mu.RUnlock()
				if err != nil {
					return err
				}
				if s.wantsType(TypeWorking) {
					cands = append(cands, m.working.candidates(s)...)
				}
				if w := m.cfg.Search.ContextWeight; s.wantsType(TypeEpisodic) && (w > 0 || m.cfg.Search.byTurns()) {
					cands = m.addContext(s, cands, w, s.near)
				}
				recycle(s.near)
				s.near = nil
				cands, err = m.readRanked(q, s, cands, need)
				return err
			}
		}
		sources, err := m.textSources(q, s)
		if err != nil {
			return err
		}
		if err := m.chooseTerms(q, s, sources, docs, tokens); err != nil {
			return err
		}
		for _, ss := range sources {
			if !ss.searched {
				continue
			}
			top, err := m.ftsBest(q, s, ss)
			if err != nil {
				return err
			}
			cands = append(cands, top...)
		}
		return nil
	})
	return cands, err
}

// scopedSource is a kind's full-text index, with the agent's scope in it.
type scopedSource struct {
	ftsSource
	scope ftsScope
	// searched is whether the search looks in it; the indexes of the
	// other kinds the agent holds count for the query's statistics only.
	searched bool
	// df is how many of the agent's memories in the index hold each of
	// the query's stems (see chooseTerms).
	df map[string]int
}

// textSources returns the indexes that hold any of the agent's memories,
// each marked searched when the search wants its kind. (Planning and
// full-text queries cost a few hundred microseconds even on an empty
// index; two index lookups tell whether the agent has such memories. An
// Advanced expression always runs, so that a malformed one is reported
// however empty memory is.)
func (m *Memory) textSources(q store.Tx, s *search) ([]scopedSource, error) {
	var out []scopedSource
	for _, src := range ftsSources {
		sc, err := m.scopeOf(q, src)
		if err != nil {
			return nil, err
		}
		wanted := s.wants(src.kind)
		if sc.held || wanted && s.opts.Advanced {
			out = append(out, scopedSource{ftsSource: src, scope: sc, searched: wanted})
		}
	}
	return out, nil
}

// chooseTerms reads how many of the agent's memories hold each of the
// query's terms, whatever their kind, whatever the search's filters, and
// makes the search's scorer. docs and tokens are the statistics
// textStats read.
func (m *Memory) chooseTerms(q store.Tx, s *search, sources []scopedSource, docs, tokens int) error {
	df := map[string]int{}
	for i := range sources {
		ss := &sources[i]
		var err error
		if ss.df, err = m.docFreqs(q, ss.ftsSource, ss.scope, s.terms, s.stems, s.textVersion); err != nil {
			return err
		}
		for stem, d := range ss.df {
			df[stem] += d
		}
	}
	s.limitTerms(df)
	stems := slices.Clone(s.stems)
	for _, p := range s.prefixes {
		n, err := m.prefixFreq(q, sources, p)
		if err != nil {
			return err
		}
		stems, df[bm25.PrefixTerm(p)] = append(stems, bm25.PrefixTerm(p)), n
	}
	s.scorer = newScorer(stems, df, docs, tokens, m.cfg.Search)
	s.scorer.prefixes = s.prefixes
	return nil
}

// textStats reads, in the search's snapshot, how many searchable memories
// the agent has and of how many tokens, and the versions of its texts
// (-1 before it ever had one), of their importance (see migration 0010)
// and of its accesses, which it keeps in s.
func (m *Memory) textStats(q store.Tx, s *search) (docs, tokens int, err error) {
	st, err := store.ReadSearchStats(q, m.agent, metaAccessVersion+m.agent)
	s.textVersion, s.ranks, s.accessVersion = st.Version, st.Ranks, st.AccessVersion
	return st.Docs, st.Tokens, err
}

// limitTerms keeps, of a query with more than query.MaxTerms terms, its
// rarest ones by df (how many of the agent's memories hold each stem):
// the most informative, and the cheapest to match.
func (s *search) limitTerms(df map[string]int) {
	if len(s.terms) <= query.MaxTerms || s.opts.Advanced {
		return
	}
	// Rarest first; a term the agent's memory does not hold matches
	// nothing and goes last.
	order := make([]int, len(s.terms))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		if d := df[s.stems[i]]; d > 0 {
			return d
		}
		return math.MaxInt
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank(a), rank(b)) })
	order = order[:query.MaxTerms]
	slices.Sort(order)
	terms, stems := make([]string, len(order)), make([]string, len(order))
	for j, i := range order {
		terms[j], stems[j] = s.terms[i], s.stems[i]
	}
	s.terms, s.stems = terms, stems
	s.expr = query.Or(terms)
}

// prefixFreq returns how many of the agent's memories hold a word that
// starts with prefix, whatever their kind.
func (m *Memory) prefixFreq(q store.Tx, sources []scopedSource, prefix string) (int, error) {
	total := 0
	for _, ss := range sources {
		n, err := store.TextMatches(q, ss.Kind, ss.scope.restrict(query.Or([]string{prefix})+"*"))
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// ftsBest runs the search's plans on the source's index until they
// found k matches, and returns the k with the best BM25 scores (then by
// ID, so that ties are cut the same way every time, whatever else the
// file holds), with their scores and what ranking needs of them. Each
// plan's matches are scored inside SQLite and only its k best come out:
// the k best of all are among them.
func (m *Memory) ftsBest(q store.Tx, s *search, ss scopedSource) ([]candidate, error) {
	plans := []ftsPlan{{expr: ss.scope.restrict(s.expr)}}
	if !s.opts.Advanced {
		var err error
		if plans, err = m.plan(q, ss.ftsSource, ss.scope, s.terms, s.stems, ss.df, s.filter, m.cfg.Search.PostingBudget); err != nil {
			return nil, err
		}
	}
	handle, done := scorers.add(s.scorer)
	defer done()
	fromText := len(s.prefixes) > 0 // prefixes are scored from the text (see bm25.VectorPrefixed)
	var found []candidate
	var unscored []int // matches without a term vector
	seen := map[int64]bool{}
	for _, p := range plans {
		match := store.TextMatch{Agent: m.agent, Expr: p.expr, From: p.from, Filter: s.filter.stored(),
			Scorer: handle, FromText: fromText, Limit: s.k, Now: store.MS(s.now)}
		err := store.TextBest(q, ss.Kind, match, func(row *store.RankedRow, terms []byte, ntok int) error {
			if seen[row.PK] {
				return nil
			}
			seen[row.PK] = true
			c := rankedCandidate(ss.typ, *row)
			if terms == nil || fromText {
				unscored = append(unscored, len(found))
			} else {
				c.text, c.held = s.scorer.Score(terms, ntok)
			}
			found = append(found, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) >= s.k {
			break
		}
	}
	if len(unscored) > 0 {
		if err := m.scoreFromText(q, s, ss.ftsSource, found, unscored); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(found, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.text, a.text), cmp.Compare(a.ID, b.ID))
	})
	return found[:min(s.k, len(found))], nil
}

// scoreFromText scores the matches at the indexes unscored from their
// indexed texts, read here: rows without a term vector (changed by a
// statement that did not make a new one), and every match of an Advanced
// expression with prefixes.
func (m *Memory) scoreFromText(q store.Tx, s *search, src ftsSource, found []candidate, unscored []int) error {
	at := make(map[int64]int, len(unscored))
	pks := make([]int64, len(unscored))
	for i, j := range unscored {
		at[found[j].pk], pks[i] = j, found[j].pk
	}
	return store.EachIndexedText(q, src.Kind, pks, func(pk int64, texts []string) error {
		v, n := bm25.VectorPrefixed(s.prefixes, texts...)
		c := &found[at[pk]]
		c.text, c.held = s.scorer.Score(v, n)
		return nil
	})
}

// scorer scores documents by BM25 over the statistics of the agent's
// whole memory: how many searchable memories it has of every kind, their
// average length, and how many of them hold each term. Memories of every
// kind are scored alike, so their scores compare, and other agents'
// memories in the same file change nothing.
type scorer struct {
	*bm25.Query
	prefixes []string // an Advanced expression's, scored from the text
}

func newScorer(stems []string, df map[string]int, docs, tokens int, sc SearchConfig) *scorer {
	weights := make([]float64, len(stems))
	for i, st := range stems {
		weights[i] = bm25.IDF(max(docs, df[st]), df[st])
	}
	avg := 1.0
	if docs > 0 {
		avg = float64(tokens) / float64(docs)
	}
	return &scorer{Query: bm25.NewQuery(stems, weights, avg, sc.BM25K1, sc.BM25B)}
}

// dfCache remembers how many of the agent's documents hold a stem, per
// index: fts5vocab counts them by walking the stem's whole posting list (a
// quarter of a millisecond for a common word at 10K documents, ten times
// that at 100K), and every search needs them, to plan and to score. A
// count is valid while the agent's texts have not changed: each is kept
// with the version of text_stats it was read at (which moves on with
// every change of the agent's searchable rows, through any connection),
// and used only by a read that sees the same version. So a search's
// scores depend on the data alone, never on what was cached.
type dfCache struct {
	mu      sync.Mutex // guards entries
	entries map[string]dfEntry
}

type dfEntry struct {
	df      int
	version int64 // text_stats.version the count was read at
}

// dfCacheMax bounds the cache; it starts again empty when full.
const dfCacheMax = 1 << 16

// docFreqs returns the number of the agent's documents of the index src
// holding each of the terms' Porter stems (stems, in the same order), as
// of the agent's texts' version; a stem none of them holds is absent from
// the map. When
// the agent is alone in the index (sc.shared is false) the index's own
// counts (fts5vocab) are the agent's; otherwise the agent's documents
// holding the term are counted inside FTS5, so that other agents' data
// never changes how a query is planned or scored.
func (m *Memory) docFreqs(q store.Tx, src ftsSource, sc ftsScope, terms, stems []string, version int64) (map[string]int, error) {
	df := make(map[string]int, len(terms))
	var missing []int // indexes into terms
	c := &m.dfs
	c.mu.Lock()
	for i := range terms {
		e, ok := c.entries[src.Vocab+"\x00"+stems[i]]
		if ok && e.version == version {
			if e.df > 0 {
				df[stems[i]] = e.df
			}
		} else {
			missing = append(missing, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return df, nil
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
			n, err = store.TextMatches(q, src.Kind, sc.restrict(query.Or([]string{terms[i]})))
		} else {
			n, err = store.VocabDocs(q, src.Kind, st)
		}
		if err != nil {
			return nil, err
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
		c.entries[src.Vocab+"\x00"+st] = dfEntry{df: n, version: version}
	}
	c.mu.Unlock()
	return df, nil
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
// stems are the terms' Porter stems, df how many of the agent's documents
// in the index hold each (see docFreqs).
func (m *Memory) plan(q store.Tx, src ftsSource, sc ftsScope, terms, stems []string, df map[string]int, f ftsFilter, budget int) ([]ftsPlan, error) {
	p := planTerms(stems, df, budget)
	keep := make([]string, len(p.keep))
	for j, i := range p.keep {
		keep[j] = terms[i]
	}
	if !p.over {
		return []ftsPlan{{expr: sc.restrict(query.Or(keep))}}, nil
	}
	var plans []ftsPlan
	if len(p.rare) > 1 {
		w, err := m.window(q, src, sc, query.And([]string{terms[p.rare[0]], terms[p.rare[1]]}), f, budget)
		if err != nil {
			return nil, err
		}
		plans = append(plans, w)
	}
	w, err := m.window(q, src, sc, query.Or(keep), f, budget)
	if err != nil {
		return nil, err
	}
	return append(plans, w), nil
}

// termPlan is what plan decides of a query's terms, as indexes into them:
// the terms to match, and whether even the rarest is held by more
// documents than the budget (over), the two rarest then in rare (one when
// only one term is held at all).
type termPlan struct {
	keep   []int
	over   bool
	rare   []int
	budget int // what it was planned for
}

// planTerms plans a query of the Porter stems stems over an index where
// df[stem] documents hold each (see plan): the same plan whether FTS5 or
// the in-memory index (see textIndex) carries it out.
func planTerms(stems []string, df map[string]int, budget int) termPlan {
	// Terms not found cost nothing and are always kept; the others are
	// taken rarest first.
	type termDF struct{ at, df int }
	p := termPlan{budget: budget}
	var known []termDF
	seen := make(map[string]bool, len(stems))
	for i, st := range stems {
		if seen[st] {
			continue
		}
		seen[st] = true
		if d := df[st]; d == 0 {
			p.keep = append(p.keep, i)
		} else {
			known = append(known, termDF{i, d})
		}
	}
	slices.SortStableFunc(known, func(a, b termDF) int { return cmp.Compare(a.df, b.df) })
	spent := 0
	for i, t := range known {
		if i > 0 && spent+t.df > budget {
			break
		}
		spent += t.df
		p.keep = append(p.keep, t.at)
	}
	if spent <= budget {
		return p
	}
	// Every known term is common: known[0] alone is over the budget.
	p.over = true
	for _, t := range known[:min(2, len(known))] {
		p.rare = append(p.rare, t.at)
	}
	return p
}

// window limits expr to the agent's newest budget matches in src's index
// that pass the filters f. Finding them walks row IDs (and, with filters,
// the rows they name), which costs far less than scoring; only the agent's
// documents are walked.
func (m *Memory) window(q store.Tx, src ftsSource, sc ftsScope, expr string, f ftsFilter, budget int) (ftsPlan, error) {
	expr = sc.restrict(expr)
	from, err := store.TextWindow(q, src.Kind, m.agent, expr, budget-1, f.stored())
	if err != nil {
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
	// sc is the rest of the search's Filter (its time bounds are in
	// since and until), and tagList its tags.
	sc      scope
	tagList []string
}

func (f ftsFilter) none() bool {
	return f.tags == "" && f.since <= store.ZeroMS && f.until == math.MaxInt64 && f.sc.empty()
}

// stored returns the filter as the store takes it.
func (f *ftsFilter) stored() store.SearchFilter {
	return store.SearchFilter{Since: f.since, Until: f.until, Tags: f.tags, Scope: f.sc.stored()}
}

// scopeMark stands in a query for the condition of the search's scope
// (see ftsFilter.scoped).
const scopeMark = store.ScopeMark

// scoped returns the query, whose rows of kind k are named alias, with the
// scope's condition in place of its scopeMark, and the condition's
// arguments, numbered from base (one past the query's own).
func (f *ftsFilter) scoped(query string, k *kind, alias string, base int) (string, []any) {
	if f.sc.empty() {
		return query, nil
	}
	cond, args := f.sc.where(k, alias, base)
	return store.Scoped(query, cond), args
}

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
func (m *Memory) scopeOf(q store.Tx, src ftsSource) (ftsScope, error) {
	sc := ftsScope{agentTok: agentToken(m.agent)}
	var err error
	sc.held, sc.shared, err = store.TextHeld(q, src.Kind, m.agent)
	return sc, err
}

// agentToken is the token the agent_tok column of the full-text indexes
// holds for agent (see migration 0004).
func agentToken(agent string) string { return "x" + hex.EncodeToString([]byte(agent)) + "0" }

// checkText checks that what search scores from agrees with the rows:
// text_stats counts every agent's searchable rows and their tokens, and
// every term vector is the one its row's indexed texts make (a row may
// have none: it is scored from its text).
func checkText(q store.Tx) error {
	var problems []string
	bad, err := store.TextStatsMismatches(q)
	if err != nil {
		return err
	}
	for _, x := range bad {
		problems = append(problems, fmt.Sprintf("text_stats of %q: %d rows of %d tokens, the tables hold %d of %d",
			x.Agent, x.StatsDocs, x.StatsTokens, x.TableDocs, x.TableTokens))
	}
	for _, src := range ftsSources {
		n, err := store.BadTermVectors(q, src.Kind)
		if err != nil {
			return err
		}
		if n > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d term vectors disagree with their rows' text", src.Table, n))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("text: %s", strings.Join(problems, "; "))
	}
	return nil
}

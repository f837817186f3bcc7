package engram

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/vecindex"
)

// SearchOptions says what to search for. The zero value of every field but
// Query is sensible.
type SearchOptions struct {
	// Query is what to look for, in the words a person would use: "What did
	// we decide about the deploy?". Any text is accepted; see [Memory.Search].
	Query string
	// Advanced makes Query an FTS5 expression (AND, OR, NOT, NEAR, "phrases",
	// prefix*), for callers who want that syntax on purpose. A malformed
	// expression, or one over [MaxAdvancedBytes] or [MaxAdvancedTerms],
	// returns an error matching [ErrInvalidQuery].
	Advanced bool
	// Types limits the search to these kinds of memory; empty means all four.
	Types []MemoryType
	// Tags keeps only memories carrying at least one of these tags. Episodes
	// have no tags, so a tag filter leaves them out.
	Tags []string
	// Since and Until keep memories created in [Since, Until); a zero value
	// leaves that side open.
	Since, Until time.Time
	// Limit caps the results; 0 means 10, at most 1000.
	Limit int
	// Threshold drops results whose Score is below it, in [0, 1].
	Threshold float64
	// Mode says how to search: by text, by vector or by both. The zero
	// value is hybrid in Tier 2 and text in Tier 1, where the other two
	// return [ErrTierUnsupported].
	Mode SearchMode
}

// SearchMode says how [Memory.Search] finds memories.
type SearchMode string

// Search modes.
const (
	SearchDefault SearchMode = ""       // SearchHybrid in Tier 2, SearchText in Tier 1
	SearchText    SearchMode = "text"   // full text (FTS5, BM25)
	SearchVector  SearchMode = "vector" // nearest neighbours of the query's embedding
	// SearchHybrid runs both and fuses their rankings by reciprocal rank
	// (see [SearchConfig.RRFConstant]).
	SearchHybrid SearchMode = "hybrid"
)

// Result is one memory found by a search, with the reasons for its rank.
type Result struct {
	Type      MemoryType
	ID        string
	Content   string
	Snippet   string // a short excerpt with the matched terms in **bold**
	Tags      []string
	CreatedAt time.Time
	// Score is the weighted blend of Parts, in [0, 1]; results come
	// highest first.
	Score float64
	Parts ScoreParts
	// ContextOf is set on an episode found as context: it was logged just
	// before or after the episode ContextOf names, in the same session, and
	// its Text part is a share of that match's (see
	// [SearchConfig.ContextWeight]).
	ContextOf string
}

// ScoreParts are the components of a [Result]'s Score, each in [0, 1].
// Score = (wT·Text + wI·Importance + wR·Recency) / (wT + wI + wR), with the
// weights of [SearchConfig], where a hybrid search uses Fused and a vector
// search Vector in place of Text.
type ScoreParts struct {
	// Text is the BM25 relevance relative to the best match of the query
	// across all types: 1 for the best, less for weaker matches.
	Text float64
	// Importance is the memory's importance (semantic and working), its
	// success rate (procedural), or 0.5 (episodic, which has none), times
	// its resonance (see [Memory.Decay]): a memory fading from use sinks.
	Importance float64
	// Recency halves every [SearchConfig.RecencyHalfLife] since the memory
	// was created, updated or last used.
	Recency float64
	// Vector is the cosine similarity of the memory's embedding with the
	// query's (0 when negative), in vector and hybrid searches, for every
	// memory with an embedding (a row still pending has none, nor has the
	// working set); it stays 0 in Tier 1 and in text searches.
	Vector float64
	// Fused is, in a hybrid search, the reciprocal-rank fusion of the
	// memory's places in the text and vector rankings, scaled so that 1 is
	// first in both; it takes Text's place in Score. A vector search puts
	// Vector in Text's place instead.
	Fused float64
}

// SearchConfig weighs the parts of a search score.
type SearchConfig struct {
	TextWeight       float64       // default 0.8
	ImportanceWeight float64       // default 0.1
	RecencyWeight    float64       // default 0.1
	RecencyHalfLife  time.Duration // default 30 days
	// ContextWeight brings in the context of matching episodes: the
	// episodes logged just before and just after a match, in the same
	// session, join the results with this share of the match's text
	// relevance (unless their own is higher). In a conversation the answer
	// is often the turn after the one that shares the question's words. 0
	// turns it off; default 0.7, chosen on LoCoMo (see BENCHMARKS.md).
	ContextWeight float64
	// Candidates is how many full-text matches per memory type are ranked
	// before the blend picks the results; default 50.
	Candidates int
	// PostingBudget bounds how many documents a query makes FTS5 score
	// in each index. BM25 has to score every document holding any term of
	// an ORed query, so a query with a very common word would score a
	// large part of a big index. Terms are taken rarest first while the
	// documents holding them add up to at most the budget; the common
	// terms left out are the ones that weigh least in BM25. When even the
	// rarest term is held by more documents than the budget, the documents
	// holding both of the two rarest terms are scored first, then those
	// holding the rarest, each limited to its newest budget matches. Below
	// the budget nothing changes. Default 300, chosen on LoCoMo and the
	// search benchmarks (see BENCHMARKS.md).
	PostingBudget int
	// RRFConstant is k in reciprocal-rank fusion: a memory's fused
	// relevance is HybridTextWeight/(k + its text rank) +
	// HybridVectorWeight/(k + its vector rank), ranks counted from 1, a
	// list it is missing from adding nothing. Default 60, as in the RRF
	// paper: large enough that the first few places of one list do not
	// drown the other.
	RRFConstant float64
	// HybridTextWeight and HybridVectorWeight weigh the two rankings in
	// the fusion; default 1 each.
	HybridTextWeight, HybridVectorWeight float64
}

// MaxAdvancedBytes and MaxAdvancedTerms bound an Advanced search
// expression: its length, and its words (terms and operators such as AND
// or NEAR, counted as [SearchOptions].Query's tokens). FTS5's cost grows
// with the product of an expression's phrases and the places they match,
// so an unbounded expression could keep a reader busy for minutes.
const (
	MaxAdvancedBytes = 1024
	MaxAdvancedTerms = 64
)

const (
	defaultSearchLimit = 10
	maxSearchLimit     = 1000
	episodeImportance  = 0.5
	snippetTokens      = 16
)

// Search finds the agent's memories that match a query, across semantic,
// episodic and procedural memory and the working set, best first.
//
// The query is compiled, never passed raw to SQLite: it is tokenized like
// the index, lowercased, stopwords are dropped, every term is quoted so FTS5
// syntax in it is inert, and the terms are ORed, so a question finds the
// memories that share its most telling words. A query with no words (only
// punctuation or emoji) finds nothing. Each [Result] carries its Score and
// the parts it is made of. Semantic hits count as accesses: they are
// written in one statement for the hits of up to 30 seconds of searches
// (or 4,096 entries), by a goroutine of their own so that no search waits for
// the write, and before the writes that work on access counts (compaction,
// [Memory.Flush], [Memory.Close]); reads ([Semantic.Get], [Semantic.List])
// add the accesses not written yet to what they read, and never write.
//
// In Tier 2 the query is also embedded and the memories with the nearest
// embeddings found (see [SearchMode]): a hybrid search, the default, fuses
// both rankings; a query with no words for full-text search is still
// searched by vector.
//
// It returns an error matching [ErrInvalid] for bad options,
// [ErrInvalidQuery] for a malformed Advanced expression,
// [ErrTierUnsupported] for a vector or hybrid search on a Tier 1 memory,
// one matching [ErrEmbedding] when a vector search's query cannot be
// embedded (a hybrid search then answers by text alone), [ErrClosed] after
// Close and a [*DatabaseError] when SQLite fails.
func (m *Memory) Search(ctx context.Context, opts SearchOptions) ([]Result, error) {
	if err := m.validateSearch(&opts); err != nil {
		return nil, err
	}
	var expr string
	var terms []string
	if opts.Advanced {
		expr = opts.Query
		terms = query.Terms(opts.Query)
	} else {
		expr, terms = query.Compile(opts.Query)
	}
	byText, byVector := opts.Mode != SearchVector, opts.Mode != SearchText
	if byVector && len(opts.Types) > 0 && !slices.ContainsFunc(opts.Types, func(t MemoryType) bool { return t != TypeWorking }) {
		// The working set has no vectors: its search is by text, and
		// embedding the query would be wasted (or fail).
		byVector = false
		if opts.Mode == SearchHybrid {
			opts.Mode = SearchText
		}
	}
	if expr == "" || !byText && !byVector {
		if !byVector {
			return nil, nil
		}
		byText = false
	}
	now := m.now()
	want := func(t MemoryType) bool { return len(opts.Types) == 0 || slices.Contains(opts.Types, t) }
	tagJSON := ""
	if len(opts.Tags) > 0 {
		b, _ := json.Marshal(opts.Tags)
		tagJSON = string(b)
	}
	since, until := ms(opts.Since), int64(math.MaxInt64)
	if !opts.Until.IsZero() {
		until = ms(opts.Until)
	}
	k := max(m.cfg.Search.Candidates, opts.Limit)
	f := ftsFilter{since: since, until: until, tags: tagJSON}

	var cands []candidate
	err := m.db.read(ctx, "search", func(q *dbtx) error {
		if !byText {
			return nil
		}
		for _, src := range ftsSources {
			if !want(src.typ) || (src.typ == TypeEpisodic && tagJSON != "") {
				continue
			}
			// Planning and full-text queries cost a few hundred
			// microseconds even on an empty index; an index lookup
			// tells whether the agent has any such memory. (An
			// Advanced expression always runs, so that a malformed one
			// is reported however empty memory is.)
			sc, err := m.scopeOf(q, src)
			if err != nil {
				return err
			}
			if !sc.held && !opts.Advanced {
				continue
			}
			plans := []ftsPlan{{expr: sc.restrict(expr)}}
			if !opts.Advanced {
				if plans, err = m.plan(q, src, sc, terms, f, m.cfg.Search.PostingBudget); err != nil {
					return err
				}
			}
			var found []candidate
			for _, p := range plans {
				rows, err := q.query(src.sql, p.expr, m.agent, since, until, tagJSON, k, p.from)
				if err != nil {
					return err
				}
				got, err := scanAll(rows, scanCandidate(src.typ, func(c *candidate) any { return &c.bm25 }))
				if err != nil {
					return err
				}
				for _, c := range got {
					if !slices.ContainsFunc(found, func(f candidate) bool { return f.ID == c.ID }) {
						found = append(found, c)
					}
				}
				if len(found) >= k {
					break
				}
			}
			cands = append(cands, found...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if want(TypeWorking) && byText {
		cands = append(cands, m.working.candidates(terms, opts)...)
	}
	var qv []float32
	if byVector {
		var found []candidate
		found, qv, err = m.vectorCandidates(ctx, opts, since, until, tagJSON)
		switch {
		case err == nil:
			cands = merge(cands, found)
		case opts.Mode == SearchHybrid && errors.Is(err, ErrEmbedding):
			// The text half still answers.
			m.log.Warn("engram: hybrid search by text only: the query could not be embedded", "err", err)
			opts.Mode = SearchText
		default:
			return nil, err
		}
	}
	if w := m.cfg.Search.ContextWeight; w > 0 && want(TypeEpisodic) {
		if cands, err = m.withContext(ctx, cands, w, since, until); err != nil {
			return nil, err
		}
	}

	if qv != nil && opts.Mode != SearchText {
		// Every candidate with a vector takes its place in the vector
		// ranking, not only those the vector search returned: a text
		// match just past the vector search's cut is not ranked last.
		m.vectors.cosines(qv, cands)
	}
	results := m.rank(cands, now, opts)
	if err := m.fillContent(ctx, results, cands); err != nil {
		return nil, err
	}
	// A memory deleted since it was ranked has no content left to show.
	results = slices.DeleteFunc(results, func(r Result) bool { return r.Content == "" })
	keys := newSnippetKeys(terms)
	for i := range results {
		results[i].Snippet = keys.snippet(results[i].Content)
	}
	var touched []string
	for _, r := range results {
		if r.Type == TypeSemantic {
			touched = append(touched, r.ID)
		}
	}
	if len(touched) > 0 && m.access.note(touched, now) {
		m.flushAccessSoon()
	}
	return results, nil
}

// fillContent reads the content of the results that do not have it yet,
// one query per memory type: ranking needs none, so only the results pay
// for it. A row deleted since it was ranked keeps an empty content (and
// Search drops it).
func (m *Memory) fillContent(ctx context.Context, results []Result, cands []candidate) error {
	pks := map[string]int64{}
	for _, c := range cands {
		if c.pk != 0 {
			pks[string(c.Type)+"\x00"+c.ID] = c.pk
		}
	}
	want := map[MemoryType][]int64{}
	at := map[MemoryType]map[int64]int{}
	for i, r := range results {
		pk, ok := pks[string(r.Type)+"\x00"+r.ID]
		if !ok || r.Content != "" {
			continue
		}
		want[r.Type] = append(want[r.Type], pk)
		if at[r.Type] == nil {
			at[r.Type] = map[int64]int{}
		}
		at[r.Type][pk] = i
	}
	if len(want) == 0 {
		return nil
	}
	return m.db.read(ctx, "search.content", func(q *dbtx) error {
		for typ, list := range want {
			b, _ := json.Marshal(list)
			rows, err := q.query(contentSQL[typ], string(b))
			if err != nil {
				return err
			}
			for rows.Next() {
				var pk int64
				var content string
				if err := rows.Scan(&pk, &content); err != nil {
					rows.Close()
					return err
				}
				results[at[typ][pk]].Content = content
			}
			// A read cut short must not pass for results deleted since.
			if err := rows.Err(); err != nil {
				rows.Close()
				return err
			}
			if err := rows.Close(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (m *Memory) validateSearch(opts *SearchOptions) error {
	if err := validateText("Query", opts.Query, true, m.cfg.Limits.MaxContentBytes); err != nil {
		return err
	}
	if opts.Advanced {
		// FTS5's cost grows with the product of an expression's phrases
		// and the positions they match: bound the expression.
		if n := len(opts.Query); n > MaxAdvancedBytes {
			return fmt.Errorf("engram: search: an Advanced expression of %d bytes is over %d: %w", n, MaxAdvancedBytes, ErrInvalidQuery)
		}
		if n := len(query.Tokens(opts.Query)); n > MaxAdvancedTerms {
			return fmt.Errorf("engram: search: an Advanced expression of %d words is over %d: %w", n, MaxAdvancedTerms, ErrInvalidQuery)
		}
		if err := checkExpression(opts.Query); err != nil {
			return err
		}
	}
	for i, t := range opts.Types {
		if err := t.Validate(); err != nil {
			return invalid(fmt.Sprintf("Types[%d]", i), "unknown memory type %q", string(t))
		}
	}
	if err := validateTags("Tags", opts.Tags, m.cfg.Limits); err != nil {
		return err
	}
	if err := errors.Join(validateTime("Since", opts.Since), validateTime("Until", opts.Until)); err != nil {
		return err
	}
	if !opts.Until.IsZero() && !opts.Until.After(opts.Since) {
		return invalid("Until", "%v is not after Since (%v)", opts.Until, opts.Since)
	}
	if opts.Limit < 0 || opts.Limit > maxSearchLimit {
		return invalid("Limit", "%d is outside [0, %d]", opts.Limit, maxSearchLimit)
	}
	if opts.Limit == 0 {
		opts.Limit = defaultSearchLimit
	}
	if !unit(opts.Threshold) {
		return invalid("Threshold", "%v is outside [0, 1]", opts.Threshold)
	}
	switch opts.Mode {
	case SearchDefault:
		opts.Mode = SearchText
		if m.vectors != nil {
			opts.Mode = SearchHybrid
		}
	case SearchText:
	case SearchVector, SearchHybrid:
		if m.vectors == nil {
			return fmt.Errorf("engram: search: %s search needs Tier2 and an embedder: %w", opts.Mode, ErrTierUnsupported)
		}
		if opts.Advanced && opts.Mode == SearchVector {
			return invalid("Advanced", "an FTS5 expression needs a text or hybrid search")
		}
	default:
		return invalid("Mode", "unknown search mode %q", string(opts.Mode))
	}
	return nil
}

// exprCheck is an empty in-memory FTS5 index with every column engram's
// indexes have, on which checkExpression tries Advanced expressions: an
// expression that fails there is malformed, whatever the database holds,
// and one that runs there is not, so a failure of the real search (a
// damaged file, say) is never mistaken for a bad query.
var exprCheck struct {
	once sync.Once
	mu   sync.Mutex // the one connection runs one check at a time
	st   *sql.Stmt
	err  error
}

// checkExpression returns an error matching ErrInvalidQuery if expr is
// not a valid FTS5 expression.
func checkExpression(expr string) error {
	c := &exprCheck
	c.once.Do(func() {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			c.err = err
			return
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		if _, err := db.Exec(`CREATE VIRTUAL TABLE q USING fts5(content, tags, name, description, pattern, agent_tok, tokenize = 'porter unicode61')`); err != nil {
			c.err = err
			return
		}
		c.st, c.err = db.Prepare(`SELECT count(*) FROM q WHERE q MATCH ?`)
	})
	if c.err != nil {
		return &DatabaseError{Op: "search.check", Err: c.err}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int
	if err := c.st.QueryRow(expr).Scan(&n); err != nil {
		return fmt.Errorf("engram: search %q: %w: %v", expr, ErrInvalidQuery, err)
	}
	return nil
}

// candidate is a match before ranking. bm25 is FTS5's rank (negative;
// lower is better), or for working items minus the fraction of terms found;
// 0 when only the vector search found it. cosine is the vector
// similarity, when known (hasCosine): for the vector search's finds and,
// in vector and hybrid searches, every other candidate with a vector.
type candidate struct {
	Result
	pk         int64 // the row, when its Content is still to be read
	bm25       float64
	cosine     float64
	hasCosine  bool
	importance float64
	touched    time.Time // when it was created, updated or last used
}

// vectorSQL reads, for the rows of each type whose pks are listed in ?1,
// what ranking needs and the content (there are few of them), under the
// search's filters: (agent, since, until, the tags as JSON or an empty
// string) as ?2 to ?5, as ftsSources.
var vectorSQL = map[MemoryType]string{
	TypeSemantic: `SELECT s.pk, s.id, s.tags, s.created_at, s.importance * s.resonance, max(s.updated_at, s.last_accessed_at), s.content
		FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = j.value
		WHERE s.agent_id = ?2 AND s.created_at >= ?3 AND s.created_at < ?4
			AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(s.tags) t WHERE t.value IN (SELECT value FROM json_each(?5))))`,
	TypeEpisodic: `SELECT e.pk, e.id, '[]', e.created_at, ` + fmt.Sprint(episodeImportance) + ` * e.resonance, e.created_at, e.content
		FROM json_each(?1) j CROSS JOIN episodic_log e ON e.pk = j.value
		WHERE e.agent_id = ?2 AND e.created_at >= ?3 AND e.created_at < ?4 AND ?5 = ''`,
	TypeProcedural: `SELECT p.pk, p.id, p.tags, p.created_at, p.success_rate * p.resonance, p.updated_at, p.name || ': ' || p.description
		FROM json_each(?1) j CROSS JOIN procedural_memory p ON p.pk = j.value
		WHERE p.agent_id = ?2 AND p.created_at >= ?3 AND p.created_at < ?4
			AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(p.tags) t WHERE t.value IN (SELECT value FROM json_each(?5))))`,
}

// vectorCandidates finds, per stored memory type, the memories whose
// embeddings are nearest the query's and that pass the filters: twice the
// limit, so that importance and recency have some to choose from. With
// filters it looks at four times as many neighbours, since some may not
// pass, and further while too few pass, so that a narrow filter does not
// return fewer than it could. Its error matches [ErrEmbedding] when the
// query cannot be embedded.
func (m *Memory) vectorCandidates(ctx context.Context, opts SearchOptions, since, until int64, tagJSON string) ([]candidate, []float32, error) {
	v := m.vectors
	// Queries skip the embedding cache, which holds stored texts.
	es, err := v.embedMissing(ctx, []string{opts.Query}, make([]embedded, 1), false)
	if err != nil {
		return nil, nil, err
	}
	qv := es[0].vec
	k := 2 * opts.Limit
	n := k
	filtered := tagJSON != "" || since > 0 || until < math.MaxInt64
	if filtered {
		n = 4 * k
	}
	var out []candidate
	err = m.db.read(ctx, "search.vector", func(q *dbtx) error {
		if err := v.sync(q); err != nil {
			return err
		}
		for _, vt := range vectorTables {
			if len(opts.Types) > 0 && !slices.Contains(opts.Types, vt.typ) || vt.typ == TypeEpisodic && tagJSON != "" {
				continue
			}
			hits := v.search(vt.typ, qv, n, opts.Limit)
			if len(hits) == 0 {
				continue
			}
			got, err := m.vectorRows(q, vt.typ, hits, since, until, tagJSON)
			if err != nil {
				return err
			}
			// Some of the nearest may fail the filters: look four times
			// as far each time, until enough pass or every vector was
			// looked at.
			for want := n; filtered && len(got) < k && len(hits) == want; {
				want *= 4
				hits = v.search(vt.typ, qv, want, opts.Limit)
				if got, err = m.vectorRows(q, vt.typ, hits, since, until, tagJSON); err != nil {
					return err
				}
			}
			slices.SortFunc(got, func(a, b candidate) int { return cmp.Or(cmp.Compare(b.cosine, a.cosine), cmp.Compare(a.ID, b.ID)) })
			out = append(out, got[:min(k, len(got))]...)
		}
		return nil
	})
	return out, qv, err
}

// vectorRows reads the memories of type typ the vector search found
// (hits, with their cosines) that pass the search's filters.
func (m *Memory) vectorRows(q *dbtx, typ MemoryType, hits []vecindex.Hit, since, until int64, tagJSON string) ([]candidate, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	pks := make([]int64, len(hits))
	cos := make(map[int64]float64, len(hits))
	for i, h := range hits {
		pks[i], cos[h.ID] = h.ID, float64(h.Cosine)
	}
	list, _ := json.Marshal(pks)
	rows, err := q.query(vectorSQL[typ], string(list), m.agent, since, until, tagJSON)
	if err != nil {
		return nil, err
	}
	got, err := scanAll(rows, scanCandidate(typ, func(c *candidate) any { return &c.Content }))
	for i := range got {
		got[i].cosine, got[i].hasCosine = cos[got[i].pk], true
	}
	return got, err
}

// merge adds the vector search's candidates to the text search's: a
// memory both found is one candidate with both parts.
func merge(text, vector []candidate) []candidate {
	at := make(map[string]int, len(text))
	for i, c := range text {
		at[string(c.Type)+"\x00"+c.ID] = i
	}
	for _, v := range vector {
		if i, ok := at[string(v.Type)+"\x00"+v.ID]; ok {
			text[i].cosine, text[i].hasCosine = v.cosine, true
			if text[i].pk == 0 && text[i].Content == "" {
				text[i].pk = v.pk
			}
			continue
		}
		text = append(text, v)
	}
	return text
}

type ftsSource struct {
	typ   MemoryType
	fts   string // the FTS5 table
	vocab string // its fts5vocab table
	table string // the table it indexes
	sql   string
	// window finds the rowid of the agent's (?3) match of expr (?1) that
	// is newest but ?2, among those created in [?4, ?5) carrying one of
	// the tags ?6 (a JSON list, or '' for any); see Memory.window.
	window string
}

// windowSQL returns an ftsSource's window query.
func windowSQL(fts, table string, tagged bool) string {
	tags := `?6 = ''`
	if tagged {
		tags = `(?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))`
	}
	return `SELECT t.pk FROM ` + fts + ` CROSS JOIN ` + table + ` t ON t.pk = ` + fts + `.rowid
		WHERE ` + fts + ` MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ` + tags + `
		ORDER BY ` + fts + `.rowid DESC LIMIT 1 OFFSET ?2`
}

// contentSQL reads the content of the rows of each type whose pks are
// listed in ?1, as a search result shows it.
var contentSQL = map[MemoryType]string{
	TypeSemantic:   `SELECT j.value, s.content FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = j.value`,
	TypeEpisodic:   `SELECT j.value, e.content FROM json_each(?1) j CROSS JOIN episodic_log e ON e.pk = j.value`,
	TypeProcedural: `SELECT j.value, p.name || ': ' || p.description FROM json_each(?1) j CROSS JOIN procedural_memory p ON p.pk = j.value`,
}

// ftsSources are the full-text queries, one per stored memory type.
//
// CROSS JOIN keeps the FTS table as the outer loop: FTS5 finds and ranks
// the matches and the join looks up only those rows. (Left to itself, the
// planner may scan the agent's rows and probe the index once per row,
// hundreds of times slower.) The best matches are found on row IDs alone
// and only they are read in full. bm25() rather than rank: ORDER BY rank
// makes FTS5 prepare a statement of its own for every query.
//
// Each takes (expr, agent, since, until, the tags as JSON or an empty
// string, candidate limit, lowest rowid to score) and returns pk, id, tags,
// created_at, importance, last touched, bm25. The content is read later,
// for the results only (see contentSQL).
var ftsSources = []ftsSource{
	{TypeSemantic, "semantic_fts", "semantic_vocab", "semantic_memory", `WITH top(pk, b) AS MATERIALIZED (
			SELECT s.pk, bm25(semantic_fts, 1, 1, 0) AS b
			FROM semantic_fts CROSS JOIN semantic_memory s ON s.pk = semantic_fts.rowid
			WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?7 AND s.agent_id = ?2 AND s.created_at >= ?3 AND s.created_at < ?4
				AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(s.tags) t WHERE t.value IN (SELECT value FROM json_each(?5))))
			ORDER BY b LIMIT ?6)
		SELECT s.pk, s.id, s.tags, s.created_at, s.importance * s.resonance, max(s.updated_at, s.last_accessed_at), top.b
		FROM top CROSS JOIN semantic_memory s ON s.pk = top.pk`, windowSQL("semantic_fts", "semantic_memory", true)},
	{TypeEpisodic, "episodic_fts", "episodic_vocab", "episodic_log", `WITH top(pk, b) AS MATERIALIZED (
			SELECT e.pk, bm25(episodic_fts, 1, 0) AS b
			FROM episodic_fts CROSS JOIN episodic_log e ON e.pk = episodic_fts.rowid
			WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?7 AND e.agent_id = ?2 AND e.created_at >= ?3 AND e.created_at < ?4 AND ?5 = ''
			ORDER BY b LIMIT ?6)
		SELECT e.pk, e.id, '[]', e.created_at, ` + fmt.Sprint(episodeImportance) + ` * e.resonance, e.created_at, top.b
		FROM top CROSS JOIN episodic_log e ON e.pk = top.pk`, windowSQL("episodic_fts", "episodic_log", false)},
	{TypeProcedural, "procedural_fts", "procedural_vocab", "procedural_memory", `WITH top(pk, b) AS MATERIALIZED (
			SELECT p.pk, bm25(procedural_fts, 1, 1, 1, 1, 0) AS b
			FROM procedural_fts CROSS JOIN procedural_memory p ON p.pk = procedural_fts.rowid
			WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?7 AND p.agent_id = ?2 AND p.created_at >= ?3 AND p.created_at < ?4
				AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(p.tags) t WHERE t.value IN (SELECT value FROM json_each(?5))))
			ORDER BY b LIMIT ?6)
		SELECT p.pk, p.id, p.tags, p.created_at, p.success_rate * p.resonance, p.updated_at, top.b
		FROM top CROSS JOIN procedural_memory p ON p.pk = top.pk`, windowSQL("procedural_fts", "procedural_memory", true)},
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

// added counts a new document holding stems in the index named by vocab,
// so that counts cached before it stay right without a lookup.
func (c *dfCache) added(vocab string, stems []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range stems {
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

// contextSQL finds, for each matched episode named in ?2, the episodes
// logged just before and just after it in its session, within [?3, ?4).
const contextSQL = `
	WITH hit AS (
		SELECT e.id, e.session_id, e.created_at, e.pk FROM episodic_log e
		WHERE e.agent_id = ?1 AND e.session_id <> '' AND e.id IN (SELECT value FROM json_each(?2))),
	near(hit, pk) AS (
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT n.hit, e.id, e.pk, e.content, e.created_at, e.resonance FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4`

// withContext adds the session neighbours of the episodic candidates. A
// neighbour's bm25 is weight times its match's, so after normalisation
// its Text part is weight times the match's Text part.
func (m *Memory) withContext(ctx context.Context, cands []candidate, weight float64, since, until int64) ([]candidate, error) {
	byID := map[string]int{} // episodic candidate ID → index in cands
	var hits []string
	for i, c := range cands {
		if c.Type == TypeEpisodic {
			byID[c.ID] = i
			hits = append(hits, c.ID)
		}
	}
	if len(hits) == 0 {
		return cands, nil
	}
	list, _ := json.Marshal(hits)
	type neighbour struct {
		hit, id, content string
		pk, created      int64
		resonance        float64
	}
	var found []neighbour
	err := m.db.read(ctx, "search.context", func(q *dbtx) error {
		rows, err := q.query(contextSQL, m.agent, string(list), since, until)
		if err != nil {
			return err
		}
		found, err = scanAll(rows, func(r scanner) (neighbour, error) {
			var n neighbour
			err := r.Scan(&n.hit, &n.id, &n.pk, &n.content, &n.created, &n.resonance)
			return n, err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, n := range found {
		via := cands[byID[n.hit]]
		bm25 := weight * via.bm25
		if i, ok := byID[n.id]; ok {
			if bm25 < cands[i].bm25 { // lower is better
				cands[i].bm25, cands[i].ContextOf = bm25, n.hit
			}
			continue
		}
		byID[n.id] = len(cands)
		cands = append(cands, candidate{
			Result: Result{Type: TypeEpisodic, ID: n.id, Content: n.content,
				CreatedAt: fromMS(n.created), ContextOf: n.hit},
			pk:         n.pk,
			bm25:       bm25,
			importance: episodeImportance * n.resonance,
			touched:    fromMS(n.created),
		})
	}
	return cands, nil
}

// stemSet returns the Porter stems of the lowercase tokens toks.
func stemSet(toks []string) map[string]bool {
	set := make(map[string]bool, len(toks))
	for _, t := range toks {
		set[query.Stem(t)] = true
	}
	return set
}

// snippetKeys are a query's terms as snippets match them: by Porter stem,
// as the index does. Porter stemming rewrites suffixes only, so a token can
// share a term's stem only if it starts like it: first lets most tokens
// skip stemming.
type snippetKeys struct {
	stems map[string]bool
	first [256]bool
}

func newSnippetKeys(terms []string) *snippetKeys {
	k := &snippetKeys{stems: stemSet(terms)}
	for st := range k.stems {
		if st != "" {
			k.first[st[0]] = true
		}
	}
	return k
}

// snippet returns the window of about snippetTokens words of text that
// holds the most query terms, with each matching word in **bold**. Only
// the results pay for it, not every candidate.
func (k *snippetKeys) snippet(text string) string {
	words := strings.Fields(text)
	hit := make([]bool, len(words))
	for i, w := range words {
		for _, tok := range query.Tokens(w) {
			if k.first[tok[0]] && k.stems[query.Stem(tok)] {
				hit[i] = true
				break
			}
		}
	}
	start, best, n := 0, -1, 0
	for i := range words {
		if hit[i] {
			n++
		}
		if i >= snippetTokens && hit[i-snippetTokens] {
			n--
		}
		if n > best {
			best, start = n, max(0, i-snippetTokens+1)
		}
	}
	end := min(len(words), start+snippetTokens)
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		if hit[i] {
			b.WriteString("**" + words[i] + "**")
		} else {
			b.WriteString(words[i])
		}
	}
	if end < len(words) {
		b.WriteString("…")
	}
	return b.String()
}

// rank blends each candidate's parts into its score and returns the best.
func (m *Memory) rank(cands []candidate, now time.Time, opts SearchOptions) []Result {
	if len(cands) == 0 {
		return nil
	}
	best := 0.0 // the most negative bm25: the best text match
	for _, c := range cands {
		best = min(best, c.bm25)
	}
	sc := m.cfg.Search
	total := sc.TextWeight + sc.ImportanceWeight + sc.RecencyWeight
	var fused []float64
	if opts.Mode == SearchHybrid {
		fused = fuse(cands, sc)
	}
	out := make([]Result, 0, len(cands))
	for i, c := range cands {
		p := ScoreParts{Importance: c.importance, Recency: recency(now, c.touched, sc.RecencyHalfLife)}
		if best < 0 {
			p.Text = c.bm25 / best
		}
		if c.hasCosine {
			p.Vector = max(0, min(1, c.cosine))
		}
		relevance := p.Text
		switch opts.Mode {
		case SearchHybrid:
			p.Fused = fused[i]
			relevance = p.Fused
		case SearchVector:
			relevance = p.Vector
		}
		c.Parts = p
		c.Score = (sc.TextWeight*relevance + sc.ImportanceWeight*p.Importance + sc.RecencyWeight*p.Recency) / total
		if c.Score >= opts.Threshold {
			out = append(out, c.Result)
		}
	}
	slices.SortFunc(out, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
	})
	if len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out
}

// fuse returns the reciprocal-rank fusion of each candidate's places in
// the text ranking (by bm25, where the context of a match ranks by its
// share of the match's) and the vector ranking (by cosine, of every
// candidate whose vector is known), scaled so that first in both is 1.
func fuse(cands []candidate, sc SearchConfig) []float64 {
	k := sc.RRFConstant
	out := make([]float64, len(cands))
	rank := func(in func(c candidate) bool, better func(a, b candidate) int, w float64) {
		var idx []int
		for i, c := range cands {
			if in(c) {
				idx = append(idx, i)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(better(cands[a], cands[b]), cmp.Compare(cands[a].ID, cands[b].ID))
		})
		for r, i := range idx {
			out[i] += w / (k + float64(r+1))
		}
	}
	rank(func(c candidate) bool { return c.bm25 < 0 },
		func(a, b candidate) int { return cmp.Compare(a.bm25, b.bm25) }, sc.HybridTextWeight)
	rank(func(c candidate) bool { return c.hasCosine },
		func(a, b candidate) int { return cmp.Compare(b.cosine, a.cosine) }, sc.HybridVectorWeight)
	top := (sc.HybridTextWeight + sc.HybridVectorWeight) / (k + 1)
	for i := range out {
		out[i] = min(1, out[i]/top)
	}
	return out
}

// recency is 1 for a memory touched now, halving every halfLife.
func recency(now, t time.Time, halfLife time.Duration) float64 {
	if t.IsZero() {
		return 0
	}
	age := now.Sub(t)
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// candidates matches the working set against the query's terms, by Porter
// stem as the index matches: an item's text relevance is the fraction of
// terms its content contains, scaled like
// BM25 so that rank can blend it with the stored memories.
func (w *Working) candidates(terms []string, opts SearchOptions) []candidate {
	if len(terms) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []candidate
	for _, s := range w.items {
		it := s.item
		if !opts.Since.IsZero() && it.AddedAt.Before(opts.Since) || !opts.Until.IsZero() && !it.AddedAt.Before(opts.Until) {
			continue
		}
		if len(opts.Tags) > 0 && !slices.ContainsFunc(it.Tags, func(t string) bool { return slices.Contains(opts.Tags, t) }) {
			continue
		}
		have := stemSet(query.Tokens(s.lower))
		hits := 0
		for _, t := range terms {
			if have[query.Stem(t)] {
				hits++
			}
		}
		if hits == 0 {
			continue
		}
		out = append(out, candidate{
			Result: Result{Type: TypeWorking, ID: it.ID, Content: it.Content,
				Tags: cloneStrings(it.Tags), CreatedAt: it.AddedAt},
			bm25:       -float64(hits) / float64(len(terms)),
			importance: it.Importance,
			touched:    it.AddedAt,
		})
	}
	return out
}

// Search searches semantic memory only; see [Memory.Search].
func (s *Semantic) Search(ctx context.Context, opts SearchOptions) ([]Result, error) {
	opts.Types = []MemoryType{TypeSemantic}
	return s.m.Search(ctx, opts)
}

// Search searches episodic memory only; see [Memory.Search].
func (e *Episodic) Search(ctx context.Context, opts SearchOptions) ([]Result, error) {
	opts.Types = []MemoryType{TypeEpisodic}
	return e.m.Search(ctx, opts)
}

// Search searches procedural memory only; see [Memory.Search].
func (p *Procedural) Search(ctx context.Context, opts SearchOptions) ([]Result, error) {
	opts.Types = []MemoryType{TypeProcedural}
	return p.m.Search(ctx, opts)
}

// Search searches the working set only; see [Memory.Search].
func (w *Working) Search(ctx context.Context, opts SearchOptions) ([]Result, error) {
	opts.Types = []MemoryType{TypeWorking}
	return w.m.Search(ctx, opts)
}

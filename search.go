package engram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/rank"
	"github.com/engram-go/engram/internal/store"
)

// SearchOptions says what to search for. The zero value of every field but
// Query is sensible.
type SearchOptions struct {
	// Query is what to look for, in the words a person would use: "What did
	// we decide about the deploy?". Any text is accepted; see [Memory.Search].
	Query string
	// Advanced makes Query an FTS5 expression (AND, OR, NOT, NEAR, "phrases",
	// prefix*), for callers who want that syntax on purpose. FTS5 decides
	// what matches (on a store without FTS5, engram's own reading of its
	// syntax, which matches the same memories and rejects the same
	// expressions); the matches are scored by BM25 over the expression's
	// words (operators and column names left out), a prefix counting as a
	// word held by every memory with a word it starts. A malformed
	// expression, or one over [MaxAdvancedBytes] or [MaxAdvancedTerms],
	// returns an error matching [ErrInvalidQuery].
	Advanced bool
	// Types limits the search to these kinds of memory; empty means all
	// of them. Each is a type's name or another name [ParseMemoryType]
	// takes ("procedures"); an unknown one is an error matching
	// [ErrInvalid] that lists the valid names. Facts are found while they
	// hold (see [Facts]).
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
	// Filter, when not nil, keeps only the memories it keeps (see
	// [Filter]): a user's, a session's, those whose metadata meets a
	// condition. Types, Tags, Since and Until above apply as well.
	Filter *Filter
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
	// Source, for a document chunk, is where it was found, to cite: its
	// file (relative to what was ingested), then its heading path, joined
	// by " > ": "guide/deploy.md > Deploy > Rollback". Other kinds have
	// none.
	Source string
	// Score is the weighted blend of Parts, in [0, 1]; results come
	// highest first.
	Score float64
	Parts ScoreParts
	// ContextOf is set on an episode found as context: it was logged just
	// before or after the episode ContextOf names, in the same session, and
	// its Text part is a share of that match's (see
	// [SearchConfig.ContextWeight]).
	ContextOf string
	// DialogueWith is set on an episode that matched and was scored with
	// the turn beside it, the match DialogueWith names, logged just before
	// or after it in the same session: Parts.Dialogue is what that turn
	// added to its Text part (see [SearchConfig.DialogueWeight]).
	DialogueWith string
}

// ScoreParts are the components of a [Result]'s Score, each in [0, 1].
//
//	Score = Question · Spread · (wT·relevance + wS·Session + wI·Importance + wR·Recency) / (wT + wS + wI + wR)
//
// with the weights of [SearchConfig] (wS is SessionWeight times wT in a
// search that finds episodes logged in sessions, 0 in any other), where relevance, how
// well the memory matches the query, is Text in a text search, Fused in a
// hybrid search and the cosine relative to the best (Vector/best) in a
// vector search: in every mode the best match has relevance 1, so that a
// Threshold cuts alike whatever the mode.
type ScoreParts struct {
	// Text is the memory's BM25 score for the query's terms, relative to
	// the best match's (1 for the best). BM25 is computed with the
	// statistics of the agent's whole memory (how many memories of every
	// kind, their average length, how many hold each term), so scores
	// compare across kinds and no other agent's memories count. An episode
	// found as session context (see [Result].ContextOf) has a share of its
	// match's.
	Text float64
	// Importance is the memory's importance (semantic and working), its
	// success rate (procedural), or 0.5 (episodic and snapshots, which
	// have none), times its resonance (see [Memory.Decay]): a memory
	// fading from use sinks.
	Importance float64
	// Recency halves every [SearchConfig.RecencyHalfLife] since the memory
	// was created, updated or last used.
	Recency float64
	// Vector is the cosine similarity of the memory's embedding with the
	// query's (0 when negative), in vector and hybrid searches, for every
	// memory with an embedding (a row still pending has none, nor has the
	// working set, nor a snapshot); it stays 0 in Tier 1 and in text
	// searches.
	Vector float64
	// Fused is, in a hybrid search, the fused relevance of the text and
	// vector rankings (see [SearchConfig].RRFConstant and
	// LexicalVectorWeight), relative to the best's (1); it takes Text's
	// place in Score.
	Fused float64
	// Dialogue is the part of Text that the matching turn beside the
	// episode (see [Result].DialogueWith) added: DialogueWeight times that
	// turn's own BM25 score, relative to the best match's. Text less
	// Dialogue is the episode's own. 0 for every other result.
	Dialogue float64
	// Session is the score of the episode's session for the query (see
	// [SearchConfig].SessionWeight): the session's matches among the
	// candidates taken together, each query term weighing its IDF times
	// BM25's saturation of how many of them hold it, over the most any
	// session could score, in [0, 1): a session whose matches hold each
	// term once scores 1/(1 + BM25K1), one that holds only a name every
	// session says, that name's small share. An episode found as context
	// has its match's; a result outside any session has its relevance, so
	// that the part changes no order among such results.
	Session float64
	// Question is the factor the memory's score took for asking a
	// question: 1 − [SearchConfig].QuestionPenalty for an episode whose
	// text ends in a question mark, 1 for every other result.
	Question float64
	// Spread is the factor the episode's place among the results of its
	// session took its score down by: (1 − [SearchConfig].SessionSpread)
	// to the power of how many results of its session rank above it; 1
	// for the first of its session and every result outside a session.
	Spread float64
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
	// DialogueWeight scores a matching episode with the turn beside it:
	// when the episode logged just before or after a match, in the same
	// session, matches too, the match's text score is its own plus this
	// share of that turn's own (of the better of the two, and only when
	// that beats the share ContextWeight gives it), so that a question and
	// its answer that both share the query's words rise together (see
	// [ScoreParts].Dialogue). The neighbours are those ContextWeight
	// finds: with ContextWeight 0 it does nothing. 0 turns it off; default
	// 0.3, chosen on half of LoCoMo's conversations and checked on the
	// other half (see BENCHMARKS.md, session 14).
	DialogueWeight float64
	// SessionWeight scores a matching episode with its session: the
	// session's matches among the candidates, taken together, are scored
	// for the query (see [ScoreParts].Session), and that part weighs
	// SessionWeight times TextWeight in the episode's score, beside its
	// relevance, so that the turns of the session a question is about
	// rise above turns that share as many of its words elsewhere. An
	// episode found as context has its match's part. 0 turns it off;
	// default 0.7, chosen with SessionSpread, QuestionPenalty and
	// AnswerWeight on half of LoCoMo's conversations and checked on the
	// other half (see BENCHMARKS.md, session 19).
	SessionWeight float64
	// SessionSpread keeps one session from filling the results: an
	// episode's score is multiplied by 1 − SessionSpread for each result
	// of its session ranked above it, results taken best first (see
	// [ScoreParts].Spread). 0 turns it off; default 0.02, chosen with
	// SessionWeight.
	SessionSpread float64
	// QuestionPenalty lowers an episode that asks a question (its text
	// ends in a question mark): its score is multiplied by 1 −
	// QuestionPenalty (see [ScoreParts].Question). A question shares the
	// words of what it asks about but seldom holds the answer, which comes
	// in the turn after it (see AnswerWeight). 0 turns it off; default
	// 0.3, chosen with SessionWeight.
	QuestionPenalty float64
	// AnswerWeight is the share of a matching question's text relevance
	// that the episode logged just after it in its session, its answer,
	// gets as context (in place of ContextWeight's share), unless the
	// answer asks a question too. With ContextWeight 0 it does nothing. 0
	// gives an answer ContextWeight's share as any neighbour; default
	// 1, chosen with SessionWeight.
	AnswerWeight float64
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
	// BM25K1 and BM25B are BM25's parameters: how fast repeats of a term
	// stop adding to a memory's text score (k1), and how much a long
	// memory's score is lowered for its length (b). Defaults 0.9 and 0.4,
	// as Anserini uses them for short passages: memories are facts, chat
	// turns and short notes, where length says little (on LoCoMo and the
	// mixed recall set, see BENCHMARKS.md, they rank better than the 1.2
	// and 0.75 usual for long documents).
	BM25K1, BM25B float64
	// LexicalVectorWeight is, in a hybrid search with a [LexicalEmbedder]
	// (such as the hashing embedder), the share of the cosine in the
	// fused relevance, the rest being the text's: such vectors echo the
	// words, so they order near ties and add what text search missed
	// after its matches, instead of a rank fusion that would push text's
	// matches out. Default 0.1.
	LexicalVectorWeight float64
	// IndexMax is the most searchable memories an agent may hold for its
	// text searches to keep an index of their words in memory, built in
	// the background after the first search and kept in step with every
	// write, from any connection: a text search then scores its matches
	// without asking FTS5 and reads only the rows it ranks (about 200
	// bytes a memory of twenty words). The index holds each memory's user
	// and session, so a search filtered by them (see [Filter]) stays on
	// it. An agent with more, a search with other filters (Since, Until,
	// Tags, metadata), an Advanced expression, vector and
	// hybrid searches, and facts, which hold only for a while, are
	// searched through FTS5, as before the index is ready; both ways give
	// the same results. 0 keeps no index. Default 2,000,000.
	//
	// A store without FTS5 (PostgreSQL) has no other way to search: there
	// every search, with any filter, Advanced or not, of any mode,
	// answers from the index, built in the first search that needs it
	// (at 100,000 memories that search takes 1.3 to 2 s longer, see
	// BENCHMARKS.md), and IndexMax bounds nothing, 0 included.
	IndexMax int
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
// written in one statement by the Memory's next write (whichever it is),
// or, when no write comes, after 30 seconds of searches (or 4,096 entries)
// by a goroutine of their own, so that no search waits for the write, and
// at the latest by [Memory.Flush] or [Memory.Close]; reads ([Semantic.Get],
// [Semantic.List]) add the accesses not written yet to what they read, and
// never write.
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
	f, err := m.Find(ctx, opts)
	return f.Results, err
}

// Found is what [Memory.Find] returns: a search's results, and how it
// ran.
type Found struct {
	Results []Result
	// Mode is how the search ran: the mode asked for, or the tier's
	// default, except that a hybrid search whose query could not be
	// embedded runs by text (SearchText).
	Mode SearchMode
	// Terms are the query's terms as the search looked for them: at most
	// 32, the rarest in the agent's memory when the query has more, and
	// an Advanced expression's prefixes, ending in "*".
	Terms []string
	// Pending counts, in Tier 2, the agent's memories waiting for their
	// vectors (see [Stats].PendingEmbeddings): vector and hybrid searches
	// found those by text alone, a vector search ranking them by their
	// text relevance.
	Pending int
}

// Find is [Memory.Search] that also says how the search ran. Errors are
// as for Search.
func (m *Memory) Find(ctx context.Context, opts SearchOptions) (Found, error) {
	if err := m.validateSearch(&opts); err != nil {
		return Found{}, err
	}
	f, err := m.find(ctx, opts, opts.Limit)
	if err != nil {
		return Found{}, err
	}
	s := f.search
	shown, err := m.present(ctx, s, f.ranked[:min(len(f.ranked), s.opts.Limit)])
	if err != nil {
		return Found{}, err
	}
	out := Found{Results: make([]Result, len(shown)), Mode: s.opts.Mode, Terms: s.shownTerms(), Pending: s.pending}
	for i, c := range shown {
		out.Results[i] = c.Result
	}
	return out, nil
}

// ranking is what a search found: every candidate that reaches the
// threshold, ranked best first, their content not read yet.
type ranking struct {
	search *search
	ranked []candidate
}

// find runs a search of validated options up to the ranking. need is how
// many of the ranking's first candidates the caller uses, or 0 for all of
// them: a search may then leave out what could not be among them.
func (m *Memory) find(ctx context.Context, opts SearchOptions, need int) (ranking, error) {
	s := m.newSearch(opts)
	f := ranking{search: s}
	if !s.byText && !s.byVector {
		return f, nil
	}
	var cands []candidate
	if s.byText {
		var err error
		if cands, err = m.textCandidates(ctx, s, need); err != nil {
			return f, err
		}
		if !s.fromIndex {
			if s.wantsType(TypeWorking) {
				cands = append(cands, m.working.candidates(s)...)
			}
			if w := m.cfg.Search.ContextWeight; s.wantsType(TypeEpisodic) && (w > 0 || m.cfg.Search.byTurns()) {
				if cands, err = m.withContext(ctx, s, cands, w, need); err != nil {
					return f, err
				}
			}
		}
	}
	cands, qv, err := m.addVectorCandidates(ctx, s, cands)
	if err != nil {
		return f, err
	}
	if s.opts.Mode == SearchVector && s.pending > 0 && s.expr != "" {
		// Memories waiting for their vectors are found by text meanwhile.
		if cands, err = m.pendingByText(ctx, s, cands); err != nil {
			return f, err
		}
	}
	if qv != nil && s.opts.Mode != SearchText {
		// Every candidate with a vector takes its place in the vector
		// ranking, not only those the vector search returned: a text
		// match just past the vector search's cut is not ranked last.
		m.vectors.cosines(qv, cands)
	}
	f.ranked = m.rank(cands, s)
	recycle(cands) // rank copied out what it keeps
	return f, nil
}

// candidateBufs keeps the candidate buffers of finished searches for the
// next ones: a search through the in-memory text index gathers a few
// hundred candidates of about 300 bytes (its matches and their session
// neighbours), of which it reads and ranks a few dozen, and allocating
// those buffers anew for every search was most of what it allocated.
var candidateBufs sync.Pool

// maxPooledCandidates bounds the buffers candidateBufs keeps: a search
// of a large Limit may need a larger one, which is left to the collector.
const maxPooledCandidates = 1024

// newCandidates returns an empty buffer with room for n candidates,
// from candidateBufs when it holds one large enough.
func newCandidates(n int) []candidate {
	if p, ok := candidateBufs.Get().(*[]candidate); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]candidate, 0, n)
}

// recycle clears the buffer of cands and gives it to candidateBufs for
// another search: nothing may use cands, or a slice of its array, after.
func recycle(cands []candidate) {
	if cap(cands) == 0 || cap(cands) > maxPooledCandidates {
		return
	}
	cands = cands[:cap(cands)]
	clear(cands) // keep no memory's strings alive
	cands = cands[:0]
	candidateBufs.Put(&cands)
}

// search is one search under way: its validated options, the compiled
// query and what it looks through.
type search struct {
	opts     SearchOptions
	expr     string   // the FTS5 expression
	terms    []string // the query's terms, as the index holds words
	stems    []string // their Porter stems, in the same order
	prefixes []string // an Advanced expression's prefixes ("kube" of kube*)
	byText   bool     // look by full text
	byVector bool     // look by vector (Tier 2)
	filter   ftsFilter
	k        int // full-text candidates per kind
	now      time.Time
	scorer   *scorer // BM25 over the agent's statistics, once the terms are chosen
	// sessions is how many sessions the episodes found are in (see
	// numberSessions), and sessionWeight the weight of the session part
	// of the scores (see SearchConfig.SessionWeight) once they are scored:
	// 0 in a search that found no episode in a session.
	sessions      int
	sessionWeight float64
	// textVersion is the version of the agent's texts (text_stats) the
	// search reads: its cached document frequencies must be as of it.
	textVersion int64
	quiet       bool // note no access (Context)
	pending     int  // Tier 2: the agent's memories waiting for their vectors
	// accessVersion is the agent's access version in the snapshot the
	// candidates were read from (see accessLog).
	accessVersion int64
	// fromIndex says the in-memory text index found the text candidates,
	// and near then holds the session neighbours of its episodic ones,
	// each with its match's ID as ContextOf (see textCandidates).
	fromIndex bool
	near      []candidate
	// ranks is the version of the agent's importance the search read
	// (see migration 0010); importanceBound says the index's is that
	// one, so that its candidates' importance is bounded by the index's
	// before their rows are read.
	ranks           int64
	importanceBound bool
}

// indexable reports whether the in-memory text index can answer the
// search (see SearchConfig.IndexMax).
func (s *search) indexable() bool {
	f := &s.filter
	return s.opts.Mode == SearchText && !s.opts.Advanced && f.tags == "" && f.since <= store.ZeroMS && f.until == math.MaxInt64 && !f.sc.byRow()
}

// where returns the SQL condition that the row of k named alias is in the
// search's scope (see Filter), with its arguments numbered from base.
func (s *search) where(k *kind, alias string, base int) (string, []any) {
	return s.filter.sc.where(k, alias, base)
}

// shownTerms are the search's terms as Found shows them: its prefixes
// end in "*".
func (s *search) shownTerms() []string {
	out := slices.Clone(s.terms)
	for _, p := range s.prefixes {
		out = append(out, bm25.PrefixTerm(p))
	}
	return out
}

// newSearch compiles validated options into a search.
func (m *Memory) newSearch(opts SearchOptions) *search {
	s := &search{opts: opts, now: m.now(), k: max(m.cfg.Search.Candidates, opts.Limit)}
	if opts.Advanced {
		s.expr = opts.Query
		s.terms, s.prefixes = query.Advanced(opts.Query)
	} else {
		s.terms = query.AllTerms(opts.Query)
		s.expr = query.Or(s.terms[:min(len(s.terms), query.MaxTerms)]) // see chooseTerms
	}
	s.stems = make([]string, len(s.terms))
	for i, t := range s.terms {
		s.stems[i] = rank.Stem(t)
	}
	s.byText, s.byVector = opts.Mode != SearchVector, opts.Mode != SearchText
	if s.byVector && len(opts.Types) > 0 && !slices.ContainsFunc(opts.Types, func(t MemoryType) bool { return t != TypeWorking }) {
		// The working set has no vectors: its search is by text, and
		// embedding the query would be wasted (or fail).
		s.byVector = false
		if s.opts.Mode == SearchHybrid {
			s.opts.Mode = SearchText
		}
	}
	if s.expr == "" {
		// No words to look for by text; a vector search still looks.
		s.byText = false
	}
	s.filter = ftsFilter{since: store.MS(opts.Since), until: math.MaxInt64, sc: scope{since: store.ZeroMS, until: math.MaxInt64}}
	if !opts.Until.IsZero() {
		s.filter.until = store.MS(opts.Until)
	}
	if len(opts.Tags) > 0 {
		b, _ := json.Marshal(opts.Tags)
		s.filter.tags = string(b)
	}
	if opts.Filter != nil {
		// The filter's time bounds join the options' own; the rest
		// is the scope's, which every query over rows adds.
		sc := newScope(*opts.Filter, m.dialect())
		s.filter.since, s.filter.until = max(s.filter.since, sc.since), min(s.filter.until, sc.until)
		sc.since, sc.until = store.ZeroMS, math.MaxInt64
		s.filter.sc = sc
		s.filter.tagList = opts.Filter.Tags
	}
	return s
}

// wantsType reports whether the search looks through memories of type t
// (of the types asked for, and of its filter's kinds). The working set
// has no user, session or metadata: a filter on those leaves it out.
func (s *search) wantsType(t MemoryType) bool {
	sc := &s.filter.sc
	if t == TypeWorking && (sc.user != "" || sc.session != "" || sc.meta != nil) {
		return false
	}
	return (len(s.opts.Types) == 0 || slices.Contains(s.opts.Types, t)) && sc.admitsType(t)
}

// wants reports whether the search looks through kind k: one of the types
// asked for, tagged if the search filters by tag, and with the columns its
// filter reads.
func (s *search) wants(k *kind) bool {
	return s.wantsType(k.typ) && (k.Tagged || s.filter.tags == "") && s.filter.sc.admits(k)
}

// validateSearch checks opts and completes them: the types in their
// canonical names, the filter cloned, the default limit and mode. It
// returns an error matching [ErrInvalid] or [ErrInvalidQuery] for a bad
// option, a [*DatabaseError] when an Advanced expression cannot be
// checked, and [ErrTierUnsupported] for a vector or hybrid search without
// Tier2.
func (m *Memory) validateSearch(opts *SearchOptions) error {
	if err := validateText("Query", opts.Query, true, m.cfg.Limits.MaxContentBytes); err != nil {
		return err
	}
	if opts.Advanced {
		if err := checkAdvanced(opts.Query, m.fullText); err != nil {
			return err
		}
	}
	if err := canonicalTypes(opts); err != nil {
		return err
	}
	if err := validateTags("Tags", opts.Tags, m.cfg.Limits); err != nil {
		return err
	}
	if opts.Filter != nil {
		if err := opts.Filter.validate("Filter", m.cfg.Limits); err != nil {
			return err
		}
		f := opts.Filter.clone()
		opts.Filter = &f
	}
	if err := validateBounds(opts); err != nil {
		return err
	}
	return m.searchMode(opts)
}

// checkAdvanced checks an Advanced expression: FTS5's cost grows with the
// product of an expression's phrases and the positions they match, so
// its size is bounded. With fullText it asks FTS5 whether the expression
// is valid, else engram's own parser of FTS5's syntax (see
// query.ParseExpr), which rejects what FTS5 rejects.
func checkAdvanced(expr string, fullText bool) error {
	if n := len(expr); n > MaxAdvancedBytes {
		return fmt.Errorf("engram: search: an Advanced expression of %d bytes is over %d: %w", n, MaxAdvancedBytes, ErrInvalidQuery)
	}
	if n := len(query.Tokens(expr)); n > MaxAdvancedTerms {
		return fmt.Errorf("engram: search: an Advanced expression of %d words is over %d: %w", n, MaxAdvancedTerms, ErrInvalidQuery)
	}
	if !fullText {
		if _, err := query.ParseExpr(expr, exprCheckCols); err != nil {
			return fmt.Errorf("engram: search %q: %w: %v", expr, ErrInvalidQuery, err)
		}
		return nil
	}
	return checkExpression(expr)
}

// exprCheckCols are the columns of the index store.CheckExpression tries
// expressions on: every column of engram's full-text indexes.
var exprCheckCols = []string{"content", "tags", "name", "description", "pattern", "agent_tok"}

// canonicalTypes puts opts.Types in their canonical names, in a copy of
// the caller's slice when one changes.
func canonicalTypes(opts *SearchOptions) error {
	cloned := false
	for i, t := range opts.Types {
		if t.Validate() == nil {
			continue
		}
		canon, err := ParseMemoryType(string(t))
		if err != nil {
			return unknownMemoryType(fmt.Sprintf("Types[%d]", i), string(t))
		}
		if !cloned { // the caller's slice stays as it was
			opts.Types, cloned = slices.Clone(opts.Types), true
		}
		opts.Types[i] = canon
	}
	return nil
}

// validateBounds checks the bounds of what a search returns: the times,
// the limit and the threshold of opts; and it sets the default limit.
func validateBounds(opts *SearchOptions) error {
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
	return nil
}

// searchMode checks opts.Mode against the Memory's tier, and sets the
// default mode: hybrid with Tier2, text without.
func (m *Memory) searchMode(opts *SearchOptions) error {
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

// checkExpression returns an error matching ErrInvalidQuery if expr is
// not a valid FTS5 expression (see store.CheckExpression), or a
// *DatabaseError if it could not be checked.
func checkExpression(expr string) error {
	err := store.CheckExpression(expr)
	var bad *store.ExprError
	switch {
	case errors.As(err, &bad):
		return fmt.Errorf("engram: search %q: %w: %v", expr, ErrInvalidQuery, bad.Err)
	case err != nil:
		return &DatabaseError{Op: "search.check", Err: err}
	}
	return nil
}

// rankCols are the columns of a row of k, named alias, that ranking
// needs, in the order scanRanked reads them (see store.RankCols).
func (k *kind) rankCols(alias string) string { return store.RankCols(k.Kind, alias) }

// scanRanked scans a row of rankCols into a candidate of type typ, and
// the columns after them, if any, into more(c).
func scanRanked(typ MemoryType, more func(c *candidate) []any) func(store.Scanner) (candidate, error) {
	return func(r store.Scanner) (candidate, error) {
		c := candidate{Result: Result{Type: typ}}
		var extra []any
		if more != nil {
			extra = more(&c)
		}
		var row store.RankedRow
		err := store.ScanRanked(r, &row, extra...)
		c.setRanked(row)
		return c, err
	}
}

// rankedCandidate returns the candidate of type typ that row is.
func rankedCandidate(typ MemoryType, row store.RankedRow) candidate {
	c := candidate{Result: Result{Type: typ}}
	c.setRanked(row)
	return c
}

// setRanked sets what row holds of c.
func (c *candidate) setRanked(row store.RankedRow) {
	c.pk, c.ID, c.Tags, c.CreatedAt = row.PK, row.ID, row.Tags, row.Created
	c.importance, c.touched, c.retrievals, c.strength = row.Importance, row.Touched, row.Retrievals, row.Strength
}

// candidate is a memory a search found, before and while it is ranked.
type candidate struct {
	Result
	pk   int64   // the row, when its Content is still to be read
	text float64 // its BM25 score (0 when only the vector search found it)
	// dialogue is the part of text the matching turn beside it added
	// (see SearchConfig.DialogueWeight).
	dialogue float64
	held     uint64 // which of the query's terms it holds (see bm25.Query.Score)
	// session is the session of an episode found by text or as the
	// context of one ("" when it has none), and sessionNo its number
	// among the search's sessions, from 1 (0 for none; see
	// numberSessions); share, when hasShare, is its session's share of the
	// query (see sessionShares); asks says it asks a question (see
	// store.Asks).
	session   string
	sessionNo int32
	share     float64
	hasShare  bool
	asks      bool
	// cosine is the vector similarity, when known (hasCosine): for the
	// vector search's finds and, in vector and hybrid searches, every
	// other candidate with a vector.
	cosine     float64
	hasCosine  bool
	importance float64
	touched    time.Time // when it was created, updated or last used
	retrievals int
	strength   float64
	relevance  float64 // the part of Score that says how well it matches (see rank)
	pending    bool    // it waits for its vector (Tier 2)
	// partial says only its type, pk, ID and text score are known yet:
	// the in-memory text index found it (see readRanked).
	partial bool
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

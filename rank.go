package engram

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"

	"github.com/engram-go/engram/internal/rank"
	"github.com/engram-go/engram/internal/store"
)

// Ranking: every candidate's parts (text relevance, importance, recency
// and, in Tier 2, vector similarity) blend into its score; the best are
// the results, which then get their content and snippets. The arithmetic
// and the snippets are internal/rank's; this file gathers the candidates'
// rows for it.

// rank gives each candidate its parts and score (see ScoreParts) and
// returns those that reach the threshold, best first (then by kind and
// ID, so that ties come in a stable order).
//
// Relevance, the part of the score that says how well a memory matches,
// is relative to the best candidate's in every mode, so that Threshold
// cuts alike whatever the mode: Text (BM25 relative to the best score) in
// a text search, the cosine relative to the best in a vector search (a
// memory waiting for its vector ranks by its Text instead), and in a
// hybrid search the fused relevance (see fuse) relative to the best.
//
// Then, with SearchConfig.SessionSpread, the episodes of a session after
// its first are taken down (see rank.SpreadFactors), and those taken below the
// threshold dropped.
func (m *Memory) rank(cands []candidate, s *search) []candidate {
	now, opts := s.now, s.opts
	if len(cands) == 0 {
		return nil
	}
	bestText, bestCos := 0.0, 0.0
	for _, c := range cands {
		bestText = max(bestText, c.text)
		if c.hasCosine {
			bestCos = max(bestCos, c.cosine)
		}
	}
	sc := m.cfg.Search
	r := rank.Scorer{Weights: sc.weights(), HalfLife: sc.RecencyHalfLife, Now: now, Mode: rank.ByText, BestText: bestText, BestCos: bestCos,
		SessionWeight: s.sessionWeight, QuestionPenalty: sc.QuestionPenalty}
	var fused []float64
	switch opts.Mode {
	case SearchHybrid:
		r.Mode = rank.Hybrid
		fused = m.fuse(cands, bestText, bestCos)
	case SearchVector:
		r.Mode = rank.ByVector
	}
	// The candidates that reach the threshold are sorted by reference,
	// then copied in their order: a candidate is large to move.
	type scoredAt struct {
		at, place        int // in cands; in the ranking before its spread
		parts            ScoreParts
		relevance, score float64
	}
	kept := make([]scoredAt, 0, len(cands))
	for i := range cands {
		c := &cands[i]
		var f float64
		if fused != nil {
			f = fused[i]
		}
		p, relevance, score := r.Score(rank.Item{
			Text: c.text, Dialogue: c.dialogue, Session: c.share, HasSession: c.hasShare, Asks: c.asks,
			Cosine: c.cosine, HasCosine: c.hasCosine, Pending: c.pending, Importance: c.importance, Touched: c.touched,
		}, f)
		if score >= opts.Threshold {
			kept = append(kept, scoredAt{at: i, parts: ScoreParts(p), relevance: relevance, score: score})
		}
	}
	slices.SortFunc(kept, func(a, b scoredAt) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		ca, cb := &cands[a.at], &cands[b.at]
		return cmp.Or(cmp.Compare(ca.Type, cb.Type), cmp.Compare(ca.ID, cb.ID))
	})
	if spread := sc.SessionSpread; spread > 0 && len(kept) > 1 && s.sessions > 0 {
		// One session must not fill the ranking (see rank.SpreadFactors):
		// each result after the first of its session is taken down.
		sessions := make([]int32, len(kept))
		for j, x := range kept {
			sessions[j] = cands[x.at].sessionNo
		}
		for j, f := range rank.SpreadFactors(sessions, spread) {
			kept[j].score *= f
			kept[j].parts.Spread = f
			kept[j].place = j
		}
		kept = slices.DeleteFunc(kept, func(x scoredAt) bool { return x.score < opts.Threshold })
		// Mostly in order already; of two alike, the first before.
		slices.SortFunc(kept, func(a, b scoredAt) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.place, b.place)) })
	}
	out := make([]candidate, len(kept))
	for j, x := range kept {
		out[j] = cands[x.at]
		out[j].Parts, out[j].relevance, out[j].Score = x.parts, x.relevance, x.score
	}
	return out
}

// fuse returns each candidate's fused relevance in a hybrid search,
// relative to the best (1); bestText and bestCos are the candidates' best
// BM25 score and cosine. With an embedder whose vectors reflect words
// (a [LexicalEmbedder], such as the hashing embedder), the vector ranking
// can only echo the text ranking: relevance is the text's, with the
// cosine as a small part (Search.LexicalVectorWeight) that orders near
// ties and lets memories text search missed come after its matches. With
// another embedder it is the reciprocal-rank fusion of the memory's places
// in the text ranking (by BM25) and the vector ranking (by cosine, of
// every candidate whose vector is known).
func (m *Memory) fuse(cands []candidate, bestText, bestCos float64) []float64 {
	sc := m.cfg.Search
	out := make([]float64, len(cands))
	if isLexical(m.vectors.emb) {
		w := sc.LexicalVectorWeight
		for i, c := range cands {
			out[i] = rank.Lexical(w, c.text, bestText, c.cosine, c.hasCosine, bestCos)
		}
		return rank.Relative(out)
	}
	k := sc.RRFConstant
	byRank := func(in func(c candidate) bool, better func(a, b candidate) int, w float64) {
		var idx []int
		for i, c := range cands {
			if in(c) {
				idx = append(idx, i)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(better(cands[a], cands[b]), cmp.Compare(cands[a].ID, cands[b].ID))
		})
		rank.AddReciprocalRanks(out, idx, k, w)
	}
	byRank(func(c candidate) bool { return c.text > 0 },
		func(a, b candidate) int { return cmp.Compare(b.text, a.text) }, sc.HybridTextWeight)
	byRank(func(c candidate) bool { return c.hasCosine },
		func(a, b candidate) int { return cmp.Compare(b.cosine, a.cosine) }, sc.HybridVectorWeight)
	return rank.Relative(out)
}

// byTurns reports whether a search scores episodes by their sessions and
// questions (SessionWeight, SessionSpread, QuestionPenalty,
// AnswerWeight), which needs each episode's session and whether it asks.
func (sc *SearchConfig) byTurns() bool {
	return sc.SessionWeight > 0 || sc.SessionSpread > 0 || sc.QuestionPenalty > 0 || sc.AnswerWeight > 0
}

// weights returns the weights of a score's parts.
func (sc *SearchConfig) weights() rank.Weights {
	return rank.Weights{Text: sc.TextWeight, Importance: sc.ImportanceWeight, Recency: sc.RecencyWeight}
}

// present makes the ranked candidates what a search returns: it reads
// the content of those that lack it, drops those deleted since they were
// ranked, cuts their snippets and, unless the search is quiet or the
// Memory read-only, notes the semantic hits as accesses.
func (m *Memory) present(ctx context.Context, s *search, cands []candidate) ([]candidate, error) {
	if err := m.fillContent(ctx, cands); err != nil {
		return nil, err
	}
	// A memory deleted since it was ranked has no content left to show.
	cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.Content == "" })
	keys := rank.NewKeys(s.stems)
	var touched []string
	for i := range cands {
		cands[i].Snippet = keys.Snippet(cands[i].Content)
		if cands[i].Type == TypeSemantic {
			touched = append(touched, cands[i].ID)
		}
	}
	if !s.quiet && !m.db.ReadOnly() && len(touched) > 0 && m.access.note(TypeSemantic, touched, accessNote{N: 1, At: store.MS(s.now)}) {
		m.flushAccessSoon()
	}
	return cands, nil
}

// fillContent reads the content of the candidates that do not have it
// yet, one query per kind: ranking needs none, so only the results pay for
// it. A row deleted since it was ranked keeps an empty content.
func (m *Memory) fillContent(ctx context.Context, cands []candidate) error {
	want := map[MemoryType][]int64{}
	at := map[MemoryType]map[int64]int{}
	for i, c := range cands {
		if c.pk == 0 || c.Content != "" {
			continue
		}
		want[c.Type] = append(want[c.Type], c.pk)
		if at[c.Type] == nil {
			at[c.Type] = map[int64]int{}
		}
		at[c.Type][c.pk] = i
	}
	if len(want) == 0 {
		return nil
	}
	return m.read(ctx, "search.content", func(q store.Tx) error {
		for typ, list := range want {
			idx := at[typ]
			err := store.EachContent(q, kindOf(typ).Kind, list, func(pk int64, text, cite string) error {
				cands[idx[pk]].Content, cands[idx[pk]].Source = text, cite
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// readRanked reads, in q's snapshot, what ranking needs of the candidates
// the in-memory text index found (the partial ones) and their content,
// and returns the candidates, all complete. need is as for find: in a text
// search that uses only the first need, a candidate is read only if its
// bound could reach the need-th best score of those read first (the need
// best bounds, and the best match by text, which every score is relative
// to). Its bound is its score with its own text relevance, the index's
// bound on its importance (its kind's most when that may be stale) and its
// recency (full, unless its kind is touched only when created, which the
// index knows). What it leaves out could not be among the first need.
func (m *Memory) readRanked(q store.Tx, s *search, cands []candidate, need int) ([]candidate, error) {
	partial, bestText := partialOf(cands)
	if len(partial) == 0 {
		return cands, nil
	}
	var err error
	if need == 0 || s.opts.Mode != SearchText || bestText == 0 {
		err = m.readRows(q, s, cands, partial, true)
	} else {
		err = m.readBounded(q, s, cands, partial, need, bestText)
	}
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cands, func(c candidate) bool { return c.partial }), nil
}

// partialOf returns the indexes of the partial candidates and the best
// text relevance of all.
func partialOf(cands []candidate) (partial []int, bestText float64) {
	for i, c := range cands {
		if c.text > bestText {
			bestText = c.text
		}
		if c.partial {
			partial = append(partial, i)
		}
	}
	return partial, bestText
}

// readBounded is readRanked's read for a text search that uses only the
// first need (need > 0, bestText > 0): it reads the partial candidates
// whose bound could reach the need-th best score of those read first.
func (m *Memory) readBounded(q store.Tx, s *search, cands []candidate, partial []int, need int, bestText float64) error {
	bounds := m.rankBounds(s, cands, partial, bestText)
	// First the need best bounds (those above the need-th, then enough of
	// those equal to it), and the best match by text.
	first := rank.BestBounds(partial, bounds, need)
	if best := bestMatch(cands, partial, bestText); best >= 0 && !slices.Contains(first, best) {
		first = append(slices.Clip(first), best)
	}
	if err := m.readRows(q, s, cands, first, false); err != nil {
		return err
	}
	read := m.readScores(s, cands, bestText)
	floor := m.scoreFloor(s, read, need)
	m.spreadBounds(s, cands, partial, bounds, read)
	var rest []int
	for _, i := range partial {
		// The margin keeps a bound that rounding put a hair under the
		// score it bounds.
		if cands[i].partial && bounds[i] >= floor-1e-9 {
			rest = append(rest, i)
		}
	}
	return m.readRows(q, s, cands, rest, false)
}

// bestMatch returns the index of the partial candidate with the best
// text relevance, bestText (the lowest ID of those), or -1.
func bestMatch(cands []candidate, partial []int, bestText float64) int {
	best := -1
	for _, i := range partial {
		if cands[i].text == bestText && (best < 0 || cands[i].ID < cands[best].ID) {
			best = i
		}
	}
	return best
}

// rankBounds returns the bounds on the scores of the partial candidates,
// by index in cands (see readRanked). Their relevance, session part and
// whether they ask a question are known; their importance and recency are
// bounded, and a spread only lowers a score.
func (m *Memory) rankBounds(s *search, cands []candidate, partial []int, bestText float64) []float64 {
	sc := &m.cfg.Search
	bounds := make([]float64, len(cands))
	for _, i := range partial {
		c := &cands[i]
		k := kindOf(c.Type)
		imp, rec := k.MaxImportance, 1.0
		if s.importanceBound {
			imp = c.importance // the index's, at least the row's
		}
		if k.Touched == createdAt {
			rec = rank.Recency(s.now, c.CreatedAt, sc.RecencyHalfLife) // known: the index holds it
		}
		bounds[i] = m.textScore(s, c, bestText, imp, rec)
	}
	return bounds
}

// textScore returns the score in a text search of c, whose text score
// is relative to bestText (> 0), with importance imp and recency rec,
// before any spread: what rank.Scorer.Score gives.
func (m *Memory) textScore(s *search, c *candidate, bestText, imp, rec float64) float64 {
	sc := &m.cfg.Search
	rel := c.text / bestText
	session := rel
	if c.hasShare {
		session = c.share
	}
	score := rank.Blend(sc.weights(), s.sessionWeight, rel, session, imp, rec)
	if c.asks {
		score *= 1 - sc.QuestionPenalty
	}
	return score
}

// spreadBounds lowers the bounds of the partial candidates still unread
// by their spread (see SearchConfig.SessionSpread): a candidate ranks
// below every candidate read of its session whose score is above its
// bound, and loses 1 − SessionSpread for each. read are the scores of the
// candidates read (see readScores); one below the threshold cannot be
// above the bound of a candidate that could still be read.
func (m *Memory) spreadBounds(s *search, cands []candidate, partial []int, bounds []float64, read []readScore) {
	spread := m.cfg.Search.SessionSpread
	if spread == 0 || s.sessions == 0 {
		return
	}
	for _, i := range partial {
		c := &cands[i]
		if !c.partial || c.sessionNo == 0 {
			continue
		}
		above := 0
		for _, r := range read {
			if r.session == c.sessionNo && r.score > bounds[i] {
				above++
			}
		}
		bounds[i] *= math.Pow(1-spread, float64(above))
	}
}

// readScore is the score of a candidate read, before any spread, and its
// session (its sessionNo).
type readScore struct {
	score   float64
	session int32
}

// readScores returns the scores of the candidates read (not partial) that
// reach the search's threshold, before any spread.
func (m *Memory) readScores(s *search, cands []candidate, bestText float64) []readScore {
	sc := &m.cfg.Search
	var read []readScore
	for i := range cands {
		if c := &cands[i]; !c.partial {
			if score := m.textScore(s, c, bestText, c.importance, rank.Recency(s.now, c.touched, sc.RecencyHalfLife)); score >= s.opts.Threshold {
				read = append(read, readScore{score, c.sessionNo})
			}
		}
	}
	return read
}

// scoreFloor returns the need-th best of the scores read (see
// readScores: they include the best text score), or the search's
// threshold if higher: no candidate below it can be among the first need.
// With SessionSpread, the scores are those spread among the candidates
// read: a candidate read later can only raise the need-th of those (it
// takes its place among its session's, pushing each below it down one
// place, to the place of one at least as good), and its own spread score
// is at most its score, which its bound bounds. It reorders read.
func (m *Memory) scoreFloor(s *search, read []readScore, need int) float64 {
	scores := make([]float64, len(read))
	if spread := m.cfg.Search.SessionSpread; spread > 0 && s.sessions > 0 {
		slices.SortStableFunc(read, func(a, b readScore) int { return cmp.Compare(b.score, a.score) })
		sessions := make([]int32, len(read))
		for j, r := range read {
			sessions[j] = r.session
		}
		for j, f := range rank.SpreadFactors(sessions, spread) {
			scores[j] = read[j].score * f
		}
	} else {
		for j, r := range read {
			scores[j] = r.score
		}
	}
	return rank.Floor(scores, s.opts.Threshold, need)
}

// createdAt is the touched of a kind whose rows are touched only when
// created (see kind.touched).
const createdAt = "{t}.created_at"

// readRows reads what ranking and the results need of the partial
// candidates at the indexes at, one query per kind (see store.ReadRows),
// and marks them complete; a row no longer there stays partial. Their
// type, ID, pk and creation time are the index's; a kind touched only
// when created was touched then. recall says the retrievals and strength
// are wanted too.
func (m *Memory) readRows(q store.Tx, s *search, cands []candidate, at []int, recall bool) error {
	byType := map[MemoryType][]int{}
	for _, i := range at {
		byType[cands[i].Type] = append(byType[cands[i].Type], i)
	}
	for typ, idx := range byType {
		k := kindOf(typ)
		rr := store.RowRead{Touched: k.Touched != createdAt, Recall: recall}
		list := []byte{'['}
		for j, i := range idx {
			if j > 0 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, cands[i].pk, 10)
		}
		list = append(list, ']')
		// The rows come in the list's order: next is where the one after
		// the last found should be.
		next := 0
		where := func(pk int64) (int, bool) {
			for n := range len(idx) {
				j := (next + n) % len(idx)
				if cands[idx[j]].pk == pk {
					next = j + 1
					return idx[j], true
				}
			}
			return 0, false
		}
		err := store.ReadRows(q, k.Kind, list, rr, func(r *store.RankRow) error {
			i, ok := where(r.PK)
			if !ok {
				return nil
			}
			c := &cands[i]
			c.Tags, c.Content, c.Source, c.importance, c.partial = r.Tags, r.Text, r.Cite, r.Importance, false
			c.touched = c.CreatedAt
			if rr.Touched {
				c.touched = r.Touched
			}
			c.retrievals, c.strength = r.Retrievals, r.Strength
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

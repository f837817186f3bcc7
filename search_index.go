package engram

import (
	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/store"
	"strings"
)

// Text search without FTS5 (see Memory.fullText): a search the in-memory
// text index does not answer on its own (filtered by tags, time or rows,
// an Advanced expression, vector and hybrid searches, facts) still finds
// its matches in the index, exactly as FTS5 would find and score them,
// and asks the rows only what the index does not hold: which of the
// matches the search's filters keep, and which facts hold at its time.

// indexMatches is ftsBest for every kind the search wants, from the
// index d (as of the search's snapshot) instead of FTS5, with the
// statistics docs and tokens: the same terms chosen, the same plans and
// windows, the same scores, the same k best; candidates whose rank
// columns are not read yet (see readRanked).
func (m *Memory) indexMatches(q store.Tx, s *search, d *textData, docs, tokens int) ([]candidate, error) {
	kindDF, df := d.docFreqs(s)
	s.limitTerms(df)
	s.scorer = newScorer(clone(s.stems), df, docs, tokens, m.cfg.Search)
	var cands []candidate
	for i, src := range ftsSources {
		k := &d.kinds[i]
		if !s.wants(src.kind) || len(k.docs) == 0 {
			continue
		}
		p := planTerms(s.stems, kindDF[i], m.cfg.Search.PostingBudget)
		pass, err := m.passOf(q, s, src, k, k.planned(s, p))
		if err != nil {
			return nil, err
		}
		cands = k.best(cands, s, src.typ, p, pass)
	}
	return cands, nil
}

// clone returns a copy of ss.
func clone(ss []string) []string { return append([]string(nil), ss...) }

// planned returns the docs that any plan of p can match: those holding
// any of its kept terms (the window of the two rarest matches a subset),
// in ascending order.
func (k *textKind) planned(s *search, p termPlan) []int32 {
	hashes := make([]uint32, len(p.keep))
	for j, i := range p.keep {
		hashes[j] = bm25.Hash(s.stems[i])
	}
	return k.match(hashes, false)
}

// docFilter says which of a kind's docs a search's filters keep (its
// time bounds, tags and scope, as TextBestSQL and TextWindowSQL test
// them) and which are live at its time (see store.Kind.Live), as bit
// sets over the kind's docs: nil keeps every doc.
type docFilter struct {
	kept, live []uint64
}

// keeps reports whether the filters keep doc.
func (f *docFilter) keeps(doc int32) bool { return f.kept[doc>>6]&(1<<(uint(doc)&63)) != 0 }

// lives reports whether doc is live.
func (f *docFilter) lives(doc int32) bool { return f.live[doc>>6]&(1<<(uint(doc)&63)) != 0 }

// passOf reads from the rows of the docs (ascending) of src's kind k
// which the search's filters keep and which are live: nil when the
// search has no filter and the kind no Live condition.
func (m *Memory) passOf(q store.Tx, s *search, src ftsSource, k *textKind, docs []int32) (*docFilter, error) {
	filtered, live := !s.filter.none(), src.Live != ""
	if !filtered && !live || len(docs) == 0 {
		return nil, nil
	}
	f := &docFilter{}
	words := (len(k.docs) + 63) / 64
	if filtered {
		f.kept = make([]uint64, words)
	}
	if live {
		f.live = make([]uint64, words)
	}
	pks := make([]int64, len(docs))
	for i, d := range docs {
		pks[i] = k.docs[d].pk
	}
	err := store.TextFiltered(q, src.Kind, m.agent, pks, s.filter.stored(), store.MS(s.now), func(pk int64, kept, isLive bool) {
		d := k.at(pk)
		if int(d) >= len(k.docs) || k.docs[d].pk != pk {
			return
		}
		if kept && f.kept != nil {
			f.kept[d>>6] |= 1 << (uint(d) & 63)
		}
		if isLive && f.live != nil {
			f.live[d>>6] |= 1 << (uint(d) & 63)
		}
	})
	return f, err
}

// advancedMatches is indexMatches for an Advanced expression: the rows
// the expression matches, as FTS5 matches them (see query.Expr), which
// reads the texts of the rows its terms do not rule out (every row, for
// an expression of prefixes alone); scored by BM25 over the expression's
// terms and prefixes as ftsBest scores them, the k best of each kind.
// Like FTS5, it fails for a column filter naming a column some kind it
// searches does not have.
func (m *Memory) advancedMatches(q store.Tx, s *search, d *textData, docs, tokens int) ([]candidate, error) {
	exprs := make([]*query.Expr, len(ftsSources))
	for i, src := range ftsSources {
		if !s.wants(src.kind) {
			continue
		}
		e, err := query.ParseExpr(s.expr, append(clone(src.IndexedCols), "agent_tok"))
		if err != nil {
			return nil, err
		}
		exprs[i] = e
	}
	r := &rowTexts{q: q, d: d, agentTok: agentToken(m.agent)}
	_, df := d.docFreqs(s)
	stems := clone(s.stems)
	for _, p := range s.prefixes {
		n, err := r.prefixDocs(query.Stem(p))
		if err != nil {
			return nil, err
		}
		stems, df[bm25.PrefixTerm(p)] = append(stems, bm25.PrefixTerm(p)), n
	}
	s.scorer = newScorer(stems, df, docs, tokens, m.cfg.Search)
	s.scorer.prefixes = s.prefixes
	var cands []candidate
	for i, src := range ftsSources {
		k := &d.kinds[i]
		e := exprs[i]
		if e == nil || len(k.docs) == 0 {
			continue
		}
		if len(s.prefixes) == 0 {
			// An expression of single words needs only the postings.
			every := allDocs(k)
			matched, ok := e.Rows(func(stem string) []int32 {
				if stem == query.Stem(r.agentTok) {
					return every // every row holds the agent's token
				}
				if p := k.post[bm25.Hash(stem)]; p != nil {
					return p.docs
				}
				return nil
			}, every)
			if ok {
				top, err := m.scoreMatches(q, s, src, k, i, matched, r)
				if err != nil {
					return nil, err
				}
				cands = append(cands, top...)
				continue
			}
		}
		maybe, all := e.Narrow(func(stem string) ([]int32, bool) {
			if stem == query.Stem(r.agentTok) {
				return nil, false // every row holds the agent's token
			}
			if p := k.post[bm25.Hash(stem)]; p != nil {
				return p.docs, true
			}
			return nil, true
		})
		if all {
			maybe = allDocs(k)
		}
		if err := r.load(i, maybe); err != nil {
			return nil, err
		}
		matched := filterDocs(maybe, func(doc int32) bool { return e.Match(r.cols(i, doc)) })
		top, err := m.scoreMatches(q, s, src, k, i, matched, r)
		if err != nil {
			return nil, err
		}
		cands = append(cands, top...)
	}
	return cands, nil
}

// scoreMatches returns the k best of the docs of kind k (the i-th of
// ftsSources) an Advanced expression matched that the search's filters
// keep and that are live, scored as ftsBest scores them: prefixes from
// the texts r read, as scoreFromText does.
func (m *Memory) scoreMatches(q store.Tx, s *search, src ftsSource, k *textKind, i int, matched []int32, r *rowTexts) ([]candidate, error) {
	pass, err := m.passOf(q, s, src, k, matched)
	if err != nil {
		return nil, err
	}
	if pass != nil && pass.kept != nil {
		matched = filterDocs(matched, pass.keeps)
	}
	if pass != nil && pass.live != nil {
		matched = filterDocs(matched, pass.lives)
	}
	var scores []scored
	if len(s.prefixes) > 0 {
		scores = make([]scored, len(matched))
		for j, doc := range matched {
			v, n := bm25.VectorPrefixed(s.prefixes, r.texts[i][doc]...)
			sc, held := s.scorer.Score(v, n)
			scores[j] = scored{doc: doc, score: sc, held: held}
		}
	} else {
		scores = k.score(s, matched)
	}
	return k.topScored(s, src.typ, scores, nil, nil), nil
}

// allDocs returns every doc of k, ascending.
func allDocs(k *textKind) []int32 {
	out := make([]int32, len(k.docs))
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// rowTexts reads, for an Advanced search, the indexed texts of the rows
// of the index d it needs, once each, in q's snapshot.
type rowTexts struct {
	q        store.Tx
	d        *textData
	agentTok string
	texts    []map[int32][]string   // per kind (ftsSources' order): doc → its indexed texts
	stems    []map[int32][][]string // per kind: doc → its columns' stems, agent_tok last
}

// load reads the texts of the docs of kind i not read yet.
func (r *rowTexts) load(i int, docs []int32) error {
	if r.texts == nil {
		r.texts = make([]map[int32][]string, len(ftsSources))
		r.stems = make([]map[int32][][]string, len(ftsSources))
	}
	if r.texts[i] == nil {
		r.texts[i] = map[int32][]string{}
		r.stems[i] = map[int32][][]string{}
	}
	k := &r.d.kinds[i]
	var pks []int64
	for _, doc := range docs {
		if _, ok := r.texts[i][doc]; !ok {
			pks = append(pks, k.docs[doc].pk)
		}
	}
	if len(pks) == 0 {
		return nil
	}
	return store.EachIndexedText(r.q, ftsSources[i].Kind, pks, func(pk int64, texts []string) error {
		if doc := k.at(pk); int(doc) < len(k.docs) && k.docs[doc].pk == pk {
			r.texts[i][doc] = clone(texts)
		}
		return nil
	})
}

// cols returns the stems of each column of doc of kind i, as its
// full-text index holds them: its indexed texts', then the agent's token.
func (r *rowTexts) cols(i int, doc int32) [][]string {
	if c, ok := r.stems[i][doc]; ok {
		return c
	}
	texts := r.texts[i][doc]
	c := make([][]string, 0, len(texts)+1)
	for _, t := range texts {
		c = append(c, query.ColumnStems(t))
	}
	c = append(c, query.ColumnStems(r.agentTok))
	r.stems[i][doc] = c
	return c
}

// prefixDocs returns how many of the agent's rows, of every kind, hold
// a word whose stem starts with the stem prefix, in any column of their
// full-text index: what FTS5 counts for "prefix"* (see prefixFreq).
func (r *rowTexts) prefixDocs(prefix string) (int, error) {
	n := 0
	every := strings.HasPrefix(query.Stem(r.agentTok), prefix) // every row holds the agent's token
	for i := range ftsSources {
		k := &r.d.kinds[i]
		if every {
			n += len(k.docs)
			continue
		}
		all := allDocs(k)
		if err := r.load(i, all); err != nil {
			return 0, err
		}
		for _, doc := range all {
			if holdsPrefix(r.cols(i, doc), prefix) {
				n++
			}
		}
	}
	return n, nil
}

// holdsPrefix reports whether any stem of the columns starts with prefix.
func holdsPrefix(cols [][]string, prefix string) bool {
	for _, col := range cols {
		for _, st := range col {
			if strings.HasPrefix(st, prefix) {
				return true
			}
		}
	}
	return false
}

package engram

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/store"
)

// Ranking: every candidate's parts (text relevance, importance, recency
// and, in Tier 2, vector similarity) blend into its score; the best are
// the results, which then get their content and snippets.

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
func (m *Memory) rank(cands []candidate, now time.Time, opts SearchOptions) []candidate {
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
	total := sc.TextWeight + sc.ImportanceWeight + sc.RecencyWeight
	var fused []float64
	if opts.Mode == SearchHybrid {
		fused = m.fuse(cands, bestText, bestCos)
	}
	out := make([]candidate, 0, len(cands))
	for i, c := range cands {
		p := ScoreParts{Importance: c.importance, Recency: recency(now, c.touched, sc.RecencyHalfLife)}
		if bestText > 0 {
			p.Text, p.Dialogue = c.text/bestText, c.dialogue/bestText
		}
		if c.hasCosine {
			p.Vector = max(0, min(1, c.cosine))
		}
		c.relevance = p.Text
		switch {
		case opts.Mode == SearchHybrid:
			p.Fused = fused[i]
			c.relevance = p.Fused
		case opts.Mode == SearchVector && !c.pending && bestCos > 0:
			c.relevance = max(0, c.cosine) / bestCos
		}
		c.Parts = p
		c.Score = (sc.TextWeight*c.relevance + sc.ImportanceWeight*p.Importance + sc.RecencyWeight*p.Recency) / total
		if c.Score >= opts.Threshold {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b candidate) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
	})
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
			if bestText > 0 {
				out[i] = (1 - w) * c.text / bestText
			}
			if c.hasCosine && bestCos > 0 {
				out[i] += w * max(0, c.cosine) / bestCos
			}
		}
		return relative(out)
	}
	k := sc.RRFConstant
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
	rank(func(c candidate) bool { return c.text > 0 },
		func(a, b candidate) int { return cmp.Compare(b.text, a.text) }, sc.HybridTextWeight)
	rank(func(c candidate) bool { return c.hasCosine },
		func(a, b candidate) int { return cmp.Compare(b.cosine, a.cosine) }, sc.HybridVectorWeight)
	return relative(out)
}

// relative scales xs so that the largest is 1.
func relative(xs []float64) []float64 {
	top := 0.0
	for _, x := range xs {
		top = max(top, x)
	}
	if top > 0 {
		for i := range xs {
			xs[i] /= top
		}
	}
	return xs
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
	keys := newSnippetKeys(s.stems)
	var touched []string
	for i := range cands {
		cands[i].Snippet = keys.snippet(cands[i].Content)
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

// stemCache remembers the Porter stems of the tokens searches and
// snippets met: the same words come back in query after query and result
// after result, and stemming one costs ten times a lookup.
type stemCache struct {
	mu    sync.RWMutex
	stems map[string]string
}

// stemCacheMax bounds the cache; it starts again empty when full.
const stemCacheMax = 1 << 16

// stems is the process's cache of stems.
var stems stemCache

// of returns tok's Porter stem.
func (c *stemCache) of(tok string) string {
	c.mu.RLock()
	st, ok := c.stems[tok]
	c.mu.RUnlock()
	if ok {
		return st
	}
	st = query.Stem(tok)
	c.mu.Lock()
	if c.stems == nil || len(c.stems) >= stemCacheMax {
		c.stems = make(map[string]string)
	}
	c.stems[strings.Clone(tok)] = st
	c.mu.Unlock()
	return st
}

// mayHold reports whether the word w may hold a key: false when it is
// ASCII and none of its tokens (its runs of letters and digits, lowercased)
// starts as a token holding a key does (see stemHead).
func (k *snippetKeys) mayHold(w string) bool {
	for i := 0; i < len(w); {
		c := w[i]
		switch {
		case c >= utf8.RuneSelf:
			return true // folding may change it: look properly
		case !asciiAlnum(c):
			i++
			continue
		}
		j := i + 1
		for j < len(w) && asciiAlnum(w[j]) {
			j++
		}
		if j < len(w) && w[j] >= utf8.RuneSelf {
			return true
		}
		for _, h := range k.heads[lowerASCII(c)] {
			if len(h) <= j-i && strings.EqualFold(w[i:i+len(h)], h) {
				return true
			}
		}
		i = j
	}
	return false
}

// asciiAlnum reports whether c is an ASCII letter or digit.
func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// lowerASCII returns c lowercased, when it is an ASCII letter.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// snippetKeys are a query's terms as snippets match them: by Porter stem,
// as the index does. Porter stemming rewrites suffixes only, so a token can
// share a term's stem only if it starts like it: first lets most tokens
// skip stemming.
type snippetKeys struct {
	stems map[string]bool
	first [256]bool
	// heads are, by first letter, the starts a token holding a key must
	// have (see stemHead).
	heads [256][]string
	words map[string]bool // whether a word holds a key, once known
	// spans and hit are snippet's scratch: where each word of a text
	// starts and ends, and whether it holds a key.
	spans [][2]int
	hit   []bool
}

// newSnippetKeys returns the keys of the terms of Porter stems stems.
func newSnippetKeys(stems []string) *snippetKeys {
	k := &snippetKeys{stems: make(map[string]bool, len(stems))}
	for _, st := range stems {
		if st != "" && !k.stems[st] {
			k.first[st[0]] = true
			k.heads[st[0]] = append(k.heads[st[0]], stemHead(st))
		}
		k.stems[st] = true
	}
	return k
}

// stemHead is how a token whose Porter stem is st starts: Porter keeps a
// start of the token and rewrites at most two letters at its end (biliti
// becomes ble: "sensibiliti" → "sensible"), so the token starts with st
// but for its last two letters, and always with its first.
func stemHead(st string) string { return st[:max(1, len(st)-2)] }

// snippet returns the window of about snippetTokens words of text that
// holds the most query terms, with each matching word in **bold**. Only
// the results pay for it, not every candidate.
func (k *snippetKeys) snippet(text string) string {
	// The words, as strings.Fields splits them, and which hold a key.
	k.spans, k.hit = k.spans[:0], k.hit[:0]
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && asciiSpace[c] {
			i++
			continue
		} else if c >= utf8.RuneSelf {
			if n := spaceAt(text, i); n > 0 {
				i += n
				continue
			}
		}
		j := i + 1
		for j < len(text) {
			if c := text[j]; c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
			} else if spaceAt(text, j) > 0 {
				break
			}
			j++
		}
		k.spans = append(k.spans, [2]int{i, j})
		k.hit = append(k.hit, k.holds(text[i:j]))
		i = j
	}
	words, hit := k.spans, k.hit
	start, end := snippetWindow(hit)
	if end == start {
		return ""
	}
	var b strings.Builder
	b.Grow(words[end-1][1] - words[start][0] + 4*snippetTokens + 2*len("…"))
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		w := text[words[i][0]:words[i][1]]
		if hit[i] {
			b.WriteString("**")
			b.WriteString(w)
			b.WriteString("**")
		} else {
			b.WriteString(w)
		}
	}
	if end < len(words) {
		b.WriteString("…")
	}
	return b.String()
}

// spaceAt returns the length of the space (as unicode.IsSpace says)
// starting at text[i], a byte past ASCII, or 0 when none starts there.
func spaceAt(text string, i int) int {
	r, n := utf8.DecodeRuneInString(text[i:])
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

// asciiSpace are the ASCII bytes unicode.IsSpace takes for space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// snippetWindow returns where a snippet of words, of which those that
// hold a key are hit, starts and ends: the first run of snippetTokens
// words holding the most keys.
func snippetWindow(hit []bool) (start, end int) {
	best, n := -1, 0
	for i := range hit {
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
	return start, min(len(hit), start+snippetTokens)
}

// holds reports whether the word w holds a key: one of its tokens has a
// key's stem.
func (k *snippetKeys) holds(w string) bool {
	if !k.mayHold(w) {
		return false
	}
	h, known := k.words[w]
	if !known {
		for _, tok := range query.Tokens(w) {
			if k.first[tok[0]] && k.stems[stems.of(tok)] {
				h = true
				break
			}
		}
		if k.words == nil {
			k.words = map[string]bool{}
		}
		k.words[w] = h
	}
	return h
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
	sc := m.cfg.Search
	total := sc.TextWeight + sc.ImportanceWeight + sc.RecencyWeight
	bounds := m.rankBounds(s, cands, partial, bestText, total)
	// First the need best bounds (those above the need-th, then enough of
	// those equal to it), and the best match by text.
	first := bestBounds(partial, bounds, need)
	if best := bestMatch(cands, partial, bestText); best >= 0 && !slices.Contains(first, best) {
		first = append(slices.Clip(first), best)
	}
	if err := m.readRows(q, s, cands, first, false); err != nil {
		return err
	}
	floor := m.scoreFloor(s, cands, bestText, total, need)
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
// by index in cands (see readRanked); total is the sum of the weights.
func (m *Memory) rankBounds(s *search, cands []candidate, partial []int, bestText, total float64) []float64 {
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
			rec = recency(s.now, c.CreatedAt, sc.RecencyHalfLife) // known: the index holds it
		}
		bounds[i] = (sc.TextWeight*c.text/bestText + sc.ImportanceWeight*imp + sc.RecencyWeight*rec) / total
	}
	return bounds
}

// bestBounds returns the indexes of the need best bounds of the partial
// candidates: those above the need-th, then enough of those equal to it.
func bestBounds(partial []int, bounds []float64, need int) []int {
	if len(partial) <= need {
		return partial
	}
	bs := make([]float64, len(partial))
	for j, i := range partial {
		bs[j] = bounds[i]
	}
	kth := nth(bs, len(bs)-need)
	first := make([]int, 0, need+1)
	for _, i := range partial {
		if bounds[i] > kth {
			first = append(first, i)
		}
	}
	for _, i := range partial {
		if len(first) < need && bounds[i] == kth {
			first = append(first, i)
		}
	}
	return first
}

// scoreFloor returns the need-th best score of the candidates read
// (which include the best text score), or the search's threshold if
// higher: no candidate below it can be among the first need.
func (m *Memory) scoreFloor(s *search, cands []candidate, bestText, total float64, need int) float64 {
	sc := &m.cfg.Search
	var scores []float64
	for i := range cands {
		if c := &cands[i]; !c.partial {
			p := ScoreParts{Text: c.text / bestText, Importance: c.importance, Recency: recency(s.now, c.touched, sc.RecencyHalfLife)}
			if score := (sc.TextWeight*p.Text + sc.ImportanceWeight*p.Importance + sc.RecencyWeight*p.Recency) / total; score >= s.opts.Threshold {
				scores = append(scores, score)
			}
		}
	}
	floor := s.opts.Threshold
	if len(scores) >= need {
		floor = max(floor, nth(scores, len(scores)-need))
	}
	return floor
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

package engram

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/query"
)

// Ranking: every candidate's parts (text relevance, importance, recency
// and, in Tier 2, vector similarity) blend into its score; the best are
// the results, which then get their content and snippets.

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

// present turns the ranked results into what Search returns: it reads
// the content of the results that lack it, drops those deleted since they
// were ranked, cuts their snippets and notes the semantic hits as
// accesses.
func (m *Memory) present(ctx context.Context, s *search, results []Result, cands []candidate) ([]Result, error) {
	if err := m.fillContent(ctx, results, cands); err != nil {
		return nil, err
	}
	// A memory deleted since it was ranked has no content left to show.
	results = slices.DeleteFunc(results, func(r Result) bool { return r.Content == "" })
	keys := newSnippetKeys(s.terms)
	for i := range results {
		results[i].Snippet = keys.snippet(results[i].Content)
	}
	var touched []string
	for _, r := range results {
		if r.Type == TypeSemantic {
			touched = append(touched, r.ID)
		}
	}
	if len(touched) > 0 && m.access.note(touched, s.now) {
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

// contentSQL reads the text of the rows of each kind whose pks are listed
// in ?1, as a search result shows it.
var contentSQL = func() map[MemoryType]string {
	out := map[MemoryType]string{}
	for _, k := range kinds {
		out[k.typ] = `SELECT j.value, ` + k.textOver("t") + ` FROM json_each(?1) j CROSS JOIN ` + k.table + ` t ON t.pk = j.value`
	}
	return out
}()

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

package engram

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/vecindex"
)

// Vector candidates (Tier 2): the memories whose embeddings are nearest
// the query's, from the in-memory index of each kind with vectors.

// vectorSQL holds, per kind with vectors, the statement that reads, for
// the rows the vector search found, what ranking needs (see scanRanked),
// under the search's filters, as ftsSources do (see
// store.VectorRankedSQL). The content is read later, for the results
// only.
var vectorSQL = func() map[MemoryType]string {
	out := map[MemoryType]string{}
	for _, k := range vectorKinds {
		out[k.typ] = store.VectorRankedSQL(k.Kind)
	}
	return out
}()

// addVectorCandidates embeds the query and merges the vector search's
// candidates into cands, when the search looks by vector; it returns the
// query's vector (nil when it did not look). A hybrid search whose query
// cannot be embedded answers by text: it logs why and turns into a text
// search.
func (m *Memory) addVectorCandidates(ctx context.Context, s *search, cands []candidate) ([]candidate, []float32, error) {
	if !s.byVector {
		return cands, nil, nil
	}
	found, qv, err := m.vectorCandidates(ctx, s)
	switch {
	case err == nil:
		return merge(cands, found), qv, nil
	case s.opts.Mode == SearchHybrid && errors.Is(err, ErrEmbedding):
		// The text half still answers.
		m.log.Warn("engram: hybrid search by text only: the query could not be embedded", "err", err)
		s.opts.Mode = SearchText
		return cands, nil, nil
	}
	return nil, nil, err
}

// vectorCandidates finds, per kind with vectors, the memories whose
// embeddings are nearest the query's and that pass the filters: twice the
// limit, so that importance and recency have some to choose from. With
// filters it looks at four times as many neighbours, since some may not
// pass, and further while too few pass, so that a narrow filter does not
// return fewer than it could. Its error matches [ErrEmbedding] when the
// query cannot be embedded.
func (m *Memory) vectorCandidates(ctx context.Context, s *search) ([]candidate, []float32, error) {
	v := m.vectors
	// Queries skip the embedding cache, which holds stored texts.
	es, err := v.embedMissing(ctx, []string{s.opts.Query}, make([]embedded, 1))
	if err != nil {
		return nil, nil, err
	}
	qv := es[0].vec
	k := 2 * s.opts.Limit
	n := k
	filtered := !s.filter.none()
	if filtered {
		n = 4 * k
	}
	var out []candidate
	err = m.read(ctx, "search.vector", func(q store.Tx) error {
		if err := v.sync(q); err != nil {
			return err
		}
		if s.pending, err = store.PendingCount(q, m.agent); err != nil {
			return err
		}
		if !s.byText { // else the text search's read took it
			if s.accessVersion, err = store.Counter(q, metaAccessVersion+m.agent); err != nil {
				return err
			}
		}
		for _, vk := range vectorKinds {
			if !s.wants(vk) {
				continue
			}
			hits := v.search(vk.typ, qv, n, s.opts.Limit)
			if len(hits) == 0 {
				continue
			}
			got, err := m.vectorRows(q, vk.typ, hits, s.filter)
			if err != nil {
				return err
			}
			// Some of the nearest may fail the filters: look four times
			// as far each time, until enough pass or every vector was
			// looked at.
			for want := n; filtered && len(got) < k && len(hits) == want; {
				want *= 4
				hits = v.search(vk.typ, qv, want, s.opts.Limit)
				if got, err = m.vectorRows(q, vk.typ, hits, s.filter); err != nil {
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
func (m *Memory) vectorRows(q store.Tx, typ MemoryType, hits []vecindex.Hit, f ftsFilter) ([]candidate, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	pks := make([]int64, len(hits))
	cos := make(map[int64]float64, len(hits))
	for i, h := range hits {
		pks[i], cos[h.ID] = h.ID, float64(h.Cosine)
	}
	query, scoped := f.scoped(vectorSQL[typ], kindOf(typ), "t", 6)
	got, err := store.VectorRanked(q, query, pks, m.agent, f.since, f.until, f.tags, scoped, scanRanked(typ, nil))
	for i := range got {
		got[i].cosine, got[i].hasCosine = cos[got[i].pk], true
	}
	return got, err
}

// pendingByText finds, for a vector search, the memories that wait for
// their vectors by text: they join the candidates, ranked by their text
// relevance in their place (see rank).
func (m *Memory) pendingByText(ctx context.Context, s *search, cands []candidate) ([]candidate, error) {
	found, err := m.textCandidates(ctx, s, 0)
	if err != nil || len(found) == 0 {
		return cands, err
	}
	byKind := map[MemoryType][]int64{}
	for _, c := range found {
		byKind[c.Type] = append(byKind[c.Type], c.pk)
	}
	pending := map[vectorKey]bool{}
	err = m.read(ctx, "search.pending", func(q store.Tx) error {
		for typ, pks := range byKind {
			got, err := store.PendingOf(q, string(typ), pks)
			if err != nil {
				return err
			}
			for _, pk := range got {
				pending[vectorKey{typ, pk}] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range found {
		if pending[vectorKey{c.Type, c.pk}] {
			c.pending = true
			cands = append(cands, c)
		}
	}
	return cands, nil
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

package engram

import (
	"context"
	"math"
	"slices"

	"github.com/engram-go/engram/internal/store"
)

// Tier 2 matches a predicate the subject has no fact of to one it has by
// the cosine of their embeddings (seed 004): "is co-founder of" asserted
// of a subject that "cofounded" something is the same predicate when the
// embedder says so (see FactsConfig.PredicateSimilarity).

// predicateVectors embeds, before the write transaction, the predicates
// of the assertions that the agent's facts do not use yet: only those can
// need matching. It returns the vectors by predicate key; nil in Tier 1,
// with matching turned off, or when the embedder fails (the assertions
// then match predicates by their words alone, and the failure is logged).
// Only the context's error is returned.
func (f *Facts) predicateVectors(ctx context.Context, list []preparedFact) (map[string][]float32, error) {
	m := f.m
	if m.vectors == nil || m.cfg.Facts.PredicateSimilarity == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(list))
	for _, p := range list {
		keys = append(keys, p.predicateKey)
	}
	var known map[string]bool
	err := m.read(ctx, "facts.predicates", func(q store.Tx) error {
		var err error
		known, err = store.KnownPredicates(q, m.agent, m.vectors.model, keys)
		return err
	})
	if err != nil {
		return nil, err
	}
	var texts, newKeys []string
	for _, p := range list {
		if !known[p.predicateKey] && !slices.Contains(newKeys, p.predicateKey) {
			texts, newKeys = append(texts, p.Predicate), append(newKeys, p.predicateKey)
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	es, err := m.embedNew(ctx, texts)
	if err != nil || es == nil {
		return nil, err
	}
	out := make(map[string][]float32, len(es))
	for i, e := range es {
		out[newKeys[i]] = e.vec
	}
	return out, nil
}

// matchPredicate puts the assertion p under the predicate of its
// subject's facts whose embedding is nearest the assertion's predicate's
// (vec, from predicateVectors), when the cosine reaches the threshold and
// the subject has no fact of p's own predicate; and records vec as p's
// predicate's embedding. It runs in q's transaction.
func (f *Facts) matchPredicate(q store.Tx, p *preparedFact, vec []float32) error {
	m := f.m
	list, err := store.SubjectPredicates(q, m.agent, p.subjectKey, m.vectors.model)
	if err != nil {
		return err
	}
	best, bestCos := "", -1.0
	for _, k := range list {
		if k.Key == p.predicateKey {
			best = "" // the subject uses the predicate itself
			break
		}
		if k.Embedding == nil {
			continue
		}
		kv, err := decodeVector(k.Embedding, len(vec))
		if err != nil {
			continue // another dimension: not comparable
		}
		if c := cosine32(vec, kv); c > bestCos || c == bestCos && k.Key < best {
			best, bestCos = k.Key, c
		}
	}
	if best != "" && bestCos >= m.cfg.Facts.PredicateSimilarity {
		p.predicateKey, p.single = best, m.preds.Single(best)
		return nil
	}
	return store.PutPredicateEmbedding(q, m.agent, p.predicateKey, m.vectors.model, encodeVector(vec))
}

// cosine32 is the cosine similarity of a and b (of one length), 0 when
// either is zero.
func cosine32(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot, na, nb = dot+x*y, na+x*x, nb+y*y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

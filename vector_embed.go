package engram

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/engram-go/engram/internal/store"
)

// Embedding texts: through the embedding cache for a model's API,
// straight from a local embedder, and the checks of what an embedder
// answers; and the hooks the kinds' writers call to embed what they
// store (embedNew, putNew, embedSoon).

// textHash is the hash engram keeps of a text (see store.TextHash).
func textHash(text string) []byte { return store.TextHash(text) }

// contentHash is the content_hash of a row of kind k with the given
// content: store.ContentHash for a semantic entry, textHash for a
// document chunk.
func contentHash(k *kind, content string) []byte {
	if k == semanticKind {
		return store.ContentHash(content)
	}
	return textHash(content)
}

// encodeVector is a vector as vec0 and the embedding cache store it.
func encodeVector(v []float32) []byte { return store.EncodeVector(v) }

// decodeVector decodes what encodeVector made of a vector of dims
// dimensions.
func decodeVector(b []byte, dims int) ([]float32, error) { return store.DecodeVector(b, dims) }

// embedded is a text's embedding and, from a model's API (not a local
// embedder), its key in the embedding cache (hash), and whether the cache
// names a row that holds it already (named): put then need not name the
// row it writes.
type embedded struct {
	vec   []float32
	hash  []byte
	named bool
}

// embed returns the embeddings of texts: from the cache where it has
// them, from the embedder for the rest, in one call. A local embedder's
// (see [LocalEmbedder]) are computed, never cached: that is cheaper than
// a lookup.
// Its error matches [ErrEmbedding] (or is the context's) when the embedder
// fails or answers with something that is not a usable vector.
func (v *vectors) embed(ctx context.Context, texts []string) ([]embedded, error) {
	out := make([]embedded, len(texts))
	if isLocal(v.emb) {
		return v.embedMissing(ctx, texts, out)
	}
	hashes := make([][]byte, len(out))
	for i, t := range texts {
		out[i].hash = textHash(t)
		hashes[i] = out[i].hash
	}
	err := v.m.read(ctx, "embed.cache", func(q store.Tx) error {
		cached, err := store.CachedEmbeddings(q, vecKinds, v.model, v.dims, hashes)
		if err != nil {
			return err
		}
		for _, c := range cached {
			if c.Vec == nil {
				continue // a name without its vector (none should be): embedded again
			}
			for i := range out {
				if bytes.Equal(out[i].hash, c.Hash) {
					out[i].vec, out[i].named = c.Vec, c.Named
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v.embedMissing(ctx, texts, out)
}

// embedMissing asks the embedder, in one call, for the vectors out lacks,
// each distinct text once.
func (v *vectors) embedMissing(ctx context.Context, texts []string, out []embedded) ([]embedded, error) {
	var missing []string
	var first []int          // per missing text, where it first occurs in texts
	seen := map[string]int{} // text → where it first occurs
	for i, t := range texts {
		if out[i].vec != nil {
			continue
		}
		if _, ok := seen[t]; !ok {
			seen[t] = i
			missing = append(missing, t)
			first = append(first, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := v.emb.Embed(ctx, missing)
	if err == nil {
		err = v.check(vecs, len(missing))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("engram: embed (%s): %w: %w", v.model, ErrEmbedding, err)
	}
	for k, i := range first {
		out[i].vec = vecs[k]
	}
	for i := range out { // repeats of a text
		if out[i].vec == nil {
			out[i].vec = out[seen[texts[i]]].vec
		}
	}
	return out, nil
}

// check validates an embedder's answer for n texts: n vectors of the
// embedder's dimension, finite and not all zero.
func (v *vectors) check(vecs [][]float32, n int) error {
	if len(vecs) != n {
		return fmt.Errorf("%d vectors for %d texts", len(vecs), n)
	}
	for i, vec := range vecs {
		if len(vec) != v.dims {
			return fmt.Errorf("vector %d has %d dimensions, want %d", i, len(vec), v.dims)
		}
		zero := true
		for _, f := range vec {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return fmt.Errorf("vector %d holds %v", i, f)
			}
			zero = zero && f == 0
		}
		if zero {
			return fmt.Errorf("vector %d is all zeros", i)
		}
	}
	return nil
}

// embedNew embeds the texts of rows about to be inserted, before the
// write transaction, so that a slow embedder never holds the writer. It
// returns nil in Tier 1, and also when the embedder fails: the rows are
// then stored without vectors, marked pending until [Memory.Flush] or
// [Memory.Reindex] embeds them, and the failure is logged. Only the
// context's error is returned.
func (m *Memory) embedNew(ctx context.Context, texts []string) ([]embedded, error) {
	if m.vectors == nil || len(texts) == 0 {
		return nil, nil
	}
	es, err := m.vectors.embed(ctx, texts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m.log.Warn("engram: stored without vectors until the embedder answers", "count", len(texts), "err", err)
		return nil, nil
	}
	return es, nil
}

// embedSoon embeds, in Tier 2, up to embedBatch of the memories waiting
// for their vectors, after a write that may have added some (an update of
// a memory's text, extraction, consolidation, a restore, day digests). It
// is best effort: a failure is logged and the memories stay pending for
// [Memory.Flush].
func (m *Memory) embedSoon(ctx context.Context) {
	if m.vectors == nil {
		return
	}
	if _, err := m.vectors.embedPending(ctx, embedBatch, nil); err != nil {
		m.log.Warn("engram: memories left pending until the embedder answers", "err", err)
	}
}

// putNew writes the vector of row pk, just inserted, from embedNew's
// answer es (its i-th), if there is one.
func (m *Memory) putNew(q store.Tx, typ MemoryType, pk int64, es []embedded, i int) error {
	if es == nil {
		return nil
	}
	return m.vectors.put(q, typ, pk, es[i], false)
}

// vectorOf returns the i-th vector of embedNew's answer, or nil.
func vectorOf(es []embedded, i int) []float32 {
	if es == nil {
		return nil
	}
	return es[i].vec
}

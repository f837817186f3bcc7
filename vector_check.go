package engram

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// The integrity check of Tier 2 (part of Memory.CheckIntegrity): the
// vectors, the pending marks and the embedding cache agree with the rows.

// checkVectors checks, in a database with vector tables, that the vectors
// agree with the rows: no vector or pending mark outlives its row, and
// every row has a vector or is pending (during a Reindex it may have
// both); and that the embedding cache agrees with them (see checkCache).
func checkVectors(q store.Tx) error {
	if made, err := store.VectorTableExists(q, semanticKind.Vec); err != nil || !made {
		return err
	}
	var problems []string
	for _, vk := range vecKinds {
		p, err := store.CheckVectorKind(q, vk)
		if err != nil {
			return err
		}
		if p.Stale > 0 {
			problems = append(problems, fmt.Sprintf("vector_pending: %d %s marks without a row", p.Stale, vk.Type))
		}
		if p.Orphans > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d vectors without a row", vk.Vec, p.Orphans))
		}
		if p.Missing > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d rows neither embedded nor pending", vk.Table, p.Missing))
		}
	}
	cache, err := checkCache(q)
	if err != nil {
		return err
	}
	problems = append(problems, cache...)
	if len(problems) > 0 {
		return fmt.Errorf("vectors: %s", strings.Join(problems, "; "))
	}
	return nil
}

// checkCache returns what is wrong with the embedding cache: every entry
// that names a row is of the vectors' model, names a row of a kind with
// vectors that has its vector, and is keyed by the hash of that row's
// text; every entry that holds its vector itself holds one of the
// vectors' dimension, if it is of their model.
func checkCache(q store.Tx) ([]string, error) {
	var problems []string
	dims, model, err := store.VectorMeta(q, metaVectorDims, metaVectorModel)
	if err != nil {
		return nil, err
	}
	var types []string
	for _, vk := range vecKinds {
		types = append(types, vk.Type)
	}
	p, err := store.CheckCache(q, model, dims, types)
	if err != nil {
		return nil, err
	}
	if p.OtherModel > 0 {
		problems = append(problems, fmt.Sprintf("embedding_cache: %d entries name rows but are not of model %q", p.OtherModel, model))
	}
	if p.OtherKind > 0 {
		problems = append(problems, fmt.Sprintf("embedding_cache: %d entries name rows of a kind without vectors", p.OtherKind))
	}
	if p.BadLength > 0 {
		problems = append(problems, fmt.Sprintf("embedding_cache: %d vectors of model %q are not of %s dimensions", p.BadLength, model, dims))
	}
	for _, vk := range vecKinds {
		unembedded, err := store.CacheUnembedded(q, vk)
		if err != nil {
			return nil, err
		}
		if unembedded > 0 {
			problems = append(problems, fmt.Sprintf("embedding_cache: %d entries name %s rows without a vector", unembedded, vk.Type))
		}
		named, err := store.CacheNamedOf(q, vk)
		if err != nil {
			return nil, err
		}
		wrong := 0
		for _, c := range named {
			if !bytes.Equal(c.Hash, textHash(c.Text)) {
				wrong++
			}
		}
		if wrong > 0 {
			problems = append(problems, fmt.Sprintf("embedding_cache: %d entries name %s rows that are gone or whose text is another", wrong, vk.Type))
		}
	}
	return problems, nil
}

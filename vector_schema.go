package engram

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
)

// The Tier 2 schema (internal/schema's Tier2Migrations): which of its
// steps a database has, applying those it lacks, and the Go halves of the
// steps that rewrite what a database holds.

// vectorChunk is how many vectors a vec0 chunk holds. vec0 keeps a
// chunk's vectors in one blob and writes a vector into it through
// SQLite's incremental blob I/O, which walks the blob's overflow pages
// from the start: with the default 1,024 vectors of 384 dimensions (1.5
// MiB) an insert or a delete cost about 260 µs, with 64 about 140.
// engram never runs vec0's own k-nearest-neighbour scan, which more
// chunks would slow.
const vectorChunk = 64

// metaVectorSchema is the meta key of the Tier 2 schema's version: how
// many of schema.Tier2Migrations the database has.
const metaVectorSchema = "vector.schema"

// migrate applies the steps of the Tier 2 schema (internal/schema/tier2)
// that the database lacks, for v's dimension, in q's transaction; all of
// them when fresh (the vector tables were just dropped). A step that
// rewrites what a database holds (see tier2Data) does so after its SQL,
// unless fresh. A database whose Tier 2 schema is newer than this
// engram's is ErrSchemaTooNew. The writer lock is held.
//
// On PostgreSQL there are no steps to run: its schema (schema.sql) has
// what every step makes, the side tables vec_<kind> (which declare no
// dimension, so a change of model or dimension keeps them: dropAll
// deletes their vectors), the pending marks, the embedding cache's
// names and the triggers; migrate records the Tier 2 schema's version in
// meta all the same, which is what turns those triggers on.
func (v *vectors) migrate(q store.Tx, fresh bool) error {
	applied, raw, err := tier2Applied(q)
	if err != nil {
		return err
	}
	if fresh {
		applied = 0
	}
	steps := schema.Tier2Migrations(v.dims, vectorChunk)
	if applied > len(steps) {
		return fmt.Errorf("engram: open: Tier 2 schema version %d, this engram knows %d: %w", applied, len(steps), ErrSchemaTooNew)
	}
	pg := store.Postgres(q)
	for _, step := range steps[applied:] {
		if pg {
			break
		}
		// A step holds several statements, which a prepared statement
		// cannot: it runs on the writer connection itself, in the
		// transaction q is part of.
		if err := q.ExecScript(step.SQL); err != nil {
			return fmt.Errorf("%s: %w", step.Name, err)
		}
		if data := tier2Data[step.Version]; data != nil && !fresh {
			if err := data(v, q); err != nil {
				return fmt.Errorf("%s: %w", step.Name, err)
			}
		}
	}
	if raw == strconv.Itoa(len(steps)) {
		return nil // an open that changes nothing writes nothing
	}
	return store.SetMeta(q, metaVectorSchema, strconv.Itoa(len(steps)))
}

// tier2Applied returns how many steps of the Tier 2 schema the database
// has, and meta's record of it ("" when there is none).
func tier2Applied(q store.Tx) (applied int, raw string, err error) {
	raw, ok, err := store.Meta(q, metaVectorSchema)
	switch {
	case err != nil:
		return 0, "", err
	case !ok:
		// Before the Tier 2 schema had versions, opening made what is
		// now its first step.
		made, err := store.VectorTableExists(q, semanticKind.Vec)
		if err != nil {
			return 0, "", err
		}
		if made {
			applied = 1
		}
		return applied, "", nil
	}
	if applied, err = strconv.Atoi(raw); err != nil {
		return 0, "", fmt.Errorf("meta %s is %q: %w", metaVectorSchema, raw, err)
	}
	return applied, raw, nil
}

// tier2Data are the Go halves of the Tier 2 schema's steps that rewrite
// what a database holds, by version: the SQL cannot (it has no SHA-256).
var tier2Data = map[int]func(v *vectors, q store.Tx) error{
	2: (*vectors).nameCachedRows,
}

// nameCachedRows brings the embedding cache of a file made before it
// named rows (Tier 2 schema v2) into its present shape: the copies of
// vectors that a row holds go, and so do those of texts no memory has,
// live or archived; then every row of every agent that has a vector is
// named as holding the embedding of its text. Deleting the copies frees
// their pages for any table (updating them in place would leave them
// holding a few bytes each); VACUUM gives the pages back to the file
// system. A local embedder's vectors are not cached: nothing to do then.
func (v *vectors) nameCachedRows(q store.Tx) error {
	if isLocal(v.emb) {
		return nil
	}
	var names []store.CacheName
	held := map[string]bool{}   // the hashes of the texts whose vector a row holds, as hex
	wanted := map[string]bool{} // those of the texts of the other memories, live or archived
	for _, vk := range vecKinds {
		// A kind whose vectors came in a later step (documents, step 3)
		// has none to name yet.
		made, err := store.VectorTableExists(q, vk.Vec)
		if err != nil {
			return err
		}
		if !made {
			continue
		}
		texts, err := store.VectorTexts(q, vk)
		if err != nil {
			return err
		}
		for _, t := range texts {
			h := hex.EncodeToString(textHash(t.Text))
			if t.HasVector {
				names = append(names, store.CacheName{Type: vk.Type, PK: t.PK, Hash: h})
				held[h] = true
			} else {
				wanted[h] = true
			}
		}
		archived, err := store.KindArchivedTexts(q, vk)
		if err != nil {
			return err
		}
		for _, text := range archived {
			wanted[hex.EncodeToString(textHash(text))] = true
		}
	}
	copies, err := store.CachedCopies(q)
	if err != nil {
		return err
	}
	var drop []int64
	for _, c := range copies {
		if held[c.Hash] || !wanted[c.Hash] {
			drop = append(drop, c.PK)
		}
	}
	if err := store.DeleteCached(q, drop); err != nil {
		return err
	}
	// An entry that names a row already (the step ran before) stays.
	return store.NameCachedRows(q, v.model, v.m.now(), names)
}

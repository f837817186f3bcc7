package engram

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/vecindex"
)

// Tier 2's vector state and how a database is opened for it: the kinds
// with vectors, the meta keys that record the vectors' model and
// dimension, and the check of an embedder against them (openVectors).
// The other concerns of Tier 2 have files of their own: the Tier 2
// schema (vector_schema.go), embedding and the embedding cache
// (vector_embed.go), the index's following of write transactions
// (vector_tx.go), the in-memory index itself (vector_index.go), pending
// rows and Reindex (vector_pending.go) and the integrity check
// (vector_check.go). Their SQL is in internal/store/vector*.go, the
// index's maths in internal/vecindex.

// vectorKinds are the kinds with vectors in Tier 2: each has a vec0 table
// (kind.vec) keyed by the row's pk, holding the embedding of the kind's
// text.
var vectorKinds = kindsWith(func(k *kind) bool { return k.Vec != "" })

// vecKinds are vectorKinds as package store's vector statements know
// them (see vecKind).
var vecKinds = func() []store.VecKind {
	out := make([]store.VecKind, len(vectorKinds))
	for i, vk := range vectorKinds {
		out[i] = vecKind(vk)
	}
	return out
}()

// vecKind is what package store's vector statements need of k, a kind
// with vectors: its names and the registry's expressions of its text.
func vecKind(k *kind) store.VecKind {
	return store.VecKind{Type: string(k.typ), Table: k.Table, Vec: k.Vec, Text: k.TextOver("t"), ArchivedText: store.OverJSON(k.Text, "row")}
}

// vecKindOf returns vecKinds' entry of typ, which must be a kind with
// vectors.
func vecKindOf(typ MemoryType) store.VecKind {
	for _, vk := range vecKinds {
		if vk.Type == string(typ) {
			return vk
		}
	}
	panic("engram: memory type " + string(typ) + " has no vectors")
}

// Meta keys of Tier 2.
const (
	metaVectorDims    = "vector.dims"
	metaVectorModel   = "vector.model"
	metaVectorVersion = "vector.version:"    // + agent: moves on with every change to the agent's vectors
	metaReindex       = "vector.reindexing:" // + agent: a Reindex has marked everything pending
)

// vectors is a Tier 2 Memory's vector state: its embedder, and an
// in-memory index of the agent's vectors per memory type (see
// internal/vecindex), which answers k-nearest-neighbour queries in a few
// milliseconds where a scan of vec0 takes tens.
//
// The vector tables (vec0's on SQLite, the side tables vec_<kind> keyed
// by agent and pk on PostgreSQL, which has no vec0: see loadRows) are
// the source of truth and the index a copy, kept in step as the stem
// index is (see stemIndex): a per-agent counter in meta moves on with
// every change to the agent's vectors, in whichever connection it
// happens. This process's own changes are applied to the
// index just before its transactions commit: the vectors it writes
// itself (put), and the rows whose vector a trigger dropped, which the
// change log reports (follow). When the counter is anywhere else, another
// connection changed the vectors and the index is loaded again.
type vectors struct {
	m     *Memory
	emb   Embedder
	dims  int
	model string

	mu      sync.RWMutex // guards the fields below
	idx     map[MemoryType]*vecindex.Index
	built   bool
	version int64

	// What the current write transaction tx did to the agent's vectors,
	// until finish applies it: the vectors it wrote (puts) and those its
	// statements dropped (drops), own counting both and written the
	// writes the agent's counter has not counted yet (finish moves it
	// on for them at once; triggers count the drops); touched says it
	// changed the index or loaded it from the transaction's view, so that
	// a rollback must drop it. undo is where the rollback callback that
	// takes them back is registered: one in the transaction, and one in
	// each savepoint that changed them. The writer lock guards them.
	tx      any
	puts    map[vectorKey][]float32
	drops   map[vectorKey]bool
	own     int
	written int
	touched bool
	undo    store.RollbackScope
	// undoerFn is undoer, as begin hands it to OnRollbackIn.
	undoerFn func() func()
	// putIdx indexes the vectors of puts by kind, for similar: each made
	// on its first use in the transaction, then kept in step by put.
	putIdx map[MemoryType]*vecindex.Index
}

type vectorKey struct {
	typ MemoryType
	pk  int64
}

// openVectors prepares a database for Tier 2: it checks the embedder
// against the dimension and model recorded in meta, creates the vec0
// tables and their triggers the first time, and marks every row pending
// when there were no vectors before or the model changed. A change of
// dimension is an error unless newDims, and a change of model while
// another agent has vectors in the file unless newModel: the vectors of
// one agent's model are never dropped by another's. After a change of
// model or dimension the vec0 tables are made again, empty. With
// existing (WithExistingVectors) it only checks: a database without
// vectors is ErrNoVectors, and one with another model's a
// *VectorMismatchError.
func (m *Memory) openVectors(ctx context.Context, e Embedder, newDims, newModel, existing bool) error {
	v := &vectors{m: m, emb: e, dims: e.Dimensions(), model: e.Model(), puts: map[vectorKey][]float32{}, drops: map[vectorKey]bool{}}
	if v.dims < 1 || v.dims > maxVectorDims {
		return invalid("WithEmbedder", "the embedder's dimension %d is outside [1, %d]", v.dims, maxVectorDims)
	}
	if v.model == "" {
		return invalid("WithEmbedder", "the embedder has no model name")
	}
	var err error
	if m.db.ReadOnly() {
		err = m.db.Read(ctx, "open.vectors", v.checkReadOnly)
	} else {
		err = m.db.Write(ctx, "open.vectors", func(q store.Tx) error {
			if err := q.LockAgent(m.agent); err != nil {
				return err
			}
			return v.prepare(q, newDims, newModel, existing)
		})
	}
	if err != nil {
		return err
	}
	m.vectors = v
	return nil
}

// prepare is openVectors' transaction: it checks the embedder against
// what meta records, drops the vectors of another model or dimension
// (when allowed), brings the Tier 2 schema up to date, and marks every
// row pending when there were no vectors or they were dropped.
func (v *vectors) prepare(q store.Tx, newDims, newModel, existing bool) error {
	dims, model, err := store.VectorMeta(q, metaVectorDims, metaVectorModel)
	if err != nil {
		return err
	}
	newDim := dims != "" && dims != strconv.Itoa(v.dims)
	mismatch := func(format string, args ...any) error {
		n, _ := strconv.Atoi(dims)
		return &VectorMismatchError{Dims: n, Model: model, EmbedderDims: v.dims, EmbedderModel: v.model,
			err: invalid("WithEmbedder", format, args...)}
	}
	if newDim && !newDims {
		return mismatch("the database holds %s-dimension vectors (model %q) and the embedder makes %d-dimension ones (model %q); use an embedder of %s dimensions, or WithDimensionChange to embed everything again",
			dims, model, v.dims, v.model, dims)
	}
	if existing {
		switch {
		case dims == "":
			return fmt.Errorf("open.vectors: %w", ErrNoVectors)
		case model != v.model:
			return mismatch("the database holds vectors of model %q and the embedder is model %q; use model %q, or open without WithExistingVectors to embed everything again",
				model, v.model, model)
		}
	}
	// Vectors of another model or dimension are not comparable with this
	// embedder's: they go, with their tables (vec0 declares its
	// dimension), and everything is embedded again.
	changed := newDim || dims != "" && model != v.model
	if changed {
		if err := v.dropAll(q, model, dims, newModel); err != nil {
			return err
		}
	}
	if err := v.migrate(q, changed); err != nil {
		return err
	}
	if dims != "" && !changed {
		return nil // the vectors are this embedder's
	}
	if err := markPending(q, ""); err != nil {
		return err
	}
	if err := store.SetMeta(q, metaVectorDims, strconv.Itoa(v.dims)); err != nil {
		return err
	}
	return store.SetMeta(q, metaVectorModel, v.model)
}

// checkReadOnly is prepare for a read-only database, which cannot be changed:
// its vectors must be the embedder's, of the Tier 2 schema of this
// engram. Any change prepare would make is an error matching ErrReadOnly
// (ErrInvalid for another dimension, as in prepare).
func (v *vectors) checkReadOnly(q store.Tx) error {
	dims, model, err := store.VectorMeta(q, metaVectorDims, metaVectorModel)
	if err != nil {
		return err
	}
	switch {
	case dims == "":
		return fmt.Errorf("engram: open: the database holds no vectors, and a read-only Tier2 memory cannot make them; open it as Tier1: %w", ErrReadOnly)
	case dims != strconv.Itoa(v.dims):
		return invalid("WithEmbedder", "the database holds %s-dimension vectors (model %q) and the embedder makes %d-dimension ones (model %q); use an embedder of %s dimensions",
			dims, model, v.dims, v.model, dims)
	case model != v.model:
		return fmt.Errorf("engram: open: the database holds the vectors of model %q and the embedder is model %q, and a read-only memory cannot embed again: %w",
			model, v.model, ErrReadOnly)
	}
	applied, _, err := tier2Applied(q)
	if err != nil {
		return err
	}
	if want := len(schema.Tier2Migrations(v.dims, vectorChunk)); applied != want {
		if applied > want {
			return fmt.Errorf("engram: open: Tier 2 schema version %d, this engram knows %d: %w", applied, want, ErrSchemaTooNew)
		}
		return fmt.Errorf("engram: open: Tier 2 schema version %d, this engram needs %d and cannot bring a read-only database up to date: %w", applied, want, ErrReadOnly)
	}
	return nil
}

// dropAll drops the vector tables, of every agent, whose vectors are
// those of model (of dims dimensions), unless another agent has vectors
// in the file and the caller did not ask for a change of model (newModel);
// it empties the embedding cache of other models and dimensions, and
// moves every agent's vector counter on. On PostgreSQL the side tables
// stay and their vectors, every agent's, are deleted (see
// store.DropVectorTable).
func (v *vectors) dropAll(q store.Tx, model, dims string, newModel bool) error {
	if !newModel {
		other, err := otherAgentWithVectors(q, v.m.agent)
		if err != nil {
			return err
		}
		if other != "" {
			return invalid("WithEmbedder", "agent %q has vectors of model %q in this file and the embedder is model %q: a file holds one model's vectors; use model %q, give this agent a file of its own, or WithModelChange to embed every agent's memories again",
				other, model, v.model, model)
		}
	}
	v.m.log.Warn("engram: the embedding model or dimension changed; every memory will be embedded again",
		"was", model, "was_dims", dims, "now", v.model, "now_dims", v.dims)
	// The Tier 2 schema is made again from its first step.
	for _, vk := range vectorKinds {
		if err := store.DropVectorTable(q, vk.Vec); err != nil {
			return err
		}
	}
	// The cache's embeddings of another model or dimension would only
	// serve the old embedder again (and with a large model they are most
	// of the file); its entries that name rows (their vectors empty) name
	// vectors just dropped.
	if err := store.DropOtherEmbeddings(q, v.model, v.dims); err != nil {
		return err
	}
	return store.BumpVectorVersions(q, metaVectorVersion)
}

// otherAgentWithVectors returns an agent other than agent with a memory
// that has its vector (is not pending) in the file, or "".
func otherAgentWithVectors(q store.Tx, agent string) (string, error) {
	for _, vk := range vecKinds {
		if other, err := store.OtherAgentWithVector(q, vk, agent); other != "" || err != nil {
			return other, err
		}
	}
	return "", nil
}

// maxVectorDims is the largest dimension engram stores (vec0's own limit
// is 8192).
const maxVectorDims = 8192

package engram

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/vecindex"
)

// vectorKinds are the kinds with vectors in Tier 2: each has a vec0 table
// (kind.vec) keyed by the row's pk, holding the embedding of the kind's
// text.
var vectorKinds = kindsWith(func(k *kind) bool { return k.vec != "" })

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
	return store.VecKind{Type: string(k.typ), Table: k.table, Vec: k.vec, Text: k.textOver("t"), ArchivedText: overJSON(k.text, "row")}
}

// markPending marks every row of agent pending, or of every agent when
// agent is "", in q's transaction.
func markPending(q *dbtx, agent string) error {
	for _, vk := range vecKinds {
		if err := store.MarkPending(q, vk, agent); err != nil {
			return err
		}
	}
	return nil
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
// The vec0 tables are the source of truth and the index a copy, kept in
// step as the stem index is (see stemIndex): a per-agent counter in meta
// moves on with every change to the agent's vectors, in whichever
// connection it happens. This process's own changes are applied to the
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
	tx      *writeTx
	puts    map[vectorKey][]float32
	drops   map[vectorKey]bool
	own     int
	written int
	touched bool
	undo    rollbackScope
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
	if m.db.readOnly {
		err = m.db.read(ctx, "open.vectors", v.checkReadOnly)
	} else {
		err = m.db.write(ctx, "open.vectors", func(q *dbtx) error {
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
func (v *vectors) prepare(q *dbtx, newDims, newModel, existing bool) error {
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
	if err := setMeta(q, metaVectorDims, strconv.Itoa(v.dims)); err != nil {
		return err
	}
	return setMeta(q, metaVectorModel, v.model)
}

// checkReadOnly is prepare for a read-only database, which cannot be changed:
// its vectors must be the embedder's, of the Tier 2 schema of this
// engram. Any change prepare would make is an error matching ErrReadOnly
// (ErrInvalid for another dimension, as in prepare).
func (v *vectors) checkReadOnly(q *dbtx) error {
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
// moves every agent's vector counter on.
func (v *vectors) dropAll(q *dbtx, model, dims string, newModel bool) error {
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
		if err := store.DropVectorTable(q, vk.vec); err != nil {
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
func otherAgentWithVectors(q *dbtx, agent string) (string, error) {
	for _, vk := range vecKinds {
		if other, err := store.OtherAgentWithVector(q, vk, agent); other != "" || err != nil {
			return other, err
		}
	}
	return "", nil
}

// vectorChunk is how many vectors a vec0 chunk holds. vec0 keeps a
// chunk's vectors in one blob and writes a vector into it through
// SQLite's incremental blob I/O, which walks the blob's overflow pages
// from the start: with the default 1,024 vectors of 384 dimensions (1.5
// MiB) an insert or a delete cost about 260 µs, with 64 about 140.
// engram never runs vec0's own k-nearest-neighbour scan, which more
// chunks would slow.
const vectorChunk = 64

// maxVectorDims is the largest dimension engram stores (vec0's own limit
// is 8192).
const maxVectorDims = 8192

// metaVectorSchema is the meta key of the Tier 2 schema's version: how
// many of schema.Tier2Migrations the database has.
const metaVectorSchema = "vector.schema"

// migrate applies the steps of the Tier 2 schema (internal/schema/tier2)
// that the database lacks, for v's dimension, in q's transaction; all of
// them when fresh (the vector tables were just dropped). A step that
// rewrites what a database holds (see tier2Data) does so after its SQL,
// unless fresh. A database whose Tier 2 schema is newer than this
// engram's is ErrSchemaTooNew. The writer lock is held.
func (v *vectors) migrate(q *dbtx, fresh bool) error {
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
	for _, step := range steps[applied:] {
		// A step holds several statements, which a prepared statement
		// cannot: it runs on the writer connection itself, in the
		// transaction q is part of.
		if _, err := v.m.db.wconn.ExecContext(q.ctx, step.SQL); err != nil {
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
	return setMeta(q, metaVectorSchema, strconv.Itoa(len(steps)))
}

// tier2Applied returns how many steps of the Tier 2 schema the database
// has, and meta's record of it ("" when there is none).
func tier2Applied(q *dbtx) (applied int, raw string, err error) {
	raw, ok, err := store.VectorMetaValue(q, metaVectorSchema)
	switch {
	case err != nil:
		return 0, "", err
	case !ok:
		// Before the Tier 2 schema had versions, opening made what is
		// now its first step.
		made, err := store.VectorTableExists(q, semanticKind.vec)
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
var tier2Data = map[int]func(v *vectors, q *dbtx) error{
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
func (v *vectors) nameCachedRows(q *dbtx) error {
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
		archived, err := store.ArchivedTexts(q, vk)
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

// textHash is the embedding cache's key for a text.
func textHash(text string) []byte { return store.TextHash(text) }

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
	err := v.m.read(ctx, "embed.cache", func(q *dbtx) error {
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

// put writes the vector of a row in q's transaction (replacing any it
// had), clears its pending mark, and names the row in the embedding cache
// as holding the embedding of its text, unless the cache names another
// already: an entry that held the vector itself (its memory archived)
// gives it up. The agent's vector counter moves on, and the index
// follows, when the transaction commits (see finish).
func (v *vectors) put(q *dbtx, typ MemoryType, pk int64, e embedded, replace bool) error {
	if err := store.PutVector(q, kindOf(typ).vec, string(typ), pk, e.vec, replace); err != nil {
		return err
	}
	if e.hash != nil && !e.named {
		if err := store.NameCachedRow(q, v.model, e.hash, v.m.now(), string(typ), pk); err != nil {
			return err
		}
	}
	v.begin(q)
	v.puts[vectorKey{typ, pk}] = e.vec
	v.written++
	if x := v.putIdx[typ]; x != nil {
		x.Put(pk, e.vec)
	}
	v.own++
	return nil
}

// begin is called before v's transaction state changes: it makes that
// state q's, registering finish, the first time q's transaction touches
// the agent's vectors, and the rollback of what is about to change in
// the transaction, or in the savepoint open in it, the first time either
// does. The writer lock is held.
func (v *vectors) begin(q *dbtx) {
	if v.tx != q.tx {
		v.tx = q.tx
		clear(v.puts)
		clear(v.drops)
		v.own, v.written, v.touched, v.putIdx = 0, 0, false, nil
		q.beforeCommit(v.finish)
	}
	q.onRollbackIn(&v.undo, v.undoer)
}

// undoer returns the rollback callback of a transaction or savepoint
// about to change v's transaction state: it puts that state back as it is
// now, and drops the index if the transaction loaded or changed it (the
// savepoint may have: the index would hold what the rollback took back).
// It is loaded again on its next use. (Most rollbacks are of bad input,
// found before anything reached the index.)
func (v *vectors) undoer() func() {
	// Copies sized to what they hold: maps.Clone would copy the room of
	// maps once large (a Reindex) at every transaction.
	tx, puts, drops, own, written := v.tx, maps.Collect(maps.All(v.puts)), maps.Collect(maps.All(v.drops)), v.own, v.written
	return func() {
		v.tx, v.puts, v.drops, v.own, v.written, v.putIdx = tx, puts, drops, own, written, nil
		if v.touched {
			v.mu.Lock()
			v.built = false
			v.mu.Unlock()
			v.touched = false
		}
	}
}

// watches asks the change log for the rows whose vector a trigger drops:
// a delete, a change of the embedded text. (The triggers themselves keep
// the embedding cache in step.)
func (v *vectors) watches(bool) []watch {
	var ws []watch
	for _, vk := range vectorKinds {
		ws = append(ws, watch{kind: vk.typ, ops: "ud"})
	}
	return ws
}

// follow notes the agent's vectors dropped by the changes cs.
func (v *vectors) follow(q *dbtx, cs []change) error {
	for _, c := range cs {
		if c.op == changeInsert || kindOf(c.kind).vec == "" || c.agent != v.m.agent {
			continue
		}
		v.begin(q)
		v.drops[vectorKey{c.kind, c.pk}] = true
		v.own++
	}
	return nil
}

// finish applies what the transaction did to the agent's vectors (puts
// and drops) to the index, just before COMMIT, if the index is built and
// the agent's counter moved on by exactly as much; otherwise the index is
// loaded again on its next use. The writer lock is held.
func (v *vectors) finish(q *dbtx) error {
	if v.written > 0 {
		if err := bumpCounter(q, metaVectorVersion+v.m.agent, v.written); err != nil {
			return err
		}
		v.written = 0
	}
	// A row both written and dropped (stored then deleted, or written
	// again after its text changed): the table knows which came last.
	for key := range v.puts {
		if !v.drops[key] {
			continue
		}
		has, err := store.HasVector(q, kindOf(key.typ).vec, key.pk)
		if err != nil {
			return err
		}
		if !has {
			delete(v.puts, key)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.built {
		return nil
	}
	v.touched = true
	ver, err := counter(q, metaVectorVersion+v.m.agent)
	if err != nil {
		return err
	}
	if ver != v.version+int64(v.own) {
		v.built = false // another connection changed them too: load again
		return nil
	}
	for key := range v.drops {
		v.idx[key.typ].Remove(key.pk)
	}
	for key, vec := range v.puts {
		v.idx[key.typ].Put(key.pk, vec)
	}
	v.version = ver
	return nil
}

// search returns the n rows of type typ whose vectors are most similar to
// qv, best first, with their cosine similarity; the caller has synced the
// index. The index rescores as many candidates as finding the best limit
// of them needs (see vecindex.Candidates).
func (v *vectors) search(typ MemoryType, qv []float32, n, limit int) []vecindex.Hit {
	v.mu.RLock()
	defer v.mu.RUnlock()
	x := v.idx[typ]
	return x.Search(qv, n, vecindex.Candidates(limit, x.Len()))
}

// cosines gives every stored candidate without a cosine its vector's
// cosine with qv, when the index holds its vector.
func (v *vectors) cosines(qv []float32, cands []candidate) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if !v.built {
		return
	}
	for typ, x := range v.idx {
		var ids []int64
		var at []int
		for i, c := range cands {
			if c.Type == typ && !c.hasCosine && c.pk > 0 {
				ids, at = append(ids, c.pk), append(at, i)
			}
		}
		if len(ids) == 0 {
			continue
		}
		for j, cos := range x.Cosines(qv, ids) {
			if !math.IsNaN(float64(cos)) {
				cands[at[j]].cosine, cands[at[j]].hasCosine = float64(cos), true
			}
		}
	}
}

// sync loads the index again unless it is in step with q's view of the
// agent's vectors, or ahead of it (q's snapshot may predate this
// process's latest commit).
func (v *vectors) sync(q *dbtx) error {
	ver, err := counter(q, metaVectorVersion+v.m.agent)
	if err != nil {
		return err
	}
	// In a write transaction, the counter has moved on already for the
	// vectors its statements dropped, which finish will apply with the
	// ones it wrote.
	if q.tx != nil && v.tx == q.tx {
		ver -= int64(v.own - v.written)
	}
	v.mu.RLock()
	ok := v.built && ver <= v.version
	v.mu.RUnlock()
	if ok {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.built && ver <= v.version {
		return nil
	}
	dims, _, err := store.VectorMetaValue(q, metaVectorDims)
	if err != nil {
		return err
	}
	if dims != strconv.Itoa(v.dims) {
		return invalid("WithEmbedder", "another handle changed the database's vectors to %s dimensions; reopen with an embedder of %s dimensions", dims, dims)
	}
	idx := map[MemoryType]*vecindex.Index{}
	for _, vk := range vectorKinds {
		x, err := v.load(q, vk)
		if err != nil {
			return err
		}
		idx[vk.typ] = x
	}
	v.idx, v.built, v.version = idx, true, ver
	return nil
}

// load reads the agent's vectors of one type into a new index.
//
// It reads vec0's chunks directly (see loadChunks): when other agents
// have rows of the type, only the chunks that hold the agent's vectors.
// The vectors are quantised into the index (see vecindex.Index.Append)
// on other goroutines while SQLite reads the next chunks.
func (v *vectors) load(q *dbtx, vk *kind) (*vecindex.Index, error) {
	own, chunks, want, err := v.owned(q, vk)
	if err == nil {
		x := vecindex.New(v.dims)
		if want == 0 {
			return x, nil
		}
		x.Grow(want)
		b := newIndexLoader(x, want)
		got := 0
		err = v.loadChunks(q, vk, chunks, func(pks []int64, vecs []byte) {
			for i, pk := range pks {
				if own == nil || own[pk] {
					b.add(pk, vecs[i*4*v.dims:(i+1)*4*v.dims])
					got++
				}
			}
		})
		if cerr := b.close(); err == nil {
			err = cerr
		}
		if err == nil && got != want {
			err = fmt.Errorf("%w: %d of the agent's vectors in the chunks, %d in %s_rowids", errChunkLayout, got, want, vk.vec)
		}
		if err == nil {
			return x, nil
		}
	}
	if !errors.Is(err, errChunkLayout) {
		return nil, err
	}
	// vec0's own scan: correct whatever its storage looks like, but it
	// reads every vector separately, twenty times slower.
	v.m.log.Warn("engram: reading vectors through vec0's scan", "table", vk.vec, "reason", err)
	x := vecindex.New(v.dims)
	return x, store.ScanVectors(q, vk.table, vk.vec, v.m.agent, v.dims, x.Put)
}

// owned says which of the vectors of vk's table are the agent's: when
// no other agent has rows of the kind, all of them (own and chunks nil);
// otherwise the pks own of the agent's rows that have a vector, and the
// chunks (ascending) that hold those vectors. want is how many vectors
// the agent has.
func (v *vectors) owned(q *dbtx, vk *kind) (own map[int64]bool, chunks []int64, want int, err error) {
	others, err := store.VectorKindShared(q, vk.table, v.m.agent)
	if err != nil {
		return nil, nil, 0, err
	}
	if !others {
		want, err := store.VectorCount(q, vk.vec)
		return nil, nil, want, err
	}
	held, err := store.VectorChunksOf(q, vk.table, vk.vec, v.m.agent)
	if err != nil {
		return nil, nil, 0, err
	}
	own = make(map[int64]bool, len(held))
	in := map[int64]bool{}
	for _, h := range held {
		own[h.PK] = true
		if !in[h.Chunk] {
			in[h.Chunk] = true
			chunks = append(chunks, h.Chunk)
		}
	}
	slices.Sort(chunks)
	if chunks == nil {
		chunks = []int64{} // none: not "all of them"
	}
	return own, chunks, len(own), nil
}

// indexLoader feeds vectors to an index, a batch at a time, on a
// goroutine of its own (vecindex.Index.AppendLE spreads a batch over
// GOMAXPROCS more): the caller reads the next vectors meanwhile.
type indexLoader struct {
	x    *vecindex.Index
	cur  *loadBatch
	full chan *loadBatch // to the goroutine
	free chan *loadBatch // back from it
	done chan struct{}   // closed when the goroutine has ended
	err  error           // the goroutine's; read after done
}

// loadBatch is a batch of vectors for AppendLE, as vec0 stores them.
type loadBatch struct {
	ids []int64
	raw []byte
}

// loadBatchSize is how many vectors indexLoader hands to AppendLE at
// once: enough to spread over the processors, few enough (1.5 MiB at 384
// dimensions) to stay in cache.
const loadBatchSize = 1024

// newIndexLoader starts a loader of about n vectors into x; its close
// must be called, which ends the goroutine.
func newIndexLoader(x *vecindex.Index, n int) *indexLoader {
	l := &indexLoader{x: x, full: make(chan *loadBatch, 1), free: make(chan *loadBatch, 2), done: make(chan struct{})}
	n = min(n, loadBatchSize)
	for range 2 {
		l.free <- &loadBatch{ids: make([]int64, 0, n), raw: make([]byte, 0, n*4*x.Dims())}
	}
	l.cur = <-l.free
	go func() {
		defer close(l.done)
		for b := range l.full {
			if l.err == nil {
				l.append(b)
			}
			b.ids, b.raw = b.ids[:0], b.raw[:0]
			l.free <- b
		}
	}()
	return l
}

// append adds a batch to the index, or sets err when the chunks name a
// rowid twice (which vec0 never does).
func (l *indexLoader) append(b *loadBatch) {
	defer func() {
		if r := recover(); r != nil {
			l.err = fmt.Errorf("%w: %v", errChunkLayout, r)
		}
	}()
	l.x.AppendLE(b.ids, b.raw)
}

// add adds the vector of pk, encoded as vec0 stores it (raw is copied
// before add returns).
func (l *indexLoader) add(pk int64, raw []byte) {
	b := l.cur
	b.ids = append(b.ids, pk)
	b.raw = append(b.raw, raw...)
	if len(b.ids) == loadBatchSize {
		l.full <- b
		l.cur = <-l.free
	}
}

// close hands over the last batch and waits until the index holds every
// vector added. It returns an error matching errChunkLayout if the
// vectors named a rowid twice.
func (l *indexLoader) close() error {
	if len(l.cur.ids) > 0 {
		l.full <- l.cur
	}
	close(l.full)
	<-l.done
	return l.err
}

// errChunkLayout says vec0's storage is not laid out as loadChunks expects.
var errChunkLayout = store.ErrChunkLayout

// loadChunks calls fn with the vectors of vk's vec0 table, read straight
// from the table's chunks, one call per chunk: the chunks listed
// (ascending), or every chunk when chunks is nil. See
// store.VectorChunks; an error matches errChunkLayout when vec0's storage
// is not laid out as it expects.
func (v *vectors) loadChunks(q *dbtx, vk *kind, chunks []int64, fn func(pks []int64, vecs []byte)) error {
	return store.VectorChunks(q, vk.vec, v.dims, chunks, fn)
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
func (m *Memory) putNew(q *dbtx, typ MemoryType, pk int64, es []embedded, i int) error {
	if es == nil {
		return nil
	}
	return m.vectors.put(q, typ, pk, es[i], false)
}

// similar returns up to n of the agent's rows of kind k (semantic entries,
// document chunks) other than pk whose vectors' cosine similarity with
// vec is at least threshold, most similar first, in q's transaction.
func (v *vectors) similar(q *dbtx, k *kind, pk int64, vec []float32, threshold float64, n int) ([]similarDoc, error) {
	if err := q.changes(); err != nil { // the drops so far count in own
		return nil, err
	}
	v.begin(q)
	v.touched = true // a load here would see this transaction's writes
	if err := v.sync(q); err != nil {
		return nil, err
	}
	v.mu.RLock()
	hits := v.idx[k.typ].Near(vec, float32(threshold), n+1+len(v.drops))
	v.mu.RUnlock()
	hits = v.ownHits(k.typ, hits, vec, threshold, n+1)
	var pks []int64
	sims := map[int64]float64{}
	for _, h := range hits {
		if h.ID != pk && len(pks) < n {
			pks = append(pks, h.ID)
			sims[h.ID] = min(1, float64(h.Cosine))
		}
	}
	if len(pks) == 0 {
		return nil, nil
	}
	ids, err := store.VectorRowIDs(q, k.table, v.m.agent, pks)
	if err != nil {
		return nil, err
	}
	docs := make([]similarDoc, len(ids))
	for i, d := range ids {
		docs[i] = similarDoc{pk: d.PK, id: d.ID, sim: sims[d.PK]}
	}
	slices.SortFunc(docs, func(a, b similarDoc) int { return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.id, b.id)) })
	return docs, nil
}

// ownHits corrects the index's hits of kind typ for vec with what v's
// transaction did, which reaches the index only when it commits (see
// finish): the vectors it dropped or wrote again go, and its own vectors
// at least threshold alike, up to n, come in. Best first, then by pk.
func (v *vectors) ownHits(typ MemoryType, hits []vecindex.Hit, vec []float32, threshold float64, n int) []vecindex.Hit {
	if len(v.puts) == 0 && len(v.drops) == 0 {
		return hits
	}
	hits = slices.DeleteFunc(hits, func(h vecindex.Hit) bool {
		key := vectorKey{typ, h.ID}
		_, put := v.puts[key]
		return v.drops[key] || put
	})
	if v.putIdx[typ] == nil {
		if v.putIdx == nil {
			v.putIdx = map[MemoryType]*vecindex.Index{}
		}
		x := vecindex.New(v.dims)
		for key, w := range v.puts {
			if key.typ == typ {
				x.Put(key.pk, w)
			}
		}
		v.putIdx[typ] = x
	}
	hits = append(hits, v.putIdx[typ].Near(vec, float32(threshold), n)...)
	slices.SortFunc(hits, func(a, b vecindex.Hit) int {
		return cmp.Or(cmp.Compare(b.Cosine, a.Cosine), cmp.Compare(a.ID, b.ID))
	})
	return hits
}

// stored returns the vector of row pk, or nil when it has none (it is
// pending).
func (v *vectors) stored(q *dbtx, typ MemoryType, pk int64) ([]float32, error) {
	return store.StoredVector(q, kindOf(typ).vec, pk, v.dims)
}

// vectorOf returns the i-th vector of embedNew's answer, or nil.
func vectorOf(es []embedded, i int) []float32 {
	if es == nil {
		return nil
	}
	return es[i].vec
}

// embedBatch is how many pending rows are embedded per call and written
// per transaction.
const embedBatch = 64

// pendingRow is a row waiting for its vector.
type pendingRow struct {
	typ  MemoryType
	pk   int64
	text string
}

// embedPending embeds the agent's pending rows, embedBatch at a time,
// each batch written in its own transaction, until none is left, limit
// rows are done (limit < 0: no limit) or the embedder fails. progress,
// if not nil, is called after each batch with the number done so far.
//
// When a batch fails, its first row is tried alone: if that fails too the
// embedder is taken to be down, the failure is recorded on the batch's
// rows (attempts, last_error) and returned, matching [ErrEmbedding];
// otherwise the rows are embedded one by one, so that one text the
// embedder rejects holds up no other.
func (v *vectors) embedPending(ctx context.Context, limit int, progress func(done int)) (int, error) {
	done := 0
	for limit < 0 || done < limit {
		var batch []pendingRow
		err := v.m.read(ctx, "embed.pending", func(q *dbtx) error {
			n := embedBatch
			if limit >= 0 {
				n = min(n, limit-done)
			}
			pending, err := store.PendingVectors(q, vecKinds, v.m.agent, n)
			batch = make([]pendingRow, len(pending))
			for i, p := range pending {
				batch[i] = pendingRow{typ: MemoryType(p.Type), pk: p.PK, text: p.Text}
			}
			return err
		})
		if err != nil || len(batch) == 0 {
			return done, err
		}
		n, err := v.embedRows(ctx, batch)
		done += n
		if progress != nil && n > 0 {
			progress(done)
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, nil // every row failed alone and was recorded
		}
	}
	return done, nil
}

// embedRows embeds and writes one batch of pending rows; see
// embedPending. It returns how many it wrote.
func (v *vectors) embedRows(ctx context.Context, batch []pendingRow) (int, error) {
	texts := make([]string, len(batch))
	for i, p := range batch {
		texts[i] = p.text
	}
	es, err := v.embed(ctx, texts)
	if err == nil {
		// Progress counts what is committed: a write that fails (or is
		// cancelled) wrote nothing.
		if err := v.write(ctx, batch, es); err != nil {
			return 0, err
		}
		return len(batch), nil
	}
	if ctx.Err() != nil || len(batch) == 1 {
		return 0, v.failed(ctx, batch, err)
	}
	if _, alone := v.embed(ctx, texts[:1]); alone != nil {
		return 0, v.failed(ctx, batch, err)
	}
	written := 0
	var errs []error
	for i := range batch {
		n, err := v.embedRows(ctx, batch[i:i+1])
		written += n
		if err != nil {
			if ctx.Err() != nil {
				return written, ctx.Err()
			}
			errs = append(errs, err)
		}
	}
	if written == 0 {
		return 0, errors.Join(errs...)
	}
	return written, nil
}

// write puts the vectors of a batch of pending rows, in one transaction:
// those still pending with the text they were embedded from (a row may
// have changed or gone meanwhile).
func (v *vectors) write(ctx context.Context, batch []pendingRow, es []embedded) error {
	return v.m.write(ctx, "embed.pending", func(q *dbtx) error {
		for i, p := range batch {
			text, ok, err := store.PendingText(q, vecKind(kindOf(p.typ)), p.pk, v.m.agent)
			if err != nil {
				return err
			}
			if !ok || text != p.text {
				continue
			}
			if err := v.put(q, p.typ, p.pk, es[i], true); err != nil {
				return err
			}
		}
		return nil
	})
}

// failed records an embedding failure on the rows and returns it.
func (v *vectors) failed(ctx context.Context, batch []pendingRow, cause error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := cause.Error()
	if len(msg) > 500 {
		msg = truncateUTF8(msg, 500)
	}
	err := v.m.write(ctx, "embed.pending", func(q *dbtx) error {
		for _, p := range batch {
			if err := store.VectorFailed(q, string(p.typ), p.pk, msg); err != nil {
				return err
			}
		}
		return nil
	})
	return errors.Join(cause, err)
}

// Reindex embeds every memory of the agent again with the current
// embedder and writes the vectors, embedBatch memories per transaction;
// progress, if not nil, is called after each batch with how many this call
// has embedded and how many were left to embed when it began. Texts the embedding cache holds for the
// embedder's model are not sent to it again.
//
// It can be interrupted and resumed: the first call marks every memory
// pending (recording that in meta) and each batch clears its marks, so a
// call after a crash, a cancelled context or an embedder failure carries
// on where the last one stopped instead of starting over.
//
// It returns [ErrTierUnsupported] in Tier 1, an error matching
// [ErrEmbedding] when the embedder fails (the memories left stay
// pending), the context's error when it is done, [ErrClosed] after Close
// and a [*DatabaseError] when SQLite fails.
func (m *Memory) Reindex(ctx context.Context, progress func(done, total int)) error {
	v := m.vectors
	if v == nil {
		return fmt.Errorf("engram: reindex: %w", ErrTierUnsupported)
	}
	var total int
	err := m.write(ctx, "reindex", func(q *dbtx) error {
		_, started, err := store.VectorMetaValue(q, metaReindex+m.agent)
		if err != nil {
			return err
		}
		for _, vk := range vecKinds { // marks whose row is gone (none should be)
			if err := store.DropStalePending(q, vk, m.agent); err != nil {
				return err
			}
		}
		if !started {
			if err := markPending(q, m.agent); err != nil {
				return err
			}
			if err := setMeta(q, metaReindex+m.agent, strconv.FormatInt(ms(m.now()), 10)); err != nil {
				return err
			}
		}
		total, err = store.PendingCount(q, m.agent)
		return err
	})
	if err != nil {
		return err
	}
	var report func(int)
	if progress != nil {
		report = func(done int) { progress(done, total) }
	}
	for {
		n, err := v.embedPending(ctx, -1, report)
		if err != nil {
			return err
		}
		var left int
		err = m.write(ctx, "reindex", func(q *dbtx) error {
			var err error
			if left, err = store.PendingCount(q, m.agent); err != nil || left > 0 {
				return err
			}
			return store.DeleteVectorMeta(q, metaReindex+m.agent)
		})
		if err != nil || left == 0 {
			return err
		}
		if n > 0 {
			continue // memories stored meanwhile
		}
		// Rows failed alone (recorded): report them rather than loop.
		var why string
		err = m.read(ctx, "reindex", func(q *dbtx) error {
			var err error
			why, err = store.PendingError(q, m.agent)
			return err
		})
		if err != nil {
			return err
		}
		return fmt.Errorf("engram: reindex: %d memories could not be embedded (%s): %w", left, why, ErrEmbedding)
	}
}

// checkVectors checks, in a database with vector tables, that the vectors
// agree with the rows: no vector or pending mark outlives its row, and
// every row has a vector or is pending (during a Reindex it may have
// both); and that the embedding cache agrees with them (see checkCache).
func checkVectors(q *dbtx) error {
	if made, err := store.VectorTableExists(q, semanticKind.vec); err != nil || !made {
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
func checkCache(q *dbtx) ([]string, error) {
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

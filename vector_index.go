package engram

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/vecindex"
)

// The in-memory index of the agent's vectors (internal/vecindex): its
// queries (search, cosines, similar), and loading it from vec0's chunks
// when another connection changed the vectors (sync, load).

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
func (v *vectors) sync(q store.Tx) error {
	ver, err := store.Counter(q, metaVectorVersion+v.m.agent)
	if err != nil {
		return err
	}
	// In a write transaction, the counter has moved on already for the
	// vectors its statements dropped, which finish will apply with the
	// ones it wrote.
	if q.Write() != nil && v.tx == q.Write() {
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
	dims, ok, err := store.Meta(q, metaVectorDims)
	if err != nil {
		return err
	}
	if !ok { // openVectors recorded it: another handle broke the file
		return fmt.Errorf("meta has no %s", metaVectorDims)
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
func (v *vectors) load(q store.Tx, vk *kind) (*vecindex.Index, error) {
	if store.Postgres(q) {
		return v.loadRows(q, vk)
	}
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
			err = fmt.Errorf("%w: %d of the agent's vectors in the chunks, %d in %s_rowids", errChunkLayout, got, want, vk.Vec)
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
	v.m.log.Warn("engram: reading vectors through vec0's scan", "table", vk.Vec, "reason", err)
	x := vecindex.New(v.dims)
	return x, store.ScanVectors(q, vk.Table, vk.Vec, v.m.agent, v.dims, x.Put)
}

// loadRows is load on PostgreSQL, which has no vec0 chunks: the agent's
// vectors of one type in one statement over the side table's key (see
// store.AgentVectors), quantised into the index on other goroutines as
// they come. (Where pgvector is installed, a search in SQL could stand
// in for the index: see store.AgentVectors.)
func (v *vectors) loadRows(q store.Tx, vk *kind) (*vecindex.Index, error) {
	x := vecindex.New(v.dims)
	b := newIndexLoader(x, loadBatchSize)
	err := store.AgentVectors(q, vk.Vec, v.m.agent, v.dims, b.add)
	if cerr := b.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return x, nil
}

// owned says which of the vectors of vk's table are the agent's: when
// no other agent has rows of the kind, all of them (own and chunks nil);
// otherwise the pks own of the agent's rows that have a vector, and the
// chunks (ascending) that hold those vectors. want is how many vectors
// the agent has.
func (v *vectors) owned(q store.Tx, vk *kind) (own map[int64]bool, chunks []int64, want int, err error) {
	others, err := store.VectorKindShared(q, vk.Table, v.m.agent)
	if err != nil {
		return nil, nil, 0, err
	}
	if !others {
		want, err := store.VectorCount(q, vk.Vec)
		return nil, nil, want, err
	}
	held, err := store.VectorChunksOf(q, vk.Table, vk.Vec, v.m.agent)
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
func (v *vectors) loadChunks(q store.Tx, vk *kind, chunks []int64, fn func(pks []int64, vecs []byte)) error {
	return store.VectorChunks(q, vk.Vec, v.dims, chunks, fn)
}

// similar returns up to n of the agent's rows of kind k (semantic entries,
// document chunks) other than pk whose vectors' cosine similarity with
// vec is at least threshold, most similar first, in q's transaction.
func (v *vectors) similar(q store.Tx, k *kind, pk int64, vec []float32, threshold float64, n int) ([]similarDoc, error) {
	if err := q.Changes(); err != nil { // the drops so far count in own
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
	ids, err := store.VectorRowIDs(q, k.Table, v.m.agent, pks)
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
func (v *vectors) stored(q store.Tx, typ MemoryType, pk int64) ([]float32, error) {
	return store.StoredVector(q, kindOf(typ).Vec, v.m.agent, pk, v.dims)
}

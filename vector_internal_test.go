package engram

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/vecindex"
)

// openHashingTier2 opens a Tier 2 memory in a temporary directory with a
// hashing embedder of dims dimensions, closed when the test ends.
func openHashingTier2(t *testing.T, dims int) (*Memory, *HashingEmbedder) {
	t.Helper()
	h, err := NewHashingEmbedder(dims)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Tier2, WithDir(t.TempDir()), WithEmbedder(h))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, h
}

// TestChunkLayoutMatchesVec0 checks that reading vec0's chunks directly
// finds exactly what vec0's own scan finds, after deletes have left holes
// in the chunks.
func TestChunkLayoutMatchesVec0(t *testing.T) {
	ctx := context.Background()
	m, _ := openHashingTier2(t, 32)
	entries := make([]SemanticEntry, 300) // about five chunks
	for i := range entries {
		entries[i] = SemanticEntry{Content: fmt.Sprintf("entry %d of the chunk test", i), Importance: 0.5}
	}
	ids, err := m.Semantic().StoreBatch(ctx, entries)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 40 {
		if err := m.Semantic().Delete(ctx, ids[rng.IntN(len(ids))]); err != nil && !isNotFound(err) {
			t.Fatal(err)
		}
	}
	vt := semanticKind
	err = m.db.read(ctx, "test", func(q *dbtx) error {
		fast := map[int64][]float32{}
		if err := m.vectors.loadChunks(q, vt, nil, collect(fast, 32)); err != nil {
			return err
		}
		// Read again chunk by chunk, listed: the same vectors.
		var chunks []int64
		if err := q.queryRow(`SELECT json_group_array(chunk_id) FROM vec_semantic_chunks`, nil, jsonScanner{&chunks}); err != nil {
			return err
		}
		listed := map[int64][]float32{}
		for _, c := range chunks {
			if err := m.vectors.loadChunks(q, vt, []int64{c}, collect(listed, 32)); err != nil {
				return err
			}
		}
		if len(chunks) < 5 || !maps.EqualFunc(fast, listed, slices.Equal) {
			return fmt.Errorf("the %d chunks read one by one hold other vectors than read at once", len(chunks))
		}
		rows, err := q.query(`SELECT rowid, embedding FROM vec_semantic`)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var pk int64
			var b []byte
			if err := rows.Scan(&pk, &b); err != nil {
				return err
			}
			want, err := decodeVector(b, 32)
			if err != nil {
				return err
			}
			got, ok := fast[pk]
			if !ok {
				return fmt.Errorf("rowid %d: vec0 has it, the chunks do not", pk)
			}
			for i := range want {
				if got[i] != want[i] {
					return fmt.Errorf("rowid %d: element %d is %v, vec0 says %v", pk, i, got[i], want[i])
				}
			}
			n++
		}
		if n != len(fast) || n == 0 {
			return fmt.Errorf("vec0 scan found %d vectors, the chunks %d", n, len(fast))
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// collect returns a loadChunks callback that decodes the vectors (of dims
// dimensions) into into.
func collect(into map[int64][]float32, dims int) func(pks []int64, vecs []byte) {
	return func(pks []int64, vecs []byte) {
		for i, pk := range pks {
			v, err := decodeVector(vecs[i*4*dims:(i+1)*4*dims], dims)
			if err != nil {
				panic(err)
			}
			into[pk] = v
		}
	}
}

// jsonScanner scans a JSON column into what it points to.
type jsonScanner struct{ v any }

func (j jsonScanner) Scan(src any) error {
	s, ok := src.(string)
	if !ok {
		return fmt.Errorf("jsonScanner: %T", src)
	}
	return json.Unmarshal([]byte(s), j.v)
}

// TestLoadHoldsTheAgentsVectors checks that the index an agent loads
// holds exactly its own vectors, as vec0's scan finds them, alone in its
// file and beside another agent whose vectors share its chunks.
func TestLoadHoldsTheAgentsVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(agent string) *Memory {
		h, err := NewHashingEmbedder(48)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(Tier2, WithAgent(agent), WithPath(filepath.Join(dir, "memory.db")), WithEmbedder(h))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	a, b := open("a"), open("b")
	put := func(m *Memory, round int) {
		entries := make([]SemanticEntry, 40)
		for i := range entries {
			entries[i] = SemanticEntry{Content: fmt.Sprintf("%s's entry %d of round %d", m.agent, i, round)}
		}
		ids, err := m.Semantic().StoreBatch(ctx, entries)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[:5] {
			if err := m.Semantic().Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(m *Memory, want int) {
		t.Helper()
		err := m.db.read(ctx, "test", func(q *dbtx) error {
			x, err := m.vectors.load(q, semanticKind)
			if err != nil {
				return err
			}
			rows, err := q.query(`SELECT v.rowid, v.embedding FROM vec_semantic v JOIN semantic_memory s ON s.pk = v.rowid
				WHERE s.agent_id = ?`, m.agent)
			if err != nil {
				return err
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var pk int64
				var raw []byte
				if err := rows.Scan(&pk, &raw); err != nil {
					return err
				}
				vec, err := decodeVector(raw, 48)
				if err != nil {
					return err
				}
				if cos := x.Cosines(vec, []int64{pk})[0]; !(cos > 0.9999) {
					return fmt.Errorf("%s: pk %d has cosine %v with its own vector in the index", m.agent, pk, cos)
				}
				n++
			}
			if n != want || x.Len() != want {
				return fmt.Errorf("%s: the index holds %d vectors, vec0 %d of the agent's; want %d", m.agent, x.Len(), n, want)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put(a, 0)
	check(a, 35) // alone in the file
	for round := 1; round < 4; round++ {
		put(b, round)
		put(a, round)
	}
	check(a, 4*35)
	check(b, 3*35)
}

// TestSpreadIsOrthogonal checks that spread keeps lengths and angles, for
// lengths that are and are not powers of two.
func TestSpreadIsOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, dims := range []int{16, 100, 384, 1000, 1024} {
		a, b := make([]float64, dims), make([]float64, dims)
		for range 30 { // sparse, as hashed features are
			a[rng.IntN(dims)] += rng.NormFloat64()
			b[rng.IntN(dims)] += rng.NormFloat64()
		}
		dot := func(x, y []float64) (s float64) {
			for i := range x {
				s += x[i] * y[i]
			}
			return s
		}
		ab, aa := dot(a, b), dot(a, a)
		spread(a)
		spread(b)
		if math.Abs(dot(a, b)-ab) > 1e-9 || math.Abs(dot(a, a)-aa) > 1e-9 {
			t.Fatalf("dims %d: dot %v → %v, norm² %v → %v", dims, ab, dot(a, b), aa, dot(a, a))
		}
		zeros := 0
		for _, x := range a {
			if x == 0 {
				zeros++
			}
		}
		if zeros > dims/20 {
			t.Errorf("dims %d: %d zeros after spread", dims, zeros)
		}
	}
}

// TestHashingEmbeddingsSuitTheIndex: the vector index's recall@10 on the
// hashing embedder's vectors of 10K made-up sentences, against an exact
// scan (sparse vectors had 0.72).
func TestHashingEmbeddingsSuitTheIndex(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	if testing.Short() {
		t.Skip("embeds 10K texts")
	}
	h, _ := NewHashingEmbedder(384)
	rng := rand.New(rand.NewPCG(1, 1))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%d", i, rng.IntN(100))
	}
	const n = 10000
	texts := make([]string, n)
	for i := range texts {
		w := make([]string, 10+rng.IntN(15))
		for j := range w {
			w[j] = vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64())]
		}
		texts[i] = strings.Join(w, " ")
	}
	vecs, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	x := vecindex.New(384)
	for i, v := range vecs {
		x.Put(int64(i), v)
	}
	hit := 0
	const queries = 100
	for range queries {
		words := strings.Fields(texts[rng.IntN(n)])
		q, _ := h.Embed(context.Background(), []string{strings.Join(words[:3], " ")})
		ids := make([]int64, n)
		sims := make([]float32, n)
		for i, v := range vecs {
			ids[i] = int64(i)
			for j := range v {
				sims[i] += v[j] * q[0][j]
			}
		}
		slices.SortStableFunc(ids, func(a, b int64) int { return cmp.Compare(sims[b], sims[a]) })
		for _, r := range x.Search(q[0], 10, vecindex.Candidates(10, n)) {
			if slices.Contains(ids[:10], r.ID) {
				hit++
			}
		}
	}
	if r := float64(hit) / (10 * queries); r < 0.95 {
		t.Errorf("recall@10 = %.3f, want ≥ 0.95", r)
	}
}

// TestIndexFollowsWritesAndDropsInOneTransaction writes and drops the
// vector of one row within a transaction, both ways round, and checks
// that the index ends as the table does: a row stored then deleted is
// gone; a row deleted and its pk taken again by a new row (SQLite reuses
// the largest rowid) has the new row's vector.
func TestIndexFollowsWritesAndDropsInOneTransaction(t *testing.T) {
	ctx := context.Background()
	m, h := openHashingTier2(t, 64)
	s := m.Semantic()
	if _, err := s.StoreBatch(ctx, []SemanticEntry{{Content: "kept entry about tide tables"}, {Content: "last entry about lighthouse keepers"}}); err != nil {
		t.Fatal(err)
	}
	// A search builds the index, so that the transactions below update it.
	if _, err := s.Search(ctx, SearchOptions{Query: "tide", Mode: SearchVector}); err != nil {
		t.Fatal(err)
	}
	put := func(q *dbtx, content string) int64 {
		t.Helper()
		row, err := s.prepare("entry", SemanticEntry{Content: content}, m.now())
		if err != nil {
			t.Fatal(err)
		}
		es, err := m.embedNew(ctx, []string{content})
		if err != nil {
			t.Fatal(err)
		}
		pk, err := s.insert(q, row)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.putNew(q, TypeSemantic, pk, es, 0); err != nil {
			t.Fatal(err)
		}
		return pk
	}
	var gone, reused int64
	err := m.db.write(ctx, "test", func(q *dbtx) error {
		gone = put(q, "stored and deleted at once")
		return execReported(q, store.Semantic, store.Deleted, `DELETE FROM semantic_memory WHERE pk = ?`, gone)
	})
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	if err := m.db.read(ctx, "test", func(q *dbtx) error {
		return q.queryRow(`SELECT max(pk) FROM semantic_memory`, nil, &last)
	}); err != nil {
		t.Fatal(err)
	}
	err = m.db.write(ctx, "test", func(q *dbtx) error {
		if err := execReported(q, store.Semantic, store.Deleted, `DELETE FROM semantic_memory WHERE pk = ?`, last); err != nil {
			return err
		}
		reused = put(q, "comet sightings over the harbour")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if reused != last {
		t.Fatalf("the new row has pk %d, want the dropped one's %d", reused, last)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
	m.vectors.mu.RLock()
	built, x := m.vectors.built, m.vectors.idx[TypeSemantic]
	m.vectors.mu.RUnlock()
	if !built {
		t.Fatal("the index was dropped; want it kept in step")
	}
	if x.Has(gone) && gone != reused {
		t.Errorf("pk %d, stored and deleted in one transaction, is in the index", gone)
	}
	want, err := h.Embed(ctx, []string{"comet sightings over the harbour"})
	if err != nil {
		t.Fatal(err)
	}
	hits := x.Search(want[0], 1, 10)
	if len(hits) != 1 || hits[0].ID != reused || hits[0].Cosine < 0.999 {
		t.Errorf("nearest to the new row's vector: %+v, want pk %d at cosine 1", hits, reused)
	}
	if x.Len() != 2 {
		t.Errorf("index holds %d vectors, want 2", x.Len())
	}
}

// TestLoadChunksKeepsTheCause checks that loadChunks reports vec0 storage
// it cannot read (a missing table) as errChunkLayout, for load to fall
// back on vec0's scan, and any other failure (here the context's end) as
// itself.
func TestLoadChunksKeepsTheCause(t *testing.T) {
	ctx := context.Background()
	m, _ := openHashingTier2(t, 32)
	if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: "one entry with a vector"}); err != nil {
		t.Fatal(err)
	}
	err := m.db.read(ctx, "test", func(q *dbtx) error {
		err := m.vectors.loadChunks(q, &kind{Kind: &store.Kind{Vec: "vec_missing"}}, nil, func([]int64, []byte) {})
		if !errors.Is(err, errChunkLayout) {
			t.Errorf("a missing table: %v, want errChunkLayout", err)
		}
		ended, cancel := context.WithCancel(ctx)
		cancel()
		err = m.vectors.loadChunks(&dbtx{ctx: ended, prep: q.prep}, semanticKind, nil, func([]int64, []byte) {})
		if errors.Is(err, errChunkLayout) || !errors.Is(err, context.Canceled) {
			t.Errorf("the context's end: %v, want context.Canceled", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The Tier 2 schema's triggers mark a row's vector stale when its text
// changes: their conditions must name exactly the columns the registry
// makes the kind's text of, or an edit of one would leave vectors behind
// (or mark them for nothing).
func TestVectorTriggersFollowTheRegistry(t *testing.T) {
	m, _ := openHashingTier2(t, 32)
	changed := regexp.MustCompile(`old\.(\w+) IS NOT new\.(\w+)`)
	for _, k := range vectorKinds {
		var body string
		err := m.db.read(context.Background(), "test", func(q *dbtx) error {
			return q.queryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, []any{k.Vec + "_au"}, &body)
		})
		if err != nil {
			t.Fatalf("%s: %v", k.Vec+"_au", err)
		}
		var cols []string
		for _, m := range changed.FindAllStringSubmatch(body, -1) {
			if m[1] != m[2] {
				t.Errorf("%s compares old.%s with new.%s", k.Vec+"_au", m[1], m[2])
			}
			cols = append(cols, m[1])
		}
		slices.Sort(cols)
		want := slices.Sorted(slices.Values(k.TextCols))
		if !slices.Equal(cols, want) {
			t.Errorf("%s watches %v; the registry's text of %s is made of %v", k.Vec+"_au", cols, k.typ, want)
		}
	}
}

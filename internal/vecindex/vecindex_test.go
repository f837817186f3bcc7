package vecindex

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/engram-go/engram/internal/vecdata"
)

// exactTop returns the IDs (indexes) of the k vectors of data most similar
// to q, by an exact scan.
func exactTop(data [][]float32, q []float32, k int) []int64 {
	ids := make([]int64, len(data))
	sims := make([]float32, len(data))
	for i, v := range data {
		ids[i], sims[i] = int64(i), vecdata.Dot(q, v)
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(sims[b], sims[a]) })
	return ids[:k]
}

// search returns the IDs of the index's k best for q.
func search(x *Index, q []float32, k int) []int64 {
	out := make([]int64, 0, k)
	for _, h := range x.Search(q, k, Candidates(k, x.Len())) {
		out = append(out, h.ID)
	}
	return out
}

func recall(x *Index, data, queries [][]float32, k int) float64 {
	hit := 0
	for _, q := range queries {
		truth := exactTop(data, q, k)
		for _, id := range search(x, q, k) {
			if slices.Contains(truth, id) {
				hit++
			}
		}
	}
	return float64(hit) / float64(k*len(queries))
}

func build(data [][]float32) *Index {
	x := New(len(data[0]))
	for i, v := range data {
		x.Put(int64(i), v)
	}
	return x
}

func TestRecallAt10(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 20K vectors")
	}
	c := vecdata.NewClustered(1, 1000, 384)
	clustered, cq := c.Vectors(10000), c.Vectors(100)
	uniform, uq := vecdata.Uniform(1, 10000, 384), vecdata.Uniform(2, 100, 384)
	if r := recall(build(clustered), clustered, cq, 10); r < 0.98 {
		t.Errorf("clustered recall@10 = %.3f, want ≥ 0.98", r)
	}
	if r := recall(build(uniform), uniform, uq, 10); r < 0.96 {
		t.Errorf("uniform recall@10 = %.3f, want ≥ 0.96", r)
	}
}

// TestRescoredCosine checks the 16-bit rescoring against the exact cosine
// when every vector is a candidate.
func TestRescoredCosine(t *testing.T) {
	data := vecdata.Uniform(3, 500, 384)
	x := build(data)
	q := vecdata.Uniform(4, 1, 384)[0]
	hits := x.Search(q, len(data), len(data))
	if len(hits) != len(data) {
		t.Fatalf("%d hits, want %d", len(hits), len(data))
	}
	for i, h := range hits {
		if d := math.Abs(float64(h.Cosine - vecdata.Dot(q, data[h.ID]))); d > 1e-4 {
			t.Fatalf("hit %d (ID %d): cosine %.5f, exact %.5f", i, h.ID, h.Cosine, vecdata.Dot(q, data[h.ID]))
		}
		if i > 0 && hits[i-1].Cosine < h.Cosine {
			t.Fatalf("hits out of order at %d", i)
		}
	}
}

// TestCosines checks Cosines against the exact cosine, with NaN for an ID
// the index does not hold, and zeros for a zero query.
func TestCosines(t *testing.T) {
	data := vecdata.Uniform(5, 300, 384)
	x := build(data)
	q := vecdata.Uniform(6, 1, 384)[0]
	ids := []int64{7, 299, 1000, 0, -1}
	got := x.Cosines(q, ids)
	for i, id := range ids {
		if id < 0 || id >= int64(len(data)) {
			if !math.IsNaN(float64(got[i])) {
				t.Errorf("ID %d is not held: cosine %v, want NaN", id, got[i])
			}
			continue
		}
		if d := math.Abs(float64(got[i] - vecdata.Dot(q, data[id]))); d > 1e-4 {
			t.Errorf("ID %d: cosine %.5f, exact %.5f", id, got[i], vecdata.Dot(q, data[id]))
		}
	}
	zero := x.Cosines(make([]float32, 384), []int64{7})
	if zero[0] != 0 {
		t.Errorf("a zero query: cosine %v, want 0", zero[0])
	}
}

// TestPutRemove checks that the index follows puts, replacements and
// removals: a search over everything finds exactly the live IDs, each
// with its latest vector.
func TestPutRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	vecs := vecdata.Uniform(6, 400, 96)
	x := New(96)
	live := map[int64][]float32{}
	for i := range 3000 {
		id := int64(rng.IntN(150))
		switch rng.IntN(3) {
		case 0:
			x.Remove(id)
			delete(live, id)
		default:
			v := vecs[i%len(vecs)]
			x.Put(id, v)
			live[id] = v
		}
		if x.Len() != len(live) {
			t.Fatalf("step %d: Len %d, want %d", i, x.Len(), len(live))
		}
	}
	q := vecs[7]
	hits := x.Search(q, 1000, 1000)
	if len(hits) != len(live) {
		t.Fatalf("%d hits, want %d", len(hits), len(live))
	}
	for _, h := range hits {
		v, ok := live[h.ID]
		if !ok || !x.Has(h.ID) {
			t.Fatalf("hit %d is not live", h.ID)
		}
		if d := math.Abs(float64(h.Cosine - vecdata.Dot(q, v))); d > 1e-4 {
			t.Fatalf("ID %d: cosine %.4f, want %.4f", h.ID, h.Cosine, vecdata.Dot(q, v))
		}
	}
}

func TestZeroVectors(t *testing.T) {
	x := New(8)
	x.Put(1, make([]float32, 8))
	x.Put(2, []float32{1, 0, 0, 0, 0, 0, 0, 0})
	if hits := x.Search(make([]float32, 8), 5, 5); hits != nil {
		t.Fatalf("a zero query found %v", hits)
	}
	hits := x.Search([]float32{2, 0, 0, 0, 0, 0, 0, 0}, 5, 5)
	if len(hits) != 2 || hits[0].ID != 2 || math.Abs(float64(hits[0].Cosine)-1) > 1e-2 || hits[1].Cosine != 0 {
		t.Fatalf("hits %v", hits)
	}
}

// TestSelectTop checks quickselect against sorting, with many ties.
func TestSelectTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		s := make([]scored, 1+rng.IntN(60))
		for i := range s {
			s[i] = scored{score: float32(rng.IntN(8)), slot: int32(i)}
		}
		n := 1 + rng.IntN(len(s))
		want := make([]float32, len(s))
		for i, e := range s {
			want[i] = e.score
		}
		slices.Sort(want)
		slices.Reverse(want)
		selectTop(s, n)
		got := make([]float32, n)
		for i := range got {
			got[i] = s[i].score
		}
		slices.Sort(got)
		slices.Reverse(got)
		if !slices.Equal(got, want[:n]) {
			t.Fatalf("n=%d: got %v, want %v", n, got, want[:n])
		}
	}
}

// TestNearFindsEveryNearDuplicate checks Near against an exhaustive scan
// of the 16-bit cosines, on both data sets, with queries that have
// near-duplicates (stored vectors moved a little) and queries that have
// none; a low threshold, which lets too many codes through, takes the
// fallback.
func TestNearFindsEveryNearDuplicate(t *testing.T) {
	c := vecdata.NewClustered(5, 100, 384)
	for name, data := range map[string][][]float32{
		"clustered": c.Vectors(5000),
		"uniform":   vecdata.Uniform(6, 5000, 384),
	} {
		x := build(data)
		rng := rand.New(rand.NewPCG(8, 8))
		noise := vecdata.Uniform(9, 200, 384)
		for i := range 200 {
			q := slices.Clone(data[rng.IntN(len(data))])
			for j := range q {
				q[j] += 0.3 * noise[i][j] * float32(i%4) // from the same vector to well away
			}
			for _, minCos := range []float32{0.85, 0.95, 0.2} {
				want := filterCos(x.Search(q, len(data), len(data)), minCos, 10)
				got := x.Near(q, minCos, 10)
				if len(got) != len(want) {
					t.Fatalf("%s query %d, cos ≥ %v: Near found %d, the scan %d", name, i, minCos, len(got), len(want))
				}
				for k := range got {
					if got[k].ID != want[k].ID {
						t.Fatalf("%s query %d: hit %d is %d, want %d", name, i, k, got[k].ID, want[k].ID)
					}
				}
			}
		}
	}
}

// TestAppend checks that vectors appended in bulk, after Grow, as float32s
// and as little-endian bytes, are held exactly as Put holds them, that Put and Remove work on them, and that
// Append refuses an ID the index holds or one named twice.
func TestAppend(t *testing.T) {
	data := vecdata.Uniform(7, 3000, 384)
	byPut := build(data)
	x := New(384)
	x.Grow(len(data))
	for lo := 0; lo < len(data); lo += 700 {
		hi := min(len(data), lo+700)
		ids := make([]int64, 0, hi-lo)
		var flat []float32
		for i := lo; i < hi; i++ {
			ids, flat = append(ids, int64(i)), append(flat, data[i]...)
		}
		if lo%1400 == 0 {
			x.Append(ids, flat)
			continue
		}
		le := make([]byte, 0, 4*len(flat))
		for _, f := range flat {
			le = binary.LittleEndian.AppendUint32(le, math.Float32bits(f))
		}
		x.AppendLE(ids, le)
	}
	if x.Len() != byPut.Len() {
		t.Fatalf("Len %d, want %d", x.Len(), byPut.Len())
	}
	for id := range int64(len(data)) {
		a, b := x.slot[id], byPut.slot[id]
		if !slices.Equal(x.q16[int(a)*384:int(a+1)*384], byPut.q16[int(b)*384:int(b+1)*384]) ||
			!slices.Equal(x.codes[int(a)*6:int(a+1)*6], byPut.codes[int(b)*6:int(b+1)*6]) ||
			x.inv1[a] != byPut.inv1[b] || x.scale[a] != byPut.scale[b] || x.ones[a] != byPut.ones[b] {
			t.Fatalf("ID %d is held differently by Append and by Put", id)
		}
	}
	q := vecdata.Uniform(8, 1, 384)[0]
	if got, want := search(x, q, 10), search(byPut, q, 10); !slices.Equal(got, want) {
		t.Errorf("search after Append: %v, after Put: %v", got, want)
	}
	x.Remove(5)
	x.Put(3000, data[5])
	if hits := x.Search(data[5], 1, 100); len(hits) != 1 || hits[0].ID != 3000 {
		t.Errorf("after Remove and Put: %+v, want ID 3000", hits)
	}
	for _, ids := range [][]int64{{7}, {4000, 4000}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Append(%v) did not panic", ids)
				}
			}()
			x.Append(ids, make([]float32, len(ids)*384))
		}()
	}
}

// TestAppendLEOddDimension checks AppendLE against Put for a dimension
// that fills neither its last code word nor a group of four.
func TestAppendLEOddDimension(t *testing.T) {
	data := vecdata.Uniform(9, 50, 37)
	byPut := build(data)
	x := New(37)
	ids := make([]int64, len(data))
	var le []byte
	for i, v := range data {
		ids[i] = int64(i)
		for _, f := range v {
			le = binary.LittleEndian.AppendUint32(le, math.Float32bits(f))
		}
	}
	x.AppendLE(ids, le)
	if !slices.Equal(x.q16, byPut.q16) || !slices.Equal(x.codes, byPut.codes) || !slices.Equal(x.inv1, byPut.inv1) ||
		!slices.Equal(x.scale, byPut.scale) || !slices.Equal(x.ones, byPut.ones) {
		t.Error("AppendLE holds the vectors otherwise than Put")
	}
}

// BenchmarkAppend loads 100K vectors of 384 dimensions in batches of
// 4,096, as a Tier 2 memory loads its vectors.
func BenchmarkAppend(b *testing.B) {
	data := vecdata.Uniform(1, 100000, 384)
	flat := make([]float32, 0, len(data)*384)
	ids := make([]int64, len(data))
	for i, v := range data {
		flat, ids[i] = append(flat, v...), int64(i)
	}
	for b.Loop() {
		x := New(384)
		x.Grow(len(ids))
		for lo := 0; lo < len(ids); lo += 4096 {
			hi := min(len(ids), lo+4096)
			x.Append(ids[lo:hi], flat[lo*384:hi*384])
		}
	}
}

// BenchmarkPut is BenchmarkAppend one Put at a time.
func BenchmarkPut(b *testing.B) {
	data := vecdata.Uniform(1, 100000, 384)
	for b.Loop() {
		x := New(384)
		for i, v := range data {
			x.Put(int64(i), v)
		}
	}
}

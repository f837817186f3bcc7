// Package vecdata makes the vector data sets engram's tests and
// benchmarks measure vector search on, from a fixed seed.
package vecdata

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Uniform returns n random unit vectors of dims dimensions, spread evenly
// over the sphere: the hardest case for quantisation.
func Uniform(seed uint64, n, dims int) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float32, n)
	for i := range out {
		out[i] = unit(gaussian(rng, dims, 1))
	}
	return out
}

// Clustered is a clustered data set, as real embeddings cluster: random
// unit centres, and vectors that are each the normalised sum of a centre
// and a Gaussian offset of norm 0.6.
type Clustered struct {
	rng     *rand.Rand
	centres [][]float32
}

// NewClustered returns a clustered data set with the given number of
// centres.
func NewClustered(seed uint64, centres, dims int) *Clustered {
	c := &Clustered{rng: rand.New(rand.NewPCG(seed, 2))}
	for range centres {
		c.centres = append(c.centres, unit(gaussian(c.rng, dims, 1)))
	}
	return c
}

// Next returns the data set's next vector.
func (c *Clustered) Next() []float32 {
	centre := c.centres[c.rng.IntN(len(c.centres))]
	off := unit(gaussian(c.rng, len(centre), 1))
	v := make([]float32, len(centre))
	for i := range v {
		v[i] = centre[i] + 0.6*off[i]
	}
	return unit(v)
}

// Vectors returns the data set's next n vectors.
func (c *Clustered) Vectors(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = c.Next()
	}
	return out
}

func gaussian(rng *rand.Rand, dims int, sd float64) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * sd)
	}
	return v
}

func unit(v []float32) []float32 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Dot returns the dot product of a and b, which for unit vectors is their
// cosine similarity.
func Dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Scored is the vector at index I of a flat slice and its dot product
// with a query.
type Scored struct {
	Sim float32
	I   int
}

// ScanTop returns the k vectors among those at indexes lo to hi of flat
// (vectors of dims float32s, one after the other, dims a multiple of 4)
// whose dot product with q is largest, largest first: the exact scan the
// benchmarks measure vector search against.
func ScanTop(flat, q []float32, dims, lo, hi, k int) []Scored {
	top := make([]Scored, 0, k+1)
	for i := lo; i < hi; i++ {
		v := flat[i*dims : (i+1)*dims]
		var s0, s1, s2, s3 float32
		for j := 0; j < dims; j += 4 {
			s0 += q[j] * v[j]
			s1 += q[j+1] * v[j+1]
			s2 += q[j+2] * v[j+2]
			s3 += q[j+3] * v[j+3]
		}
		s := s0 + s1 + s2 + s3
		if len(top) == k && s <= top[k-1].Sim {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, s, func(e Scored, t float32) int { return cmp.Compare(t, e.Sim) })
		top = slices.Insert(top, at, Scored{s, i})
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// Package vecdata makes the vector data sets engram's tests and
// benchmarks measure vector search on, from a fixed seed.
package vecdata

import (
	"math"
	"math/rand/v2"
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

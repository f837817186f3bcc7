package vecindex

import (
	"fmt"
	"testing"

	"github.com/engram-go/engram/internal/vecdata"
)

// benchQueries runs query on an index of 10K and of 100K uniform random
// vectors of 384 dimensions, cycling through 64 queries.
func benchQueries(b *testing.B, query func(x *Index, q []float32)) {
	for _, n := range []int{10000, 100000} {
		x, queries := build(vecdata.Uniform(1, n, 384)), vecdata.Uniform(2, 64, 384)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				query(x, queries[i%len(queries)])
				i++
			}
		})
	}
}

// BenchmarkSearch is the index alone; BenchmarkSearchVector in the root
// package measures what a caller gets, SQLite reads included.
func BenchmarkSearch(b *testing.B) {
	benchQueries(b, func(x *Index, q []float32) { x.Search(q, 10, Candidates(10, x.Len())) })
}

// BenchmarkNear is auto-linking's near-duplicate search (cosine ≥ 0.85).
func BenchmarkNear(b *testing.B) {
	benchQueries(b, func(x *Index, q []float32) { x.Near(q, 0.85, 10) })
}

func BenchmarkEstimate(b *testing.B) {
	x := build(vecdata.Uniform(1, 100000, 384))
	qs, _ := x.prepare(vecdata.Uniform(2, 1, 384)[0], true)
	est := make([]float32, x.Len())
	for b.Loop() {
		x.estimate(qs, est, 0, x.Len())
	}
}

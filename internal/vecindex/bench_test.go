package vecindex

import (
	"fmt"
	"testing"

	"github.com/engram-go/engram/internal/vecdata"
)

// BenchmarkSearch is the index alone; BenchmarkSearchVector in the root
// package measures what a caller gets, vec0 reads included.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		data, queries := vecdata.Uniform(1, n, 384), vecdata.Uniform(2, 64, 384)
		x := build(data)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				x.Search(queries[i%len(queries)], 10, Candidates(10, n))
				i++
			}
		})
	}
}

func BenchmarkEstimate(b *testing.B) {
	x := build(vecdata.Uniform(1, 100000, 384))
	qs, _ := x.prepare(vecdata.Uniform(2, 1, 384)[0])
	est := make([]float32, x.Len())
	for b.Loop() {
		x.estimate(qs, est, 0, x.Len())
	}
}

// BenchmarkNear is auto-linking's near-duplicate search (cosine ≥ 0.85).
func BenchmarkNear(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		data, queries := vecdata.Uniform(1, n, 384), vecdata.Uniform(2, 64, 384)
		x := build(data)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				x.Near(queries[i%len(queries)], 0.85, 10)
				i++
			}
		})
	}
}

package bm25

import (
	"encoding/binary"
	"testing"

	"github.com/engram-go/engram/internal/benchdata"
)

// vectors are the term vectors of the search benchmarks' corpus of 10K.
func vectors(b *testing.B) [][]byte {
	b.Helper()
	docs := benchdata.NewCorpus(10_000).Docs
	out := make([][]byte, len(docs))
	for i, d := range docs {
		out[i], _ = Vector(d, "[]")
	}
	return out
}

// BenchmarkEach reads every stem of the corpus's vectors, as the build of
// the in-memory text index does (ns/op is per vector).
func BenchmarkEach(b *testing.B) {
	vs := vectors(b)
	b.ResetTimer()
	sum := 0
	for i := 0; b.Loop(); i++ {
		Each(vs[i%len(vs)], func(h uint32, n int) { sum += n })
	}
	if sum == 0 {
		b.Fatal("no stems")
	}
}

// BenchmarkScore scores the corpus's vectors for a query of three terms,
// as a search from stored vectors does (ns/op is per vector).
func BenchmarkScore(b *testing.B) {
	vs := vectors(b)
	q := NewQuery([]string{"the", "kamar", "of"}, []float64{0.1, 3, 0.2}, 19, DefaultK1, DefaultB)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q.Score(vs[i%len(vs)], 19)
	}
}

// fixedEach is Each over the fixed-width vectors of schema v5 to v12,
// as engram read them, for BenchmarkEachForms.
//
//go:noinline
func fixedEach(v []byte, f func(h uint32, count int)) {
	for i := 0; i+fixedEntry <= len(v); i += fixedEntry {
		f(binary.LittleEndian.Uint32(v[i:]), int(binary.LittleEndian.Uint16(v[i+4:])))
	}
}

// BenchmarkEachForms reads the corpus's vectors in the fixed-width form
// (as engram did before schema v13) and in the compact one, in one
// process (ns/op is per vector).
func BenchmarkEachForms(b *testing.B) {
	vs := vectors(b)
	fx := make([][]byte, len(vs))
	for i, v := range vs {
		fx[i] = fixed(v)
	}
	for _, form := range []struct {
		name string
		vs   [][]byte
		each func([]byte, func(uint32, int))
	}{{"compact", vs, Each}, {"fixed", fx, fixedEach}} {
		b.Run("form="+form.name, func(b *testing.B) {
			sum := 0
			for i := 0; b.Loop(); i++ {
				form.each(form.vs[i%len(form.vs)], func(h uint32, n int) { sum += n })
			}
			if sum == 0 {
				b.Fatal("no stems")
			}
		})
	}
}

package bm25

import (
	"encoding/binary"
	"testing"
)

// FuzzVector reads arbitrary bytes as a term vector (a damaged file's
// terms column): Count, Each, Score and FromFixed never panic on them.
// The vector of any text reads back well: Each gives each stem once, in
// hash order, as often as Count says, and no more often than the text
// has tokens.
func FuzzVector(f *testing.F) {
	v, _ := Vector("the deploy pipeline deployed the pipeline")
	f.Add(v, "deploy pipeline")
	f.Add([]byte{}, "")
	f.Add([]byte{0x80, 0x80, 0x80}, "x")
	f.Add(binary.AppendUvarint(nil, 3), "a b c")
	f.Fuzz(func(t *testing.T, raw []byte, text string) {
		q := NewQuery([]string{"deploy", "pipelin"}, []float64{1, 1}, 10, 1.2, 0.75)
		Each(raw, func(h uint32, _ int) { Count(raw, h) })
		q.Score(raw, 10)
		FromFixed(raw)
		v, n := Vector(text)
		{
			var prev uint64
			first := true
			Each(v, func(h uint32, count int) {
				if !first && uint64(h) <= prev {
					t.Fatalf("Each gave hash %d after %d", h, prev)
				}
				if count < 1 {
					t.Fatalf("Each gave count %d", count)
				}
				if c := Count(v, h); c != count {
					t.Fatalf("Count(%d) = %d, Each said %d", h, c, count)
				}
				first, prev = false, uint64(h)
			})
		}
		total := 0
		Each(v, func(_ uint32, count int) { total += count })
		if total > n {
			t.Fatalf("%q: counts add up to %d, more than its %d tokens", text, total, n)
		}
	})
}

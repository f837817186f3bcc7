package bm25

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/query"
)

func TestVectorCountsEveryStem(t *testing.T) {
	v, n := Vector("The deploys deployed; the DEPLOY", "café Café")
	if n != 7 {
		t.Fatalf("length %d, want 7", n)
	}
	for stem, want := range map[string]int{"the": 2, "deploi": 3, "cafe": 2, "missing": 0} {
		if got := Count(v, Hash(stem)); got != want {
			t.Errorf("Count(%q) = %d, want %d", stem, got, want)
		}
	}
	if got := parse(v).n; got != 3 {
		t.Errorf("%d entries, want 3 (the, deploi, cafe)", got)
	}
	if Count(v[:len(v)-1], Hash("the")) > 2 || Count(nil, Hash("the")) != 0 {
		t.Error("a malformed vector must not count more than it holds")
	}
	if query.Stem("deploys") != "deploi" {
		t.Fatal("the test assumes Porter's stem of deploys")
	}
}

func TestVectorPrefixedCountsWordsAPrefixStarts(t *testing.T) {
	v, n := VectorPrefixed([]string{"kube", "dep"}, "kubectl and kubernetes", "deploys")
	if n != 4 {
		t.Fatalf("length %d, want 4: prefixes add no tokens", n)
	}
	for term, want := range map[string]int{"kube*": 2, "dep*": 1, "kubectl": 1, "deploi": 1, "k*": 0} {
		if got := Count(v, Hash(term)); got != want {
			t.Errorf("Count(%q) = %d, want %d", term, got, want)
		}
	}
	plain, _ := Vector("kubectl and kubernetes", "deploys")
	if w, _ := VectorPrefixed(nil, "kubectl and kubernetes", "deploys"); string(w) != string(plain) {
		t.Error("without prefixes, VectorPrefixed is Vector")
	}
}

func TestIDFStaysPositive(t *testing.T) {
	for _, c := range []struct{ docs, n int }{{10, 0}, {10, 5}, {10, 10}, {10, 11}, {0, 0}} {
		if w := IDF(c.docs, c.n); !(w > 0) {
			t.Errorf("IDF(%d, %d) = %v, want > 0", c.docs, c.n, w)
		}
	}
	if !(IDF(1000, 1) > IDF(1000, 100)) {
		t.Error("a rarer term must weigh more")
	}
}

// Score against the formula written out by hand.
func TestScoreByHand(t *testing.T) {
	v, n := Vector("kayak kayak paddle lake")
	q := NewQuery([]string{"kayak", "paddl", "sun"}, []float64{2, 0.5, 9}, 8, 0.9, 0.4)
	got, held := q.Score(v, n)
	norm := 0.9 * (1 - 0.4 + 0.4*4/8.0)
	want := 2*2*(0.9+1)/(2+norm) + 0.5*1*(0.9+1)/(1+norm)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("score %v, want %v", got, want)
	}
	if held != 0b011 {
		t.Errorf("held %b, want 011", held)
	}
}

func TestEach(t *testing.T) {
	v, _ := Vector("deploy the deploy pipeline")
	got := map[uint32]int{}
	Each(v, func(h uint32, n int) { got[h] = n })
	if len(got) != 3 {
		t.Fatalf("Each gave %d stems, want 3", len(got))
	}
	for h, n := range got {
		if Count(v, h) != n {
			t.Errorf("hash %d: Each says %d, Count %d", h, n, Count(v, h))
		}
	}
	if got[Hash("deploi")] != 2 {
		t.Errorf("deploi counted %d times, want 2", got[Hash("deploi")])
	}
}

// ScoreCounts, given the counts Count finds, is Score to the last bit,
// terms held twice and terms not held included.
func TestScoreCountsIsScore(t *testing.T) {
	v, n := Vector("kayak kayak paddle lake lake lake shore at dawn")
	q := NewQuery([]string{"lake", "kayak", "sun", "lake", "dawn"}, []float64{1.3, 0.7, 9, 1.3, 0.01}, 6.5, 0.9, 0.4)
	counts := make([]uint16, len(q.Hashes()))
	for i, h := range q.Hashes() {
		counts[i] = uint16(Count(v, h))
	}
	want, wantHeld := q.Score(v, n)
	got, held := q.ScoreCounts(counts, n)
	if got != want || held != wantHeld {
		t.Errorf("ScoreCounts = %v, %b; Score = %v, %b", got, held, want, wantHeld)
	}
}

// A stem that occurs once costs its hash alone: four bytes, after the
// count of stems; a repeated one adds its index and count.
func TestVectorHoldsCountsOfRepeatsOnly(t *testing.T) {
	v, _ := Vector("kayak paddle lake")
	if len(v) != 1+3*hashSize {
		t.Errorf("%d bytes for 3 stems held once, want %d", len(v), 1+3*hashSize)
	}
	v, _ = Vector("kayak paddle lake lake kayak lake")
	if len(v) != 1+3*hashSize+2*2 {
		t.Errorf("%d bytes for 3 stems, 2 repeated, want %d", len(v), 1+3*hashSize+2*2)
	}
	for stem, want := range map[string]int{"kayak": 2, "paddl": 1, "lake": 3} {
		if got := Count(v, Hash(stem)); got != want {
			t.Errorf("Count(%q) = %d, want %d", stem, got, want)
		}
	}
	many := strings.Repeat("lake ", 70_000) + "shore"
	v, _ = Vector(many)
	if got := Count(v, Hash("lake")); got != 65_535 {
		t.Errorf("a count stops at 65,535: got %d", got)
	}
	if got := Count(v, Hash("shore")); got != 1 {
		t.Errorf("Count(shore) = %d, want 1", got)
	}
}

// fixed makes the vector of the form before schema v13 from a Vector.
func fixed(v []byte) []byte {
	var out []byte
	Each(v, func(h uint32, n int) {
		out = binary.LittleEndian.AppendUint32(out, h)
		out = binary.LittleEndian.AppendUint16(out, uint16(n))
	})
	return out
}

// FromFixed turns the fixed-width vectors of older files into the
// Vectors of the same texts, byte for byte, and refuses what is not one.
func TestFromFixed(t *testing.T) {
	for _, text := range []string{"", "kayak", "the deploy deploys the deployed pipeline at dawn dawn", strings.Repeat("a b c ", 300)} {
		v, _ := Vector(text)
		got, ok := FromFixed(fixed(v))
		if !ok || !bytes.Equal(got, v) {
			t.Errorf("%q: FromFixed = %x, %v; want %x", text, got, ok, v)
		}
	}
	v, _ := Vector("kayak paddle")
	f := fixed(v)
	if _, ok := FromFixed(f[:len(f)-1]); ok {
		t.Error("a length that is no number of entries is refused")
	}
	swapped := append(append([]byte{}, f[6:]...), f[:6]...)
	if _, ok := FromFixed(swapped); ok {
		t.Error("hashes out of order are refused")
	}
}

// A malformed vector never panics and never counts more than was written.
func TestMalformedVectors(t *testing.T) {
	v, _ := Vector("kayak kayak paddle lake lake lake shore at dawn")
	for cut := range len(v) + 1 {
		w := v[:cut]
		total := 0
		Each(w, func(_ uint32, n int) { total += n })
		if total > 9 {
			t.Errorf("cut at %d: Each counts %d tokens of 9", cut, total)
		}
		for _, s := range []string{"kayak", "lake", "dawn"} {
			if Count(w, Hash(s)) > 3 {
				t.Errorf("cut at %d: Count(%q) = %d", cut, s, Count(w, Hash(s)))
			}
		}
	}
	for _, w := range [][]byte{{0xff}, {0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}, {2, 1, 0, 0, 0}, {1, 1, 0, 0, 0, 0, 0xff}} {
		Each(w, func(uint32, int) {})
		Count(w, 1)
	}
}

// Package bm25 ranks documents by Okapi BM25 over statistics the caller
// chooses, with each document's term frequencies kept in a compact term
// vector made when the document is written.
//
// SQLite's FTS5 finds the documents that match a query, but its bm25()
// takes its statistics (the number of documents, their average length,
// how many hold each term) from its whole index: in a file shared by
// several agents they are everyone's, and with one index per kind of
// memory they differ from kind to kind. engram scores the matches itself,
// with the statistics of one agent's whole memory, from the term vectors:
// a Vector holds, for each distinct stem of a document, a 32-bit hash of
// the stem and how often it occurs, sorted by hash, so a score costs a
// binary search per query term and no text is read.
//
// A Vector's bytes are: the number n of stems (a uvarint), their n hashes
// in increasing order (4 bytes each, little endian), then, for each stem
// that occurs more than once, in the order of the hashes, its index
// after the previous such stem's (the first's after -1, a uvarint of the
// difference less one) and its count less two (a uvarint). Most stems of
// a short text occur once: they cost their hash alone.
package bm25

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/engram-go/engram/internal/query"
)

// Default BM25 parameters: tf saturation k1 and length normalization b,
// as Anserini uses them for short passages (Lucene and FTS5 use 1.2 and
// 0.75, tuned for longer documents).
const (
	DefaultK1 = 0.9
	DefaultB  = 0.4
)

// hashSize is the size of a stem's hash in a Vector.
const hashSize = 4

// fixedEntry is the size of an entry of the fixed-width vectors engram
// wrote before (see FromFixed): a uint32 hash and a uint16 count, little
// endian.
const fixedEntry = 6

// Hash returns the hash a Vector keys a stem by: 32-bit FNV-1a.
func Hash(stem string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(stem); i++ {
		h ^= uint32(stem[i])
		h *= 16777619
	}
	return h
}

// Vector returns the term vector of a document made of texts (its
// fields, which count as one document) and its length in tokens. Tokens
// are split, lowercased, folded and stemmed as query terms are (see
// package query), stopwords included: a query made only of stopwords
// still scores. A count stops at 65,535.
func Vector(texts ...string) ([]byte, int) { return VectorPrefixed(nil, texts...) }

// VectorPrefixed is Vector with prefix terms: besides its own stem, a
// token whose stem starts with one of prefixes counts for the term
// PrefixTerm(prefix) too, as a word the prefix matches. (A query's prefix
// cannot be looked up in a stored vector, whose stems are hashed: the
// vector is made again, from the text.)
func VectorPrefixed(prefixes []string, texts ...string) ([]byte, int) {
	return vector(prefixes, nil, texts)
}

// VectorEach is Vector calling each with every token of texts[i] and its
// stem, in order: a caller that needs other counts of the same stems
// (auto-linking's term vectors) gets them without tokenizing and stemming
// the texts again.
func VectorEach(each func(i int, tok, stem string), texts ...string) ([]byte, int) {
	return vector(nil, each, texts)
}

// vector is VectorPrefixed calling each, when it is not nil, as
// VectorEach does.
func vector(prefixes []string, each func(i int, tok, stem string), texts []string) ([]byte, int) {
	counts := map[uint32]int{}
	prefixHashes := make([]uint32, len(prefixes))
	for i, p := range prefixes {
		prefixHashes[i] = Hash(PrefixTerm(p))
	}
	n := 0
	for ti, t := range texts {
		for _, tok := range query.Tokens(t) {
			stem := query.Stem(tok)
			if each != nil {
				each(ti, tok, stem)
			}
			counts[Hash(stem)]++
			for i, p := range prefixes {
				if strings.HasPrefix(stem, p) {
					counts[prefixHashes[i]]++
				}
			}
			n++
		}
	}
	hashes := make([]uint32, 0, len(counts))
	for h := range counts {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	return encode(hashes, func(i int) int { return counts[hashes[i]] }), n
}

// encode makes a Vector of the sorted hashes, the i-th counted count(i)
// times (at most 65,535).
func encode(hashes []uint32, count func(i int) int) []byte {
	v := make([]byte, 0, binary.MaxVarintLen32+hashSize*len(hashes)+8)
	v = binary.AppendUvarint(v, uint64(len(hashes)))
	for _, h := range hashes {
		v = binary.LittleEndian.AppendUint32(v, h)
	}
	prev := -1
	for i := range hashes {
		if c := min(count(i), math.MaxUint16); c > 1 {
			v = binary.AppendUvarint(v, uint64(i-prev-1))
			v = binary.AppendUvarint(v, uint64(c-2))
			prev = i
		}
	}
	return v
}

// FromFixed returns the Vector of a term vector in the fixed-width form
// engram wrote before schema v13 (6 bytes an entry: the hash and the
// count as a uint16, little endian), and false when v is not one.
func FromFixed(v []byte) ([]byte, bool) {
	if len(v)%fixedEntry != 0 {
		return nil, false
	}
	hashes := make([]uint32, len(v)/fixedEntry)
	for i := range hashes {
		hashes[i] = binary.LittleEndian.Uint32(v[fixedEntry*i:])
		if i > 0 && hashes[i] <= hashes[i-1] {
			return nil, false
		}
	}
	return encode(hashes, func(i int) int { return int(binary.LittleEndian.Uint16(v[fixedEntry*i+4:])) }), true
}

// view is a Vector split into its parts: n hashes, then the counts of
// those held more than once. Every reading of a Vector goes through it.
type view struct {
	hashes []byte // n × 4 bytes
	n      int
	extra  []byte
}

// parse splits v; a malformed v gives an empty view.
func parse(v []byte) view {
	var n uint64
	var k int
	if len(v) > 0 && v[0] < 0x80 {
		n, k = uint64(v[0]), 1 // fewer than 128 stems
	} else {
		n, k = binary.Uvarint(v)
	}
	if k <= 0 || n > uint64(len(v)-k)/hashSize {
		return view{}
	}
	end := k + int(n)*hashSize
	return view{hashes: v[k:end], n: int(n), extra: v[end:]}
}

func (w view) hash(i int) uint32 { return binary.LittleEndian.Uint32(w.hashes[hashSize*i:]) }

// repeats reads the stems of a view held more than once, in order.
type repeats struct {
	x    []byte
	n    int // the view's stems
	prev int // the index of the last stem read
}

func (w view) repeats() repeats { return repeats{x: w.extra, n: w.n, prev: -1} }

// next returns the index and count of the next stem held more than once,
// and false after the last (or at a malformed byte).
func (r *repeats) next() (int, int, bool) {
	var d, c uint64
	if len(r.x) >= 2 && r.x[0] < 0x80 && r.x[1] < 0x80 { // both one byte, as most are
		d, c = uint64(r.x[0]), uint64(r.x[1])
		r.x = r.x[2:]
	} else {
		var k, k2 int
		if d, k = binary.Uvarint(r.x); k <= 0 {
			r.x = nil
			return 0, 0, false
		}
		if c, k2 = binary.Uvarint(r.x[k:]); k2 <= 0 {
			r.x = nil
			return 0, 0, false
		}
		r.x = r.x[k+k2:]
	}
	if d >= uint64(r.n-r.prev-1) {
		r.x = nil
		return 0, 0, false
	}
	r.prev += int(d) + 1
	return r.prev, int(min(c+2, math.MaxUint16)), true
}

// PrefixTerm is the term a prefix counts as, in VectorPrefixed's vectors
// and in a Query: "kube*" for the prefix "kube". No stem ends in "*".
func PrefixTerm(prefix string) string { return prefix + "*" }

// Count returns how often the stem hashed to h occurs in the document of
// term vector v (0 when it does not, or when v is malformed).
func Count(v []byte, h uint32) int { return parse(v).count(h) }

// count is Count over the parsed vector.
func (w view) count(h uint32) int {
	lo, hi := 0, w.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if w.hash(mid) < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == w.n || w.hash(lo) != h {
		return 0
	}
	r := w.repeats()
	for {
		i, c, ok := r.next()
		if !ok || i > lo {
			return 1
		}
		if i == lo {
			return c
		}
	}
}

// IDF is the inverse document frequency of a term held by n of docs
// documents: ln(1 + (docs − n + 0.5)/(n + 0.5)), as Lucene computes it,
// which stays positive however common the term (FTS5's
// ln((docs − n + 0.5)/(n + 0.5)) turns negative past half the documents,
// and FTS5 then clamps it to 10⁻⁶).
func IDF(docs, n int) float64 {
	n = max(0, min(n, docs))
	return math.Log(1 + (float64(docs-n)+0.5)/(float64(n)+0.5))
}

// Query is a query ready to score documents: its terms' hashes and
// weights (their IDF), the average document length and the parameters.
type Query struct {
	hashes  []uint32
	weights []float64
	avgLen  float64
	k1, b   float64
}

// NewQuery returns a query of the stems with the given weights (usually
// their IDF), over documents of avgLen tokens on average, with BM25's
// parameters k1 and b.
func NewQuery(stems []string, weights []float64, avgLen, k1, b float64) *Query {
	q := &Query{hashes: make([]uint32, len(stems)), weights: weights, avgLen: max(avgLen, 1), k1: k1, b: b}
	for i, s := range stems {
		q.hashes[i] = Hash(s)
	}
	return q
}

// Score is the BM25 score of the document of term vector v and length
// n tokens: the sum over the query's terms of weight × tf·(k1+1) / (tf +
// k1·(1 − b + b·n/avgLen)). It also returns which terms the document
// holds, as a bit set of their indexes (the first 64).
func (q *Query) Score(v []byte, n int) (float64, uint64) {
	norm := q.k1 * (1 - q.b + q.b*float64(n)/q.avgLen)
	score, held := 0.0, uint64(0)
	w := parse(v)
	for i, h := range q.hashes {
		tf := float64(w.count(h))
		if tf == 0 {
			continue
		}
		score += q.weights[i] * tf * (q.k1 + 1) / (tf + norm)
		if i < 64 {
			held |= 1 << i
		}
	}
	return score, held
}

// Weights returns the weights of the query's terms (their IDF), in
// order.
func (q *Query) Weights() []float64 { return q.weights }

// Hashes returns the hashes of the query's terms, in order: ScoreCounts
// takes a document's counts of them in the same order.
func (q *Query) Hashes() []uint32 { return q.hashes }

// ScoreCounts is Score for a document of length n tokens that holds the
// query's i-th term counts[i] times: the same sum, term by term in the
// same order, so the two agree to the last bit.
func (q *Query) ScoreCounts(counts []uint16, n int) (float64, uint64) {
	norm := q.k1 * (1 - q.b + q.b*float64(n)/q.avgLen)
	score, held := 0.0, uint64(0)
	for i, c := range counts {
		if c == 0 {
			continue
		}
		tf := float64(c)
		score += q.weights[i] * tf * (q.k1 + 1) / (tf + norm)
		if i < 64 {
			held |= 1 << i
		}
	}
	return score, held
}

// Each calls f with the hash and count of every stem of the term vector
// v, in the order of their hashes.
func Each(v []byte, f func(h uint32, count int)) {
	w := parse(v)
	if len(w.extra) == 0 { // every stem once
		for hs := w.hashes; len(hs) >= hashSize; hs = hs[hashSize:] {
			f(binary.LittleEndian.Uint32(hs), 1)
		}
		return
	}
	r := w.repeats()
	next, count, ok := r.next()
	hs := w.hashes
	for i := 0; len(hs) >= hashSize; i++ {
		c := 1
		if ok && i == next {
			c = count
			next, count, ok = r.next()
		}
		f(binary.LittleEndian.Uint32(hs), c)
		hs = hs[hashSize:]
	}
}

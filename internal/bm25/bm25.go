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

// entry is a Vector entry's size: a uint32 hash and a uint16 count, little
// endian.
const entry = 6

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
	v := make([]byte, 0, entry*len(hashes))
	for _, h := range hashes {
		v = binary.LittleEndian.AppendUint32(v, h)
		v = binary.LittleEndian.AppendUint16(v, uint16(min(counts[h], math.MaxUint16)))
	}
	return v, n
}

// PrefixTerm is the term a prefix counts as, in VectorPrefixed's vectors
// and in a Query: "kube*" for the prefix "kube". No stem ends in "*".
func PrefixTerm(prefix string) string { return prefix + "*" }

// Count returns how often the stem hashed to h occurs in the document of
// term vector v (0 when it does not, or when v is malformed).
func Count(v []byte, h uint32) int {
	n := len(v) / entry
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if binary.LittleEndian.Uint32(v[entry*mid:]) < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < n && binary.LittleEndian.Uint32(v[entry*lo:]) == h {
		return int(binary.LittleEndian.Uint16(v[entry*lo+4:]))
	}
	return 0
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
	for i, h := range q.hashes {
		tf := float64(Count(v, h))
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
	for i := 0; i+entry <= len(v); i += entry {
		f(binary.LittleEndian.Uint32(v[i:]), int(binary.LittleEndian.Uint16(v[i+4:])))
	}
}

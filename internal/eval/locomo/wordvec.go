package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/engram-go/engram/internal/query"
)

// wordVectors is a stand-in semantic embedder for the evaluation only,
// never the library's: a text's vector is the average of its words'
// vectors (GloVe or any file of "word v1 … vn" lines, most frequent word
// first), each weighted a/(a + p(w)) as in SIF, p(w) estimated from the
// word's frequency rank by Zipf's law; stopwords and unknown words are
// left out. It is not lexical: hybrid search fuses its ranking by RRF.
type wordVectors struct {
	dims  int
	vec   map[string][]float32
	rank  map[string]int
	words int
}

// loadWordVectors reads a word-vector file.
func loadWordVectors(path string) (*wordVectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := &wordVectors{vec: map[string][]float32{}, rank: map[string]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if w.dims == 0 {
			w.dims = len(fields) - 1
		}
		if len(fields)-1 != w.dims {
			return nil, fmt.Errorf("%s: line %d has %d numbers, want %d", path, w.words+1, len(fields)-1, w.dims)
		}
		v := make([]float32, w.dims)
		for i, s := range fields[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", path, w.words+1, err)
			}
			v[i] = float32(x)
		}
		w.vec[fields[0]] = v
		w.rank[fields[0]] = w.words
		w.words++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if w.words == 0 {
		return nil, fmt.Errorf("%s: no vectors", path)
	}
	return w, nil
}

func (w *wordVectors) Dimensions() int { return w.dims }
func (w *wordVectors) Model() string   { return fmt.Sprintf("wordvec-%d-%d", w.words, w.dims) }
func (w *wordVectors) Local() bool     { return true }
func (w *wordVectors) Lexical() bool   { return false }

// sifA is SIF's a.
const sifA = 1e-3

func (w *wordVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	// Zipf: p(rank r) ≈ 1 / ((r+1) · H), H the harmonic number of the vocabulary.
	h := math.Log(float64(w.words)) + 0.5772
	for i, t := range texts {
		sum := make([]float64, w.dims)
		for _, tok := range query.Tokens(t) {
			if query.IsStopword(tok) {
				continue
			}
			v, ok := w.vec[tok]
			if !ok {
				continue
			}
			p := 1 / (float64(w.rank[tok]+1) * h)
			wt := sifA / (sifA + p)
			for j, x := range v {
				sum[j] += wt * float64(x)
			}
		}
		var norm float64
		for _, x := range sum {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		v := make([]float32, w.dims)
		if norm == 0 {
			v[0] = 1 // a text with no known word: a fixed vector
		} else {
			for j, x := range sum {
				v[j] = float32(x / norm)
			}
		}
		out[i] = v
	}
	return out, nil
}

package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/engram-go/engram/internal/query"
)

// The synthetic corpus is the one engram's own search benchmarks store
// (search_bench_test.go in the repository's root, copied because it lives
// in a _test.go file; keep the two the same): about half the tokens are
// common English stopwords, the rest come from a vocabulary of 5,000
// made-up words with a Zipf distribution. The questions are 2–4 words
// drawn from stored entries, frequent words more often, wrapped in
// question phrasing. Every generator has a fixed seed.

var benchStopwords = strings.Fields("the of and to a in is it that was for on with as at by from this have not are but be or")

var syllables = strings.Fields("ka lo mi ne ru sa to vi den par sol tra bel cor fin gal mar pen quo zet")

func zipfVocabulary(n int) []string {
	rng := rand.New(rand.NewPCG(9, 9))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] && !query.IsStopword(w) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

type corpus struct {
	vocab []string
	docs  []string
}

func newCorpus(n int) corpus {
	vocab := zipfVocabulary(5000)
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	z := rand.NewZipf(rng, 1.05, 20, uint64(len(vocab)-1))
	docs := make([]string, n)
	for i := range docs {
		w := make([]string, 10+rng.IntN(20))
		for j := range w {
			if rng.IntN(2) == 0 {
				w[j] = benchStopwords[rng.IntN(len(benchStopwords))]
			} else {
				w[j] = vocab[z.Uint64()]
			}
		}
		docs[i] = strings.Join(w, " ")
	}
	return corpus{vocab: vocab, docs: docs}
}

// questions builds natural-language queries from words of stored entries.
func (c corpus) questions(n int) []string {
	rng := rand.New(rand.NewPCG(11, 11))
	frames := []string{"What do we know about %s?", "%s", "Tell me about %s.", "when did we discuss %s"}
	out := make([]string, n)
	for i := range out {
		var words []string
		for _, w := range strings.Fields(c.docs[rng.IntN(len(c.docs))]) {
			if !query.IsStopword(w) {
				words = append(words, w)
			}
		}
		k := 2 + rng.IntN(3)
		pick := make([]string, k)
		for j := range pick {
			pick[j] = words[rng.IntN(len(words))]
		}
		out[i] = fmt.Sprintf(frames[rng.IntN(len(frames))], strings.Join(pick, " and "))
	}
	return out
}

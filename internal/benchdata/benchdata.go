// Package benchdata makes the synthetic text engram's benchmarks store and
// search, from fixed seeds, so that the root benchmarks and the commands
// under internal/eval measure the same corpus.
//
// The text is shaped like natural text: about half the tokens are common
// English stopwords, the rest come from a vocabulary of 5,000 made-up words
// with a Zipf distribution (the most frequent is about 0.5% of all tokens,
// more than "time" or "people" are in English). The questions are 2–4
// words drawn from stored entries, frequent words more often, wrapped in
// question phrasing.
package benchdata

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/engram-go/engram/internal/query"
)

// Stopwords are the stopwords the corpus mixes into its text.
var Stopwords = strings.Fields("the of and to a in is it that was for on with as at by from this have not are but be or")

var syllables = strings.Fields("ka lo mi ne ru sa to vi den par sol tra bel cor fin gal mar pen quo zet")

// Vocabulary returns n made-up words, none of them a stopword, in the
// order of their Zipf rank (the first is the most frequent).
func Vocabulary(n int) []string {
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

// Corpus is a set of documents of 10 to 29 words over a vocabulary.
type Corpus struct {
	Vocab []string
	Docs  []string
}

// NewCorpus returns a corpus of n documents. The documents depend on n:
// NewCorpus(n).Docs is not a prefix of NewCorpus(n+1).Docs.
func NewCorpus(n int) Corpus {
	vocab := Vocabulary(5000)
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	z := rand.NewZipf(rng, 1.05, 20, uint64(len(vocab)-1))
	docs := make([]string, n)
	for i := range docs {
		w := make([]string, 10+rng.IntN(20))
		for j := range w {
			if rng.IntN(2) == 0 {
				w[j] = Stopwords[rng.IntN(len(Stopwords))]
			} else {
				w[j] = vocab[z.Uint64()]
			}
		}
		docs[i] = strings.Join(w, " ")
	}
	return Corpus{Vocab: vocab, Docs: docs}
}

// Questions returns n natural-language queries made of words of the
// corpus's documents; the same corpus always gives the same questions.
func (c Corpus) Questions(n int) []string {
	rng := rand.New(rand.NewPCG(11, 11))
	frames := []string{"What do we know about %s?", "%s", "Tell me about %s.", "when did we discuss %s"}
	out := make([]string, n)
	for i := range out {
		var words []string
		for _, w := range strings.Fields(c.Docs[rng.IntN(len(c.Docs))]) {
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

// Users is how many users a corpus's documents belong to: document i is
// User(i)'s, so that each holds 1% of them.
const Users = 100

// User returns the user of document i (see Users).
func User(i int) string { return fmt.Sprintf("user-%02d", i%Users) }

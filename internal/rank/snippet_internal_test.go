package rank

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/query"
)

// A snippet marks exactly the words whose tokens hold one of the query's
// stems, however the words are cased and punctuated, with the shortcuts
// Keys takes (a word none of whose tokens starts with a key's letter, a
// word seen before) as without them: a key in a word's second token too.
func TestSnippetMarksEveryWordHoldingAKey(t *testing.T) {
	vocab := strings.Fields("Deploy deploying deployed kayak Kayaks rollback roll-back canary (canary) über Über naïve 42 the and migrations MIGRATE re-deploy x/Canary 42,migrations")
	rng := rand.New(rand.NewPCG(17, 17))
	for range 300 {
		w := make([]string, 1+rng.IntN(60))
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		text := strings.Join(w, " ")
		stems := []string{query.Stem("deploy"), query.Stem("canary"), query.Stem("über"), query.Stem("migrations")}
		got := NewKeys(stems).Snippet(text)
		// The reference: every word tokenized and stemmed.
		keys := NewKeys(stems)
		ref := make(map[string]bool)
		for _, word := range w {
			for _, tok := range query.Tokens(word) {
				if keys.stems[query.Stem(tok)] {
					ref[word] = true
				}
			}
		}
		for _, word := range strings.Fields(strings.NewReplacer("…", " ").Replace(got)) {
			marked := strings.HasPrefix(word, "**") && strings.HasSuffix(word, "**")
			plain := strings.Trim(word, "*")
			if marked != ref[plain] {
				t.Fatalf("%q: %q marked %v, want %v (snippet %q)", text, plain, marked, ref[plain], got)
			}
		}
	}
}

// snippetByFields is how snippets were made before they kept their own
// word spans (with the same window): the reference TestSnippetSplitsAsFields
// holds them to.
func snippetByFields(k *Keys, text string) string {
	words := strings.Fields(text)
	hit := make([]bool, len(words))
	for i, w := range words {
		for _, tok := range query.Tokens(w) {
			if k.stems[query.Stem(tok)] {
				hit[i] = true
				break
			}
		}
	}
	start, end := Window(hit) // unchanged: the words and their marks are what this checks
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		if hit[i] {
			b.WriteString("**" + words[i] + "**")
		} else {
			b.WriteString(words[i])
		}
	}
	if end < len(words) {
		b.WriteString("…")
	}
	return b.String()
}

// A snippet splits words as strings.Fields does (every Unicode space)
// and is, byte for byte, what stemming every word of strings.Fields
// makes, whatever the snippets cut before it with the same keys.
func TestSnippetSplitsAsFields(t *testing.T) {
	vocab := strings.Fields("Deploy deploying kayak Kayaks roll-back (canary) über naïve 42 the migrations MIGRATE x re-deploy x/Canary 42,migrations")
	spaces := []string{" ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000"}
	rng := rand.New(rand.NewPCG(18, 18))
	keys := []string{query.Stem("deploy"), query.Stem("canary"), query.Stem("über"), query.Stem("migrations")}
	k := NewKeys(keys) // one for every text, as a search has
	for range 500 {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString(spaces[rng.IntN(len(spaces))])
		}
		for i := range rng.IntN(50) {
			if i > 0 {
				b.WriteString(spaces[rng.IntN(len(spaces))])
			}
			b.WriteString(vocab[rng.IntN(len(vocab))])
		}
		text := b.String()
		if got, want := k.Snippet(text), snippetByFields(k, text); got != want {
			t.Fatalf("%q:\n got %q\nwant %q", text, got, want)
		}
	}
}

// A token starts as stemHead says a token of its Porter stem does: the
// snippet's filter never skips a word that holds a key. Checked on every
// word of LoCoMo (when ../shared is there), of the benchmarks' corpus,
// and on made-up words ending in every suffix Porter rewrites, after
// stems of every shape.
func TestStemHeadStartsEveryToken(t *testing.T) {
	words := map[string]bool{}
	if raw, err := os.ReadFile("../../../shared/data/locomo/locomo10.json"); err == nil {
		for _, tok := range query.Tokens(string(raw)) {
			words[tok] = true
		}
	}
	for _, d := range benchdata.NewCorpus(2000).Docs {
		for _, tok := range query.Tokens(d) {
			words[tok] = true
		}
	}
	suffixes := strings.Fields(`s ss sses ies ed eed ing at bl iz y ational tional enci anci izer abli alli entli eli ousli ization
		ation ator alism iveness fulness ousness aliti iviti biliti icate ative alize iciti ical ful ness al ance ence er ic able ible
		ant ement ment ent ion ou ism ate iti ous ive ize e ll ings ingly edly ies ied iers abilities ibilities`)
	starts := strings.Fields("a b y ab ba by yy hop hope sens rel valen generaliz caress pony ti agree plaster motor troubl siz fil fail tann fall hiss fizz")
	for _, st := range starts {
		for _, s1 := range suffixes {
			words[st+s1] = true
			for _, s2 := range suffixes[:12] {
				words[st+s1+s2] = true
			}
		}
	}
	if len(words) < 5000 {
		t.Fatalf("only %d words to check", len(words))
	}
	for w := range words {
		if st := query.Stem(w); st != "" && !strings.HasPrefix(w, stemHead(st)) {
			t.Errorf("%q stems to %q, which starts %q", w, st, stemHead(st))
		}
	}
}

// Nth finds what sorting would put at every index, repeated values and
// all.
func TestNthRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for range 300 {
		xs := make([]float64, 1+rng.IntN(200))
		for i := range xs {
			xs[i] = float64(rng.IntN(1 + len(xs)/3)) // ties
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		n := rng.IntN(len(xs))
		if got := Nth(slices.Clone(xs), n); got != sorted[n] {
			t.Fatalf("Nth(%v, %d) = %v, want %v", xs, n, got, sorted[n])
		}
	}
}

// A snippet of ASCII words allocates only itself: its words are
// tokenized and their stems looked up without query.Tokens' slices.
func TestSnippetOfASCIIAllocatesOnlyItself(t *testing.T) {
	k := NewKeys([]string{query.Stem("deploy"), query.Stem("canary"), query.Stem("migrations")})
	text := "Deploying the Canary-build went fine; we rolled back 42 migrations (MIGRATE) and redeployed at noon."
	k.Snippet(text) // the scratch and the stems, once
	if n := testing.AllocsPerRun(100, func() {
		clear(k.words) // as in a search's first text
		k.Snippet(text)
	}); n != 1 {
		t.Fatalf("a snippet allocates %v times, want once (the snippet)", n)
	}
}

package rules

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// naiveScan is what a Scanner must find: every rule run on every
// sentence of every text, as "name|content".
func naiveScan(t *testing.T, rules []Rule, texts []string) []string {
	var out []string
	res := make([]*regexp.Regexp, len(rules))
	for i, rule := range rules {
		re, err := Compile(rule.Pattern)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = re
	}
	for _, text := range texts {
		for _, sp := range Sentences(text) {
			s := text[sp[0]:sp[1]]
			for i, rule := range rules {
				if rule.Type == Fact {
					// A fact rule keeps every match, whatever its length.
					for _, match := range res[i].FindAllString(s, -1) {
						out = append(out, rule.Name+"|"+strings.TrimSpace(match))
					}
					continue
				}
				for _, match := range res[i].FindAllString(s, -1) {
					content := strings.TrimSpace(strings.TrimRight(match, " ,;:"))
					if utf8.RuneCountInString(content) >= MinRunes {
						out = append(out, rule.Name+"|"+content)
					}
				}
			}
		}
	}
	return out
}

// scanAll scans texts with a fresh Scanner of c and returns its hits as
// "name|content".
func scanAll(t *testing.T, c *Cache, rules []Rule, texts []string) []string {
	sc, err := c.Scanner(rules, "User")
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		sc.Scan(i, text)
	}
	hits := sc.Hits()
	got := make([]string, len(hits))
	for i, h := range hits {
		got[i] = rules[h.Rule].Name + "|" + h.Content
	}
	return got
}

// TestPrefilterIsSound checks that skipping sentences and starting the
// search late, by the literals a pattern requires, never changes what the
// rules find.
func TestPrefilterIsSound(t *testing.T) {
	t.Parallel()
	patterns := []string{
		`(prefer|like|want|need) (.+)`,
		`(remember|don't forget|note|keep in mind) (.+)`,
		`\bprefers? ([a-z]+ ){1,4}[a-z]+`,
		`\bneed|note\b`,
		`my (account|order) number is [A-Z]+-\d+`,
		`(?:call|email) me (at|on) \S+`,
		`x*y`,
		`^remember .+`,
		`deadline is [^,]+`,
		`\Bfer\w*`,
		`(a|b)?c+d\w+`,
		`in mind\. keep`,
		`(note|notes) \w+?`,
		`(?:keep|kee)p? \w+`,
		`\b(?:me|my)\b.*?\d`,
		`(?s)remember.`,
		`\b(?:need|-x|my)`,
		`(\bkeep|\bcall) \w+`,
		`\b(?:note|\bmind)s?`,
	}
	var rules []Rule
	for i, p := range patterns {
		rules = append(rules, Rule{Name: string(rune('a' + i)), Pattern: p})
	}
	words := strings.Fields("I prefer Prefers unprefer need needle note notes remember Remember don't forget keep in mind. " +
		"my account number is ACC-12345 order call email me at on ccdxx acdy bcdz fer offering deadline xxy , . ! ? " +
		"mind. keep café ſ K \n (prefer _need 1note re-need -x x-x NEED. Keep,call)")
	rng := rand.New(rand.NewPCG(1, 2))
	var c Cache
	for range 5000 {
		texts := make([]string, 1+rng.IntN(3))
		for j := range texts {
			w := make([]string, 1+rng.IntN(30))
			for i := range w {
				w[i] = words[rng.IntN(len(words))]
			}
			texts[j] = strings.Join(w, " ")
		}
		if got, want := scanAll(t, &c, rules, texts), naiveScan(t, rules, texts); !slices.Equal(got, want) {
			t.Fatalf("%q:\ngot  %q\nwant %q", texts, got, want)
		}
	}
}

// FuzzExtractPrefilter checks the extraction prefilter against running
// every rule's expression on every sentence: skipping sentences, and
// starting late, by the literals a pattern requires must never lose or
// change a match, whatever the pattern and the text.
func FuzzExtractPrefilter(f *testing.F) {
	f.Add(`(prefer|like|want|need) (.+)`, "I prefer dark mode. We need tests!")
	f.Add(`\bprefers? ([a-z]+ ){1,4}[a-z]+`, "she Prefers green tea with milk; unprefer nothing")
	f.Add(`my (account|order) number is [A-Z]+-\d+`, "My ACCOUNT number is ACC-12345.\nmy order number is x-1")
	f.Add(`\Bfer\w*`, "offering fer prefer ſ K café")
	f.Add(`(?:keep|kee)p? \w+`, "keep in mind. kee pin KEEP it")
	f.Add(`\b(?:need|-x|my)`, "re-need -x x-x NEED. Keep,call my")
	f.Add(`(?s)remember.`, "remember\nthis REMEMBER. that")
	var c Cache
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 200 || len(text) > 2000 {
			return
		}
		if _, err := Compile(pattern); err != nil {
			return
		}
		rules := []Rule{
			{Name: "fuzzed", Pattern: pattern},
			{Name: "fuzzed-fact", Pattern: pattern, Type: Fact, Predicate: "p"},
			{Name: "prefer", Pattern: `(prefer|like|want|need) (.+)`},
			{Name: "word", Pattern: `\bnote\b \w+`},
		}
		// The text is two messages, split at '\x1e'.
		texts := strings.SplitN(text, "\x1e", 2)
		if got, want := scanAll(t, &c, rules, texts), naiveScan(t, rules, texts); !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q:\ngot  %q\nwant %q", pattern, texts, got, want)
		}
	})
}

// The literals that prefilter a pattern's sentences, and whether they
// lead its matches and start a word.
func TestLiterals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern            string
		required           []string
		leading, wordStart bool
	}{
		{`\bprefers? ([a-z]+ ){1,4}[a-z]+`, []string{"prefer"}, true, true},
		{`(prefer|like) (.+)`, []string{"prefer", "like"}, true, false},
		{`\b(?:need|-x|my)`, []string{"need", "-x", "my"}, true, false},
		{`my (account|order) number is`, []string{"my "}, true, false},
		{`x*y`, []string{"y"}, false, false},
		{`\w+ (?:at|on) home`, []string{" home"}, false, false},
		{`café`, nil, false, false},
		{`a|\d`, nil, false, false},
	} {
		c, err := compilePrefiltered(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.required, tc.required) || c.leading != tc.leading || c.wordStart != tc.wordStart {
			t.Errorf("%s: %q, leading %v, word start %v; want %q, %v, %v",
				tc.pattern, c.required, c.leading, c.wordStart, tc.required, tc.leading, tc.wordStart)
		}
	}
}

package engram

import (
	"slices"
	"strings"
	"testing"
)

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
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 200 || len(text) > 2000 {
			return
		}
		if _, err := compilePattern(pattern); err != nil {
			return
		}
		rules := []ExtractionRule{
			{Name: "fuzzed", Pattern: pattern},
			{Name: "prefer", Pattern: `(prefer|like|want|need) (.+)`},
			{Name: "word", Pattern: `\bnote\b \w+`},
		}
		// The text is two user messages and an assistant's, split at '\x1e'.
		parts := strings.SplitN(text, "\x1e", 3)
		var msgs []Message
		for i, p := range parts {
			role := "user"
			if i == 2 {
				role = "assistant"
			}
			msgs = append(msgs, Message{Role: role, Content: p})
		}
		var r Rules
		found, err := r.apply(rules, msgs)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(found))
		for i, f := range found {
			got[i] = strings.TrimPrefix(f.source, "rule:") + "|" + f.content
		}
		if want := naiveApply(t, rules, msgs); !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q:\ngot  %q\nwant %q", pattern, msgs, got, want)
		}
	})
}

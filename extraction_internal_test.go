package engram

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// naiveApply is what Rules.apply must return: every rule run on every
// sentence of every user message.
func naiveApply(t *testing.T, rules []ExtractionRule, messages []Message) []string {
	var out []string
	res := make([]*regexp.Regexp, len(rules))
	for i, rule := range rules {
		re, err := compilePattern(rule.Pattern)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = re
	}
	for _, msg := range messages {
		if msg.Role != "user" {
			continue
		}
		for _, sp := range sentenceSpans(msg.Content) {
			s := msg.Content[sp[0]:sp[1]]
			for i, rule := range rules {
				if rule.Type == TypeFact {
					// A fact rule keeps every match, whatever its length.
					for _, match := range res[i].FindAllString(s, -1) {
						out = append(out, rule.Name+"|"+strings.TrimSpace(match))
					}
					continue
				}
				for _, match := range res[i].FindAllString(s, -1) {
					content := strings.TrimSpace(strings.TrimRight(match, " ,;:"))
					if utf8.RuneCountInString(content) >= minExtractedRunes {
						out = append(out, rule.Name+"|"+content)
					}
				}
			}
		}
	}
	return out
}

// TestRulePrefilterIsSound checks that skipping sentences and starting
// the search late, by the literals a pattern requires, never changes what
// the rules find.
func TestRulePrefilterIsSound(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
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
	var rules []ExtractionRule
	for i, p := range patterns {
		rules = append(rules, ExtractionRule{Name: string(rune('a' + i)), Pattern: p})
	}
	words := strings.Fields("I prefer Prefers unprefer need needle note notes remember Remember don't forget keep in mind. " +
		"my account number is ACC-12345 order call email me at on ccdxx acdy bcdz fer offering deadline xxy , . ! ? " +
		"mind. keep café ſ K \n (prefer _need 1note re-need -x x-x NEED. Keep,call)")
	rng := rand.New(rand.NewPCG(1, 2))
	var r Rules
	for range 5000 {
		var msgs []Message
		for range 1 + rng.IntN(3) {
			w := make([]string, 1+rng.IntN(30))
			for i := range w {
				w[i] = words[rng.IntN(len(words))]
			}
			role := "user"
			if rng.IntN(4) == 0 {
				role = "assistant"
			}
			msgs = append(msgs, Message{Role: role, Content: strings.Join(w, " ")})
		}
		found, err := r.apply(rules, msgs)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(found))
		for i, f := range found {
			got[i] = strings.TrimPrefix(f.source, "rule:") + "|" + f.content
		}
		if want := naiveApply(t, rules, msgs); !slices.Equal(got, want) {
			t.Fatalf("%q:\ngot  %q\nwant %q", msgs, got, want)
		}
	}
}

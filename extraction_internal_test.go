package engram

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRulePrefilterIsSound checks that skipping sentences and starting
// the search late, by the literals a pattern requires, never changes what
// a rule matches.
func TestRulePrefilterIsSound(t *testing.T) {
	patterns := []string{
		`(prefer|like|want|need) (.+)`,
		`(remember|don't forget|note|keep in mind) (.+)`,
		`\bprefers? ([a-z]+ ){1,4}[a-z]+`,
		`\bneed|note\b`,
		`my (account|order) number is [A-Z]+-\d+`,
		`(?:call|email) me (at|on) \S+`,
		`x*`,
		`^remember .+`,
		`deadline is [^,]+`,
		`\Bfer`,
		`(a|b)?c+d`,
	}
	words := strings.Fields("I prefer Prefers unprefer need needle note notes remember Remember don't forget keep in mind " +
		"my account number is ACC-12345 order call email me at on ccd acd bcd fer offer deadline x , . café ſ K")
	rng := rand.New(rand.NewPCG(1, 2))
	var r Rules
	for _, p := range patterns {
		c, err := r.compile(ExtractionRule{Pattern: p})
		if err != nil {
			t.Fatal(err)
		}
		for range 3000 {
			w := make([]string, 1+rng.IntN(12))
			for i := range w {
				w[i] = words[rng.IntN(len(words))]
			}
			s := strings.Join(w, " ")
			want := c.re.FindAllString(s, -1)
			var got []string
			if from := c.from(strings.ToLower(s), isASCII(s)); from >= 0 {
				got = c.re.FindAllString(s[from:], -1)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q on %q: got %q, want %q (required %q, leading %v)", p, s, got, want, c.required, c.leading)
			}
		}
	}
}

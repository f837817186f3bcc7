package query

import (
	"slices"
	"testing"
)

func TestAdvanced(t *testing.T) {
	for _, tc := range []struct {
		expr            string
		terms, prefixes []string
	}{
		{`kube*`, nil, []string{"kube"}},
		{`kube* AND deploy`, []string{"deploy"}, []string{"kube"}},
		{`"rolling update"* OR Deploy`, []string{"rolling", "deploy"}, []string{"update"}},
		{`content: garage NOT car`, []string{"garage", "car"}, nil},
		{`NEAR(kayak garage, 5)`, []string{"kayak", "garage", "5"}, nil},
		{`"say ""hi"" there"`, []string{"say", "hi"}, nil},
		{`café* cafe*`, nil, []string{"cafe"}},
		{`pay* pay`, nil, []string{"pay"}},
		{`"unclosed phrase`, []string{"unclosed", "phrase"}, nil},
		{`and or`, []string{"and", "or"}, nil},
		{`^start + next`, []string{"start", "next"}, nil},
	} {
		terms, prefixes := Advanced(tc.expr)
		if !slices.Equal(terms, tc.terms) || !slices.Equal(prefixes, tc.prefixes) {
			t.Errorf("Advanced(%q) = %q, %q; want %q, %q", tc.expr, terms, prefixes, tc.terms, tc.prefixes)
		}
	}
}

func FuzzAdvanced(f *testing.F) {
	f.Add(`"a b"* OR c: d NEAR(e f, 2)`)
	f.Fuzz(func(t *testing.T, expr string) {
		terms, prefixes := Advanced(expr)
		for _, p := range prefixes {
			if slices.Contains(terms, p) {
				t.Fatalf("%q is both a term and a prefix", p)
			}
		}
		if len(terms) > MaxTerms {
			t.Fatalf("%d terms", len(terms))
		}
	})
}

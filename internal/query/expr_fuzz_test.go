package query

import "testing"

// FuzzParseExpr checks ParseExpr against FTS5 itself on any input: it
// refuses exactly what FTS5 refuses, and Match, Rows and Narrow find
// the rows FTS5 finds in exprDB's index (sameAsFTS5).
func FuzzParseExpr(f *testing.F) {
	for _, seed := range []string{
		"deploy friday", "deploy OR kayak NOT river", `"river cabin"*`, `^the stove`, `{content tags} : deploy`,
		`-content : (deploy OR kayak)`, `NEAR(deploy friday, 2)`, `NEAR("the deploy" canary)`, `((deploy)) AND "."`,
		`deploy + cabin`, `café 東京`, "deploy\x00 AND (", `"unterminated`, `NEAR(deploy river, x)`, ``,
	} {
		f.Add(seed)
	}
	st := exprDB(f)
	f.Fuzz(func(t *testing.T, expr string) {
		sameAsFTS5(t, st, expr)
	})
}

package query

import (
	"database/sql"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// exprCols are the columns of exprDB's index.
var exprCols = []string{"content", "tags", "agent_tok"}

// exprDocs are the rows of exprDB's index, one text per column.
var exprDocs = [][]string{
	{"we decided to deploy on friday", `["ops","deploy"]`, "x61"},
	{"deployment of the river cabin stove", `["trip"]`, "x61"},
	{"the stove is near the cabin by the river", `[]`, "x61"},
	{"Kubernetes deploys and rollbacks, daily", `["ops"]`, "x61"},
	{"friday friday deploy river river cabin", `["cabin","river"]`, "x61"},
	{"café in 東京 near the kayak garage", `["trip","kayak"]`, "x61"},
	{"", `["deploy"]`, "x61"},
	{"rollback the deploy then the canary then the deploy", `[]`, "x61"},
	{"a b c d e f g h i j k l m n o p deploy", `[]`, "x61"},
}

// exprDB opens an in-memory FTS5 index of exprDocs.
func exprDB(tb testing.TB) *sql.Stmt {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(content, tags, agent_tok, tokenize='porter unicode61')`); err != nil {
		tb.Fatal(err)
	}
	for i, d := range exprDocs {
		if _, err := db.Exec(`INSERT INTO f(rowid, content, tags, agent_tok) VALUES (?, ?, ?, ?)`, i, d[0], d[1], d[2]); err != nil {
			tb.Fatal(err)
		}
	}
	st, err := db.Prepare(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY rowid`)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// sameAsFTS5 fails the test unless ParseExpr rejects expr exactly when
// FTS5 does, and Match finds the rows FTS5 finds.
func sameAsFTS5(t *testing.T, st *sql.Stmt, expr string) {
	t.Helper()
	var want []int32
	rows, err := st.Query(expr)
	if err == nil {
		for rows.Next() {
			var r int32
			if err = rows.Scan(&r); err != nil {
				break
			}
			want = append(want, r)
		}
		if err == nil {
			err = rows.Err()
		}
		rows.Close()
	}
	e, perr := ParseExpr(expr, exprCols)
	if (err != nil) != (perr != nil) {
		t.Fatalf("%q: FTS5 says %v, ParseExpr %v", expr, err, perr)
	}
	if err != nil {
		return
	}
	var got []int32
	for i, d := range exprDocs {
		cols := make([][]string, len(d))
		for c, text := range d {
			cols[c] = ColumnStems(text)
		}
		if e.Match(cols) {
			got = append(got, int32(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q: Match finds rows %v, FTS5 %v", expr, got, want)
	}
	// Rows, when it answers, finds the same rows from the stems alone.
	holds := func(stem string) []int32 {
		var out []int32
		for i, d := range exprDocs {
			for _, text := range d {
				if slices.Contains(ColumnStems(text), stem) {
					out = append(out, int32(i))
					break
				}
			}
		}
		return out
	}
	every := make([]int32, len(exprDocs))
	for i := range every {
		every[i] = int32(i)
	}
	if rows, ok := e.Rows(holds, every); ok && !slices.Equal(rows, got) {
		t.Fatalf("%q: Rows finds rows %v, FTS5 %v", expr, rows, want)
	}
	// Narrow keeps every match.
	narrowed, all := e.Narrow(func(stem string) ([]int32, bool) {
		var out []int32
		for i, d := range exprDocs {
			for _, text := range d {
				if slices.Contains(ColumnStems(text), stem) {
					out = append(out, int32(i))
					break
				}
			}
		}
		return out, true
	})
	for _, r := range got {
		if !all && !slices.Contains(narrowed, r) {
			t.Fatalf("%q: Narrow leaves out match %d (%v)", expr, r, narrowed)
		}
	}
}

// ParseExpr accepts what FTS5 accepts and Match finds what it finds: a
// table of every form of the syntax, then random expressions.
func TestExprAgreesWithFTS5(t *testing.T) {
	st := exprDB(t)
	for _, expr := range []string{
		"deploy", "deploy friday", "deploy AND friday", "deploy OR kayak", "deploy NOT friday", "NOT deploy", "deploy NOT",
		"a NOT b c", "friday NOT deploy river", "deploy OR friday AND river", "deploy AND friday NOT river NOT cabin",
		`"river cabin"`, `"cabin river"`, `river + cabin`, `"the deploy"`, `"deploy then"`, `deploy*`, `deploym*`, `kube*`, `dep* fri*`,
		`"river cab"*`, `de * `, `x*`, `x61`, `"."`, `deploy "."`, `"." deploy`, `deploy AND "."`, `deploy OR "."`, `deploy NOT "."`, `"." NOT deploy`,
		`^deploy`, `^we`, `^the stove`, `^"the stove"`, `content : deploy`, `tags : deploy`, `tags: ops`, `{content tags} : deploy`,
		`-content : deploy`, `-{content agent_tok} : river`, `content : (deploy OR kayak)`, `tags : (content : deploy)`, `content : (content : deploy)`,
		`nosuch : deploy`, `CONTENT : deploy`, `"content" : deploy`, `NEAR(river cabin)`, `NEAR(river cabin, 0)`, `NEAR(river cabin, 1)`,
		`NEAR(deploy friday, 2)`, `NEAR(stove river, 2)`, `NEAR(stove river, 3)`, `NEAR("the deploy" canary, 2)`, `NEAR(deploy "." canary)`,
		`NEAR(deploy)`, `NEAR(deploy, 5)`, `near(deploy river)`, `NEAR(deploy river, x)`, `NEAR(deploy river, "3")`, `NEAR(deploy, )`,
		`NEAR(a deploy, 15)`, `NEAR(f deploy)`, `NEAR(e deploy)`, `NEAR(a deploy, 16)`, `NEAR(a deploy, 14)`, `content : NEAR(river cabin)`,
		`(deploy)`, `(deploy OR kayak) AND river`, `(deploy) river`, `deploy (river)`, `((deploy))`, `(deploy`, `deploy)`, `()`,
		``, ` `, `AND`, `deploy AND`, `OR deploy`, `"unterminated`, `deploy "`, `deploy!`, `deploy.`, `a-b`, `deploy:`, `: deploy`, `{content} deploy`,
		`{} : deploy`, `- deploy`, `deploy - friday`, `deploy -tags : ops`, `^`, `^ deploy`, `deploy ^river`, `NEAR(^deploy river)`, `deploy + `, `+ deploy`,
		`deploy**`, `"a""b"`, "deploy\x1Afriday", "deploy\ffriday", "deploy\x00 AND (", `東京`, `café`, `cafe`, `CAFÉ*`,
		`deploy AND content : (river OR cabin)`, `content : (river) cabin`, `deploy content : (river)`, `deploy AND NOT river`,
	} {
		sameAsFTS5(t, st, expr)
	}
	words := []string{"deploy", "friday", "river", "cabin", "stove", "the", "kayak", "ops", "rollback", "nothing", "dep", "riv", ".", "x61", "a", "p"}
	ops := []string{" AND ", " OR ", " NOT ", " ", " + "}
	r := rand.New(rand.NewPCG(1, 2))
	var gen func(depth int) string
	gen = func(depth int) string {
		switch n := r.IntN(12); {
		case depth > 3 || n < 4:
			w := words[r.IntN(len(words))]
			switch r.IntN(6) {
			case 0:
				w += "*"
			case 1:
				w = `"` + w + " " + words[r.IntN(len(words))] + `"`
			case 2:
				w = "^" + w
			}
			return w
		case n < 8:
			return gen(depth+1) + ops[r.IntN(len(ops))] + gen(depth+1)
		case n < 9:
			return "(" + gen(depth+1) + ")"
		case n < 10:
			return exprCols[r.IntN(len(exprCols))] + " : " + gen(depth+1)
		case n < 11:
			return "NEAR(" + gen(depth+2) + " " + gen(depth+2) + ", " + string(rune('0'+r.IntN(4))) + ")"
		default:
			return "-" + exprCols[r.IntN(2)] + " : (" + gen(depth+1) + ")"
		}
	}
	for range 3000 {
		sameAsFTS5(t, st, gen(0))
	}
	// Random runs of the syntax's tokens: the same errors.
	pieces := []string{"(", ")", "{", "}", ":", ",", "+", "*", "-", "^", `"`, " ", "AND", "OR", "NOT", "NEAR", "content", "tags", "deploy", "river", "3", "."}
	for range 5000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		sameAsFTS5(t, st, b.String())
	}
	// Nesting as deep as FTS5's parser takes, and one more.
	for n := 90; n < 110; n++ {
		sameAsFTS5(t, st, strings.Repeat("(", n)+"deploy"+strings.Repeat(")", n))
		sameAsFTS5(t, st, strings.Repeat("(deploy OR ", n)+"deploy"+strings.Repeat(")", n))
		sameAsFTS5(t, st, strings.Repeat("deploy AND (", n/2)+"deploy"+strings.Repeat(")", n/2))
		sameAsFTS5(t, st, strings.Repeat("content : (", n/3)+"deploy"+strings.Repeat(")", n/3))
		sameAsFTS5(t, st, strings.Repeat("a OR b AND c NOT ", n/6)+"deploy")
	}
}

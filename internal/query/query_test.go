package query

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	_ "modernc.org/sqlite"
)

func TestTerms(t *testing.T) {
	cases := map[string][]string{
		"What did we decide about the deploy?":        {"decide", "deploy"},
		`He said "ship it" AND then NEAR(x y) OR NOT`: {"said", "ship", "near", "x", "y"},
		"don't   panic!!":                             {"panic"},
		"who is it?":                                  {"who", "is", "it"},
		"Ünïcödé naïve café 東京 2026":                  {"unicode", "naive", "cafe", "東京", "2026"}, // diacritics removed, as unicode61 does
		"København Łódź İstanbul":                     {"københavn", "łodz", "istanbul"},          // ø and ł are letters of their own to SQLite
		"cafe\u0301 ſtraße ΣΊΣΥΦΟΣ":                   {"cafe", "straße", "σίσυφοσ"},              // a combining accent is dropped, not split at
		"\u0301abc Tiếng Việt":                        {"abc", "tiếng", "việt"},                   // a letter with two diacritics keeps them
		"🚀🔥":                                          nil,
		"col:value -minus ^caret star* (paren)":       {"col", "value", "minus", "caret", "star", "paren"},
		"deploy deploy DEPLOY":                        {"deploy"},
		"":                                            nil,
	}
	for in, want := range cases {
		if got := Terms(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompile(t *testing.T) {
	expr, terms := Compile(`What about "the deploy" on Friday?`)
	if expr != `"deploy" OR "friday"` {
		t.Errorf("expr = %s", expr)
	}
	if !reflect.DeepEqual(terms, []string{"deploy", "friday"}) {
		t.Errorf("terms = %q", terms)
	}
	if expr, _ := Compile("?!"); expr != "" {
		t.Errorf("Compile(?!) = %q, want empty", expr)
	}
	if got := Or([]string{`a"b`}); got != `"a""b"` {
		t.Errorf("Or escapes quotes: %s", got)
	}
}

// ftsDB opens an in-memory FTS5 table to check expressions against.
func ftsDB(tb testing.TB) (*sql.DB, *sql.Stmt) {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')`,
		`INSERT INTO f(body) VALUES ('we decided to deploy on friday'), ('café in 東京'), ('near and or not')`,
	} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
	st, err := db.Prepare(`SELECT count(*) FROM f WHERE f MATCH ?`)
	if err != nil {
		tb.Fatal(err)
	}
	return db, st
}

func TestCompiledExpressionsRunAndFind(t *testing.T) {
	_, st := ftsDB(t)
	cases := map[string]int{
		"What did we decide about the deploy?": 1,
		"Café?":                                1,
		"東京":                                   1,
		"NEAR AND OR NOT":                      1,
		`unbalanced "quote`:                    0,
		"deploying":                            1, // porter stems the quoted term
	}
	for in, want := range cases {
		expr, _ := Compile(in)
		var n int
		if err := st.QueryRowContext(context.Background(), expr).Scan(&n); err != nil {
			t.Errorf("%q → %s: %v", in, expr, err)
			continue
		}
		if n != want {
			t.Errorf("%q → %s matched %d rows, want %d", in, expr, n, want)
		}
	}
}

// FuzzCompile checks that no input makes Compile panic or produce an
// expression SQLite rejects.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"What did we decide about the deploy?", `"unbalanced`, "a AND b OR NOT c", "NEAR(a b, 3)",
		"col:val", "-x", "^start", "star*", "🚀 emoji", "it's", "", "\x00\xff", `""""`, "(((", "a:b:c",
	} {
		f.Add(s)
	}
	_, st := ftsDB(f)
	f.Fuzz(func(t *testing.T, s string) {
		expr, terms := Compile(s)
		if len(terms) > MaxTerms {
			t.Fatalf("%d terms", len(terms))
		}
		if expr == "" {
			return
		}
		var n int
		if err := st.QueryRow(expr).Scan(&n); err != nil {
			t.Fatalf("Compile(%q) = %s: SQLite rejected it: %v", s, expr, err)
		}
	})
}

func TestIsStopStem(t *testing.T) {
	for stem, want := range map[string]bool{"thi": true, "the": true, "wa": true, "deploi": false, "pipelin": false} {
		if got := IsStopStem(stem); got != want {
			t.Errorf("IsStopStem(%q) = %v, want %v", stem, got, want)
		}
	}
}

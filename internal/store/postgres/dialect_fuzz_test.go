package postgres

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzTranslate checks what Translate promises of any input: it never
// panics; it fails only with ErrSQLiteOnly or ErrUntranslatable; and a
// statement it rewrites keeps its quoted names and comments, holds no
// SQLite parameter, and numbers its parameters as
// SQLite would have (the largest $N is the input's largest parameter).
func FuzzTranslate(f *testing.F) {
	for _, seed := range []string{
		`SELECT a FROM t WHERE b = ?1 AND c = ?`,
		`SELECT ?3, ?, ?1, ?`,
		`SELECT row ->> '$.a.b', m ->> '$."a b"' FROM x WHERE y GLOB 'ab*'`,
		`SELECT value FROM json_each(?2) j CROSS JOIN s ON s.pk = j.value ORDER BY j.key`,
		`INSERT OR IGNORE INTO t(a) VALUES (?) RETURNING pk`,
		`SELECT min(a, b), max(c), group_concat(d, ';'), hex(x'ab'), ifnull(e, 0) FROM t INDEXED BY t_by_a`,
		`SELECT CAST(a AS INTEGER), CAST(b AS REAL) FROM temp.h, main.t WHERE a IS b AND c IS NOT NULL`,
		"SELECT a -- ?1 min(a, b)\nFROM t /* ? */ WHERE b = ?",
		`SELECT json_object('a', ?1), json_remove(r, '$.a', '$.b'), json_extract(r, '$.k') FROM (SELECT 1)`,
		`SELECT * FROM s_fts WHERE s_fts MATCH ?`,
		`SELECT "min(a, b)", 'it''s' FROM t`,
		`SELECT :name`, `SELECT '`, `/*`, `x'`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if strings.Contains(q, dollar) {
			t.Skip("the byte the checks below lex $ as")
		}
		out, err := Translate(q)
		if err != nil {
			if !errors.Is(err, ErrSQLiteOnly) && !errors.Is(err, ErrUntranslatable) {
				t.Fatalf("Translate(%q): %v, neither ErrSQLiteOnly nor ErrUntranslatable", q, err)
			}
			return
		}
		in, err := lex(q)
		if err != nil {
			t.Fatalf("Translate(%q) succeeded on a statement lex refuses: %v", q, err)
		}
		for _, tk := range in {
			if tk.kind == tWord && strings.Contains(tk.text, "$") {
				t.Skip("a name with $, which the checks below cannot tell from a parameter")
			}
		}
		// PostgreSQL's $N is no token of SQLite's: lex it as punctuation.
		// A rewrite of punctuation that means nothing (":->>'k'" is
		// ":::jsonb->>'k'") need not lex: PostgreSQL refuses it as SQLite
		// would have.
		toks, err := lex(strings.ReplaceAll(out, "$", dollar))
		if err != nil {
			return
		}
		inKept, err := lex(strings.ReplaceAll(q, "$", dollar))
		if err != nil {
			t.Fatalf("lex(%q) with $ as punctuation: %v", q, err)
		}
		if got, want := kept(toks), kept(inKept); got != want {
			t.Fatalf("Translate(%q) = %q: quoted names and comments %q, want %q", q, out, got, want)
		}
		if largest, got := largestParam(t, in), largestDollar(toks); largest != got {
			t.Fatalf("Translate(%q) = %q: largest parameter $%d, want $%d", q, out, got, largest)
		}
		for _, tk := range toks {
			if tk.kind == tParam {
				t.Fatalf("Translate(%q) = %q: parameter %q left in SQLite's form", q, out, tk.text)
			}
		}
		if again, err := Translate(q); err != nil || again != out {
			t.Fatalf("Translate(%q) twice: %q, %v; then %q", q, out, err, again)
		}
	})
}

// kept joins the quoted names and comments of toks, which Translate
// leaves as they are.
func kept(toks []token) string {
	var b strings.Builder
	for _, tk := range toks {
		if tk.kind == tQIdent || tk.kind == tSpace && strings.TrimSpace(tk.text) != "" {
			b.WriteString(tk.text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// largestParam is the largest parameter number of toks by SQLite's
// rule: ?N is N, a bare ? one more than the largest so far.
func largestParam(t *testing.T, toks []token) int {
	largest := 0
	for _, tk := range toks {
		if tk.kind != tParam {
			continue
		}
		n := largest + 1
		if len(tk.text) > 1 {
			var err error
			if n, err = strconv.Atoi(tk.text[1:]); err != nil {
				t.Fatalf("Translate took parameter %q, out of range", tk.text)
			}
		}
		largest = max(largest, n)
	}
	return largest
}

// dollar stands for $ when a translated statement is lexed: a byte
// that lexes as punctuation.
const dollar = "\x01"

// largestDollar is the largest $N of a translated statement's tokens,
// lexed with $ as dollar: the punctuation followed by a number.
func largestDollar(toks []token) int {
	largest := 0
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].kind != tPunct || toks[i].text != dollar || toks[i+1].kind != tNumber {
			continue
		}
		digits := toks[i+1].text // $1.5 lexes as $ then 1.5
		digits = digits[:len(digits)-len(strings.TrimLeft(digits, "0123456789"))]
		if n, err := strconv.Atoi(digits); err == nil {
			largest = max(largest, n)
		}
	}
	return largest
}

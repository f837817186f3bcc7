package query

import (
	"bytes"
	"database/sql"
	"flag"
	"fmt"
	"go/format"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "regenerate unicode61_table.go from SQLite's unicode61 tokenizer")

// unicode61DB opens an in-memory FTS5 table tokenized by unicode61 with
// its default options, the tokenizer engram's index uses under porter, and
// an fts5vocab instance table on it.
func unicode61DB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5(x, tokenize='unicode61')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, instance)`,
	} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
	return db
}

// sqliteTokens puts each text in a row of db's FTS5 table, in place of
// what was there, and returns the tokens of each row in order.
func sqliteTokens(tb testing.TB, db *sql.DB, texts []string) [][]string {
	tb.Helper()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM f`); err != nil {
		tb.Fatal(err)
	}
	for i, s := range texts {
		if _, err := tx.Exec(`INSERT INTO f(rowid, x) VALUES (?, ?)`, i, s); err != nil {
			tb.Fatal(err)
		}
	}
	// Rows come in term order; placing each term by document and offset
	// is much faster than having SQLite sort them.
	rows, err := tx.Query(`SELECT doc, offset, term FROM v`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	toks := make([][]string, len(texts))
	var doc, off int
	var term []byte
	for rows.Next() {
		if err := rows.Scan(&doc, &off, &term); err != nil {
			tb.Fatal(err)
		}
		if off >= len(toks[doc]) {
			toks[doc] = append(toks[doc], make([]string, off+1-len(toks[doc]))...)
		}
		if string(term) == "q" {
			toks[doc][off] = "q" // most are; share one string
		} else {
			toks[doc][off] = string(term)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return toks
}

// probeChunk is how many code points a row of sqliteUnicode61 probes.
const probeChunk = 1024

// probed reports whether sqliteUnicode61 puts r in front of SQLite: NUL
// and the surrogates, which UTF-8 cannot carry, are left out.
func probed(r rune) bool { return r != 0 && !(0xD800 <= r && r < 0xE000) }

// sqliteUnicode61 finds out what SQLite's unicode61 tokenizer does with
// every code point, in unicode61's terms (-1 separates, 0 is dropped,
// otherwise the folded rune). It tokenizes "qRq Rq" for each code point R:
// "q", "q", "q" says R separates; "qq", "q" that R continues a token
// without adding to it or starting one (a diacritic); "qXq", "Xq" that R
// is a token character folded to X. NUL and the surrogates, which SQLite
// reads as U+FFFD, are recorded as separators. It also returns the texts
// and SQLite's tokens of them.
func sqliteUnicode61(tb testing.TB) (table []rune, texts []string, toks [][]string) {
	tb.Helper()
	var b strings.Builder
	for lo := rune(0); lo <= unicode.MaxRune; lo += probeChunk {
		b.Reset()
		for r := lo; r < lo+probeChunk; r++ {
			if probed(r) {
				fmt.Fprintf(&b, "q%cq %cq ", r, r)
			}
		}
		texts = append(texts, b.String())
	}
	toks = sqliteTokens(tb, unicode61DB(tb), texts)
	table = make([]rune, unicode.MaxRune+1)
	for d, ts := range toks {
		k := 0
		for r := rune(d * probeChunk); r < rune(d+1)*probeChunk; r++ {
			if !probed(r) {
				table[r] = -1
				continue
			}
			next := func(i int) string {
				if k+i < len(ts) {
					return ts[k+i]
				}
				return ""
			}
			x := strings.TrimPrefix(strings.TrimSuffix(next(0), "q"), "q")
			f, n := utf8.DecodeRuneInString(x)
			switch {
			case next(0) == "q" && next(1) == "q" && next(2) == "q":
				table[r], k = -1, k+3
			case next(0) == "qq" && next(1) == "q":
				table[r], k = 0, k+2
			case n > 0 && n == len(x) && f != utf8.RuneError && next(1) == x+"q":
				table[r], k = f, k+2
			default:
				tb.Fatalf("%U: SQLite's tokens of %q start %q, which is none of the behaviours unicode61 has",
					r, fmt.Sprintf("q%cq %cq", r, r), ts[k:min(k+3, len(ts))])
			}
		}
		if k != len(ts) {
			tb.Fatalf("row %d: %d tokens, %d understood", d, len(ts), k)
		}
	}
	return table, texts, toks
}

// describe says what unicode61 does with a code point, given unicode61's
// answer f.
func describe(f rune) string {
	switch {
	case f < 0:
		return "separates"
	case f == 0:
		return "is dropped"
	}
	return fmt.Sprintf("folds to %q (%U)", f, f)
}

// TestUnicode61 checks unicode61_table.go, and Tokens, against SQLite's
// unicode61 tokenizer on every code point; -update regenerates the table.
func TestUnicode61(t *testing.T) {
	if testing.Short() && !*update {
		t.Skip("tokenizes every code point with SQLite (5 s)")
	}
	want, texts, toks := sqliteUnicode61(t)
	if *update {
		writeUnicode61Table(t, want)
		return
	}
	var diffs []string
	n := 0
	for r, w := range want {
		if got := unicode61(rune(r)); got != w {
			if n++; n <= 20 {
				diffs = append(diffs, fmt.Sprintf("%U %q: SQLite %s, the table %s", r, rune(r), describe(w), describe(got)))
			}
		}
	}
	if n > 0 {
		t.Errorf("the table disagrees with SQLite on %d code points (go test ./internal/query -run TestUnicode61 -update regenerates it); the first:\n%s",
			n, strings.Join(diffs, "\n"))
	}
	bad := 0
	for d, text := range texts {
		got := Tokens(text)
		if slices.Equal(got, toks[d]) {
			continue
		}
		i := 0
		for i < min(len(got), len(toks[d])) && got[i] == toks[d][i] {
			i++
		}
		t.Errorf("Tokens of the probes of %U to %U: token %d is %q, SQLite's is %q",
			d*probeChunk, (d+1)*probeChunk-1, i, at(got, i), at(toks[d], i))
		if bad++; bad == 10 {
			break
		}
	}
	// A compiled query quotes folded terms, and SQLite tokenizes them again.
	for r := range rune(len(want)) {
		if f := unicode61(r); f > 0 && unicode61(f) != f {
			t.Errorf("%U %q folds to %q, which %s: folding is not idempotent", r, r, f, describe(unicode61(f)))
		}
	}
}

// at returns s[i], or "(none)" past the end of s.
func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// oddPieces are separators, invisible characters and invalid UTF-8 that
// TestTokensAgreeWithSQLite mixes into its text.
var oddPieces = []string{
	" ", " ", " ", "-", ".", "'", "_", "\"", "*", ":", "\t", "\n", "\x00",
	"\u00a0", "\u200b", "\u200d", "\u2028", "\ufe0f", "\u3000",
	"\xaa", "\xb5", "\x80", "\xbf", "\xc3", "\xe2\x82", "\xff", "\xc0\x80", "\xc1\xbf", "\xe0\x80\xaa",
	"\xed\xa0\x80", "\xef\xbf\xbe", "\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf", "\xf8\x88\x80\x80\x80",
	"\xfc\x84\x80\x80\x80\x80\x80\x80", "é\x80", "a\xcc",
}

// TestTokensAgreeWithSQLite compares Tokens with SQLite on random text
// mixing scripts, digits, punctuation, combining marks, unassigned and
// private-use code points and invalid UTF-8.
func TestTokensAgreeWithSQLite(t *testing.T) {
	blocks := [][2]rune{
		{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'!', '/'},
		{0x80, 0x24f}, {0x250, 0x2ff}, {0x300, 0x36f}, {0x370, 0x3ff}, {0x400, 0x52f},
		{0x590, 0x6ff}, {0x900, 0x97f}, {0xe00, 0xe7f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff},
		{0x1e00, 0x1fff}, {0x2000, 0x2bff}, {0x3040, 0x30ff}, {0x4e00, 0x4e3f}, {0xac00, 0xac3f},
		{0xe000, 0xe00f}, {0xfb00, 0xfb4f}, {0xfe20, 0xfe2f}, {0xff00, 0xffff},
		{0x10400, 0x1044f}, {0x1e900, 0x1e95f}, {0x1f300, 0x1f64f}, {0x2fff0, 0x3000f},
		{0xe0000, 0xe01ef}, {0xffff0, 0x10ffff},
	}
	rng := rand.New(rand.NewPCG(61, 5))
	texts := make([]string, 3000)
	var b strings.Builder
	for i := range texts {
		b.Reset()
		for range 1 + rng.IntN(24) {
			if rng.IntN(6) == 0 {
				b.WriteString(oddPieces[rng.IntN(len(oddPieces))])
				continue
			}
			bl := blocks[rng.IntN(len(blocks))]
			r := bl[0] + rng.Int32N(bl[1]-bl[0]+1)
			if !utf8.ValidRune(r) {
				r = 'x'
			}
			b.WriteRune(r)
		}
		texts[i] = b.String()
	}
	texts = append(texts, "København", "Łódź", "cafe\u0301", "CAFÉ", "\u0301cafe", "ſtraße", "ΣΊΣΥΦΟΣ ς", "Tiếng Việt", "ǅemal")
	want := sqliteTokens(t, unicode61DB(t), texts)
	bad := 0
	for i, text := range texts {
		if got := Tokens(text); !slices.Equal(got, want[i]) {
			t.Errorf("Tokens(%+q) = %q, SQLite's %q", text, got, want[i])
			if bad++; bad == 10 {
				break
			}
		}
	}
}

// writeUnicode61Table writes unicode61_table.go from table, what SQLite
// does with each code point.
func writeUnicode61Table(t *testing.T, table []rune) {
	var seps, removed []rune
	var folds [][2]rune
	for r, f := range table {
		switch {
		case f < 0:
			seps = append(seps, rune(r))
		case f == 0:
			removed = append(removed, rune(r))
		case f != rune(r):
			folds = append(folds, [2]rune{rune(r), f})
		}
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRow(`SELECT sqlite_version()`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by go test ./internal/query -run TestUnicode61 -update; DO NOT EDIT.

// What SQLite %s's unicode61 tokenizer does with each code point.

package query

import "unicode"

`, version)
	fmt.Fprintf(&b, "// unicode61Separators holds the %d code points that separate tokens\n// (NUL and the surrogates, which SQLite reads as U+FFFD, among them).\n", len(seps))
	writeRangeTable(&b, "unicode61Separators", seps)
	fmt.Fprintf(&b, "\n// unicode61Removed holds the %d diacritics that are dropped: they\n// continue a token, adding nothing, and never start one.\n", len(removed))
	writeRangeTable(&b, "unicode61Removed", removed)
	ranges := foldRanges(folds)
	fmt.Fprintf(&b, "\n// unicode61Folds holds, in %d ranges, the %d token characters that\n// fold to another; the others stay as they are.\n", len(ranges), len(folds))
	b.WriteString("var unicode61Folds = []foldRange{\n")
	for _, f := range ranges {
		fmt.Fprintf(&b, "{0x%04x, 0x%04x, %d, 0x%04x, %t},\n", f.Lo, f.Hi, f.Stride, f.To, f.Flat)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("unicode61_table.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote unicode61_table.go: %d separators, %d removed, %d folds in %d ranges", len(seps), len(removed), len(folds), len(ranges))
}

// strideRanges covers the sorted code points cps with ranges of a constant
// stride, each [lo, hi, stride].
func strideRanges(cps []rune) [][3]rune {
	var out [][3]rune
	for i := 0; i < len(cps); {
		j, stride := i+1, rune(1)
		if j < len(cps) {
			stride = cps[j] - cps[i]
		}
		for j < len(cps) && cps[j] == cps[j-1]+stride {
			j++
		}
		if j == i+1 {
			stride = 1
		}
		out = append(out, [3]rune{cps[i], cps[j-1], stride})
		i = j
	}
	return out
}

func writeRangeTable(b *bytes.Buffer, name string, cps []rune) {
	split, _ := slices.BinarySearch(cps, 0x10000)
	fmt.Fprintf(b, "var %s = &unicode.RangeTable{\n", name)
	latin := 0
	if r16 := strideRanges(cps[:split]); len(r16) > 0 {
		b.WriteString("R16: []unicode.Range16{\n")
		for _, r := range r16 {
			fmt.Fprintf(b, "{0x%04x, 0x%04x, %d},\n", r[0], r[1], r[2])
			if r[1] <= unicode.MaxLatin1 {
				latin++
			}
		}
		b.WriteString("},\n")
	}
	if r32 := strideRanges(cps[split:]); len(r32) > 0 {
		b.WriteString("R32: []unicode.Range32{\n")
		for _, r := range r32 {
			fmt.Fprintf(b, "{0x%04x, 0x%04x, %d},\n", r[0], r[1], r[2])
		}
		b.WriteString("},\n")
	}
	if latin > 0 {
		fmt.Fprintf(b, "LatinOffset: %d,\n", latin)
	}
	b.WriteString("}\n")
}

// foldRanges covers the sorted pairs of code point and fold with
// foldRanges, greedily.
func foldRanges(folds [][2]rune) []foldRange {
	var out []foldRange
	for i := 0; i < len(folds); {
		lo, to := folds[i][0], folds[i][1]
		f := foldRange{Lo: lo, Hi: lo, Stride: 1, To: to}
		j := i + 1
		if j < len(folds) && folds[j][0]-lo <= 0xFFFF {
			r, g := folds[j][0], folds[j][1]
			stride := r - lo
			f.Flat = g == to
			if f.Flat || g-r == to-lo {
				for j < len(folds) && folds[j][0] == folds[j-1][0]+stride &&
					(f.Flat && folds[j][1] == to || !f.Flat && folds[j][1]-folds[j][0] == to-lo) {
					j++
				}
				f.Hi, f.Stride = folds[j-1][0], uint16(stride)
			}
		}
		if f.Lo == f.Hi {
			f.Stride, f.Flat = 1, false
		}
		out = append(out, f)
		i = j
	}
	return out
}

// FuzzTokens checks that Tokens splits any text as SQLite does.
func FuzzTokens(f *testing.F) {
	for _, s := range slices.Concat(oddPieces, []string{"København Łódź", "cafe\u0301 ſtraße", "\u0301abc", "ΣΊΣΥΦΟΣ ς", "Tiếng Việt"}) {
		f.Add(s)
	}
	db := unicode61DB(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokens(s), sqliteTokens(t, db, []string{s})[0]; !slices.Equal(got, want) {
			t.Errorf("Tokens(%+q) = %q, SQLite's %q", s, got, want)
		}
	})
}

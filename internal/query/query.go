// Package query turns text into safe FTS5 match expressions.
//
// User text is never handed to FTS5 as syntax: Compile tokenizes it exactly
// as the index's unicode61 tokenizer does (Tokens follows a table of what
// SQLite does with every code point: which make tokens, which separate
// them, how each is folded), drops stopwords and quotes every term, so
// operators, quotes, colons, stars and carets in the input are inert. Terms are ORed, letting BM25
// rank documents by how many of the terms they contain and how rare those
// are, instead of requiring every word.
package query

import (
	"strings"
	"unicode/utf8"
)

// MaxTerms bounds the terms of a compiled expression: a longer text keeps
// its first MaxTerms distinct terms.
const MaxTerms = 32

// Tokens splits text into tokens exactly as SQLite's unicode61 tokenizer,
// with its default options, does: runs of token characters (letters,
// digits and private-use characters by SQLite's Unicode tables, which
// count unassigned code points too), folded to lowercase with one
// diacritic removed ("Café" is "cafe", "ſ" is "s", while "ø" and "ł"
// stay). Combining diacritics are dropped inside a token without splitting
// it ("cafe\u0301" is "cafe"). Invalid UTF-8 is read as SQLite reads it.
func Tokens(text string) []string {
	var out []string
	var scratch [64]byte
	buf := scratch[:0] // where a token is normalized, before it is a string
	start := -1        // the current token's first byte, or -1 between tokens
	clean := true      // the current token needs no folding: it is its bytes
	for i, n := 0, 1; i <= len(text); i += n {
		n = 1
		in := false // text[i:i+n] starts or continues a token
		switch {
		case i == len(text):
		case text[i] < utf8.RuneSelf:
			switch c := text[i]; {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				in = true
			case 'A' <= c && c <= 'Z':
				in, clean = true, false
			}
		default:
			var r rune
			var exact bool
			r, n, exact = decodeRune(text[i:])
			switch f := unicode61(r); {
			case f == 0: // a diacritic, dropped: it continues a token, never starts one
				in = start >= 0
				clean = clean && !in
			case f > 0:
				in = true
				clean = clean && f == r && exact
			}
		}
		if in {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			tok := text[start:i]
			if !clean {
				buf = normalize(buf[:0], tok)
				tok = string(buf)
			}
			out = append(out, tok)
			start = -1
		}
		clean = true
	}
	return out
}

// normalize appends to dst the token tok, which Tokens found, as
// unicode61 writes it: each character folded, diacritics dropped.
func normalize(dst []byte, tok string) []byte {
	for i := 0; i < len(tok); {
		if c := tok[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n, _ := decodeRune(tok[i:])
		if f := unicode61(r); f > 0 {
			dst = appendRune(dst, f)
		}
		i += n
	}
	return dst
}

// Terms returns the distinct tokens of text that are not stopwords, in
// order of first appearance, at most MaxTerms. When every token is a
// stopword it returns the distinct tokens instead, so that a question such
// as "who is it?" still searches for something.
func Terms(text string) []string {
	terms := AllTerms(text)
	return terms[:min(len(terms), MaxTerms)]
}

// AllTerms is Terms without its bound: every distinct term of text (a
// caller that knows how common each is can keep the rarest).
func AllTerms(text string) []string {
	toks := Tokens(text)
	seen := make(map[string]bool, len(toks))
	var terms, all []string
	for _, t := range toks {
		if seen[t] {
			continue
		}
		seen[t] = true
		all = append(all, t)
		if !IsStopword(t) {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		terms = all
	}
	return terms
}

// Compile returns an FTS5 expression that ORs the quoted terms of text,
// and the terms. It returns "" when text has no tokens at all; the caller
// should then return no results rather than run a query.
func Compile(text string) (expr string, terms []string) {
	terms = Terms(text)
	return Or(terms), terms
}

// Or quotes each term and joins them with OR. A double quote inside a term
// is doubled, as FTS5 strings require, so any term is safe.
func Or(terms []string) string { return join(terms, " OR ") }

// And quotes each term, as Or does, and joins them with AND.
func And(terms []string) string { return join(terms, " AND ") }

func join(terms []string, op string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(op)
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

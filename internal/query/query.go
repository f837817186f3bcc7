// Package query turns text into safe FTS5 match expressions.
//
// User text is never handed to FTS5 as syntax: Compile tokenizes it the way
// the index's unicode61 tokenizer does (letters, digits and private-use
// characters make tokens; everything else separates them; case folded),
// drops stopwords and quotes every term, so operators, quotes, colons,
// stars and carets in the input are inert. Terms are ORed, letting BM25
// rank documents by how many of the terms they contain and how rare those
// are, instead of requiring every word.
package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTerms bounds the terms of a compiled expression: a longer text keeps
// its first MaxTerms distinct terms.
const MaxTerms = 32

// Tokens splits text into lowercase tokens as SQLite's unicode61 tokenizer
// does: runs of letters (L*), digits (N*) and private-use characters (Co),
// with the diacritics of Latin letters removed ("café" is "cafe").
func Tokens(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		if isTokenRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, normalize(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, normalize(text[start:]))
	}
	return out
}

// normalize lowercases a token and removes the diacritics of its Latin
// letters.
func normalize(tok string) string {
	tok = strings.ToLower(tok)
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			return strings.Map(fold, tok)
		}
	}
	return tok
}

// latinFold is, for each of U+00C0 to U+017F, the ASCII letter it puts a
// diacritic on, or '.' when it has none.
const latinFold = "aaaaaa.ceeeeiiii.nooooo.ouuuuy..aaaaaa.ceeeeiiii.nooooo.ouuuuy.y" +
	"aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii..jjkk.llllll..llnnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzz."

// fold returns r without its diacritic, for Latin letters.
func fold(r rune) rune {
	if r >= 0xC0 && r < 0x180 {
		if c := latinFold[r-0xC0]; c != '.' {
			return rune(c)
		}
	}
	return r
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
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

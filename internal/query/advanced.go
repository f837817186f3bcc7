package query

import (
	"strings"
	"unicode/utf8"
)

// Advanced returns the words an FTS5 expression searches for, as Tokens
// makes them: terms, matched as words, and prefixes, matched as the start
// of words ("kube*", or a phrase ending in *, "kube ctl"*). Operators
// (AND, OR, NOT, NEAR), column names ("content: x") and the rest of the
// syntax are left out. Terms keep Terms' rules (distinct, stopwords left
// out unless there is nothing else); prefixes are distinct and do not
// appear among the terms. The expression need not be valid: Advanced
// reads what it can, and FTS5 reports what is wrong with it.
func Advanced(expr string) (terms, prefixes []string) {
	var words []string
	seenPrefix := map[string]bool{}
	add := func(text string, prefix bool) {
		toks := Tokens(text)
		if prefix && len(toks) > 0 {
			p := toks[len(toks)-1]
			toks = toks[:len(toks)-1]
			if !seenPrefix[p] {
				seenPrefix[p] = true
				prefixes = append(prefixes, p)
			}
		}
		words = append(words, toks...)
	}
	for i := 0; i < len(expr); {
		r, size := utf8.DecodeRuneInString(expr[i:])
		switch {
		case r == '"':
			text, end := quoted(expr, i+size)
			add(text, strings.HasPrefix(expr[end:], "*"))
			i = end
		case isBareword(r):
			end := i
			for end < len(expr) {
				r, n := utf8.DecodeRuneInString(expr[end:])
				if !isBareword(r) {
					break
				}
				end += n
			}
			word, rest := expr[i:end], strings.TrimLeft(expr[end:], " \t\r\n")
			switch {
			case strings.HasPrefix(rest, ":"): // a column filter
			case word == "AND" || word == "OR" || word == "NOT" || word == "NEAR":
			default:
				add(word, strings.HasPrefix(expr[end:], "*"))
			}
			i = end
		default:
			i += size
		}
	}
	terms = AllTerms(strings.Join(words, " "))
	terms = terms[:min(len(terms), MaxTerms)]
	kept := terms[:0]
	for _, t := range terms {
		if !seenPrefix[t] {
			kept = append(kept, t)
		}
	}
	return kept, prefixes
}

// quoted returns the text of the FTS5 string starting at expr[start] (just
// past its opening quote), a doubled quote standing for one, and the
// index just past its closing quote (or the end of expr).
func quoted(expr string, start int) (string, int) {
	var b strings.Builder
	for i := start; i < len(expr); i++ {
		if expr[i] != '"' {
			b.WriteByte(expr[i])
			continue
		}
		if i+1 < len(expr) && expr[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		return b.String(), i + 1
	}
	return b.String(), len(expr)
}

// isBareword reports whether r may be part of an FTS5 bareword: a letter
// or digit of ASCII, an underscore, or any non-ASCII character.
func isBareword(r rune) bool {
	return r >= utf8.RuneSelf || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

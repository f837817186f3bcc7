// Package rules is the matcher of engram's extraction rules: it compiles
// a rule's pattern, splits a message into sentences and finds what each
// rule matches in them, the way Memory.Extract and Rules.Match apply an
// agent's rules. It holds plain values only; storing rules and turning
// matches into memories and facts is the root package's.
//
// Running every rule's expression on every sentence costs most of a
// scan, so a rule runs only where it can match: a pattern whose matches
// must contain one of some ASCII literals runs only on the sentences
// holding one, and a pattern whose matches start with one runs only
// where one occurs. Matches come out as running every expression on
// every sentence would give them (FuzzExtractPrefilter checks it).
package rules

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// Fact is the Type of a rule that makes facts: subject, predicate and
// object from its templates (see [Rule]).
const Fact = "fact"

// MinRunes is the shortest match, trimmed, that a rule other than a fact
// rule keeps.
const MinRunes = 6

// Rule is a rule as the matcher needs it.
type Rule struct {
	Name string
	// Pattern is a regular expression in Go's RE2 syntax, matched without
	// regard to case (see [Compile]) against each sentence.
	Pattern string
	// Type is the kind of memory the rule makes; [Fact] rules make facts
	// from the templates below and keep matches of any length.
	Type string
	// Subject, Predicate and Object are a fact rule's templates, expanded
	// from a match as [regexp.Regexp.Expand] does; an empty one takes its
	// part from the group of its name (subject, predicate, object).
	Subject, Predicate, Object string
}

// Compile compiles a rule's pattern as rules match: case-insensitively.
// It returns the error [regexp.Compile] returns for a bad pattern.
func Compile(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile("(?i)" + pattern)
}

// Cache compiles patterns for [Cache.Scanner] once and keeps them (up to
// 1,024 patterns, then it starts over). Its zero value is ready, and it
// is safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	compiled map[string]compiled
}

// compiled is a rule's regular expression and, when it can tell, the
// lowercase ASCII strings one of which every match contains: a sentence
// holding none of them is skipped without running the expression.
type compiled struct {
	re       *regexp.Regexp
	required []string
	// leading says every match starts with one of required (after \b
	// assertions). Then matches are only tried where one occurs, with
	// at0 (the expression anchored at the start) at the start of a
	// sentence and with after1 (anchored one rune further, its first
	// group the match) elsewhere, so that a word boundary is judged with
	// the rune before in view.
	leading     bool
	at0, after1 *regexp.Regexp
	// wordStart says, for a leading rule, that a \b comes before each of
	// required and each begins with a word character, so that matches
	// start only where a word does. There at0 decides alone, since \b
	// holds at the start of a string as it does at the start of a word,
	// and the rule's literals are found by one pass over the words.
	wordStart bool
}

// compile returns the compiled pattern, compiling it once.
func (c *Cache) compile(pattern string) (compiled, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cr, ok := c.compiled[pattern]; ok {
		return cr, nil
	}
	cr, err := compilePrefiltered(pattern)
	if err != nil {
		return compiled{}, err
	}
	if c.compiled == nil || len(c.compiled) > 1024 {
		c.compiled = make(map[string]compiled)
	}
	c.compiled[pattern] = cr
	return cr, nil
}

// compilePrefiltered compiles pattern with the literals that prefilter
// its sentences.
func compilePrefiltered(pattern string) (compiled, error) {
	re, err := Compile(pattern)
	if err != nil {
		return compiled{}, err
	}
	c := compiled{re: re}
	if sre, err := syntax.Parse("(?i)"+pattern, syntax.Perl); err == nil {
		sre = sre.Simplify()
		c.required = requiredLiterals(sre)
		if lead, wordStart := leadingLiterals(sre); lead != nil {
			at0, err0 := regexp.Compile(`^(?:(?i)` + pattern + `)`)
			after1, err1 := regexp.Compile(`^(?s:.)((?i)` + pattern + `)`)
			if err0 == nil && err1 == nil {
				c.required, c.leading, c.at0, c.after1, c.wordStart = lead, true, at0, after1, wordStart
			}
		}
	}
	return c, nil
}

// requiredLiterals returns lowercase ASCII strings one of which every
// match of re contains, or nil when it cannot tell.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		for _, c := range s {
			if c >= utf8.RuneSelf {
				return nil
			}
		}
		return []string{strings.ToLower(s)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any part's strings are required; the set whose shortest string
		// is longest filters best.
		var best []string
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

// leadingLiterals returns lowercase ASCII strings one of which every match
// of re starts with, after any word-boundary assertions, or nil when it
// cannot tell. wordStart says a \b comes before each string and each
// begins with a word character.
func leadingLiterals(re *syntax.Regexp) (lits []string, wordStart bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpLiteral:
		return requiredLiterals(re), false
	case syntax.OpAlternate:
		wordStart = true
		for _, sub := range re.Sub {
			l, ws := leadingLiterals(sub)
			if l == nil {
				return nil, false
			}
			lits, wordStart = append(lits, l...), wordStart && ws
		}
		return lits, wordStart
	case syntax.OpConcat:
		boundary := false
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary:
				boundary = true
				continue
			case syntax.OpNoWordBoundary:
				continue
			}
			lits, wordStart = leadingLiterals(sub)
			if boundary && lits != nil {
				wordStart = true
				for _, l := range lits {
					wordStart = wordStart && isWordByte(l[0])
				}
			}
			return lits, wordStart
		}
	}
	return nil, false
}

// isWordByte reports whether c is an ASCII word character, as \b judges.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func shortest(ss []string) int {
	n := -1
	for _, s := range ss {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

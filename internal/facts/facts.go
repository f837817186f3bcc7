// Package facts normalises the parts of subject–predicate–object triples
// as engram matches them: entities without case or spacing differences,
// predicates by their stemmed words and a table of synonyms, and whether
// a predicate holds one value at a time or many. It knows no database.
package facts

import (
	"fmt"
	"strings"

	"github.com/engram-go/engram/internal/query"
)

// EntityKey is the key an entity's name is matched by: lower case, runs
// of white space made one space, trimmed. "Ada  Lovelace" and "ada
// lovelace" are one entity.
func EntityKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// PredicateKey is a predicate's words as the full-text index sees them
// (lower case, accents folded, punctuation dropped), each reduced to its
// Porter stem: "Lives in", "living in" and "lives-in" are "live in". It
// is "" for a predicate without words.
func PredicateKey(p string) string {
	toks := query.Tokens(p)
	for i, t := range toks {
		toks[i] = query.Stem(t)
	}
	return strings.Join(toks, " ")
}

// Single are the predicates that hold one value at a time, as written:
// a new value supersedes the old one. Every other predicate holds many
// ("likes pizza" does not end "likes sushi").
var Single = []string{
	"lives in", "works at", "timezone", "name", "age", "is married to",
	"born on", "born in", "email", "phone number", "job title",
	"reports to", "is located in", "status", "nationality",
}

// Synonyms are the predicates that mean another, as written: asserting
// "is employed by" is asserting "works at".
var Synonyms = map[string]string{
	"is employed by": "works at", "employed by": "works at", "works for": "works at",
	"is employed at": "works at", "employer": "works at", "is working at": "works at",
	"resides in": "lives in", "lives at": "lives in", "is based in": "lives in",
	"home city": "lives in", "is living in": "lives in", "moved to": "lives in",
	"is called": "name", "is named": "name", "full name": "name", "named": "name",
	"married to": "is married to", "spouse": "is married to",
	"is the spouse of": "is married to", "is wed to": "is married to",
	"time zone": "timezone", "tz": "timezone",
	"birthday": "born on", "date of birth": "born on", "was born on": "born on",
	"was born in": "born in", "birthplace": "born in",
	"email address": "email", "e-mail": "email",
	"phone": "phone number", "telephone": "phone number",
	"title": "job title", "is located at": "is located in", "located in": "is located in",
	"enjoys": "likes", "is fond of": "likes",
}

// Predicates decides how predicates are matched: which keys mean the same
// predicate, and which hold one value at a time. Its zero value knows no
// predicate: use New.
type Predicates struct {
	synonyms map[string]string // key → the key it means
	single   map[string]bool   // keys that hold one value
}

// New returns the built-in predicates (Single, Synonyms) with the
// caller's added: single are more predicates that hold one value, many
// are predicates that hold many even if the built-in list says one, and
// synonyms maps more predicates to the one they mean. The caller's win
// over the built-in ones. It returns an error naming an entry without
// words, or a synonym that leads to another synonym (chains would make
// what a predicate means depend on order).
func New(single, many []string, synonyms map[string]string) (*Predicates, error) {
	p := &Predicates{synonyms: map[string]string{}, single: map[string]bool{}}
	add := func(from, to string) error {
		fk, tk := PredicateKey(from), PredicateKey(to)
		if fk == "" || tk == "" {
			return fmt.Errorf("synonym %q → %q: a predicate needs a word", from, to)
		}
		if fk != tk {
			p.synonyms[fk] = tk
		} else {
			delete(p.synonyms, fk)
		}
		return nil
	}
	for from, to := range Synonyms {
		if err := add(from, to); err != nil {
			return nil, err
		}
	}
	for from, to := range synonyms {
		if err := add(from, to); err != nil {
			return nil, err
		}
	}
	for from, to := range p.synonyms {
		if _, ok := p.synonyms[to]; ok {
			return nil, fmt.Errorf("synonym %q means %q, which is itself a synonym", from, to)
		}
	}
	for _, list := range [][]string{Single, single} {
		for _, s := range list {
			k := PredicateKey(s)
			if k == "" {
				return nil, fmt.Errorf("predicate %q has no word", s)
			}
			p.single[p.resolve(k)] = true
		}
	}
	for _, s := range many {
		k := PredicateKey(s)
		if k == "" {
			return nil, fmt.Errorf("predicate %q has no word", s)
		}
		delete(p.single, p.resolve(k))
	}
	return p, nil
}

func (p *Predicates) resolve(k string) string {
	if to, ok := p.synonyms[k]; ok {
		return to
	}
	return k
}

// Key is the key predicate pred is matched by: its PredicateKey, or that
// of the predicate it is a synonym of. It is "" for a predicate without
// words.
func (p *Predicates) Key(pred string) string { return p.resolve(PredicateKey(pred)) }

// Single reports whether the predicate of key k holds one value at a
// time.
func (p *Predicates) Single(k string) bool { return p.single[k] }

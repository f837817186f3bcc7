package facts

import (
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	for in, want := range map[string]string{"  Ada\tLovelace ": "ada lovelace", "ÉMILE": "émile", "C++": "c++"} {
		if got := EntityKey(in); got != want {
			t.Errorf("EntityKey(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"Lives in": "live in", "living-in": "live in", "WORKS AT": "work at", "→": ""} {
		if got := PredicateKey(in); got != want {
			t.Errorf("PredicateKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPredicates(t *testing.T) {
	p, err := New([]string{"favourite colour"}, []string{"lives in"}, map[string]string{"fave colour": "favourite colour", "is employed by": "consults for"})
	if err != nil {
		t.Fatal(err)
	}
	for pred, want := range map[string]string{"is employed by": "consult for", "Works for": "work at", "fave colour": "favourit colour", "resides in": "live in"} {
		if got := p.Key(pred); got != want {
			t.Errorf("Key(%q) = %q, want %q", pred, got, want)
		}
	}
	for pred, want := range map[string]bool{"favourite colour": true, "fave colour": true, "lives in": false, "works at": true, "is employed at": true, "likes": false} {
		if got := p.Single(p.Key(pred)); got != want {
			t.Errorf("Single(%q) = %v, want %v", pred, got, want)
		}
	}
	for name, c := range map[string]struct {
		single   []string
		synonyms map[string]string
		want     string
	}{
		"wordless predicate": {single: []string{"!!"}, want: "no word"},
		"wordless synonym":   {synonyms: map[string]string{"?": "likes"}, want: "needs a word"},
		"chain":              {synonyms: map[string]string{"adores": "enjoys"}, want: "itself a synonym"},
	} {
		_, err := New(c.single, nil, c.synonyms)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

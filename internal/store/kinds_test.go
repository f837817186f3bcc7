package store

import (
	"slices"
	"testing"
)

// TestRegisterComesBeforeTheStatements: a kind registers as its file
// declares it, before the statements are made from the kinds; a kind
// registered later, or with another's name or table, panics and is not
// added. The statements made from the kinds hold every registered kind.
func TestRegisterComesBeforeTheStatements(t *testing.T) {
	n := len(Kinds)
	mustPanic := func(name string, k *Kind) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: Register did not panic", name)
			}
		}()
		Register(k)
	}
	mustPanic("after the statements", &Kind{Name: "late", Table: "late"})
	made = false
	defer func() { made = true }()
	mustPanic("a name in use", &Kind{Name: "semantic", Table: "other"})
	mustPanic("a table in use", &Kind{Name: "other", Table: "facts"})
	if len(Kinds) != n {
		t.Fatalf("Kinds has %d kinds, want %d", len(Kinds), n)
	}
	for _, k := range Kinds {
		if k.FTS != "" && (!slices.Contains(TextKinds, k) || TextBestSQL[k] == "" || contentSQL[k] == "") {
			t.Errorf("kind %s: its statements were not made", k.Name)
		}
	}
}

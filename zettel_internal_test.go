package engram

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStemIndexIgnoresOtherAgents: another agent writing to the same file
// does not make an agent rebuild its auto-linking index, while the same
// agent writing through another handle does.
func TestStemIndexIgnoresOtherAgents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	open := func(agent string) *Memory {
		m, err := New(Tier1, WithPath(path), WithAgent(agent))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	alice, bob, alice2 := open("alice"), open("bob"), open("alice")
	ctx := context.Background()
	store := func(m *Memory, text string) {
		t.Helper()
		if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: text, Importance: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	store(alice, "first note about invoices")
	docs := func() uintptr { return reflect.ValueOf(alice.stems.docs).Pointer() }
	built := docs()
	for range 3 {
		store(bob, "bob writes about invoices too")
	}
	store(alice, "second note about invoices")
	store(alice, "and the of it") // only stopwords: nothing to link, still indexed
	store(alice, "third note about invoices")
	if docs() != built {
		t.Fatal("alice rebuilt her index after bob's writes or her own")
	}
	if n := len(alice.stems.docs); n != 4 {
		t.Fatalf("alice's index holds %d entries, want 4", n)
	}
	store(alice2, "a fifth note, through another handle")
	store(alice, "sixth note about invoices")
	if docs() == built {
		t.Fatal("alice's index missed a write through another handle")
	}
	if n := len(alice.stems.docs); n != 6 {
		t.Fatalf("alice's index holds %d entries, want 6", n)
	}
}

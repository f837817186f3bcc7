package schema

import (
	"strings"
	"testing"
)

func TestMigrationsInSequence(t *testing.T) {
	ms := Migrations() // panics on a gap or a bad name
	if len(ms) == 0 {
		t.Fatal("no migrations embedded")
	}
	for i, m := range ms {
		if m.Version != i+1 {
			t.Fatalf("migration %d has version %d", i, m.Version)
		}
		if m.SQL == "" {
			t.Fatalf("migration %s is empty", m.Name)
		}
	}
	if Latest() != len(ms) {
		t.Fatalf("Latest() = %d, want %d", Latest(), len(ms))
	}
}

func TestTier2MigrationsInSequence(t *testing.T) {
	ms := Tier2Migrations(384, 1024)
	if len(ms) == 0 {
		t.Fatal("no Tier 2 migrations embedded")
	}
	for i, m := range ms {
		if m.Version != i+1 {
			t.Fatalf("Tier 2 migration %d has version %d", i, m.Version)
		}
		if strings.Contains(m.SQL, "{{") {
			t.Fatalf("Tier 2 migration %s has a placeholder left: %q", m.Name, m.SQL)
		}
	}
	if !strings.Contains(ms[0].SQL, "float[384]") || !strings.Contains(ms[0].SQL, "chunk_size=1024") {
		t.Fatalf("the dimension and chunk size are not filled in")
	}
}

package schema

import "testing"

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

package ulid

import (
	"sort"
	"testing"
	"time"
)

func TestMonotonicWithinMillisecond(t *testing.T) {
	g := NewGenerator()
	now := time.UnixMilli(1_700_000_000_000)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = g.New(now)
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("IDs made in one millisecond are not sorted")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if len(id) != 26 {
			t.Fatalf("len(%q) = %d, want 26", id, len(id))
		}
		if seen[id] {
			t.Fatalf("duplicate ID %q", id)
		}
		seen[id] = true
	}
}

func TestOrderedByTime(t *testing.T) {
	g := NewGenerator()
	a := g.New(time.UnixMilli(1_000))
	b := g.New(time.UnixMilli(2_000))
	if a >= b {
		t.Fatalf("New(1s) = %q is not before New(2s) = %q", a, b)
	}
	// A clock that goes backwards still yields increasing IDs.
	c := g.New(time.UnixMilli(500))
	if c <= b {
		t.Fatalf("ID after a backwards clock %q is not after %q", c, b)
	}
}

func TestEncodeKnownValue(t *testing.T) {
	var b [16]byte
	if got := encode(b); got != "00000000000000000000000000" {
		t.Fatalf("encode(zero) = %q", got)
	}
	for i := range b {
		b[i] = 0xff
	}
	if got := encode(b); got != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" {
		t.Fatalf("encode(max) = %q", got)
	}
}

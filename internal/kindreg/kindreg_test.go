package kindreg

import "testing"

type stats struct{ a, b int }
type record struct{ a, b *int }

// TestAllReturnsTheKindsOfItsTypes: All returns the kinds registered over
// its type parameters, in order, and none of other types.
func TestAllReturnsTheKindsOfItsTypes(t *testing.T) {
	defer func(saved []any) { kinds = saved }(kinds)
	kinds = nil
	Register(Kind[stats, record]{Type: "a", Noun: "an a", Count: func(s stats) int { return s.a },
		Held: func(r record) any { return r.a }})
	Register(Kind[int, int]{Type: "other"})
	Register(Kind[stats, record]{Type: "b", Noun: "a b", Count: func(s stats) int { return s.b },
		Held: func(r record) any { return r.b }})
	got := All[stats, record]()
	if len(got) != 2 || got[0].Type != "a" || got[1].Type != "b" {
		t.Fatalf("All = %+v, want the kinds a and b in order", got)
	}
	if n := got[1].Count(stats{1, 2}); n != 2 {
		t.Errorf("b's Count = %d, want 2", n)
	}
	if len(All[string, string]()) != 0 {
		t.Error("All over types no kind was registered with returned kinds")
	}
}

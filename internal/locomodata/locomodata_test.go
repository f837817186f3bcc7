package locomodata

import "testing"

func TestNormalizeEvidence(t *testing.T) {
	turns := map[string]bool{"D8:6": true, "D9:17": true, "D11:26": true, "D4:4": true, "D1:5": true}
	got := NormalizeEvidence([]string{"D8:6; D9:17", "D", "D:11:26", "D4:4 D4:4,D01:05", "D99:1"}, turns)
	want := []string{"D8:6", "D9:17", "D11:26", "D4:4", "D1:5"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

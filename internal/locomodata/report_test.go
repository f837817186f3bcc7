package locomodata

import (
	"slices"
	"testing"
)

func TestReportArithmetic(t *testing.T) {
	r := NewReport("t")
	// a at rank 2, b at rank 6; the top ten span sessions S1, S2 and S3,
	// the evidence S1 and S4.
	r.Add(4, []string{"S1:a", "S4:b"}, []string{"S2:x", "S1:a", "S3:y", "S2:z", "S2:w", "S4:b"}, SessionOfTurn)
	r.Add(1, []string{"S1:a"}, nil, SessionOfTurn)
	l := r.Category(4)
	if want := []float64{0, 0.5, 1, 1}; !slices.Equal(l.Recall, want) || l.Sessions != 1 || l.Spanned != 4 {
		t.Fatalf("category 4 = %v, want recall %v, sessions 1, spanned 4", l, want)
	}
	o := r.Overall()
	if want := []float64{0, 0.25, 0.5, 0.5}; o.Questions != 2 || !slices.Equal(o.Recall, want) || o.Sessions != 0.5 || o.Spanned != 2 {
		t.Fatalf("overall = %v, want 2 questions, recall %v, sessions 0.5, spanned 2", o, want)
	}
	r2 := NewReport("t")
	r2.Add(2, []string{"S1:a", "S5:c"}, []string{"S1:a", "S1:b"}, SessionOfTurn)
	if l := r2.Overall(); l.Sessions != 0.5 || l.Spanned != 1 {
		t.Fatalf("half the evidence sessions: %v", l)
	}
}

func TestParseConvs(t *testing.T) {
	for _, c := range []struct {
		sel  string
		want []int
	}{
		{"", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"1-5", []int{0, 1, 2, 3, 4}},
		{"6-10", []int{5, 6, 7, 8, 9}},
		{"3,1,2-3", []int{0, 1, 2}},
	} {
		got, err := ParseConvs(c.sel, 10)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseConvs(%q) = %v, %v; want %v", c.sel, got, err, c.want)
		}
	}
	for _, bad := range []string{"0-3", "1-11", "5-2", "x", "1-", ","} {
		if got, err := ParseConvs(bad, 10); err == nil {
			t.Errorf("ParseConvs(%q) = %v, want an error", bad, got)
		}
	}
}

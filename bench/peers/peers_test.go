package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/vecdata"
)

func TestParseFlags(t *testing.T) {
	dir := t.TempDir()
	c, err := parseFlags([]string{"-dir", dir, "-only", "text, vector,text,loop", "-sizes", "1000,200,1000", "-reps", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.sections, []string{"text", "vector", "loop"}) || !slices.Equal(c.sizes, []int{1000, 200}) || c.reps != 3 {
		t.Errorf("got %+v", c)
	}
	for _, bad := range [][]string{
		{"-dir", dir, "-only", "text,graph"},
		{"-dir", dir, "-only", "text", "-sizes", "10"},
		{"-dir", dir, "-only", "text", "-sizes", "1e4"},
		{"-dir", dir, "-only", "text", "-reps", "0"},
		{"-dir", dir, "-only", "locomo", "-data", dir + "/missing.json"},
		{"-dir", dir + "/missing", "-only", "text"},
		{"-dir", dir, "-only", "text", "extra"},
	} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%q: no error", strings.Join(bad, " "))
		}
	}
}

func TestExactScanMatchesExactTop(t *testing.T) {
	vecs := vecdata.NewClustered(1, 20, dims).Vectors(3000)
	flat := slices.Concat(vecs...)
	for _, q := range vecdata.NewClustered(1, 20, dims).Vectors(20) {
		got, want := exactScan(flat, q, len(vecs), topK), exactTop(vecs, q, topK)
		if !slices.Equal(got, want) {
			t.Errorf("exactScan = %v, exactTop = %v", got, want)
		}
	}
}

func TestRecallAt(t *testing.T) {
	qs := []question{{evidence: []string{"D1:1", "D1:2"}}, {evidence: []string{"D2:5"}}}
	ranked := [][]string{{"D1:3", "D1:2", "D1:1"}, {"D2:5"}}
	if got := recallAt(qs, ranked, 1); got != 0.5 {
		t.Errorf("R@1 = %v, want 0.5", got)
	}
	if got := recallAt(qs, ranked, 2); got != 0.75 {
		t.Errorf("R@2 = %v, want 0.75", got)
	}
	if got := recallAt(qs, ranked, 25); got != 1 {
		t.Errorf("R@25 = %v, want 1", got)
	}
}

func TestStatistics(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i))
	}
	if p50, p90 := percentiles(lat); p50 != 51 || p90 != 91 {
		t.Errorf("percentiles = %v, %v, want 51, 91", p50, p90)
	}
	if lat[0] != 100 {
		t.Error("percentiles sorted its argument")
	}
	if got := median([]time.Duration{3, 1, 2, 10}); got != 2 {
		t.Errorf("median = %v, want 2", got)
	}
	a := timing{p50: []time.Duration{10, 20, 30}}
	b := timing{p50: []time.Duration{5, 40, 10}}
	if got := ratio(a, b); got != 2 { // per repetition: 2, 0.5, 3
		t.Errorf("ratio = %v, want 2", got)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{100: "100", 1536: "1,536", 100000: "100,000", 1234567: "1,234,567"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLoopPercentiles(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i))
	}
	if got := loopPercentiles(lat); got != [3]time.Duration{51, 91, 100} {
		t.Errorf("loopPercentiles = %v, want [51 91 100]", got)
	}
	if lat[0] != 100 {
		t.Error("loopPercentiles sorted its argument")
	}
}

package memorymd

import (
	"slices"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	for _, c := range []struct {
		body     string
		hashtags bool
		want     Entry
		err      string
	}{
		{body: "(0.90, verified) The deploy runs from CI [ops, deploy]", want: Entry{0.9, true, true, "The deploy runs from CI", []string{"ops", "deploy"}}},
		{body: "(0.70) An HTML comment --&gt; here", want: Entry{0.7, true, false, "An HTML comment --> here", nil}},
		{body: "Buy milk #errand #home", hashtags: true, want: Entry{Text: "Buy milk", Tags: []string{"errand", "home"}}},
		{body: "Issue #12 is open", hashtags: true, want: Entry{Text: "Issue #12 is open"}},
		{body: "(see below) not an importance", want: Entry{Text: "(see below) not an importance"}},
		{body: "(1.5) too much", err: "outside [0, 1]"},
		{body: "(0.5, pinned) x", err: "not \"verified\""},
		{body: "(0.5) x [a, ]", err: "empty tag"},
		{body: "(0.5)", err: "no text"},
	} {
		got, err := ParseEntry(c.body, c.hashtags)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseEntry(%q) = %+v, %v; want error %q", c.body, got, err, c.err)
			}
			continue
		}
		if err != nil || got.Text != c.want.Text || got.Importance != c.want.Importance || got.HasImportance != c.want.HasImportance ||
			got.Verified != c.want.Verified || !slices.Equal(got.Tags, c.want.Tags) {
			t.Errorf("ParseEntry(%q) = %+v, %v; want %+v", c.body, got, err, c.want)
		}
	}
}

func TestParseLines(t *testing.T) {
	src := "# Memory of agent \"x\"\n\n<!-- engram memory.md v1 -->\n\n- (0.50) a <!-- id:e1 -->\n- b\n  continued <!-- id:e2 -->\n- c <!-- id:a--b -->\n\n## Facts\n\n- A | b | C (since 2026-01-01) <!-- fact:f1 -->\n"
	f, rej := Parse([]byte(src), "# Memory of agent \"x\"")
	if rej != nil {
		t.Fatal(rej)
	}
	if len(f.Lines) != 4 {
		t.Fatalf("%d lines: %+v", len(f.Lines), f.Lines)
	}
	want := []Line{
		{Num: 5, ID: "e1", Body: "(0.50) a"},
		{Num: 6, ID: "e2", Body: "b continued"},
		{Num: 8, Problem: "malformed"},
		{Num: 12, ID: "f1", Fact: true, Body: "A | b | C (since 2026-01-01)"},
	}
	for i, w := range want {
		g := f.Lines[i]
		if g.Num != w.Num || g.ID != w.ID || g.Fact != w.Fact || (w.Body != "" && g.Body != w.Body) || !strings.Contains(g.Problem, w.Problem) {
			t.Errorf("line %d = %+v, want %+v", i, g, w)
		}
	}
	if f.Lines[1].Raw != "- b\n  continued <!-- id:e2 -->" {
		t.Errorf("raw of a two-line item: %q", f.Lines[1].Raw)
	}
	for _, bad := range []string{"", "# Memory of agent \"y\"\n", "# Memory of agent \"x\"\n- cut", "# Memory of agent \"x\"\n\xff\n"} {
		if _, rej := Parse([]byte(bad), "# Memory of agent \"x\""); rej == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

package graphview

import "testing"

// awkward is a tiny graph whose labels hold what each format must escape.
var awkward = Graph{
	Nodes: []Node{
		{ID: "ada", Label: `Ada "the Countess"`, Center: true},
		{ID: `c:\temp`, Label: `C:\Temp\N`},
		{ID: "[x]|y", Label: "[x] | y {z} (w)"},
		{ID: "end", Label: "Zoë 東京 <b>&amp; #1 `code`"},
		{ID: "two lines", Label: "line one\nline two\r\n"},
	},
	Edges: []Edge{
		{Source: "ada", Target: `c:\temp`, Label: `says "hi"`},
		{Source: "ada", Target: "[x]|y", Label: "a|b [c]", Ended: true},
		{Source: `c:\temp`, Target: "end", Label: "→ é"},
		{Source: "end", Target: "two lines", Label: "wraps\nhere"},
		{Source: "ada", Target: "nowhere", Label: "not drawn"},
	},
}

func TestDOT(t *testing.T) {
	want := `digraph engram {
	rankdir=LR;
	node [shape=box];
	"ada" [label="Ada \"the Countess\"", style=bold];
	"c:\\temp" [label="C:\\Temp\\N"];
	"[x]|y" [label="[x] | y {z} (w)"];
	"end" [label="Zoë 東京 <b>&amp; #1 ` + "`code`" + `"];
	"two lines" [label="line one line two  "];
	"ada" -> "c:\\temp" [label="says \"hi\""];
	"ada" -> "[x]|y" [label="a|b [c]", style=dashed];
	"c:\\temp" -> "end" [label="→ é"];
	"end" -> "two lines" [label="wraps here"];
}
`
	if got := DOT(awkward); got != want {
		t.Errorf("DOT:\n%s\nwant:\n%s", got, want)
	}
}

func TestMermaid(t *testing.T) {
	want := `flowchart LR
	n0["Ada #34;the Countess#34;"]
	n1["C:\Temp\N"]
	n2["#91;x#93; #124; y #123;z#125; #40;w#41;"]
	n3["Zoë 東京 #60;b#62;#38;amp; #35;1 #96;code#96;"]
	n4["line one line two  "]
	n0 -->|"says #34;hi#34;"| n1
	n0 -.->|"a#124;b #91;c#93;"| n2
	n1 -->|"→ é"| n3
	n3 -->|"wraps here"| n4
	classDef center font-weight:bold,stroke-width:3px
	class n0 center
`
	if got := Mermaid(awkward); got != want {
		t.Errorf("Mermaid:\n%s\nwant:\n%s", got, want)
	}
}

func TestEmpty(t *testing.T) {
	if got, want := DOT(Graph{}), "digraph engram {\n\trankdir=LR;\n\tnode [shape=box];\n}\n"; got != want {
		t.Errorf("DOT = %q, want %q", got, want)
	}
	if got, want := Mermaid(Graph{}), "flowchart LR\n"; got != want {
		t.Errorf("Mermaid = %q, want %q", got, want)
	}
}

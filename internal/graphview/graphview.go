// Package graphview draws a graph of labelled nodes and edges as Graphviz
// DOT and as a Mermaid flowchart. It knows no database: the caller hands
// it nodes and edges in the order it wants them drawn, and the same graph
// always draws the same text.
package graphview

import (
	"fmt"
	"strings"
)

// Graph is what to draw.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

// Node is an entity to draw.
type Node struct {
	ID     string // unique among the graph's nodes
	Label  string // the text shown
	Center bool   // drawn in bold
}

// Edge is an arrow from the node Source to the node Target. An edge to
// or from a node not in the graph is not drawn.
type Edge struct {
	Source, Target string // node IDs
	Label          string
	Ended          bool // drawn dashed: a fact that no longer holds
}

// DOT renders g in Graphviz's DOT language, left to right, with node IDs
// and labels quoted: a double quote or a backslash is escaped, and a line
// break becomes a space, so that any text stays one quoted string.
func DOT(g Graph) string {
	var b strings.Builder
	b.WriteString("digraph engram {\n\trankdir=LR;\n\tnode [shape=box];\n")
	drawn := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		drawn[n.ID] = true
		fmt.Fprintf(&b, "\t%s [label=%s", dotQuote(n.ID), dotQuote(n.Label))
		if n.Center {
			b.WriteString(", style=bold")
		}
		b.WriteString("];\n")
	}
	for _, e := range g.Edges {
		if !drawn[e.Source] || !drawn[e.Target] {
			continue // Graphviz would draw the missing node
		}
		fmt.Fprintf(&b, "\t%s -> %s [label=%s", dotQuote(e.Source), dotQuote(e.Target), dotQuote(e.Label))
		if e.Ended {
			b.WriteString(", style=dashed")
		}
		b.WriteString("];\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote quotes s as a DOT string. Graphviz reads a backslash in a
// label as the start of an escape (\n, \l, \N), so a literal one is
// doubled.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range oneLine(s) {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Mermaid renders g as a Mermaid flowchart, left to right. Nodes are
// named n0, n1, … in the order given (so that no ID can clash with
// Mermaid's keywords, such as end) and carry their labels in quotes;
// characters Mermaid would read as syntax are written as its entity codes
// (#34; for a double quote).
func Mermaid(g Graph) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	ids := make(map[string]string, len(g.Nodes))
	var centers []string
	for i, n := range g.Nodes {
		id := fmt.Sprintf("n%d", i)
		ids[n.ID] = id
		fmt.Fprintf(&b, "\t%s[\"%s\"]\n", id, mermaidText(n.Label))
		if n.Center {
			centers = append(centers, id)
		}
	}
	for _, e := range g.Edges {
		src, ok1 := ids[e.Source]
		dst, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			continue // an edge to a node not drawn
		}
		arrow := "-->"
		if e.Ended {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "\t%s %s|\"%s\"| %s\n", src, arrow, mermaidText(e.Label), dst)
	}
	if len(centers) > 0 {
		b.WriteString("\tclassDef center font-weight:bold,stroke-width:3px\n")
		fmt.Fprintf(&b, "\tclass %s center\n", strings.Join(centers, ","))
	}
	return b.String()
}

// mermaidText is s for a quoted Mermaid label. Inside quotes Mermaid
// still ends the text at a double quote, reads # as the start of an
// entity code, a backtick as the start of markdown and, in a label
// between pipes, a pipe as its end; and it renders labels as HTML. So
// those characters, brackets and the HTML ones are written as entity
// codes.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		switch r {
		case '"', '#', '|', '`', '[', ']', '(', ')', '{', '}', '<', '>', '&':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine replaces line and paragraph breaks with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, s)
}

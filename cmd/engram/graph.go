package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

const graphFormats = "table, json, dot or mermaid"

// entityHint says what to do about an entity no fact names.
func entityHint(err error) error {
	if errors.Is(err, engram.ErrNotFound) {
		return hint(err, `no fact of the agent names it: "engram graph triples" shows the entities`)
	}
	return err
}

func (a *app) graphCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Explore the entity graph of facts: triples, neighbours, paths",
		Long: `graph shows the facts (subject–predicate–object triples) as a graph of
entities, walking the facts that hold now:

  graph triples [ENTITY]     the facts around ENTITY, or of the most connected entities
  graph neighbours ENTITY    the entities one fact away, with the facts
  graph paths FROM TO        the chains of facts from one entity to another

--format is table (the default), json, dot (Graphviz) or mermaid; --json is
--format json. An entity no fact names exits 3.`,
		Example: `  engram graph triples Ada --depth 2
  engram graph neighbours Ada --format mermaid
  engram graph paths Ada Acme --format dot | dot -Tsvg > paths.svg`,
	}
	return group(cmd, a.graphTriplesCmd(), a.graphNeighboursCmd(), a.graphPathsCmd())
}

// format returns the output format: --format, or json with --json.
func (a *app) format(f string) (string, error) {
	switch f {
	case "", "table":
		if a.g.json {
			return "json", nil
		}
		return "table", nil
	case "json", "dot", "mermaid":
		return f, nil
	}
	return "", usagef("--format %q: use %s", f, graphFormats)
}

// drawGraph prints g as DOT or Mermaid.
func (a *app) drawGraph(format string, g engram.Graph) error {
	text := g.DOT()
	if format == "mermaid" {
		text = g.Mermaid()
	}
	_, err := io.WriteString(a.out, strings.TrimRight(text, "\n")+"\n")
	return err
}

func (a *app) graphTriplesCmd() *cobra.Command {
	var (
		opts   engram.GraphOptions
		format string
	)
	cmd := &cobra.Command{
		Use:   "triples [ENTITY]",
		Short: "Show the facts around an entity, or of the most connected entities",
		Long: `graph triples shows the entities up to --depth facts from ENTITY (at most
--max-nodes of them, the nearest first) and the facts between them; without
ENTITY, the entities with the most facts. --history shows facts that ended
too. With --format json the graph has the shape of seed 004's
visualization (nodes, edges).`,
		Example: `  engram graph triples
  engram graph triples Ada --depth 2 --format dot`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			format, err := a.format(format)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				opts.Center = args[0]
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				g, err := m.Facts().Graph(ctx, opts)
				if err != nil {
					return entityHint(err)
				}
				switch format {
				case "json":
					return a.printJSON(g)
				case "table":
					return writeEdges(a.out, g)
				}
				return a.drawGraph(format, g)
			})
		}),
	}
	f := cmd.Flags()
	f.IntVar(&opts.Depth, "depth", 0, "how many facts away from ENTITY (default 2, at most 3)")
	f.IntVar(&opts.MaxNodes, "max-nodes", 0, "at most this many entities (default 50)")
	f.BoolVar(&opts.History, "history", false, "show facts that ended too")
	f.StringVar(&format, "format", "table", graphFormats)
	return cmd
}

func writeEdges(w io.Writer, g engram.Graph) error {
	if len(g.Edges) == 0 {
		_, err := fmt.Fprintln(w, "no facts")
		return err
	}
	label := map[string]string{}
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
	}
	t := newTable(w, "SUBJECT", "PREDICATE", "OBJECT", "FROM", "TO", "FACT")
	for _, e := range g.Edges {
		t.row(label[e.Source], e.Predicate, label[e.Target], when(e.ValidFrom), when(e.ValidTo), e.FactID)
	}
	return t.flush()
}

// hopView is a fact walked from one entity to another, as --json prints
// it: memview's, as GET /v1/graph/neighbors and /v1/graph/paths show it.
type hopView = memview.Hop

type neighbourView struct {
	Entity string    `json:"entity"`
	Hops   []hopView `json:"hops"`
}

func (a *app) graphNeighboursCmd() *cobra.Command {
	var (
		fq        engram.FactQuery
		direction string
		format    string
	)
	cmd := &cobra.Command{
		Use:     "neighbours ENTITY",
		Aliases: []string{"neighbors"},
		Short:   "Show the entities one fact away from an entity",
		Long: `graph neighbours shows the entities one fact away from ENTITY, each with the
facts that join them. --direction out keeps the facts ENTITY is the subject
of, --direction in those it is the object of; --predicate keeps one predicate (its
synonyms too).`,
		Example: `  engram graph neighbours Ada
  engram graph neighbours Ada --direction out --predicate "works at" --json`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			format, err := a.format(format)
			if err != nil {
				return err
			}
			fq.Entity, fq.Direction = args[0], engram.Direction(direction)
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				ns, err := m.Facts().Neighbours(ctx, fq)
				if err != nil {
					return entityHint(err)
				}
				views := []neighbourView{}
				var facts []engram.Fact
				for _, n := range ns {
					v := neighbourView{Entity: n.Entity, Hops: hopsOf(n.Hops, &facts)}
					views = append(views, v)
				}
				switch format {
				case "json":
					return a.printJSON(views)
				case "table":
					return writeNeighbours(a.out, views)
				}
				return a.drawGraph(format, graphOf(args[0], facts))
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&direction, "direction", "", "out (ENTITY is the subject) or in (the object); default both")
	f.StringVar(&fq.Predicate, "predicate", "", "only facts of this predicate")
	f.IntVar(&fq.Limit, "limit", 0, "at most this many neighbours (default 100)")
	f.StringVar(&format, "format", "table", graphFormats)
	return cmd
}

func writeNeighbours(w io.Writer, views []neighbourView) error {
	if len(views) == 0 {
		_, err := fmt.Fprintln(w, "no neighbours")
		return err
	}
	t := newTable(w, "NEIGHBOUR", "FACT", "ID")
	for _, v := range views {
		for _, h := range v.Hops {
			t.row(v.Entity, h.Fact.Subject+" "+h.Fact.Predicate+" "+h.Fact.Object, h.Fact.ID)
		}
	}
	return t.flush()
}

// hopsOf returns the views of hops, and appends their facts to facts.
func hopsOf(hops []engram.Hop, facts *[]engram.Fact) []hopView {
	for _, h := range hops {
		*facts = append(*facts, h.Fact)
	}
	return memview.Hops(hops)
}

type pathView struct {
	Depth int       `json:"depth"`
	Hops  []hopView `json:"hops"`
}

func (a *app) graphPathsCmd() *cobra.Command {
	var (
		depth  int
		format string
	)
	cmd := &cobra.Command{
		Use:   "paths FROM TO",
		Short: "Show the chains of facts from one entity to another",
		Long: `graph paths shows the paths from FROM to TO along facts that hold now, of
at most --depth facts (default 3), the shortest first, at most 100. A fact
may be walked against its direction (from its object to its subject),
shown as <-[predicate]-.`,
		Example: `  engram graph paths Ada Acme
  engram graph paths Ada Acme --depth 2 --format mermaid`,
		Args: cobra.ExactArgs(2),
		RunE: runE(func(ctx context.Context, args []string) error {
			format, err := a.format(format)
			if err != nil {
				return err
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				paths, err := m.Facts().Paths(ctx, args[0], args[1], depth)
				if err != nil {
					return entityHint(err)
				}
				views := []pathView{}
				var facts []engram.Fact
				for _, p := range paths {
					views = append(views, pathView{Depth: len(p), Hops: hopsOf(p, &facts)})
				}
				switch format {
				case "json":
					return a.printJSON(views)
				case "table":
					return writePaths(a.out, paths)
				}
				return a.drawGraph(format, graphOf(args[0], facts))
			})
		}),
	}
	cmd.Flags().IntVar(&depth, "depth", 0, "at most this many facts on a path (default and most 3)")
	cmd.Flags().StringVar(&format, "format", "table", graphFormats)
	return cmd
}

// writePaths prints each path on a line: Ada -[works at]-> Acme <-[owns]- Bob.
func writePaths(w io.Writer, paths []engram.Path) error {
	if len(paths) == 0 {
		_, err := fmt.Fprintln(w, "no paths")
		return err
	}
	for _, p := range paths {
		var b strings.Builder
		b.WriteString(p[0].From())
		for _, h := range p {
			if h.Direction == engram.DirectionIn {
				fmt.Fprintf(&b, " <-[%s]- %s", h.Fact.Predicate, h.To())
			} else {
				fmt.Fprintf(&b, " -[%s]-> %s", h.Fact.Predicate, h.To())
			}
		}
		fmt.Fprintln(w, b.String())
	}
	return nil
}

// graphOf makes a Graph of facts around center, for DOT and Mermaid: one
// node per entity (by its name without case or extra spaces), one edge per
// fact.
func graphOf(center string, facts []engram.Fact) engram.Graph {
	g := engram.Graph{Center: center, Nodes: []engram.GraphNode{}, Edges: []engram.GraphEdge{}}
	seenNode, seenFact := map[string]bool{}, map[string]bool{}
	node := func(name string) string {
		id := strings.ToLower(strings.Join(strings.Fields(name), " "))
		if !seenNode[id] {
			seenNode[id] = true
			g.Nodes = append(g.Nodes, engram.GraphNode{ID: id, Label: name})
		}
		return id
	}
	node(center)
	for _, f := range facts {
		if seenFact[f.ID] {
			continue
		}
		seenFact[f.ID] = true
		g.Edges = append(g.Edges, engram.GraphEdge{Source: node(f.Subject), Target: node(f.Object),
			Predicate: f.Predicate, FactID: f.ID, ValidFrom: f.ValidFrom, ValidTo: f.ValidTo})
	}
	return g
}

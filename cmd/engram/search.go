package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// resultView is a search result as --json prints it: memview's, as
// POST /v1/search and the MCP tool search show it.
type resultView = memview.Result

// foundView is what search prints with --json.
type foundView struct {
	Query   string            `json:"query"`
	Mode    engram.SearchMode `json:"mode"`
	Terms   []string          `json:"terms"`
	Pending int               `json:"pending,omitempty"`
	Results []resultView      `json:"results"`
}

func (a *app) searchCmd() *cobra.Command {
	var (
		opts engram.SearchOptions
		ff   filterFlags
		mode string
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find memories of every kind by the words a person would use",
		Long: `search finds the agent's memories that match QUERY, best first, with their
scores. Any text is a valid query: punctuation and FTS5 syntax are inert
unless --advanced asks for FTS5 expressions (a malformed one exits 2).

--type (or --kind, --types) narrows the search to kinds, comma-separated: semantic,
episodic, procedural, working, snapshot, fact or document, or a plural or
noun of one (procedures, episode, facts, triples, docs); --mode is text,
vector or hybrid (vector and hybrid need --tier 2). Semantic hits count as
accesses.

` + filterHelp,
		Example: `  engram search "what did we decide about the deploy?"
  engram search deploy --type semantic,fact --limit 5
  engram search deploy --types procedures,episodes
  engram search "answer style" --user-id ada --metadata '{"key":"lang","eq":"en"}'
  engram --tier 2 search "staging database" --mode vector`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			opts.Query = args[0]
			opts.Mode = engram.SearchMode(mode)
			var err error
			if opts.Filter, err = ff.filter(); err != nil {
				return err
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				found, err := m.Find(ctx, opts)
				if err != nil {
					return filterError(err)
				}
				v := foundView{Query: opts.Query, Mode: found.Mode, Terms: memview.NonNil(found.Terms), Pending: found.Pending,
					Results: memview.Results(found.Results)}
				return a.output(v, func(w io.Writer) error { return writeResults(w, v.Results) })
			})
		}),
	}
	f := cmd.Flags()
	ff.add(cmd, "only these kinds, comma-separated (--kind and --types are the same flag)")
	aliasFlags(cmd, map[string]string{"kind": "type", "types": "type"})
	f.IntVar(&opts.Limit, "limit", 10, "at most this many results (up to 1000)")
	f.StringVar(&mode, "mode", "", "text, vector or hybrid (default: hybrid in Tier 2, text in Tier 1)")
	f.Float64Var(&opts.Threshold, "threshold", 0, "drop results scoring under this, in [0, 1]")
	f.BoolVar(&opts.Advanced, "advanced", false, "QUERY is an FTS5 expression (AND, OR, NOT, NEAR, prefix*)")
	return cmd
}

// parseKinds reads the memory types of a flag's values, by any name
// engram.ParseMemoryType takes; an unknown one is a usage error that lists
// the valid names.
func parseKinds(flag string, kinds []string) ([]engram.MemoryType, error) {
	var out []engram.MemoryType
	for _, k := range kinds {
		t, err := engram.ParseMemoryType(k)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", flag, err)}
		}
		out = append(out, t)
	}
	return out, nil
}

// flagAliases is the annotation of a command that lists its flags'
// other names, "alias=flag" comma-separated (see aliasFlags).
const flagAliases = "engram.flag-aliases"

// aliasFlags makes each name of aliases another name of the flag it maps
// to, among cmd's flags (--kind sets --type), and records them in cmd's
// annotation flagAliases.
func aliasFlags(cmd *cobra.Command, aliases map[string]string) {
	var list []string
	for from, to := range aliases {
		list = append(list, from+"="+to)
	}
	slices.Sort(list)
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[flagAliases] = strings.Join(list, ",")
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if to, ok := aliases[name]; ok {
			name = to
		}
		return pflag.NormalizedName(name)
	})
}

func writeResults(w io.Writer, results []resultView) error {
	if len(results) == 0 {
		_, err := fmt.Fprintln(w, "nothing found")
		return err
	}
	t := newTable(w, "SCORE", "TYPE", "ID", "TEXT")
	for _, r := range results {
		text := r.Snippet
		if r.Source != "" {
			text += "  [" + r.Source + "]"
		}
		t.row(fmt.Sprintf("%.2f", r.Score), r.Type, r.ID, clip(text, 90))
	}
	return t.flush()
}

// recalledView is a memory recall scored, as --json prints it: memview's,
// as the MCP tool recall shows it.
type recalledView = memview.Recalled

func (a *app) recallCmd() *cobra.Command {
	var ff filterFlags
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Score memories for a query with the recall gate",
		Long: `recall searches every kind of memory for QUERY and scores each kind's best
candidates with the recall gate (seed 004's PBWM model), as an agent's
Memory.Recall does, and shows which would enter the working set. The
working set lives in the process, so it ends with the command; what stays
is the admitted memories' retrieval counts, which go up.

` + filterHelp,
		Example: `  engram recall "where does Ada live?"
  engram recall "how to answer" --user-id ada
  engram --json recall "deploy rules"`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			filter, err := ff.filter()
			if err != nil {
				return err
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				r, err := m.RecallWith(ctx, engram.RecallOptions{Query: args[0], Filter: filter})
				if err != nil {
					return filterError(err)
				}
				views := []recalledView{}
				for _, kind := range kindOrder(r.ByKind) {
					views = append(views, memview.RecalledOf(r.ByKind[kind])...)
				}
				slices.SortStableFunc(views, func(x, y recalledView) int { return cmp.Compare(y.Gate, x.Gate) })
				return a.output(map[string]any{"query": args[0], "candidates": views}, func(w io.Writer) error {
					return writeRecalled(w, views)
				})
			})
		}),
	}
	ff.add(cmd, "only these kinds, comma-separated")
	return cmd
}

// kindOrder returns the stored kinds of a recall in engram's order.
func kindOrder(byKind map[engram.MemoryType][]engram.Recalled) []engram.MemoryType {
	var out []engram.MemoryType
	for _, k := range memview.Kinds() {
		if len(byKind[k]) > 0 {
			out = append(out, k)
		}
	}
	return out
}

func writeRecalled(w io.Writer, views []recalledView) error {
	if len(views) == 0 {
		_, err := fmt.Fprintln(w, "nothing recalled")
		return err
	}
	t := newTable(w, "GATE", "ADMITTED", "TYPE", "ID", "TEXT")
	for _, v := range views {
		admitted := "no"
		if v.Admitted {
			admitted = "yes"
		}
		t.row(fmt.Sprintf("%.3f", v.Gate), admitted, v.Type, v.ID, clip(v.Content, 80))
	}
	return t.flush()
}

func (a *app) contextCmd() *cobra.Command {
	var (
		tokens int
		query  string
		ff     filterFlags
	)
	cmd := &cobra.Command{
		Use:   "context [QUERY | --query QUERY]",
		Short: "Print a markdown block of memory for a system prompt",
		Long: `context prints a block of markdown for a language model's system prompt,
within a budget of tokens (--max-tokens, estimated): the most important facts,
the facts that hold now, the active procedures, the recent episodes and,
with a QUERY (an argument, or --query), the memories recalled for it. The
part before the recalled memories does not depend on the query and stays
byte-identical while memory does not change, so prompt caches keep working.
It changes nothing. --tokens is another name of --max-tokens.

` + filterHelp + ` A section of a kind the filter leaves out is empty.`,
		Example: `  engram context
  engram context "plan Ada's trip" --max-tokens 1000
  engram context --query "plan Ada's trip" --tokens 1000
  engram context "plan the trip" --user-id ada
  engram --json context "deploy"`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			opts := engram.ContextOptions{MaxTokens: tokens, Query: query}
			if len(args) == 1 {
				if query != "" && query != args[0] {
					return usagef("context takes one query: %q and --query %q differ", args[0], query)
				}
				opts.Query = args[0]
			}
			var err error
			if opts.Filter, err = ff.filter(); err != nil {
				return err
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				b, err := m.Context(ctx, opts)
				if err != nil {
					return filterError(err)
				}
				// --json prints the block as POST /v1/context shows it.
				return a.output(memview.ContextOf(b), func(w io.Writer) error {
					_, err := io.WriteString(w, strings.TrimRight(b.Text, "\n")+"\n")
					return err
				})
			})
		}),
	}
	f := cmd.Flags()
	f.IntVar(&tokens, "max-tokens", engram.DefaultContextTokens, "the budget, in estimated tokens (--tokens is the same flag)")
	f.StringVar(&query, "query", "", "the query to recall memories for (instead of the QUERY argument)")
	ff.add(cmd, "only these kinds, comma-separated")
	aliasFlags(cmd, map[string]string{"tokens": "max-tokens"})
	return cmd
}

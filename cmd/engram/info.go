package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
)

func (a *app) agentsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "List the agents that have memory in --dir or --path",
		Long: `agents lists the agents that have a database under the base directory
(--dir, ENGRAM_DIR, or .engram/memory), or rows in the file given by --path,
sorted by name. A base directory that does not exist holds no agent; a
--path file that does not exist is not found (exit 3).`,
		Example: `  engram agents
  engram --path team.db --json agents`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			if a.g.path != "" {
				if err := a.mustExistFile(); err != nil {
					return err
				}
			}
			agents, err := engram.ListAgents(ctx, a.g.where())
			if err != nil {
				return err
			}
			if agents == nil {
				agents = []string{}
			}
			return a.output(map[string]any{"agents": agents}, func(w io.Writer) error {
				if len(agents) == 0 {
					_, err := fmt.Fprintf(w, "no agents in %s\n", a.g.place())
					return err
				}
				for _, id := range agents {
					fmt.Fprintln(w, id)
				}
				return nil
			})
		}),
	}
}

// statsView is engram.Stats as stats prints it: the agent, its tier and
// file, then every count of engram.Stats (each kind's, links, archived
// and pending embeddings) in its order, but the working set, which the
// command's process does not hold. --json names a count by its field
// ("semantic", "pendingEmbeddings"), the table by its words ("pending
// embeddings"): a kind engram adds shows without a change here.
type statsView struct {
	Agent  string
	Tier   int
	Path   string
	Counts []statCount
}

// statCount is one count of engram.Stats, by its field's name.
type statCount struct {
	Field string
	N     int
}

// statsOf returns the view of st.
func statsOf(agent string, tier int, path string, st engram.Stats) statsView {
	v := statsView{Agent: agent, Tier: tier, Path: path}
	s := reflect.ValueOf(st)
	for i := range s.NumField() {
		if f := s.Type().Field(i); f.Name != "Working" && f.Type.Kind() == reflect.Int {
			v.Counts = append(v.Counts, statCount{f.Name, int(s.Field(i).Int())})
		}
	}
	return v
}

// MarshalJSON writes the view as one object, in its order.
func (v statsView) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(name string, value any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return err
		}
		val, err := json.Marshal(value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
		return err
	}
	err := errors.Join(field("agent", v.Agent), field("tier", v.Tier), field("path", v.Path))
	for _, c := range v.Counts {
		err = errors.Join(err, field(strings.ToLower(c.Field[:1])+c.Field[1:], c.N))
	}
	b.WriteByte('}')
	return b.Bytes(), err
}

// words returns a field's name as words: "pending embeddings".
func words(field string) string {
	var b strings.Builder
	for i, r := range field {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func (a *app) statsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count the agent's memories of each kind",
		Long: `stats counts the agent's semantic entries, episodes, snapshots, procedures,
facts (current or not), document chunks, links and archived memories, and
in Tier 2 the memories waiting for their vectors.

A database that is damaged or not engram's exits 4; an agent without memory
exits 3.`,
		Example: `  engram stats
  engram --agent support-bot --json stats`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				s, err := m.Stats(ctx)
				if err != nil {
					return err
				}
				v := statsOf(m.AgentID(), int(m.Tier()), m.Path(), s)
				return a.output(v, func(w io.Writer) error {
					t := newTable(w)
					t.row("agent", v.Agent)
					t.row("database", v.Path)
					t.row("tier", v.Tier)
					for _, c := range v.Counts {
						if c.Field != "PendingEmbeddings" || v.Tier == 2 {
							t.row(words(c.Field), c.N)
						}
					}
					return t.flush()
				})
			})
		}),
	}
}

// summaryView is engram.Summary as --json prints it.
type summaryView struct {
	Agent            string        `json:"agent"`
	Kinds            []kindView    `json:"kinds"`
	HighImportance   int           `json:"highImportance"`
	RecentlyAccessed int           `json:"recentlyAccessed"`
	RecentWindowDays float64       `json:"recentWindowDays"`
	Keywords         []keywordView `json:"keywords"`
}

type kindView struct {
	Type          engram.MemoryType `json:"type"`
	Count         int               `json:"count"`
	LastID        string            `json:"lastId,omitempty"`
	LastCreatedAt time.Time         `json:"lastCreatedAt,omitzero"`
}

type keywordView struct {
	Stem     string `json:"stem"`
	Memories int    `json:"memories"`
}

func (a *app) summaryCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "summary",
		Short: "Give an overview of what the agent knows",
		Long: `summary counts the agent's memories of each kind with the newest of each,
the semantic entries of high importance and those accessed in the last
7 days, and lists the agent's most common words (as the full-text index
stems them: "deploi" for deploy, deploys and deployed).`,
		Example: `  engram summary
  engram --json summary`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				s, err := m.Summary(ctx)
				if err != nil {
					return err
				}
				v := summaryView{Agent: s.AgentID, HighImportance: s.HighImportance,
					RecentlyAccessed: s.RecentlyAccessed, RecentWindowDays: s.RecentWindow.Hours() / 24,
					Kinds: []kindView{}, Keywords: []keywordView{}}
				for _, k := range s.Kinds {
					v.Kinds = append(v.Kinds, kindView{k.Type, k.Count, k.LastID, k.LastCreatedAt})
				}
				for _, k := range s.Keywords {
					v.Keywords = append(v.Keywords, keywordView{k.Stem, k.Memories})
				}
				return a.output(v, func(w io.Writer) error { return writeSummary(w, v) })
			})
		}),
	}
}

func writeSummary(w io.Writer, v summaryView) error {
	t := newTable(w, "KIND", "COUNT", "NEWEST", "CREATED")
	for _, k := range v.Kinds {
		t.row(k.Type, k.Count, or(k.LastID, "-"), when(k.LastCreatedAt))
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d important semantic entries, %d accessed in the last %g days\n",
		v.HighImportance, v.RecentlyAccessed, v.RecentWindowDays)
	if len(v.Keywords) > 0 {
		fmt.Fprint(w, "common words:")
		for _, k := range v.Keywords {
			fmt.Fprintf(w, " %s (%d)", k.Stem, k.Memories)
		}
		fmt.Fprintln(w)
	}
	return nil
}

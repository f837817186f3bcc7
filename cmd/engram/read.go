package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
)

func (a *app) getCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Show one memory or fact, of any kind",
		Long: `get shows the memory with the given ID, whatever its kind: a semantic entry,
an episode, a procedure, a fact or a document chunk. An ID the agent does
not have (another agent's included) exits 3.`,
		Example: `  engram get 01JV8ZQ4N4E9W6KX5M2T3B7C1D
  engram --json get 01JV8ZQ4N4E9W6KX5M2T3B7C1D`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				v, err := findMemory(ctx, m, args[0])
				if err != nil {
					return err
				}
				return a.output(v, func(w io.Writer) error { return writeMemory(w, v) })
			})
		}),
	}
}

// findMemory looks id up in each kind of stored memory, in turn. It
// returns ErrNotFound when no kind has it.
func findMemory(ctx context.Context, m *engram.Memory, id string) (memoryView, error) {
	lookups := []func() (memoryView, error){
		func() (memoryView, error) { e, err := m.Semantic().Get(ctx, id); return semanticView(e), err },
		func() (memoryView, error) { e, err := m.Episodic().Get(ctx, id); return episodeView(e), err },
		func() (memoryView, error) { p, err := m.Procedural().Get(ctx, id); return procedureView(p), err },
		func() (memoryView, error) { f, err := m.Facts().Get(ctx, id); return factView(f), err },
		func() (memoryView, error) { c, err := m.GetChunk(ctx, id); return chunkView(c), err },
	}
	for _, get := range lookups {
		v, err := get()
		if !errors.Is(err, engram.ErrNotFound) {
			return v, err
		}
	}
	return memoryView{}, notFoundf("no memory %q for agent %q: check the ID (engram search and engram list show IDs) and --agent", id, m.AgentID())
}

// kinds that list can list.
var listKinds = []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeFact}

func (a *app) listCmd() *cobra.Command {
	var (
		kind          string
		limit, offset int
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories of one kind",
		Long: `list lists the agent's memories of one kind (--kind):

  semantic    most important first, then most recently updated (the default)
  episodic    newest first
  procedural  the active procedures, best success rate first
  fact        the facts that hold now

A plural or noun of a kind works too (episodes, procedures, facts).
--offset pages through semantic and episodic memory.`,
		Example: `  engram list
  engram list --kind episodic --limit 5
  engram --json list --kind fact`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			if limit < 1 || limit > 10000 {
				return usagef("--limit %d: use 1 to 10000", limit)
			}
			if offset < 0 {
				return usagef("--offset %d: use 0 or more", offset)
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				views, err := listMemories(ctx, m, kind, limit, offset)
				if err != nil {
					return err
				}
				return a.output(views, func(w io.Writer) error { return writeList(w, views) })
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", "semantic", "semantic, episodic, procedural or fact")
	f.IntVar(&limit, "limit", 20, "at most this many")
	f.IntVar(&offset, "offset", 0, "skip this many first (semantic, episodic)")
	return cmd
}

// listMemories lists memories of one kind through the kind's own listing.
func listMemories(ctx context.Context, m *engram.Memory, kind string, limit, offset int) ([]memoryView, error) {
	views := []memoryView{}
	typ, err := engram.ParseMemoryType(kind)
	if err != nil || !slices.Contains(listKinds, typ) {
		names := make([]string, len(listKinds))
		for i, k := range listKinds {
			names[i] = string(k)
		}
		return nil, usagef("--kind %q: use %s", kind, strings.Join(names, ", "))
	}
	switch typ {
	case engram.TypeSemantic:
		es, err := m.Semantic().List(ctx, engram.ListOptions{Limit: limit, Offset: offset})
		for _, e := range es {
			views = append(views, semanticView(e))
		}
		return views, err
	case engram.TypeEpisodic:
		if offset+limit > 10000 {
			return nil, usagef("--offset plus --limit: at most 10000 episodes back")
		}
		es, err := m.Episodic().Recent(ctx, offset+limit)
		for _, e := range es[min(offset, len(es)):] {
			views = append(views, episodeView(e))
		}
		return views, err
	case engram.TypeProcedural:
		ps, err := m.Procedural().ListActive(ctx, limit)
		for _, p := range ps {
			views = append(views, procedureView(p))
		}
		return views, err
	case engram.TypeFact:
		fs, err := m.Facts().Current(ctx, engram.FactQuery{Limit: limit})
		for _, f := range fs {
			views = append(views, factView(f))
		}
		return views, err
	}
	return nil, fmt.Errorf("--kind %q: list has no listing of it", kind) // listKinds are all above
}

// writeList prints memories one a line.
func writeList(w io.Writer, views []memoryView) error {
	if len(views) == 0 {
		_, err := fmt.Fprintln(w, "no memories")
		return err
	}
	t := newTable(w, "ID", "TYPE", "CREATED", "TEXT")
	for _, v := range views {
		text := v.Content
		switch v.Type {
		case engram.TypeProcedural:
			text = v.Name + ": " + or(v.Description, v.Steps)
		case engram.TypeFact:
			text += "  (since " + when(v.ValidFrom) + ")"
		}
		created := v.CreatedAt
		if created.IsZero() {
			created = v.RecordedAt
		}
		t.row(v.ID, v.Type, when(created), clip(text, 80))
	}
	return t.flush()
}

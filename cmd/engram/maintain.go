package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
)

func (a *app) deleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a memory or fact",
		Long: `delete removes the semantic entry, episode, procedure or fact with the given
ID, with its full-text entry and links; history records the deletion. A
fact that stopped being true is better ended than deleted (add a new value,
or assert it with --valid-to). To erase a memory from history too, or a
document chunk, use forget. An ID the agent does not have exits 3.`,
		Example: `  engram delete 01JV8ZQ4N4E9W6KX5M2T3B7C1D`,
		Args:    cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				typ, err := deleteMemory(ctx, m, args[0])
				if err != nil {
					return err
				}
				return a.output(added{typ, args[0]}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "deleted %s %s\n", typ, args[0])
					return err
				})
			})
		}),
	}
}

// deleteMemory deletes id from the first kind that has it and returns
// that kind.
func deleteMemory(ctx context.Context, m *engram.Memory, id string) (engram.MemoryType, error) {
	deletes := []struct {
		typ engram.MemoryType
		del func(context.Context, string) error
	}{
		{engram.TypeSemantic, m.Semantic().Delete},
		{engram.TypeEpisodic, m.Episodic().Delete},
		{engram.TypeProcedural, m.Procedural().Delete},
		{engram.TypeFact, m.Facts().Delete},
	}
	for _, d := range deletes {
		if err := d.del(ctx, id); !errors.Is(err, engram.ErrNotFound) {
			return d.typ, err
		}
	}
	if _, err := m.GetChunk(ctx, id); err == nil {
		return "", usagef("%s is a document chunk: ingest its file again without it, or forget it", id)
	}
	return "", notFoundf("no memory %q for agent %q: check the ID (engram search and engram list show IDs) and --agent", id, m.AgentID())
}

func (a *app) restoreCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "restore ID",
		Short: "Bring an archived memory back",
		Long: `restore brings a memory that compaction, decay or a removed memory.md line
archived back where it was, with its full-text entry and its links. An ID
the archive does not hold exits 3; one stored again since exits 5.`,
		Example: `  engram restore 01JV8ZQ4N4E9W6KX5M2T3B7C1D`,
		Args:    cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				if err := m.Restore(ctx, args[0]); err != nil {
					if errors.Is(err, engram.ErrNotFound) {
						return hint(err, fmt.Sprintf("the archive of agent %q holds no %s", m.AgentID(), args[0]))
					}
					return err
				}
				return a.output(map[string]any{"id": args[0], "restored": true}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "restored %s\n", args[0])
					return err
				})
			})
		}),
	}
}

// reportView is a compaction, decay or consolidation report as --json
// prints it.
type reportView struct {
	Strategy      engram.CompactionStrategy `json:"strategy"`
	Actions       []actionView              `json:"actions"`
	Decayed       int                       `json:"decayed"`
	HistoryPruned int                       `json:"historyPruned"`
}

type actionView struct {
	Kind   engram.ActionKind `json:"kind"`
	Step   string            `json:"step"`
	Type   engram.MemoryType `json:"type,omitempty"`
	ID     string            `json:"id,omitempty"`
	Into   string            `json:"into,omitempty"`
	Detail string            `json:"detail,omitempty"`
}

func (a *app) printReport(r engram.CompactionReport) error {
	v := reportView{Strategy: r.Strategy, Actions: []actionView{}, Decayed: r.Decayed, HistoryPruned: r.HistoryPruned}
	for _, x := range r.Actions {
		v.Actions = append(v.Actions, actionView{x.Kind, x.Step, x.Type, x.ID, x.Into, x.Detail})
	}
	return a.output(v, func(w io.Writer) error {
		fmt.Fprintf(w, "%s: %d archived, %d merged, %d digests, %d decayed, %d history entries pruned\n",
			v.Strategy, r.Count(engram.ActionArchive), r.Count(engram.ActionMerge), r.Count(engram.ActionDigest),
			v.Decayed, v.HistoryPruned)
		if len(v.Actions) == 0 {
			return nil
		}
		t := newTable(w, "ACTION", "STEP", "TYPE", "ID", "INTO", "DETAIL")
		for _, x := range v.Actions {
			t.row(x.Kind, x.Step, or(string(x.Type), "-"), or(x.ID, "-"), or(x.Into, "-"), clip(or(x.Detail, "-"), 60))
		}
		return t.flush()
	})
}

func (a *app) compactCmd() *cobra.Command {
	var strategies []string
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Keep memory within its limits: archive, roll up, merge, decay",
		Long: `compact runs compaction strategies, in the order given, or the configured
one (progressive) without --strategy:

  count        archive each kind's lowest-value entries above its limit
  time         roll old days of episodes into digests and archive them
  semantic     merge near-duplicate semantic entries
  progressive  count, time, semantic, then decay

Nothing is deleted: what leaves goes to the archive (see restore). Verified
memories are never archived.`,
		Example: `  engram compact
  engram compact --strategy semantic --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			var ss []engram.CompactionStrategy
			for _, s := range strategies {
				ss = append(ss, engram.CompactionStrategy(s))
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				r, err := m.Compact(ctx, ss...)
				if err != nil {
					return err
				}
				return a.printReport(r)
			})
		}),
	}
	cmd.Flags().StringSliceVar(&strategies, "strategy", nil, "count, time, semantic or progressive; repeat or comma-separate")
	return cmd
}

func (a *app) decayCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "decay",
		Short: "Recompute resonance and archive faded memories",
		Long: `decay recomputes every memory's resonance, which falls with the days since
it was last used, and archives the semantic entries and procedures whose
resonance fell below the minimum and whose importance is under 0.5
(verified ones excepted). Search ranks by resonance.`,
		Example: `  engram decay`,
		Args:    cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				r, err := m.Decay(ctx)
				if err != nil {
					return err
				}
				return a.printReport(r)
			})
		}),
	}
}

func (a *app) reindexCmd() *cobra.Command {
	var change bool
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Embed every memory again (Tier 2)",
		Long: `reindex embeds every memory of the agent again with the embedder of
--embedder, in batches of 64, one transaction each; an interrupted reindex
resumes where it stopped. It needs --tier 2 (exit 2 without). A database
whose vectors have another dimension needs --dimension-change, which drops
the stored vectors of every agent in the file first.

On a terminal it draws a progress bar on stderr.`,
		Example: `  engram --embedder hashing reindex
  engram --embedder ollama --embedder-model nomic-embed-text --dims 768 reindex --dimension-change`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			if a.g.tier != 2 {
				return usagef("reindex needs --tier 2 and an --embedder")
			}
			a.g.dimensionChange, a.g.setsUpVectors = change, true
			return a.withMemory(ctx, false, func(m *engram.Memory) error { return a.reindex(ctx, m) })
		}),
	}
	cmd.Flags().BoolVar(&change, "dimension-change", false, "accept a new dimension: drop the stored vectors (of every agent in the file) and embed again")
	return cmd
}

// reindex embeds m's memories again, with a progress bar, and says how
// many still wait for their vectors.
func (a *app) reindex(ctx context.Context, m *engram.Memory) error {
	bar := newProgress(a.stderr, "reindex", 0)
	err := m.Reindex(ctx, func(done, total int) { bar.set(int64(done), int64(total)) })
	bar.done()
	if err != nil {
		return err
	}
	st, err := m.Stats(ctx)
	if err != nil {
		return err
	}
	return a.output(map[string]int{"pending": st.PendingEmbeddings}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "reindexed; %d memories wait for their vectors\n", st.PendingEmbeddings)
		return err
	})
}

func (a *app) checkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check the database's integrity",
		Long: `check runs SQLite's integrity check, the full-text indexes' checks and
engram's checks of what it derives from the rows (term vectors, statistics,
vectors), over the whole file: every agent's memory in it. It holds the
file's write lock while SQLite checks. A damaged database exits 4.`,
		Example: `  engram check
  engram --path team.db check`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				if err := m.CheckIntegrity(ctx); err != nil {
					if errors.Is(err, engram.ErrClosed) || errors.Is(err, context.Canceled) {
						return err
					}
					return damaged{err}
				}
				return a.output(map[string]any{"ok": true, "path": m.Path()}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "%s: ok\n", m.Path())
					return err
				})
			})
		}),
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// historyView is a history entry as --json prints it: memview's, as
// GET /v1/memory/{id}/history and GET /v1/changes show it.
type historyView = memview.Change

func (a *app) historyCmd() *cobra.Command {
	var (
		since string
		limit int
	)
	cmd := &cobra.Command{
		Use:   "history [ID]",
		Short: "Show how a memory changed, or the agent's recent changes",
		Long: `history shows the changes recorded of the memory or fact with the given ID
(create, update, merge, supersede, archive, restore, decay, import,
forget), with who made each and why. Without an ID it shows the agent's
changes as a feed. Either way it shows the newest first: the newest
--limit changes, from --since on (by default all).`,
		Example: `  engram history 01JV8ZQ4N4E9W6KX5M2T3B7C1D
  engram history --since 7d --limit 50
  engram --json history`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			from, err := optTime("--since", since)
			if err != nil {
				return err
			}
			if limit < 1 || limit > 10000 {
				return usagef("--limit %d: use 1 to 10000", limit)
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				var entries []engram.HistoryEntry
				if len(args) == 1 {
					entries, err = m.History(ctx, args[0])
					entries = slices.DeleteFunc(entries, func(e engram.HistoryEntry) bool { return e.At.Before(from) })
					slices.Reverse(entries)
					entries = entries[:min(limit, len(entries))]
				} else {
					entries, err = m.Changes(ctx, engram.ChangeQuery{Since: from, Limit: limit, Newest: true})
				}
				if err != nil {
					return err
				}
				views := memview.Changes(entries)
				return a.output(views, func(w io.Writer) error { return writeHistory(w, views) })
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&since, "since", "", "only changes since (2026-05-01, 7d, ...)")
	f.IntVar(&limit, "limit", 100, "at most this many changes, the newest (up to 10000)")
	return cmd
}

func writeHistory(w io.Writer, views []historyView) error {
	if len(views) == 0 {
		_, err := fmt.Fprintln(w, "no history")
		return err
	}
	t := newTable(w, "SEQ", "AT", "OP", "TYPE", "ID", "ACTOR", "REASON")
	for _, v := range views {
		t.row(v.Seq, when(v.At), v.Op, v.Type, v.ID, or(v.Actor, "-"), clip(or(v.Reason, "-"), 40))
	}
	return t.flush()
}

func (a *app) exportCmd() *cobra.Command {
	var (
		out  string
		opts engram.ExportOptions
		ff   filterFlags
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the agent's memory as JSON Lines",
		Long: `export writes the agent's memory, of every kind, with its archive, links,
fact aliases and extraction rules, as JSON Lines in engram's export format
(docs/export-format.md): to stdout, or to a new file with -o, which is
written beside its name first and renamed when complete (an existing file
exits 5). --vectors adds Tier 2's vectors, --history the history of changes.
engram import reads it back, into any agent.

With a filter, it writes only the memories the filter keeps (one user's,
say), with their archived entries the filter keeps, the links between two
of them, their vectors and history, the extraction rules, and the fact
aliases when the filter keeps facts. ` + filterHelp + `

On a terminal it draws a progress bar on stderr.`,
		Example: `  engram export > ada.jsonl
  engram export -o ada.jsonl --history
  engram export --user-id ada -o ada-user.jsonl
  engram --tier 2 export --vectors -o ada.jsonl`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			var err error
			if opts.Filter, err = ff.filter(); err != nil {
				return err
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				if out == "" {
					return filterError(a.export(ctx, m, a.out, opts))
				}
				n, err := a.exportFile(ctx, m, out, opts)
				if err != nil {
					return filterError(err)
				}
				return a.output(map[string]any{"path": out, "bytes": n}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "exported agent %q to %s (%d bytes)\n", m.AgentID(), out, n)
					return err
				})
			})
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "write to this new file instead of stdout")
	f.BoolVar(&opts.Vectors, "vectors", false, "add each memory's vector (Tier 2)")
	f.BoolVar(&opts.History, "history", false, "add the history of changes")
	ff.add(cmd, "only these kinds, comma-separated")
	return cmd
}

// export streams m's export to w, counting bytes on a progress bar.
func (a *app) export(ctx context.Context, m *engram.Memory, w io.Writer, opts engram.ExportOptions) error {
	bar := newProgress(a.stderr, "export", 0).bytes()
	err := m.Export(ctx, countingWriter{w, bar}, opts)
	bar.done()
	return err
}

// exportFile exports to a temporary file beside path and renames it to
// path once complete, so that path is a whole export or nothing. It
// returns the file's size.
func (a *app) exportFile(ctx context.Context, m *engram.Memory, path string, opts engram.ExportOptions) (int64, error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, hint(fmt.Errorf("export: %s: %w", path, fs.ErrExist), "choose a new file, or remove it first")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	err = a.export(ctx, m, tmp, opts)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(tmp.Name())
	if err != nil {
		return 0, err
	}
	if _, err := os.Lstat(path); err == nil {
		return 0, hint(fmt.Errorf("export: %s: %w", path, fs.ErrExist), "it appeared meanwhile: choose a new file")
	}
	return fi.Size(), os.Rename(tmp.Name(), path)
}

// importView is an import report as --json prints it.
type importView struct {
	From     string         `json:"from"`
	Agent    string         `json:"agent"`
	Added    map[string]int `json:"added"`
	Replaced map[string]int `json:"replaced"`
	Skipped  map[string]int `json:"skipped"`
}

func (a *app) importCmd() *cobra.Command {
	var conflict string
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Read an export into the agent's memory",
		Long: `import reads a file written by engram export (or stdin, with -) into the
agent of --agent, whichever agent it was exported from, in one transaction:
every record or, on any error, none. It creates the agent's database when
there is none (and removes it again if the import fails).

A record the agent holds already is a conflict: --conflict fail (the
default) refuses the file (exit 5), skip keeps the agent's, replace takes
the file's. A malformed file is refused with the line at fault (exit 2).

On a terminal it draws a progress bar on stderr.`,
		Example: `  engram --agent copy import ada.jsonl
  engram export | engram --agent copy import - --conflict skip`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			var opts engram.ImportOptions
			switch conflict {
			case "fail":
				opts.Conflict = engram.ConflictFail
			case "skip":
				opts.Conflict = engram.ConflictSkip
			case "replace":
				opts.Conflict = engram.ConflictReplace
			default:
				return usagef("--conflict %q: use fail, skip or replace", conflict)
			}
			r, size, closeFile, err := a.openInput(args[0])
			if err != nil {
				return err
			}
			defer closeFile()
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				bar := newProgress(a.stderr, "import", size).bytes()
				rep, err := m.Import(ctx, countingReader{r, bar}, opts)
				bar.done()
				if errors.Is(err, engram.ErrExists) {
					return hint(err, "pass --conflict skip to keep the agent's records, or --conflict replace to take the file's")
				}
				if err != nil {
					return err
				}
				return a.printImport(args[0], rep)
			})
		}),
	}
	cmd.Flags().StringVar(&conflict, "conflict", "fail", "what to do with a record the agent has: fail, skip or replace")
	return cmd
}

// openInput opens FILE or, for "-", stdin, and returns its size when known.
func (a *app) openInput(name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return a.in, 0, func() {}, nil
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil, notFoundf("no file %s to import", name)
	}
	if err != nil {
		return nil, 0, nil, err
	}
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return f, size, func() { f.Close() }, nil
}

func (a *app) printImport(from string, rep engram.ImportReport) error {
	v := importView{From: from, Agent: rep.Agent, Added: nonNilMap(rep.Added), Replaced: nonNilMap(rep.Replaced),
		Skipped: nonNilMap(rep.Skipped)}
	return a.output(v, func(w io.Writer) error {
		fmt.Fprintf(w, "imported %s (exported from agent %q)\n", from, rep.Agent)
		t := newTable(w, "RECORD", "ADDED", "REPLACED", "SKIPPED")
		for _, k := range recordKeys(v) {
			t.row(k, v.Added[k], v.Replaced[k], v.Skipped[k])
		}
		return t.flush()
	})
}

// recordKeys are the kinds and record types an import report counts,
// sorted.
func recordKeys(v importView) []string {
	var keys []string
	for _, m := range []map[string]int{v.Added, v.Replaced, v.Skipped} {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func nonNilMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

func (a *app) backupCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "backup DST",
		Short: "Copy the database to a new file, checked",
		Long: `backup writes a consistent copy of the database to DST, a new file, while
agents may keep working on it: every write acknowledged before it began is
in the copy. The copy is checked before it is given its name, so a backup
that exists is a good one. It is the whole file (with --path, every agent's
memory in it); open it with --path DST. An existing DST exits 5; a missing
directory exits 2.

Back up with this rather than cp: memory.db alone lacks the latest writes,
which live in memory.db-wal.`,
		Example: `  engram backup /backups/ada-2026-05-01.db
  engram --path /backups/ada-2026-05-01.db stats`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				if err := m.Backup(ctx, args[0]); err != nil {
					return err
				}
				return a.output(map[string]string{"from": m.Path(), "to": args[0]}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "backed up %s to %s\n", m.Path(), args[0])
					return err
				})
			})
		}),
	}
}

func (a *app) forgetCmd() *cobra.Command {
	var (
		all, yes bool
		ff       filterFlags
		cmd      *cobra.Command
	)
	cmd = &cobra.Command{
		Use:   "forget ID | forget --user-id USER --yes | forget FILTER --yes | forget --agent-all --yes",
		Short: "Erase a memory, a user's memories, or all of an agent's, for good",
		Long: `forget ID erases the memory or fact with the given ID, current or archived,
from every place that held it: its row, full-text entry, vector, links,
archive entry and history (one "forget" entry without content remains) and
memory.md. Deleted bytes are overwritten.

forget --user-id USER --yes erases, in the same way, every memory of one
user of the agent (semantic entries, episodes and procedures stored with
--user-id USER, current or archived) and prints how many; other users'
memories, those of no user, and the agent's facts, snapshots and documents
stay. It asks for --yes because nothing brings them back, as DELETE
/v1/users/{user_id} and the MCP tool forget_user do without asking.

forget with any other filter flag (--session-id, --type, --tags, --since,
--until, --metadata, with or without --user-id) and --yes erases every
current memory that list shows with the same flags, each as forget ID
does, and prints how many (DELETE /v1/memories and the MCP tool
forget_memories with a filter).

forget --agent-all --yes erases every memory of the agent and everything
engram keeps about it, and in the directory layout its database files and
directory. It asks for --yes because nothing brings the memory back; close
every program using the agent's memory first.`,
		Example: `  engram forget 01JV8ZQ4N4E9W6KX5M2T3B7C1D
  engram forget --user-id ada --yes
  engram forget --session-id run-7 --metadata '{"key":"stage","eq":"draft"}' --yes
  engram --agent old-bot forget --agent-all --yes`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			f, err := ff.filter()
			if err != nil {
				return err
			}
			// --user-id alone is ForgetUser, which takes the user's archived
			// memories and history too; any other filter is ForgetMatching.
			byUser := f != nil && f.UserID != "" && (&engram.Filter{SessionID: f.SessionID, Types: f.Types, Tags: f.Tags,
				Since: f.Since, Until: f.Until, Metadata: f.Metadata}).IsZero()
			switch {
			case all && f != nil:
				return usagef("give a filter or --agent-all, not both")
			case len(args) == 1 && all:
				return usagef("give an ID or --agent-all, not both")
			case len(args) == 1 && f != nil:
				return usagef("give an ID or a filter (--user-id, ...), not both")
			case !all && f == nil && len(args) == 0:
				return usagef("give the ID to forget, --user-id USER --yes, a filter and --yes, or --agent-all --yes")
			case all && !yes:
				return usagef("forget --agent-all erases agent %q for good: pass --yes too", a.g.agent)
			case byUser && !yes:
				return usagef("forget --user-id erases every memory of user %q of agent %q for good: pass --yes too", f.UserID, a.g.agent)
			case f != nil && !yes:
				return usagef("forget with a filter erases every memory it matches in agent %q for good: pass --yes too", a.g.agent)
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				switch {
				case all:
					return a.forgetAgent(ctx, m)
				case byUser:
					return a.forgetUser(ctx, m, f.UserID)
				case f != nil:
					return a.forgetMatching(ctx, m, *f)
				}
				if err := m.Forget(ctx, args[0]); err != nil {
					return err
				}
				return a.output(map[string]any{"id": args[0], "forgotten": true}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "forgot %s\n", args[0])
					return err
				})
			})
		}),
	}
	cmd.Flags().BoolVar(&all, "agent-all", false, "erase every memory of the agent")
	ff.add(cmd, "erase only memories of these kinds, comma-separated")
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm a filter or --agent-all")
	return cmd
}

// forgetMatching erases the memories of m that f matches and says how
// many there were, as DELETE /v1/memories answers.
func (a *app) forgetMatching(ctx context.Context, m *engram.Memory, f engram.Filter) error {
	n, err := m.ForgetMatching(ctx, f)
	if err != nil {
		return err
	}
	v := map[string]any{"agent": m.AgentID(), "deleted": n}
	return a.output(v, func(w io.Writer) error {
		noun := "memories"
		if n == 1 {
			noun = "memory"
		}
		_, err := fmt.Fprintf(w, "forgot %d %s\n", n, noun)
		return err
	})
}

// forgetUser erases the memories of user in m and says how many there
// were, as DELETE /v1/users/{user_id} answers.
func (a *app) forgetUser(ctx context.Context, m *engram.Memory, user string) error {
	n, err := m.ForgetUser(ctx, user)
	if err != nil {
		return err
	}
	v := map[string]any{"agent": m.AgentID(), "user_id": user, "deleted": n}
	return a.output(v, func(w io.Writer) error {
		noun := "memories"
		if n == 1 {
			noun = "memory"
		}
		_, err := fmt.Fprintf(w, "forgot %d %s of user %q\n", n, noun, user)
		return err
	})
}

func (a *app) forgetAgent(ctx context.Context, m *engram.Memory) error {
	agent := m.AgentID()
	if err := m.ForgetAgent(ctx); err != nil {
		return err
	}
	return a.output(map[string]any{"agent": agent, "forgotten": true}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "forgot agent %q\n", agent)
		return err
	})
}

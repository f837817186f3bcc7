package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// ingestView is the reports of an ingest as --json prints them.
type ingestView struct {
	Path      string   `json:"path"`
	Files     int      `json:"files"`
	Chunks    int      `json:"chunks"`
	Stored    int      `json:"stored"`
	Updated   int      `json:"updated"`
	Linked    int      `json:"linked"`
	Skipped   int      `json:"skipped"`
	Archived  int      `json:"archived"`
	Extracted int      `json:"extracted"`
	Errors    []string `json:"errors"`
}

func (a *app) ingestCmd() *cobra.Command {
	var opts engram.IngestOptions
	cmd := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "Read markdown files into document memory",
		Long: `ingest reads each markdown file, or tree of them, into document memory:
split at h1–h3 headings into chunks that cite their file and heading path
in search results. An unchanged chunk is skipped, a changed file updates
its changed chunks, and chunks that left a file are archived, so ingesting
a tree again keeps memory in step with it. Each file is one transaction.

Files that cannot be read (binary, invalid UTF-8, too large) are listed and
the rest is stored; the command then exits 1. It creates the agent's
database when there is none. On a terminal it draws a progress bar.`,
		Example: `  engram ingest docs
  engram ingest README.md guide/ --json
  engram ingest notes --ext .md,.txt`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			if opts.Name != "" && len(args) > 1 {
				return usagef("--name names one PATH: ingest the paths one at a time")
			}
			failed := 0
			err := a.withMemory(ctx, true, func(m *engram.Memory) error {
				views, n, err := a.ingest(ctx, m, args, opts)
				if err != nil {
					return err
				}
				failed = n
				return a.output(views, func(w io.Writer) error { return writeIngest(w, views) })
			})
			// Outside withMemory, which would take back a new database: what
			// could be stored was.
			if err == nil && failed > 0 {
				err = fmt.Errorf("ingest: %d files or chunks were not stored (listed above); the rest was", failed)
			}
			return err
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.Name, "name", "", "what the sources are named under (default: the base name of PATH)")
	f.StringSliceVar(&opts.Extensions, "ext", nil, "file name endings read from a directory (default .md,.markdown)")
	f.IntVar(&opts.MaxChunkChars, "max-chunk-chars", 0, "split sections longer than this between paragraphs (default 12000)")
	f.BoolVar(&opts.Extract, "extract", false, "run each new chunk through the agent's extraction rules")
	return cmd
}

// ingest ingests each path in turn and returns their reports and how many
// files or chunks failed.
func (a *app) ingest(ctx context.Context, m *engram.Memory, paths []string, opts engram.IngestOptions) ([]ingestView, int, error) {
	views := []ingestView{}
	failed := 0
	for _, path := range paths {
		bar := newProgress(a.stderr, "ingest "+path, 0)
		opts.Progress = func(_ string, r engram.IngestReport) { bar.set(int64(r.Files), 0) }
		rep, err := m.Ingest(ctx, path, opts)
		bar.done()
		if err != nil {
			return nil, 0, err
		}
		errs := rep.Errors
		if errs == nil {
			errs = []string{}
		}
		failed += len(errs)
		views = append(views, ingestView{path, rep.Files, rep.Chunks, rep.Stored, rep.Updated, rep.Linked,
			rep.Skipped, rep.Archived, rep.Extracted, errs})
	}
	return views, failed, nil
}

func writeIngest(w io.Writer, views []ingestView) error {
	t := newTable(w, "PATH", "FILES", "CHUNKS", "STORED", "UPDATED", "LINKED", "SKIPPED", "ARCHIVED")
	for _, v := range views {
		t.row(v.Path, v.Files, v.Chunks, v.Stored, v.Updated, v.Linked, v.Skipped, v.Archived)
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, v := range views {
		for _, e := range v.Errors {
			fmt.Fprintf(w, "not stored: %s\n", e)
		}
	}
	return nil
}

// markdownView is a memory.md import report as --json prints it.
type markdownView struct {
	Path      string   `json:"path"`
	Changed   bool     `json:"changed"`
	Updated   []string `json:"updated"`
	Added     []string `json:"added"`
	Archived  []string `json:"archived"`
	Conflicts []string `json:"conflicts"`
	Skipped   []string `json:"skipped"`
	Rejected  string   `json:"rejected,omitempty"`
	KeptAt    string   `json:"keptAt,omitempty"`
}

func (a *app) markdownCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "markdown",
		Short: "Write memory.md, or read a person's edits to it back",
		Long: `memory.md is a readable projection of the agent's semantic memory, beside
its database in the directory layout ({dir}/{agent}/memory.md; with --path
there is none). A person may edit it:

  markdown export   write memory.md from the database now
  markdown import   read the edits back (edited, added and removed lines),
                    then write the file again

An entry edited in the file and changed in the database since is a
conflict: the database wins, and the file as found is kept as
memory.md.kept.`,
		Example: `  engram markdown export
  $EDITOR .engram/memory/default/memory.md
  engram markdown import`,
	}
	return group(cmd, &cobra.Command{
		Use:     "export",
		Short:   "Write memory.md from the database",
		Long:    "markdown export writes memory.md from the database and prints its path. Edits made to the file since engram last wrote it are overwritten: import them first.",
		Example: "  engram markdown export",
		Args:    cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				text, err := m.ExportMarkdown(ctx)
				if errors.Is(err, engram.ErrInvalid) {
					return hint(err, "memory.md is written only in the directory layout (--dir, not --path)")
				} else if err != nil {
					return err
				}
				return a.output(map[string]any{"path": m.MarkdownPath(), "bytes": len(text)}, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "wrote %s\n", m.MarkdownPath())
					return err
				})
			})
		}),
	}, &cobra.Command{
		Use:     "import",
		Short:   "Read a person's edits to memory.md back",
		Long:    "markdown import reads the edits made to memory.md back into semantic memory and writes the file again. Lines that could not be applied are listed.",
		Example: "  engram markdown import --json",
		Args:    cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				rep, err := m.ImportMarkdown(ctx)
				if errors.Is(err, engram.ErrInvalid) {
					return hint(err, "memory.md is read only in the directory layout (--dir, not --path)")
				} else if err != nil {
					return err
				}
				return a.printMarkdown(m.MarkdownPath(), rep)
			})
		}),
	})
}

func (a *app) printMarkdown(path string, rep engram.MarkdownReport) error {
	v := markdownView{Path: path, Changed: rep.Changed, Updated: memview.NonNil(rep.Updated), Added: memview.NonNil(rep.Added),
		Archived: memview.NonNil(rep.Archived), Conflicts: []string{}, Skipped: []string{}, Rejected: rep.Rejected, KeptAt: rep.KeptAt}
	for _, c := range rep.Conflicts {
		v.Conflicts = append(v.Conflicts, fmt.Sprintf("line %d: %s (the database's version was kept)", c.Line, c.ID))
	}
	for _, s := range rep.Skipped {
		v.Skipped = append(v.Skipped, s.String())
	}
	return a.output(v, func(w io.Writer) error {
		if !v.Changed {
			_, err := fmt.Fprintf(w, "%s has not changed since engram wrote it\n", path)
			return err
		}
		fmt.Fprintf(w, "%s: %d updated, %d added, %d archived, %d conflicts\n",
			path, len(v.Updated), len(v.Added), len(v.Archived), len(v.Conflicts))
		for _, s := range append(append(v.Conflicts, v.Skipped...), v.Rejected) {
			if s != "" {
				fmt.Fprintln(w, "  "+s)
			}
		}
		if v.KeptAt != "" {
			fmt.Fprintf(w, "the file as found is kept at %s\n", v.KeptAt)
		}
		return nil
	})
}

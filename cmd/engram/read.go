package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

func (a *app) getCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Show one memory or fact, of any kind",
		Long: `get shows the memory with the given ID, whatever its kind: a semantic entry,
an episode, a procedure, a fact, a session snapshot or a document chunk.
With --json it prints the memory as GET /v1/memories/{id} and the MCP tool
get_memory show it. An ID the agent does not have (another agent's
included) exits 3.`,
		Example: `  engram get 01JV8ZQ4N4E9W6KX5M2T3B7C1D
  engram --json get 01JV8ZQ4N4E9W6KX5M2T3B7C1D`,
		Args: exactArgs(1, "ID"),
		RunE: runE(func(ctx context.Context, args []string) error {
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				rec, err := m.Get(ctx, args[0])
				if errors.Is(err, engram.ErrNotFound) {
					return notFoundf("no memory %q for agent %q: check the ID (engram search and engram list show IDs) and --agent", args[0], m.AgentID())
				}
				if err != nil {
					return err
				}
				return a.output(memview.Of(rec), func(w io.Writer) error { return writeMemory(w, rec) })
			})
		}),
	}
}

// listView is what list prints with --json: a page of GET /v1/memories.
type listView struct {
	Memories   []any  `json:"memories"`
	Count      int    `json:"count"`
	NextCursor string `json:"next_cursor,omitempty"`
}

func (a *app) listCmd() *cobra.Command {
	var (
		ff     filterFlags
		cursor string
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories of every kind, newest first, a page at a time",
		Long: `list lists the agent's memories of every kind, newest first by when they were
stored (a fact by when it was recorded, current or not), as GET /v1/memories
and the MCP tool list_memories do. When there are more than --limit, the
next page's cursor follows the table ("next page: --cursor ..."; with
--json, next_cursor): pass it to --cursor.

--type (or --kind) keeps some kinds, comma-separated: semantic, episodic,
procedural, fact, snapshot or document, or a plural or noun of one (notes,
episodes, procedures, triples, docs). --tags keeps the memories with one of
the tags (kinds without tags are left out); --since and --until keep those
stored in [since, until). Archived memories are not listed. The next page
is asked for with the same filter and the cursor.

` + filterHelp,
		Example: `  engram list
  engram list --type episodic,fact --limit 5
  engram list --tags ops --since 7d
  engram list --user-id ada --metadata '{"key":"lang","in":["en","fr"]}'
  engram --json list --cursor eyJ0IjoxNzE...`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			if limit < 1 || limit > engram.MaxListPage {
				return usagef("--limit %d: use 1 to %d", limit, engram.MaxListPage)
			}
			mq := engram.MemoryQuery{Limit: limit, Cursor: cursor}
			f, err := ff.filter()
			if err != nil {
				return err
			}
			if f != nil {
				// The kinds, tags and times are the query's own, as
				// GET /v1/memories has them: List names the kinds it
				// lists (no working set).
				mq.Types, mq.Tags, mq.Since, mq.Until = f.Types, f.Tags, f.Since, f.Until
				f.Types, f.Tags, f.Since, f.Until = nil, nil, time.Time{}, time.Time{}
				if !f.IsZero() {
					mq.Filter = f
				}
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				page, err := m.List(ctx, mq)
				if err != nil {
					return listError(err)
				}
				v := listView{Memories: memview.List(page.Records), Count: len(page.Records), NextCursor: page.Next}
				return a.output(v, func(w io.Writer) error {
					if err := writeList(w, page.Records); err != nil || page.Next == "" {
						return err
					}
					_, err := fmt.Fprintf(w, "next page: --cursor %s\n", page.Next)
					return err
				})
			})
		}),
	}
	f := cmd.Flags()
	ff.add(cmd, "only these kinds, comma-separated (--kind is the same flag)")
	f.IntVar(&limit, "limit", 50, fmt.Sprintf("at most this many, 1 to %d", engram.MaxListPage))
	f.StringVar(&cursor, "cursor", "", "the page after the one that printed this cursor")
	aliasFlags(cmd, map[string]string{"kind": "type"})
	return cmd
}

// listError names the flag an error of engram.Memory.List is about: one
// of the query's, or of the filter's (see filterError).
func listError(err error) error {
	var ie *engram.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	flag, ok := map[string]string{"Types": "--type", "Tags": "--tags", "Since": "--since", "Until": "--until",
		"Limit": "--limit", "Cursor": "--cursor"}[strings.SplitN(ie.Field, "[", 2)[0]]
	if !ok {
		return filterError(err)
	}
	return usagef("%s: %s", flag, ie.Reason)
}

// writeList prints the memories records hold, one a line; the columns
// USER, SESSION and METADATA when a memory listed has one.
func writeList(w io.Writer, records []engram.Record) error {
	if len(records) == 0 {
		_, err := fmt.Fprintln(w, "no memories")
		return err
	}
	views := make([]memoryView, len(records))
	for i, r := range records {
		var err error
		if views[i], err = recordView(r); err != nil {
			return err
		}
	}
	var users, sessions, metas bool
	for _, v := range views {
		users, sessions, metas = users || v.UserID != "", sessions || v.SessionID != "", metas || len(v.Metadata) > 0
	}
	header := []string{"ID", "TYPE", "CREATED"}
	for _, c := range []struct {
		shown bool
		name  string
	}{{users, "USER"}, {sessions, "SESSION"}, {metas, "METADATA"}} {
		if c.shown {
			header = append(header, c.name)
		}
	}
	t := newTable(w, append(header, "TEXT")...)
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
		cells := []any{v.ID, v.Type, when(created)}
		for _, c := range []struct {
			shown bool
			value string
		}{{users, v.UserID}, {sessions, v.SessionID}, {metas, clip(metadataText(v.Metadata), 40)}} {
			if c.shown {
				cells = append(cells, or(c.value, "-"))
			}
		}
		t.row(append(cells, clip(text, 80))...)
	}
	return t.flush()
}

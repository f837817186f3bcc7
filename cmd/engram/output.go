package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// runE adapts a command's work to cobra: it passes the command's context,
// and marks what the work returns as the command's own error (not a
// mistake in the command line; see exitCode).
func runE(f func(ctx context.Context, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := f(cmd.Context(), args); err != nil {
			return ranError{err}
		}
		return nil
	}
}

// group makes cmd a command of subcommands: run alone, or with an
// unknown subcommand, it is a usage error naming them.
func group(cmd *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	cmd.AddCommand(subs...)
	names := func() string {
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		return strings.Join(names, ", ")
	}
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q for %q: use %s", args[0], cmd.CommandPath(), names())
		}
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return usagef("%s needs one of its commands: %s", cmd.Name(), names())
	}
	return cmd
}

// printJSON writes v as one indented JSON document.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// output writes v as JSON with --json, and calls text otherwise.
func (a *app) output(v any, text func(w io.Writer) error) error {
	if a.g.json {
		return a.printJSON(v)
	}
	return text(a.out)
}

// table writes aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(toAny(header)...)
	}
	return t
}

func (t *table) row(cells ...any) {
	s := make([]string, len(cells))
	for i, c := range cells {
		s[i] = oneLine(fmt.Sprint(c))
	}
	fmt.Fprintln(t.tw, strings.Join(s, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// oneLine keeps a cell on one line of a table.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to n characters for a table cell.
func clip(s string, n int) string {
	s = oneLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// when formats a time for people: the zero time is "-".
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// parseTime reads a time from the command line: RFC 3339, a date
// (2006-01-02), a date and a time (2006-01-02T15:04 or 2006-01-02 15:04),
// or an age before now (90m, 36h, 7d).
func parseTime(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(d, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == d {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: use 2026-05-01, 2026-05-01T15:04, RFC 3339 or an age such as 36h or 7d", s)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// Commands that mirror the HTTP API's routes of memories and facts, with
// the same words: update is PATCH /v1/memories/{id}, facts GET /v1/facts.

func (a *app) updateCmd() *cobra.Command {
	var (
		content, summary, description, pattern string
		importance                             float64
		verified, disabled                     bool
		tags                                   []string
	)
	cmd := &cobra.Command{
		Use:   "update ID --FIELD VALUE...",
		Short: "Change a semantic entry's or a procedure's fields",
		Long: `update changes the fields of the memory with the given ID that its kind lets
change, as PATCH /v1/memories/{id} and the MCP tool update_memory do, and
shows it as it is afterwards:

  semantic    --content, --summary, --importance, --verified, --tags
  procedural  --description, --pattern, --tags, --disabled

A flag the memory's kind does not have exits 2 naming it, and changes
nothing; episodes, facts, snapshots and document chunks are records of
what happened or was read, and are not edited (a fact's new value is
asserted: engram add fact). --tags "" clears the tags.`,
		Example: `  engram update 01JV8ZQ4N4E9W6KX5M2T3B7C1D --importance 0.9 --tags user,style
  engram update 01JV8ZQ4N4E9W6KX5M2T3B7C1D --content "Ada prefers very short answers"
  engram update 01JV8ZQ5... --disabled`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			p := memview.Patch{Content: given(f, "content", &content), Summary: given(f, "summary", &summary),
				Importance: given(f, "importance", &importance), Verified: given(f, "verified", &verified),
				Tags: given(f, "tags", &tags), Description: given(f, "description", &description),
				Pattern: given(f, "pattern", &pattern), Disabled: given(f, "disabled", &disabled)}
			if len(p.Given()) == 0 {
				return usagef("update needs a field to change: a semantic entry's %s; a procedure's %s",
					flagList(memview.PatchFields(engram.TypeSemantic)), flagList(memview.PatchFields(engram.TypeProcedural)))
			}
			return runE(func(ctx context.Context, args []string) error {
				return a.withMemory(ctx, false, func(m *engram.Memory) error {
					rec, err := memview.Apply(ctx, m, args[0], p)
					if err != nil {
						return patchError(err, args[0], m.AgentID())
					}
					return a.output(memview.Of(rec), func(w io.Writer) error { return writeMemory(w, rec) })
				})
			})(cmd, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&content, "content", "", "a semantic entry's new text")
	f.StringVar(&summary, "summary", "", "a semantic entry's new line for memory.md")
	f.Float64Var(&importance, "importance", 0, "a semantic entry's new importance, in [0, 1]")
	f.BoolVar(&verified, "verified", false, "whether a semantic entry is verified (--verified=false unmarks it)")
	f.StringSliceVar(&tags, "tags", nil, "the new tags, comma-separated; \"\" clears them")
	f.StringVar(&description, "description", "", "a procedure's new description")
	f.StringVar(&pattern, "pattern", "", "a procedure's new steps, one a line")
	f.BoolVar(&disabled, "disabled", false, "whether a procedure is disabled (--disabled=false enables it)")
	return cmd
}

// given returns v when the flag name was given, nil otherwise: a patch's
// field to change, or to leave.
func given[T any](f *pflag.FlagSet, name string, v *T) *T {
	if f.Changed(name) {
		return v
	}
	return nil
}

// flagList names fields as flags: "--content, --summary".
func flagList(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = "--" + strings.ReplaceAll(f, "_", "-")
	}
	return strings.Join(out, ", ")
}

// patchError says what was wrong with an update in the command's own
// terms: the flag a memory's kind lacks, or the flag of a bad value.
func patchError(err error, id, agent string) error {
	var pe *memview.PatchError
	var ie *engram.InvalidError
	switch {
	case errors.Is(err, engram.ErrNotFound):
		return notFoundf("no memory %q for agent %q: check the ID (engram search and engram list show IDs) and --agent", id, agent)
	case errors.As(err, &pe) && pe.Field == "":
		return usagef("memory %q is %s, which is not edited: %s cannot change (only semantic entries and procedures are)",
			id, memview.Noun(pe.Type), flagList(pe.Given))
	case errors.As(err, &pe):
		return usagef("--%s: memory %q is %s, which has no %s (its flags: %s)",
			strings.ReplaceAll(pe.Field, "_", "-"), id, memview.Noun(pe.Type), pe.Field, flagList(memview.PatchFields(pe.Type)))
	case errors.As(err, &ie) && strings.HasPrefix(ie.Field, "patch."):
		return usagef("--%s: %s", strings.ToLower(strings.TrimPrefix(ie.Field, "patch.")), ie.Reason)
	}
	return err
}

// factsView is what facts prints with --json: GET /v1/facts's answer.
type factsView struct {
	Entity    string         `json:"entity,omitempty"`
	Predicate string         `json:"predicate,omitempty"`
	AsOf      *time.Time     `json:"as_of,omitempty"`
	KnownAt   *time.Time     `json:"known_at,omitempty"`
	History   bool           `json:"history"`
	Facts     []memview.Fact `json:"facts"`
	Count     int            `json:"count"`
}

func (a *app) factsCmd() *cobra.Command {
	var (
		fq                    engram.FactQuery
		direction             string
		asOf, knownAt, slotOf string
	)
	cmd := &cobra.Command{
		Use:   "facts [ENTITY]",
		Short: "Show the facts that hold now, held then, or were believed then",
		Long: `facts shows subject–predicate–object facts, as GET /v1/facts and the MCP
tool get_facts do: those that hold now (of ENTITY, or of every entity);
with --as-of T, those that held at T as engram knows them now; with
--known-at T, what engram held true at T; with --history PREDICATE, every
fact of ENTITY's PREDICATE, current and past, in the order they started.
--direction out keeps the facts ENTITY is the subject of, in those it is
the object of; --predicate keeps one predicate (its synonyms too).

Times are 2026-05-01, 2026-05-01T15:04, RFC 3339, or an age such as 7d.`,
		Example: `  engram facts Ada
  engram facts Ada --as-of 2024-01-01
  engram facts Ada --known-at 30d --predicate "lives in"
  engram --json facts Ada --history "lives in"`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			if len(args) == 1 {
				fq.Entity = args[0]
			}
			fq.Direction = engram.Direction(direction)
			at, err := optTime("--as-of", asOf)
			if err != nil {
				return err
			}
			known, err := optTime("--known-at", knownAt)
			if err != nil {
				return err
			}
			history := slotOf != ""
			switch {
			case !at.IsZero() && !known.IsZero():
				return usagef("--as-of and --known-at are two questions: give one")
			case history && fq.Entity == "":
				return usagef("--history is a slot's: give ENTITY (the subject) too")
			case history && fq.Predicate != "" && fq.Predicate != slotOf:
				return usagef("--history %q and --predicate %q differ: --history names the predicate", slotOf, fq.Predicate)
			case history && (!at.IsZero() || !known.IsZero() || direction != ""):
				return usagef("--history lists every time of the slot: --as-of, --known-at and --direction do not apply")
			case fq.Limit < 1 || fq.Limit > 10000:
				return usagef("--limit %d: use 1 to 10000", fq.Limit)
			}
			if history {
				fq.Predicate = slotOf
			}
			return a.withMemory(ctx, false, func(m *engram.Memory) error {
				fs, err := memview.Facts(ctx, m, memview.FactsAsked{Query: fq, AsOf: at, KnownAt: known, History: history})
				if err != nil {
					return entityHint(err)
				}
				v := factsView{Entity: fq.Entity, Predicate: fq.Predicate, AsOf: memview.Time(at), KnownAt: memview.Time(known),
					History: history, Facts: make([]memview.Fact, 0, len(fs)), Count: len(fs)}
				for _, f := range fs {
					v.Facts = append(v.Facts, memview.FactOf(f))
				}
				return a.output(v, func(w io.Writer) error { return writeFacts(w, fs) })
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&asOf, "as-of", "", "the facts that held at this time, as known now")
	f.StringVar(&knownAt, "known-at", "", "the facts engram held true at this time")
	f.StringVar(&slotOf, "history", "", "every fact of ENTITY's PREDICATE, current and past")
	f.StringVar(&fq.Predicate, "predicate", "", "only facts of this predicate")
	f.StringVar(&direction, "direction", "", "out (ENTITY is the subject) or in (the object); default both")
	f.IntVar(&fq.Limit, "limit", 100, "at most this many, 1 to 10000")
	return cmd
}

// writeFacts prints facts one a line, with the times they held.
func writeFacts(w io.Writer, fs []engram.Fact) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "no facts")
		return err
	}
	t := newTable(w, "ID", "FACT", "FROM", "TO")
	for _, f := range fs {
		t.row(f.ID, clip(f.String(), 70), when(f.ValidFrom), when(f.ValidTo))
	}
	return t.flush()
}

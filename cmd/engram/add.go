package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
)

func (a *app) addCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Store a fact, an episode, a procedure or a triple",
		Long: `add stores one memory and prints its ID. It creates the agent's database
when there is none.

  add fact TEXT          long-term knowledge (semantic memory)
  add episode TEXT       an event of the agent's log (episodic memory)
  add procedure --name   a workflow and its steps (procedural memory)
  add triple S P O       a subject–predicate–object fact with the time it holds

Invalid input (empty text, an importance outside [0, 1], an unknown event
type) exits 2 and stores nothing; an ID or procedure name the agent has
already exits 5.`,
		Example: `  engram add fact "Deploys go through CI only" --importance 0.8 --tags ops,deploy
  engram add episode "Rolled out behind a flag" --type decision-made --task t-42
  engram add procedure --name deploy --steps "run the tests" --steps "tag the release"
  engram add triple Ada "lives in" London --valid-from 2024-03-01`,
	}
	return group(cmd, a.addFactCmd(), a.addEpisodeCmd(), a.addProcedureCmd(), a.addTripleCmd())
}

// added is what add prints with --json.
type added struct {
	Type engram.MemoryType `json:"type"`
	ID   string            `json:"id"`
}

func (a *app) printAdded(typ engram.MemoryType, id string) error {
	return a.output(added{typ, id}, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, id)
		return err
	})
}

func (a *app) addFactCmd() *cobra.Command {
	var e engram.SemanticEntry
	cmd := &cobra.Command{
		Use:   "fact TEXT",
		Short: "Store a piece of long-term knowledge (semantic memory)",
		Long: `add fact stores TEXT in semantic memory and prints its ID. Semantic entries
are what memory.md shows, most important first; storing one links it to
its near-duplicates. An importance of 0 means the default, 0.5.`,
		Example: `  engram add fact "Ada prefers short answers" --importance 0.9 --tags user
  engram add fact "The office is in Leeds" --verified --source user`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			e.Content = args[0]
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				id, err := m.Semantic().Store(ctx, e)
				if err != nil {
					return err
				}
				return a.printAdded(engram.TypeSemantic, id)
			})
		}),
	}
	f := cmd.Flags()
	f.Float64Var(&e.Importance, "importance", 0, "how much it matters, in [0, 1] (default 0.5)")
	f.StringSliceVar(&e.Tags, "tags", nil, "tags, comma-separated")
	f.StringVar(&e.Summary, "summary", "", "one line for memory.md (default: derived from TEXT)")
	f.BoolVar(&e.Verified, "verified", false, "mark it verified: compaction and decay never archive it")
	f.StringVar(&e.Source, "source", "", `who or what it came from ("user", "tool", ...)`)
	f.StringVar(&e.ID, "id", "", "its ID (default: a new time-ordered ID)")
	return cmd
}

func (a *app) addEpisodeCmd() *cobra.Command {
	var (
		ep  engram.Episode
		typ string
	)
	cmd := &cobra.Command{
		Use:   "episode TEXT",
		Short: "Log an event (episodic memory)",
		Long: `add episode appends TEXT to the agent's event log and prints its ID.
--type is one of task-started, task-completed, task-failed, decision-made,
error-encountered, user-feedback, tool-call, observation (the default) or
digest.`,
		Example: `  engram add episode "Upgraded the payments service" --type task-completed --task t-42
  engram add episode "Ada asked for shorter answers" --type user-feedback --session s-1`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(ctx context.Context, args []string) error {
			ep.Content = args[0]
			ep.Type = engram.EventType(typ)
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				id, err := m.Episodic().Log(ctx, ep)
				if err != nil {
					return err
				}
				return a.printAdded(engram.TypeEpisodic, id)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "the event's type (default observation)")
	f.StringVar(&ep.TaskID, "task", "", "the task it belongs to")
	f.StringVar(&ep.SessionID, "session", "", "the session it happened in")
	f.Float64Var(&ep.Cost, "cost", 0, "what it cost, in your unit")
	f.DurationVar(&ep.Duration, "duration", 0, "how long it took (90s, 5m)")
	f.StringToStringVar(&ep.Metadata, "meta", nil, "metadata, as key=value pairs")
	f.StringVar(&ep.ID, "id", "", "its ID (default: a new time-ordered ID)")
	return cmd
}

func (a *app) addProcedureCmd() *cobra.Command {
	var (
		p     engram.Procedure
		steps []string
	)
	cmd := &cobra.Command{
		Use:   "procedure --name NAME --steps STEP...",
		Short: "Store a workflow and its steps (procedural memory)",
		Long: `add procedure stores a workflow under a name unique to the agent and prints
its ID. Each --steps is one step, kept in order, one a line. --success-rate
is the prior before any outcome is recorded (default 0).`,
		Example: `  engram add procedure --name deploy --steps "run the tests" --steps "tag the release" --tags ops`,
		Args:    cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			p.Pattern = strings.Join(steps, "\n")
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				id, err := m.Procedural().Store(ctx, p)
				if err != nil {
					return err
				}
				return a.printAdded(engram.TypeProcedural, id)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&p.Name, "name", "", "its name, unique to the agent (required)")
	f.StringArrayVar(&steps, "steps", nil, "a step; repeat for each step, in order")
	f.StringVar(&p.Description, "description", "", "what it is for")
	f.StringSliceVar(&p.Tags, "tags", nil, "tags, comma-separated")
	f.Float64Var(&p.SuccessRate, "success-rate", 0, "the prior success rate, in [0, 1]")
	f.StringVar(&p.ID, "id", "", "its ID (default: a new time-ordered ID)")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

// assertion is what add triple prints with --json.
type assertion struct {
	Type       engram.MemoryType `json:"type"`
	ID         string            `json:"id"`
	Action     engram.FactAction `json:"action"`
	Fact       memoryView        `json:"fact"`
	Superseded []memoryView      `json:"superseded"`
}

func (a *app) addTripleCmd() *cobra.Command {
	var (
		fact      engram.Fact
		from, to  string
		strengthF float64
	)
	cmd := &cobra.Command{
		Use:   "triple SUBJECT PREDICATE OBJECT",
		Short: "Assert a subject–predicate–object fact",
		Long: `add triple asserts a fact and prints its ID, consolidated with what the
agent knows: the same fact again is merged (its strength grows), a new value
of a predicate that holds one value at a time (lives in, works at, ...)
supersedes the old one, which ends but is kept, and anything else is a new
fact. The second line, when there is one, says what was merged or ended.

Times are 2026-05-01, 2026-05-01T15:04, RFC 3339, or an age such as 7d.`,
		Example: `  engram add triple Ada "lives in" London
  engram add triple Ada "works at" Acme --valid-from 2023-01-09 --source hr-export`,
		Args: cobra.ExactArgs(3),
		RunE: runE(func(ctx context.Context, args []string) error {
			fact.Subject, fact.Predicate, fact.Object = args[0], args[1], args[2]
			fact.Strength = strengthF
			var err error
			if fact.ValidFrom, err = optTime("--valid-from", from); err != nil {
				return err
			}
			if fact.ValidTo, err = optTime("--valid-to", to); err != nil {
				return err
			}
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				as, err := m.Facts().Assert(ctx, fact)
				if err != nil {
					return err
				}
				return a.printAssertion(as)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&from, "valid-from", "", "when it became true (default now)")
	f.StringVar(&to, "valid-to", "", "when it stopped being true (default: it holds)")
	f.StringSliceVar(&fact.Sources, "source", nil, "where it came from; repeat or comma-separate")
	f.Float64Var(&strengthF, "strength", 0, "the evidence it adds (default 1)")
	f.StringVar(&fact.ID, "id", "", "its ID (default: a new time-ordered ID)")
	return cmd
}

func (a *app) printAssertion(as engram.Assertion) error {
	v := assertion{Type: engram.TypeFact, ID: as.Fact.ID, Action: as.Action, Fact: factView(as.Fact),
		Superseded: []memoryView{}}
	for _, f := range as.Superseded {
		v.Superseded = append(v.Superseded, factView(f))
	}
	return a.output(v, func(w io.Writer) error {
		fmt.Fprintln(w, as.Fact.ID)
		switch as.Action {
		case engram.FactMerged:
			fmt.Fprintf(w, "merged into the fact known already: %s (strength %g)\n", as.Fact, as.Fact.Strength)
		case engram.FactSuperseded:
			for _, old := range as.Superseded {
				fmt.Fprintf(w, "superseded %s: %s (ended %s)\n", old.ID, old, when(old.ValidTo))
			}
		}
		return nil
	})
}

// optTime parses an optional time flag; "" is the zero time.
func optTime(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := parseTime(s, time.Now())
	if err != nil {
		return time.Time{}, usagef("%s: %w", flag, err)
	}
	return t, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

func (a *app) addCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Store a memory of one kind: semantic, episodic, procedural or a fact",
		Long: `add stores one memory and prints its ID. It creates the agent's database
when there is none. Its commands are named for the kinds, as the HTTP API's
"type" and the MCP tools name them:

  add semantic TEXT      long-term knowledge, a note (alias: note)
  add episodic TEXT      an event of the agent's log (alias: episode)
  add procedural --name  a workflow and its steps (alias: procedure)
  add fact S P O         a subject–predicate–object fact with the time it
                         holds (alias: triple)

semantic, episodic and procedural take --user-id and --session-id, the user
and the session of the agent the memory belongs to, which search, recall,
context, list, export and forget --user-id select by, and --metadata.

Invalid input (empty text, an importance outside [0, 1], an unknown event
type, a bad --user-id or --metadata) exits 2 and stores nothing; an ID or procedure name the agent has
already exits 5.`,
		Example: `  engram add semantic "Deploys go through CI only" --importance 0.8 --tags ops,deploy
  engram add episodic "Rolled out behind a flag" --type decision-made --task-id t-42
  engram add procedural --name deploy --pattern "run the tests" --pattern "tag the release"
  engram add fact Ada "lives in" London --valid-from 2024-03-01`,
	}
	return group(cmd, a.addSemanticCmd(), a.addEpisodeCmd(), a.addProcedureCmd(), a.addFactCmd())
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

func (a *app) addSemanticCmd() *cobra.Command {
	var e engram.SemanticEntry
	cmd := &cobra.Command{
		Use:     "semantic TEXT",
		Aliases: []string{"note"},
		Short:   "Store a piece of long-term knowledge, a note (semantic memory)",
		Long: `add semantic stores TEXT in semantic memory and prints its ID. Semantic
entries are what memory.md shows, most important first; storing one links
it to its near-duplicates. An importance of 0 means the default, 0.5.
"add note" is the same command.`,
		Example: `  engram add semantic "Ada prefers short answers" --importance 0.9 --tags user
  engram add semantic "Prefers short answers" --user-id ada --metadata '{"lang":"en","stars":3}'
  engram add note "The office is in Leeds" --verified --source user`,
		Args: exactArgs(1, "TEXT"),
		RunE: runE(func(ctx context.Context, args []string) error {
			e.Content = args[0]
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				id, err := m.Semantic().Store(ctx, e)
				if err != nil {
					return scopeError(err)
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
	scopeFlags(cmd, &e.UserID, &e.SessionID)
	f.Var(anyMetaValue{&e.Metadata}, "metadata", `metadata, a JSON object: {"lang":"go","stars":3}`)
	return cmd
}

// scopeFlags gives an add command the flags of the user and the session
// the memory belongs to.
func scopeFlags(cmd *cobra.Command, user, session *string) {
	cmd.Flags().StringVar(user, "user-id", "", "the user of the agent it belongs to (search, list, ... --user-id find it)")
	cmd.Flags().StringVar(session, "session-id", "", "the session it belongs to")
}

// exactArgs accepts n arguments, and says which (names) otherwise.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s: got %d arguments", commandName(cmd), names, len(args))
		}
		return nil
	}
}

func (a *app) addEpisodeCmd() *cobra.Command {
	var (
		ep  engram.Episode
		typ string
	)
	cmd := &cobra.Command{
		Use:     "episodic TEXT",
		Aliases: []string{"episode"},
		Short:   "Log an event (episodic memory)",
		Long: `add episodic appends TEXT to the agent's event log and prints its ID.
--type is one of task-started, task-completed, task-failed, decision-made,
error-encountered, user-feedback, tool-call, observation (the default) or
digest. "add episode" is the same command.`,
		Example: `  engram add episodic "Upgraded the payments service" --type task-completed --task-id t-42
  engram add episode "Ada asked for shorter answers" --type user-feedback --session-id s-1
  engram add episodic "Asked about deploys" --user-id ada --metadata '{"channel":"chat"}'
  engram add episodic "Asked about deploys" --user-id ada --metadata channel=chat,lang=en`,
		Args: exactArgs(1, "TEXT"),
		RunE: runE(func(ctx context.Context, args []string) error {
			ep.Content = args[0]
			ep.Type = engram.EventType(typ)
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				id, err := m.Episodic().Log(ctx, ep)
				if err != nil {
					return scopeError(err)
				}
				return a.printAdded(engram.TypeEpisodic, id)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "the event's type (default observation)")
	f.StringVar(&ep.TaskID, "task-id", "", "the task it belongs to (--task is the same flag)")
	f.StringVar(&ep.UserID, "user-id", "", "the user of the agent it belongs to (search, list, ... --user-id find it)")
	f.StringVar(&ep.SessionID, "session-id", "", "the session it happened in (--session is the same flag)")
	f.Float64Var(&ep.Cost, "cost", 0, "what it cost, in your unit")
	f.DurationVar(&ep.Duration, "duration", 0, "how long it took (90s, 5m)")
	f.Var(stringMetaValue{&ep.Metadata}, "metadata", `metadata of strings, as key=value pairs or a JSON object: {"lang":"go"} (--meta is the same flag)`)
	f.StringVar(&ep.ID, "id", "", "its ID (default: a new time-ordered ID)")
	aliasFlags(cmd, map[string]string{"task": "task-id", "session": "session-id", "meta": "metadata"})
	return cmd
}

func (a *app) addProcedureCmd() *cobra.Command {
	var (
		p     engram.Procedure
		steps []string
	)
	cmd := &cobra.Command{
		Use:     "procedural --name NAME --pattern STEP...",
		Aliases: []string{"procedure"},
		Short:   "Store a workflow and its steps (procedural memory)",
		Long: `add procedural stores a workflow under a name unique to the agent and prints
its ID. Each --pattern (or --steps) is one step, kept in order, one a line:
the procedure's pattern. --success-rate is the prior before any outcome is
recorded (default 0). "add procedure" is the same command.`,
		Example: `  engram add procedural --name deploy --pattern "run the tests" --pattern "tag the release" --tags ops
  engram add procedure --name rollback --steps "revert the tag"
  engram add procedural --name answer-ada --pattern "answer first" --user-id ada --metadata '{"lang":"en"}'`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			p.Pattern = strings.Join(steps, "\n")
			return a.withMemory(ctx, true, func(m *engram.Memory) error {
				id, err := m.Procedural().Store(ctx, p)
				if err != nil {
					return scopeError(err)
				}
				return a.printAdded(engram.TypeProcedural, id)
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&p.Name, "name", "", "its name, unique to the agent (required)")
	f.StringArrayVar(&steps, "pattern", nil, "a step; repeat for each step, in order (--steps is the same flag)")
	f.StringVar(&p.Description, "description", "", "what it is for")
	f.StringSliceVar(&p.Tags, "tags", nil, "tags, comma-separated")
	f.Float64Var(&p.SuccessRate, "success-rate", 0, "the prior success rate, in [0, 1]")
	f.StringVar(&p.ID, "id", "", "its ID (default: a new time-ordered ID)")
	scopeFlags(cmd, &p.UserID, &p.SessionID)
	f.Var(anyMetaValue{&p.Metadata}, "metadata", `metadata, a JSON object: {"lang":"go","stars":3}`)
	aliasFlags(cmd, map[string]string{"steps": "pattern"})
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

// assertion is what add fact prints with --json: the fact and the facts
// it superseded in the views of the HTTP API (memview).
type assertion struct {
	Type       engram.MemoryType `json:"type"`
	ID         string            `json:"id"`
	Action     engram.FactAction `json:"action"`
	Fact       memview.Fact      `json:"fact"`
	Superseded []memview.Fact    `json:"superseded"`
}

func (a *app) addFactCmd() *cobra.Command {
	var (
		fact      engram.Fact
		from, to  string
		strengthF float64
	)
	cmd := &cobra.Command{
		Use:     "fact SUBJECT PREDICATE OBJECT",
		Aliases: []string{"triple"},
		Short:   "Assert a subject–predicate–object fact",
		Long: `add fact asserts a fact and prints its ID, consolidated with what the
agent knows: the same fact again is merged (its strength grows), a new value
of a predicate that holds one value at a time (lives in, works at, ...)
supersedes the old one, which ends but is kept, and anything else is a new
fact. The second line, when there is one, says what was merged or ended.

A fact is what "engram facts", GET /v1/facts and the MCP tool get_facts
read; a note of free text is a semantic memory (add semantic). "add triple"
is the same command.

Times are 2026-05-01, 2026-05-01T15:04, RFC 3339, or an age such as 7d.`,
		Example: `  engram add fact Ada "lives in" London
  engram add fact Ada "works at" Acme --valid-from 2023-01-09 --sources hr-export`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return usagef(`%s takes SUBJECT PREDICATE OBJECT (a fact is a triple: Ada "lives in" London): to store a note, use "engram add semantic"`, commandName(cmd))
			}
			return exactArgs(3, "SUBJECT PREDICATE OBJECT")(cmd, args)
		},
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
	f.StringSliceVar(&fact.Sources, "sources", nil, "where it came from; repeat or comma-separate (--source is the same flag)")
	f.Float64Var(&strengthF, "strength", 0, "the evidence it adds (default 1)")
	f.StringVar(&fact.ID, "id", "", "its ID (default: a new time-ordered ID)")
	aliasFlags(cmd, map[string]string{"source": "sources"})
	return cmd
}

func (a *app) printAssertion(as engram.Assertion) error {
	v := assertion{Type: engram.TypeFact, ID: as.Fact.ID, Action: as.Action, Fact: memview.FactOf(as.Fact),
		Superseded: []memview.Fact{}}
	for _, f := range as.Superseded {
		v.Superseded = append(v.Superseded, memview.FactOf(f))
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

// commandName is cmd's path below the root: "add fact".
func commandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

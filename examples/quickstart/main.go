// Quickstart runs two short sessions of an agent with engram.
//
// Session one bootstraps an empty (or earlier) memory, learns a few facts,
// logs what it does, records how a procedure went, flushes and saves a
// snapshot. Session two starts fresh, as a new process would, and shows
// what the agent now remembers, including the memory.md it wrote.
//
//	go run ./examples/quickstart [-dir DIR]
//
// Memory lives in DIR/quickstart/ (by default DIR is engram in the
// user's cache directory: ~/.cache/engram/quickstart/ on Linux, so that
// the working tree stays clean); it says where. Run it again and
// the second run remembers the first. Delete the directory to start over.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/engram-go/engram"
)

const agent = "quickstart"

func main() {
	dir := flag.String("dir", defaultDir(), "the base directory of the quickstart's memory (it keeps DIR/"+agent+"/)")
	flag.Parse()
	fmt.Printf("memory in %s (delete it to start over)\n", filepath.Join(*dir, agent))
	ctx := context.Background()
	if err := firstSession(ctx, *dir); err != nil {
		log.Fatal(err)
	}
	if err := secondSession(ctx, *dir); err != nil {
		log.Fatal(err)
	}
}

// defaultDir is where the quickstart keeps its memory between runs: under
// the user's cache directory, or the temporary directory when there is
// none.
func defaultDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "engram")
}

func firstSession(ctx context.Context, dir string) error {
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithAgent(agent))
	if err != nil {
		return err
	}
	defer m.Close()

	boot, err := m.Bootstrap(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("== session 1: %s starts with %d recent episodes and %d procedures\n",
		boot.AgentID, len(boot.RecentEpisodes), len(boot.ActiveProcedures))

	// Facts the agent learns. Fixed IDs make the quickstart safe to rerun:
	// the second time, engram says it already knows them.
	facts := []engram.SemanticEntry{
		{ID: "user-name", Content: "The user's name is Ada; she prefers short answers.", Importance: 0.9, Tags: []string{"user"}},
		{ID: "deploy-rule", Content: "Deploys go through CI only, never from a laptop.", Importance: 0.8, Tags: []string{"ops", "deploy"}, Verified: true},
		{ID: "db-port", Content: "Postgres listens on 6432 behind pgbouncer.", Importance: 0.6, Tags: []string{"db"}},
	}
	for _, f := range facts {
		_, err := m.Semantic().Store(ctx, f)
		switch {
		case errors.Is(err, engram.ErrExists):
			fmt.Println("   already known:", f.ID)
		case err != nil:
			return err
		default:
			fmt.Println("   learned:", f.Content)
		}
	}

	// Knowledge as facts that stay true: asserting what the agent knows
	// already strengthens it (run the quickstart twice), and a new value
	// of a one-value predicate such as "works at" would supersede the old.
	for _, f := range []engram.Fact{
		{Subject: "User", Predicate: "works at", Object: "Initech", Sources: []string{"session-1"}},
		{Subject: "User", Predicate: "timezone", Object: "Europe/London", Sources: []string{"session-1"}},
	} {
		a, err := m.Facts().Assert(ctx, f)
		if err != nil {
			return err
		}
		fmt.Printf("   fact %s: %s (strength %g)\n", a.Action, a.Fact, a.Fact.Strength)
	}

	// What happens during the session goes to the episodic log.
	events := []engram.Episode{
		{Content: "Started task: upgrade the payment service", Type: engram.EventTaskStarted, TaskID: "payments-42"},
		{Content: "Decided to roll out behind a feature flag", Type: engram.EventDecisionMade, TaskID: "payments-42"},
		{Content: "Upgrade deployed; error rate unchanged", Type: engram.EventTaskCompleted, TaskID: "payments-42"},
	}
	if _, err := m.Episodic().LogBatch(ctx, events); err != nil {
		return err
	}

	// A workflow the agent follows, and how it went this time.
	deploy, err := m.Procedural().GetByName(ctx, "flagged-deploy")
	if errors.Is(err, engram.ErrNotFound) {
		var id string
		id, err = m.Procedural().Store(ctx, engram.Procedure{
			Name:        "flagged-deploy",
			Description: "Ship a risky change behind a feature flag",
			Pattern:     "merge behind flag; deploy via CI; ramp 1% → 10% → 100%; watch error rate",
			SuccessRate: 0.5,
			Tags:        []string{"deploy"},
		})
		deploy.ID = id
	}
	if err != nil {
		return err
	}
	deploy, err = m.Procedural().RecordOutcome(ctx, deploy.ID, true)
	if err != nil {
		return err
	}
	fmt.Printf("   procedure %q: %d uses, success rate %.2f\n", deploy.Name, deploy.UseCount, deploy.SuccessRate)

	// Working memory: what the agent is thinking about right now. Flush
	// keeps the important items (importance ≥ 0.7) in semantic memory.
	for _, it := range []engram.WorkingItem{
		{Content: "Ada wants the payment upgrade done before Friday.", Importance: 0.85},
		{Content: "Scratch: the flag is called payments_v2.", Importance: 0.3},
	} {
		if _, err := m.Working().Add(it); err != nil {
			return err
		}
	}
	if err := m.Flush(ctx); err != nil {
		return err
	}
	return m.Snapshot(ctx, engram.SessionSnapshot{
		SessionID: "session-1",
		Messages: []engram.Message{
			{Role: "user", Content: "Please upgrade the payment service."},
			{Role: "assistant", Content: "Done, behind a feature flag."},
		},
		Summary:      "Upgraded the payment service behind a flag.",
		KeyDecisions: []string{"roll out behind a feature flag"},
		TaskIDs:      []string{"payments-42"},
	})
}

func secondSession(ctx context.Context, dir string) error {
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithAgent(agent))
	if err != nil {
		return err
	}
	defer m.Close()

	boot, err := m.Bootstrap(ctx)
	if err != nil {
		return err
	}
	fmt.Println("\n== session 2 remembers")
	fmt.Println("-- recent episodes:")
	for _, e := range boot.RecentEpisodes[:min(5, len(boot.RecentEpisodes))] {
		fmt.Printf("   %s  %-15s %s\n", e.CreatedAt.Local().Format("15:04:05"), e.Type, e.Content)
	}
	fmt.Println("-- active procedures:")
	for _, p := range boot.ActiveProcedures {
		fmt.Printf("   %s (success %.2f over %d uses)\n", p.Name, p.SuccessRate, p.UseCount)
	}
	last, err := m.Episodic().LatestSnapshot(ctx, "")
	if err != nil {
		return err
	}
	fmt.Println("-- last session:", last.Summary)

	st, err := m.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("-- stored: %d semantic entries, %d facts, %d episodes, %d procedures, %d snapshots\n",
		st.Semantic, st.Facts, st.Episodes, st.Procedures, st.Snapshots)

	b, err := os.ReadFile(m.MarkdownPath())
	if err != nil {
		return err
	}
	fmt.Printf("-- %s:\n%s", m.MarkdownPath(), indent(string(b)))
	return nil
}

func indent(s string) string {
	return "   " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n   ") + "\n"
}

package engram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/engram-go/engram"
)

func ExampleMemory_History() {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithActor("support-bot"),
		engram.WithClock(func() time.Time { return now }))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()

	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Prefers tabs", Importance: 0.6})
	if err != nil {
		log.Fatal(err)
	}
	fixed := "Prefers spaces"
	uctx := engram.ContextWithReason(engram.ContextWithActor(ctx, "ada"), "the user corrected it")
	if _, err := m.Semantic().Update(uctx, id, engram.SemanticPatch{Content: &fixed}); err != nil {
		log.Fatal(err)
	}
	h, err := m.History(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range h {
		fmt.Printf("%s by %s (%s): %s -> %s\n", e.Op, e.Actor, e.Reason, contentOf(e.Before), contentOf(e.After))
	}

	// Forgetting erases it, and what history held of it.
	if err := m.Forget(ctx, id); err != nil {
		log.Fatal(err)
	}
	h, err = m.History(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(h), h[0].Op, h[0].Before == nil && h[0].After == nil)
	// Output:
	// create by support-bot (): - -> Prefers tabs
	// update by ada (the user corrected it): Prefers tabs -> Prefers spaces
	// 1 forget true
}

// contentOf is the content a history entry's fields hold, or "-".
func contentOf(raw json.RawMessage) string {
	var f struct{ Content string }
	if raw == nil || json.Unmarshal(raw, &f) != nil {
		return "-"
	}
	return f.Content
}

func ExampleListAgents() {
	base, err := os.MkdirTemp("", "engram-agents")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)
	ctx := context.Background()
	for _, agent := range []string{"ada", "bob"} {
		m, err := engram.New(engram.Tier1, engram.WithDir(base), engram.WithAgent(agent))
		if err != nil {
			log.Fatal(err)
		}
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: agent + " was here", Importance: 0.5}); err != nil {
			log.Fatal(err)
		}
		if agent == "bob" {
			if err := m.ForgetAgent(ctx); err != nil { // bob's memory, files and directory
				log.Fatal(err)
			}
			continue
		}
		if err := m.Close(); err != nil {
			log.Fatal(err)
		}
	}
	agents, err := engram.ListAgents(ctx, engram.WithDir(base))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(agents)
	// Output:
	// [ada]
}

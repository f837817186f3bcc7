package engram_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/engram-go/engram"
)

// A fixed clock makes the examples' output stable.
func exampleClock() func() time.Time {
	t := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	return func() time.Time { return t }
}

func Example() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithAgent("helper"), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "fact-1", Content: "The user's name is Ada", Importance: 0.9}); err != nil {
		log.Fatal(err)
	}
	if _, err := m.Episodic().Log(ctx, engram.Episode{Content: "Greeted Ada", Type: engram.EventUserFeedback}); err != nil {
		log.Fatal(err)
	}
	if err := m.Flush(ctx); err != nil {
		log.Fatal(err)
	}

	boot, err := m.Bootstrap(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(boot.SemanticContext)
	fmt.Println(len(boot.RecentEpisodes), "recent episode:", boot.RecentEpisodes[0].Content)
	// Output:
	// # Memory of agent "helper"
	//
	// <!-- engram memory.md v1: generated from the database; edits to its entries are read back. All 1 entry. -->
	//
	// - (0.90) The user's name is Ada <!-- id:fact-1 -->
	// 1 recent episode: Greeted Ada
}

func ExampleWorking_Add() {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithWorkingCapacity(2), engram.WithEviction(engram.EvictImportance))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	w := m.Working()
	w.Add(engram.WorkingItem{ID: "goal", Content: "ship the release", Importance: 0.9})
	w.Add(engram.WorkingItem{ID: "aside", Content: "the coffee is cold", Importance: 0.1})
	evicted, _ := w.Add(engram.WorkingItem{ID: "blocker", Content: "CI is red", Importance: 0.8})
	fmt.Println("evicted:", evicted[0].ID)
	items, _ := w.Items()
	for _, it := range items {
		fmt.Println(it.ID)
	}
	// Output:
	// evicted: aside
	// blocker
	// goal
}

func ExampleProcedural_RecordOutcome() {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	id, _ := m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Pattern: "test; build; push", SuccessRate: 0.5})
	for _, ok := range []bool{true, true, false} {
		p, _ := m.Procedural().RecordOutcome(ctx, id, ok)
		fmt.Printf("uses=%d rate=%.3f\n", p.UseCount, p.SuccessRate)
	}
	// Output:
	// uses=1 rate=0.550
	// uses=2 rate=0.595
	// uses=3 rate=0.536
}

func ExampleLinks_Traverse() {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	m.Semantic().Store(ctx, engram.SemanticEntry{ID: "cause", Content: "the disk filled up", Importance: 0.6})
	m.Episodic().Log(ctx, engram.Episode{ID: "outage", Content: "the API went down", Type: engram.EventErrorEncountered})
	m.Procedural().Store(ctx, engram.Procedure{ID: "cleanup", Name: "rotate logs"})
	m.Links().Add(ctx, engram.Link{SourceID: "cause", TargetID: "outage", Type: engram.LinkCausal})
	m.Links().Add(ctx, engram.Link{SourceID: "cleanup", TargetID: "cause", Type: engram.LinkSupports, Strength: 0.8})

	near, _ := m.Links().Traverse(ctx, "outage", 2)
	for _, n := range near {
		fmt.Println(n.Depth, n.Type, n.ID)
	}
	// Output:
	// 1 semantic cause
	// 2 procedural cleanup
}

func ExampleInvalidError() {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	_, err = m.Semantic().Store(context.Background(), engram.SemanticEntry{Content: "too sure", Importance: 1.5})
	var ie *engram.InvalidError
	if errors.As(err, &ie) {
		fmt.Println(errors.Is(err, engram.ErrInvalid), ie.Field)
	}
	// Output:
	// true entry.Importance
}

func ExampleNew_sharedFile() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "team.db")
	alice, _ := engram.New(engram.Tier1, engram.WithPath(path), engram.WithAgent("alice"))
	defer alice.Close()
	bob, _ := engram.New(engram.Tier1, engram.WithPath(path), engram.WithAgent("bob"))
	defer bob.Close()

	ctx := context.Background()
	id, _ := alice.Semantic().Store(ctx, engram.SemanticEntry{Content: "alice's secret", Importance: 0.5})
	_, err := bob.Semantic().Get(ctx, id)
	fmt.Println(errors.Is(err, engram.ErrNotFound))
	// Output:
	// true
}

func ExampleMemory_Search() {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	m.Semantic().Store(ctx, engram.SemanticEntry{ID: "rule", Content: "Deploys go through CI only", Importance: 0.9})
	m.Semantic().Store(ctx, engram.SemanticEntry{ID: "lunch", Content: "Lunch is at noon", Importance: 0.2})
	m.Episodic().Log(ctx, engram.Episode{ID: "ask", Content: "Ada asked when we deploy the fix", SessionID: "s1"})
	m.Episodic().Log(ctx, engram.Episode{ID: "answer", Content: "We agreed on Monday morning", SessionID: "s1"})

	res, err := m.Search(ctx, engram.SearchOptions{Query: "When do we deploy?"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res {
		fmt.Printf("%s %s %q context-of=%q\n", r.Type, r.ID, r.Snippet, r.ContextOf)
	}
	// Output:
	// semantic rule "**Deploys** go through CI only" context-of=""
	// episodic ask "Ada asked when we **deploy** the fix" context-of=""
	// episodic answer "We agreed on Monday morning" context-of="ask"
}

// Recall scores each kind's best matches with its gate and admits the
// best into the working set.
func ExampleMemory_Recall() {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	m.Semantic().Store(ctx, engram.SemanticEntry{ID: "home", Content: "Ada lives in London", Importance: 0.8})
	m.Semantic().Store(ctx, engram.SemanticEntry{ID: "team", Content: "Ada works on payments", Importance: 0.6})
	m.Episodic().Log(ctx, engram.Episode{ID: "hi", Content: "assistant: hi Ada, how can I help", SessionID: "s1"})

	r, err := m.Recall(ctx, "Where does Ada live?")
	if err != nil {
		log.Fatal(err)
	}
	for _, x := range r.Admitted {
		fmt.Printf("%s %s gate=%.3f relevance=%.2f\n", x.Type, x.ID, x.Gate.Gate, x.Gate.Relevance)
	}
	fmt.Println("working set:", len(r.Working), "items, newest", r.Working[0].ID)
	// Output:
	// semantic home gate=0.734 relevance=1.00
	// semantic team gate=0.534 relevance=0.12
	// episodic hi gate=0.531 relevance=0.11
	// working set: 3 items, newest semantic/home
}

// Context makes a block for a system prompt within a token budget: what
// does not depend on the query first, then what was recalled for it.
func ExampleMemory_Context() {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithAgent("assistant"), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada prefers short answers", Importance: 0.9, Tags: []string{"style"}})
	m.Procedural().Store(ctx, engram.Procedure{Name: "book travel", Description: "ask for dates, then the budget", SuccessRate: 0.8})
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for i, c := range []string{"user: I fly to Porto on 23 May", "user: move standup to 10", "assistant: moved it", "user: thanks",
		"user: lunch at noon?", "assistant: booked"} {
		m.Episodic().Log(ctx, engram.Episode{Content: c, SessionID: "s1", CreatedAt: start.Add(time.Duration(i) * time.Hour)})
	}

	b, err := m.Context(ctx, engram.ContextOptions{Query: "Porto trip", MaxTokens: 100})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(b.Text)
	fmt.Println(b.Tokens, "tokens;", b.Stable, "bytes do not depend on the query")
	// Output:
	// # Memory of assistant
	//
	// ## What I know
	// - Ada prefers short answers [style]
	//
	// ## How I work
	// - book travel: ask for dates, then the budget (succeeds 80%)
	//
	// ## Recently
	// - 2026-05-01 14:00 assistant: booked
	// - 2026-05-01 13:00 user: lunch at noon?
	//
	// ## Relevant to "Porto trip"
	// - (episodic 2026-05-01) user: I fly to Porto on 23 May
	// - (episodic 2026-05-01) user: move standup to 10
	// 94 tokens; 240 bytes do not depend on the query
}

// Compaction merges near-duplicates into one survivor and archives the
// rest; Restore brings an archived memory back.
func ExampleMemory_Compact() {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	old, _ := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Deploys run from CI only", Importance: 0.6})
	_, _ = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Deploys run from CI only.", Importance: 0.9, Verified: true})

	rep, err := m.Compact(ctx, engram.CompactSemantic)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range rep.Actions {
		fmt.Println(a.Kind, a.ID == old)
	}
	if err := m.Restore(ctx, old); err != nil {
		log.Fatal(err)
	}
	st, _ := m.Stats(ctx)
	fmt.Println(st.Semantic, "entries,", st.Archived, "archived")
	// Output:
	// merge true
	// 2 entries, 0 archived
}

// Rules extract memories from what the user says, with no model call.
func ExampleMemory_Extract() {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	err = m.Rules().Add(ctx, engram.ExtractionRule{
		Name: "preferences", Pattern: `(prefer|like|want|need) (.+)`,
		Type: engram.TypeSemantic, Importance: 0.8, Tags: []string{"preference"}, Active: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := m.Extract(ctx, []engram.Message{
		{Role: "user", Content: "Hi, I'm John and I prefer email notifications over SMS. My account number is ACC-12345."},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items {
		fmt.Printf("%s %q from %s\n", it.Type, it.Content, it.Source)
	}
	// Output:
	// semantic "prefer email notifications over SMS" from rule:preferences
}

// A fact rule makes a fact of each match: here the object comes from the
// (?P<object>) group and the subject, which the rule leaves out, is the
// user. Asserting the same fact again strengthens it; a new employer
// supersedes the old one.
func ExampleRules_Add_facts() {
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	err = m.Rules().Add(ctx, engram.ExtractionRule{
		Name: "employer", Pattern: `\bI work (?:at|for) (?P<object>[^,]+)`,
		Type: engram.TypeFact, Predicate: "works at", Active: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, said := range []string{"I work at Acme, since May.", "Yes, I work at Acme.", "News: I work for Globex!"} {
		res, err := m.Extract(ctx, []engram.Message{{Role: "user", Content: said}})
		if err != nil {
			log.Fatal(err)
		}
		for _, f := range res.Facts {
			fmt.Printf("%s: %s (strength %v)\n", f.Action, f.Fact, f.Fact.Strength)
		}
	}
	// Output:
	// insert: User works at Acme (strength 1)
	// merge: User works at Acme (strength 2)
	// supersede: User works at Globex (strength 1)
}

// Tier 2 adds vector search in the same file. The hashing embedder works
// offline with no model; swap in openai.NewEmbedder, ollama.NewEmbedder
// or gemini.NewEmbedder for semantic embeddings.
func ExampleMemory_Search_tier2() {
	embedder, err := engram.NewHashingEmbedder(384)
	if err != nil {
		log.Fatal(err)
	}
	m, err := engram.New(engram.Tier2, engram.InMemory(), engram.WithEmbedder(embedder))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for _, fact := range []string{
		"The staging database runs PostgreSQL 16",
		"Deploys go out every Tuesday after the standup",
		"Ada prefers short answers",
	} {
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fact, Importance: 0.5}); err != nil {
			log.Fatal(err)
		}
	}
	// Hybrid is Tier 2's default: full text and vectors, fused by rank.
	res, err := m.Search(ctx, engram.SearchOptions{Query: "which database does staging run?", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Content, res[0].Parts.Vector > 0)
	// A vector search finds word forms full text does not join.
	res, err = m.Search(ctx, engram.SearchOptions{Query: "deployment on tuesdays", Mode: engram.SearchVector, Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Content)
	st, _ := m.Stats(ctx)
	fmt.Println(st.PendingEmbeddings, "pending")
	// Output:
	// The staging database runs PostgreSQL 16 true
	// Deploys go out every Tuesday after the standup
	// 0 pending
}

func ExampleFacts_Paths() {
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	_, err = m.Facts().AssertAll(ctx, []engram.Fact{
		{Subject: "Ada", Predicate: "works at", Object: "Acme"},
		{Subject: "Bob", Predicate: "works at", Object: "Acme"},
		{Subject: "Bob", Predicate: "lives in", Object: "Paris"},
	})
	if err != nil {
		log.Fatal(err)
	}
	paths, err := m.Facts().Paths(ctx, "Ada", "Paris", 0)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		for _, h := range p {
			fmt.Printf("%s -[%s]- %s; ", h.From(), h.Fact.Predicate, h.To())
		}
		fmt.Println(len(p), "hops")
	}
	g, err := m.Facts().Graph(ctx, engram.GraphOptions{Center: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(g.Mermaid())
	// Output:
	// Ada -[works at]- Acme; Acme -[works at]- Bob; Bob -[lives in]- Paris; 3 hops
	// flowchart LR
	// 	n0["Ada"]
	// 	n1["Acme"]
	// 	n2["Bob"]
	// 	n0 -->|"works at"| n1
	// 	n2 -->|"works at"| n1
	// 	classDef center font-weight:bold,stroke-width:3px
	// 	class n0 center
}

package engram_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/engram-go/engram"
)

// Backup copies the database while the agent goes on working; the copy
// is checked before it gets its name, and opens like any memory.
func ExampleMemory_Backup() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy runs from the blue pipeline", Importance: 0.8})
	if err != nil {
		log.Fatal(err)
	}

	dst := filepath.Join(dir, "backup.db")
	if err := m.Backup(ctx, dst); err != nil {
		log.Fatal(err)
	}
	copied, err := engram.New(engram.Tier1, engram.WithPath(dst))
	if err != nil {
		log.Fatal(err)
	}
	defer copied.Close()
	e, err := copied.Semantic().Get(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Content)
	err = m.Backup(ctx, dst) // never overwrites
	fmt.Println(errors.Is(err, engram.ErrExists))
	// Output:
	// The deploy runs from the blue pipeline
	// true
}

// Summary gives an overview of what the agent knows: counts, the newest
// memory of each kind and the most common words (as stems).
func ExampleMemory_Summary() {
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(exampleClock()))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	for _, c := range []string{"The deploy runs from the blue pipeline", "Deploys wait for the nightly backup", "The user deployed on Friday"} {
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c, Importance: 0.8}); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := m.Episodic().Log(ctx, engram.Episode{Content: "Ran the backup", Type: engram.EventToolCall}); err != nil {
		log.Fatal(err)
	}
	s, err := m.Summary(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range s.Kinds {
		if k.Count > 0 {
			fmt.Println(k.Type, k.Count, k.LastCreatedAt.Format("2006-01-02"))
		}
	}
	fmt.Println("important:", s.HighImportance, "recent:", s.RecentlyAccessed)
	for _, k := range s.Keywords[:3] {
		fmt.Println(k.Stem, k.Memories)
	}
	// Output:
	// semantic 3 2026-05-01
	// episodic 1 2026-05-01
	// important: 3 recent: 3
	// deploi 3
	// backup 2
	// blue 1
}

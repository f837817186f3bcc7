package engram_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/engram-go/engram"
)

// A process serving many agents opens one Store and asks it for each
// agent's Memory; the agents share its connections and never see each
// other's memories.
func ExampleStore() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	st, err := engram.Open(engram.Tier1, engram.WithPath(filepath.Join(dir, "agents.db")))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	for _, who := range []string{"ada@example.com", "grace@example.com"} {
		m, err := st.Agent(who)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: who + " prefers short answers"}); err != nil {
			log.Fatal(err)
		}
	}

	ada, err := st.Agent("ada@example.com") // the same Memory as before
	if err != nil {
		log.Fatal(err)
	}
	found, err := ada.Search(ctx, engram.SearchOptions{Query: "short answers"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range found {
		fmt.Println(r.Content)
	}
	agents, err := st.Agents(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(agents)
	// Output:
	// ada@example.com prefers short answers
	// [ada@example.com grace@example.com]
}

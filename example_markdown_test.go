package engram_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/engram-go/engram"
)

// A person edits memory.md: changes an entry's importance and adds a line;
// ImportMarkdown reads both back.
func ExampleMemory_ImportMarkdown() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	md := filepath.Join(dir, "memory.md")
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithMarkdownPath(md))
	if err != nil {
		panic(err)
	}
	defer m.Close()
	m.Semantic().Store(ctx, engram.SemanticEntry{ID: "deploy", Content: "Deploys run from CI only", Importance: 0.9})
	m.ExportMarkdown(ctx)

	b, _ := os.ReadFile(md)
	text := strings.Replace(string(b), "- (0.90) Deploys", "- (0.60) Deploys", 1) + "- Lunch is at noon #team\n"
	os.WriteFile(md, []byte(text), 0o600)

	rep, err := m.ImportMarkdown(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("updated:", rep.Updated, "added:", len(rep.Added))
	e, _ := m.Semantic().Get(ctx, "deploy")
	fmt.Println(e.Importance)
	list, _ := m.Semantic().List(ctx, engram.ListOptions{})
	for _, e := range list {
		fmt.Println(e.Content, e.Tags)
	}
	// Output:
	// updated: [deploy] added: 1
	// 0.6
	// Lunch is at noon [team]
	// Deploys run from CI only []
}

// Ingest reads a tree of markdown into document memory; a search result
// cites the file and heading a chunk came from.
func ExampleMemory_Ingest() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "deploy.md"), []byte("---\ntitle: Deploying\n---\n# Deploy\n\nDeploys run from CI.\n\n## Rollback\n\nRedeploy the previous release tag.\n"), 0o644)
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		panic(err)
	}
	defer m.Close()

	rep, err := m.Ingest(ctx, docs, engram.IngestOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Files, "file,", rep.Chunks, "chunks,", rep.Stored, "stored")
	res, _ := m.Search(ctx, engram.SearchOptions{Query: "previous release"})
	fmt.Println(res[0].Source)
	again, _ := m.Ingest(ctx, docs, engram.IngestOptions{})
	fmt.Println("again:", again.Stored, "stored,", again.Skipped, "skipped")
	// Output:
	// 1 file, 2 chunks, 2 stored
	// docs/deploy.md > Deploy > Rollback
	// again: 0 stored, 2 skipped
}

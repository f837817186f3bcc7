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

// A memory opened with WithReadOnly (or on storage the process cannot
// write, which New opens so by itself) serves every read and refuses
// every write with ErrReadOnly, changing nothing.
func ExampleWithReadOnly() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	path := filepath.Join(dir, "memory.db")

	m, err := engram.New(engram.Tier1, engram.WithPath(path))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "tea", Content: "Ada drinks tea"}); err != nil {
		log.Fatal(err)
	}
	if err := m.Close(); err != nil {
		log.Fatal(err)
	}

	ro, err := engram.New(engram.Tier1, engram.WithPath(path), engram.WithReadOnly())
	if err != nil {
		log.Fatal(err)
	}
	defer ro.Close()
	e, err := ro.Semantic().Get(ctx, "tea")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ro.ReadOnly(), e.Content)
	_, err = ro.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada drinks coffee"})
	fmt.Println(errors.Is(err, engram.ErrReadOnly))
	// Output:
	// true Ada drinks tea
	// true
}

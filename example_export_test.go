package engram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/engram-go/engram"
)

// ExampleMemory_Export copies one agent's memory into another's, and
// shows the file's header and first record.
func ExampleMemory_Export() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	open := func(agent string) *engram.Memory {
		m, err := engram.New(engram.Tier1, engram.WithPath(filepath.Join(dir, "memory.db")), engram.WithAgent(agent), engram.WithClock(exampleClock()))
		if err != nil {
			log.Fatal(err)
		}
		return m
	}
	src := open("helper")
	defer src.Close()
	if _, err := src.Semantic().Store(ctx, engram.SemanticEntry{ID: "name", Content: "The user's name is Ada", Importance: 0.9}); err != nil {
		log.Fatal(err)
	}

	var file bytes.Buffer
	if err := src.Export(ctx, &file, engram.ExportOptions{}); err != nil {
		log.Fatal(err)
	}
	lines := strings.Split(file.String(), "\n")
	var h struct {
		Format  string
		Version int
		Agent   string
		Time    string
	}
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Format, h.Version, h.Agent, h.Time)
	fmt.Println(lines[1])

	dst := open("apprentice")
	defer dst.Close()
	rep, err := dst.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("from", rep.Agent, "added", rep.Added)
	e, err := dst.Semantic().Get(ctx, "name")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Content)

	// The same file again conflicts; a broken one names its line.
	_, err = dst.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{Conflict: engram.ConflictFail})
	fmt.Println(errors.Is(err, engram.ErrExists))
	_, err = dst.Import(ctx, strings.NewReader(lines[0]+"\n{\"type\":\"memory\"\n"), engram.ImportOptions{})
	var ie *engram.ImportError
	fmt.Println(errors.As(err, &ie), ie.Line, errors.Is(err, engram.ErrInvalid))
	// Output:
	// engram-export 1 helper 2026-05-01T09:00:00.000Z
	// {"type":"memory","kind":"semantic","row":{"id":"name","content":"The user's name is Ada","summary":"The user's name is Ada","importance":0.9,"verified":0,"tags":[],"source":"","created_at":1777626000000,"updated_at":1777626000000,"access_count":0,"last_accessed_at":1777626000000,"resonance":0.5700000000000001,"merged_from":[],"promoted_at_count":0,"retrievals":0,"user_id":"","session_id":"","metadata":{}}}
	// from helper added map[semantic:1]
	// The user's name is Ada
	// true
	// true 2 true
}

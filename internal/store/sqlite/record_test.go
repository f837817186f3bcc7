package sqlite

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/engram-go/engram/internal/store"
)

// RecordStatements hands over the statements run through a Tx's Querier
// methods, in writes and reads, and none of the engine's own (BEGIN,
// COMMIT, PRAGMA); nil stops it.
func TestRecordStatements(t *testing.T) {
	s := openOneReader(t)
	var mu sync.Mutex
	var got []string
	RecordStatements(func(query string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, query)
	})
	t.Cleanup(func() { RecordStatements(nil) })
	ctx := context.Background()
	err := s.Write(ctx, "test", func(q store.Tx) error {
		if _, err := q.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, "k", "v"); err != nil {
			return err
		}
		var n int
		return q.QueryRow(`SELECT count(*) FROM meta WHERE key = ?`, []any{"k"}, &n)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Read(ctx, "test", func(q store.Tx) error {
		rows, err := q.Query(`SELECT value FROM meta WHERE key = ?`, "k")
		if err != nil {
			return err
		}
		return rows.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`INSERT INTO meta (key, value) VALUES (?, ?)`, `SELECT count(*) FROM meta WHERE key = ?`, `SELECT value FROM meta WHERE key = ?`}
	mu.Lock()
	if !slices.Equal(got, want) {
		t.Errorf("recorded %q, want %q", got, want)
	}
	for _, q := range got {
		if strings.HasPrefix(q, "PRAGMA") || q == "BEGIN IMMEDIATE" || q == "COMMIT" {
			t.Errorf("recorded the engine's own statement %q", q)
		}
	}
	got = nil
	mu.Unlock()

	RecordStatements(nil)
	if err := s.Write(ctx, "test", func(q store.Tx) error {
		_, err := q.Exec(`DELETE FROM meta WHERE key = ?`, "k")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("recorded %q after RecordStatements(nil)", got)
	}
}

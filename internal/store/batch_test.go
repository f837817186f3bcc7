package store

import (
	"bytes"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/schema"
	_ "modernc.org/sqlite"
)

// testQ is a Querier over one connection that counts the statements run
// and keeps the changes reported to it.
type testQ struct {
	tx      *sql.Tx
	stmts   []string
	changes []Change
}

func (q *testQ) Changed(c Change) { q.changes = append(q.changes, c) }

func (q *testQ) Exec(query string, args ...any) (sql.Result, error) {
	q.stmts = append(q.stmts, query)
	return q.tx.Exec(query, args...)
}

func (q *testQ) Query(query string, args ...any) (*sql.Rows, error) {
	q.stmts = append(q.stmts, query)
	return q.tx.Query(query, args...)
}

func (q *testQ) QueryRow(query string, args []any, dest ...any) error {
	q.stmts = append(q.stmts, query)
	return q.tx.QueryRow(query, args...).Scan(dest...)
}

// openSchema opens an in-memory database holding engram's schema, and a
// transaction on it.
func openSchema(t *testing.T) *testQ {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, m := range schema.Migrations() {
		if _, err := db.Exec(m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return &testQ{tx: tx}
}

// InsertRows inserts 64, 16, 4 or 1 rows a statement, the most that what
// is left holds, and hands each row its own rowid.
func TestInsertRowsBatches(t *testing.T) {
	for _, c := range []struct{ n, stmts int }{{0, 0}, {1, 1}, {3, 3}, {4, 1}, {64, 1}, {87, 6}, {130, 4}} {
		q := openSchema(t)
		ids := make([]string, c.n)
		for i := range ids {
			ids[i] = fmt.Sprintf("ep-%03d", (i*37)%c.n) // not in order
		}
		got := make([]int64, c.n)
		err := InsertRows(q, "episodic_log", []string{"agent_id", "id", "content", "event_type", "created_at"}, c.n,
			func(i int, args []any) []any {
				return append(args, "a", ids[i], "text "+ids[i], "observation", int64(i))
			},
			func(i int, pk int64) { got[i] = pk })
		if err != nil {
			t.Fatalf("n=%d: %v", c.n, err)
		}
		if len(q.stmts) != c.stmts {
			t.Errorf("n=%d: %d statements, want %d", c.n, len(q.stmts), c.stmts)
		}
		for i, id := range ids {
			var pk int64
			if err := q.QueryRow(`SELECT pk FROM episodic_log WHERE agent_id = 'a' AND id = ?`, []any{id}, &pk); err != nil {
				t.Fatalf("n=%d: row %d (%s): %v", c.n, i, id, err)
			}
			if got[i] != pk {
				t.Errorf("n=%d: row %d (%s) was handed rowid %d, has %d", c.n, i, id, got[i], pk)
			}
		}
	}
}

// A batch whose row's ID the agent holds fails as a unique violation.
func TestInsertRowsUnique(t *testing.T) {
	q := openSchema(t)
	rows := []*EpisodeRow{{ID: "e1", Content: "one", Type: "observation", Metadata: "{}"}, {ID: "e1", Content: "two", Type: "observation", Metadata: "{}"}}
	if err := InsertEpisodeBatch(q, "a", rows); !IsUniqueViolation(err) {
		t.Fatalf("a batch holding an ID twice returned %v", err)
	}
}

// Every write of a kind computes its derived columns from the row as
// written: the term vector and token count of its indexed texts (and a
// semantic entry's content hash), whichever path wrote it.
func TestDerivedColumnsOnEveryWrite(t *testing.T) {
	q := openSchema(t)
	now := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	check := func(what, table, id string, texts ...string) {
		t.Helper()
		var terms []byte
		var ntok int
		if err := q.QueryRow(`SELECT terms, ntok FROM `+table+` WHERE agent_id = 'a' AND id = ?`, []any{id}, &terms, &ntok); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, wantN := bm25.Vector(texts...)
		if !bytes.Equal(terms, want) || ntok != wantN || ntok == 0 {
			t.Errorf("%s: terms %x ntok %d, want %x and %d", what, terms, ntok, want, wantN)
		}
		if table == "semantic_memory" {
			var hash []byte
			if err := q.QueryRow(`SELECT content_hash FROM semantic_memory WHERE agent_id = 'a' AND id = ?`, []any{id}, &hash); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(hash, ContentHash(texts[0])) {
				t.Errorf("%s: content hash %x, want %x", what, hash, ContentHash(texts[0]))
			}
		}
	}
	sem := func(id, content string, tags ...string) SemanticRow {
		return SemanticRow{ID: id, Content: content, Summary: content, Importance: 0.5, Tags: tags,
			CreatedAt: now, UpdatedAt: now, LastAccessedAt: now, Resonance: 1, Metadata: "{}"}
	}
	r := sem("s1", "Deploys run on Fridays", "ops")
	pk, err := InsertSemantic(q, "a", &r)
	if err != nil {
		t.Fatal(err)
	}
	check("InsertSemantic", "semantic_memory", "s1", "Deploys run on Fridays", `["ops"]`)
	s2, s3 := sem("s2", "kayak paddles float"), sem("s3", "the river is cold in May", "river", "cold")
	s2.Derive(nil) // derived before: the same
	if _, err := InsertSemanticBatch(q, "a", []*SemanticRow{&s2, &s3}); err != nil {
		t.Fatal(err)
	}
	check("InsertSemanticBatch, derived before", "semantic_memory", "s2", "kayak paddles float", `[]`)
	check("InsertSemanticBatch", "semantic_memory", "s3", "the river is cold in May", `["river","cold"]`)
	u := sem("s1", "Deploys run on Mondays now", "ops", "calendar")
	if err := UpdateSemantic(q, "a", &u); err != nil {
		t.Fatal(err)
	}
	check("UpdateSemantic", "semantic_memory", "s1", "Deploys run on Mondays now", `["ops","calendar"]`)
	c := sem("", "Deploys run on Tuesdays")
	if err := UpdateSemanticContent(q, pk, &c, now); err != nil {
		t.Fatal(err)
	}
	check("UpdateSemanticContent", "semantic_memory", "s1", "Deploys run on Tuesdays", `[]`)

	ep := EpisodeRow{ID: "e1", Content: "the build failed twice", Type: "observation", Metadata: "{}", CreatedAt: now}
	if _, err := InsertEpisode(q, "a", &ep); err != nil {
		t.Fatal(err)
	}
	check("InsertEpisode", "episodic_log", "e1", "the build failed twice")
	eps := []*EpisodeRow{{ID: "e2", Content: "tests pass again", Type: "observation", Metadata: "{}", CreatedAt: now}}
	if err := InsertEpisodeBatch(q, "a", eps); err != nil {
		t.Fatal(err)
	}
	check("InsertEpisodeBatch", "episodic_log", "e2", "tests pass again")

	pr := ProcedureRow{ID: "p1", Name: "deploy", Description: "ship the build", Pattern: "make && ship",
		SuccessRate: 0.5, Tags: []string{"ops"}, CreatedAt: now, UpdatedAt: now, Resonance: 1, Metadata: "{}"}
	if _, err := InsertProcedure(q, "a", &pr); err != nil {
		t.Fatal(err)
	}
	check("InsertProcedure", "procedural_memory", "p1", "deploy", "ship the build", "make && ship", `["ops"]`)
	pu := pr
	pu.derived = derived{}
	pu.Description, pu.Tags = "ship the release build", nil
	if err := UpdateProcedure(q, "a", &pu); err != nil {
		t.Fatal(err)
	}
	check("UpdateProcedure", "procedural_memory", "p1", "deploy", "ship the release build", "make && ship", `[]`)
}

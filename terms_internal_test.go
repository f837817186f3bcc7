package engram

import (
	"context"
	"testing"

	"github.com/engram-go/engram/internal/store"
)

// A row whose indexed text a statement changed without a new term vector
// loses its vector (a trigger clears it), is scored from its text, and
// passes the integrity check; an archived row from before term vectors
// gets its own when restored.
func TestRowWithoutTermVector(t *testing.T) {
	m, err := New(Tier1, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: "e", Content: "the kayak is in the garage"}); err != nil {
		t.Fatal(err)
	}
	err = m.write(ctx, "test", func(q *dbtx) error {
		return execReported(q, store.Semantic, store.TextChanged, `UPDATE semantic_memory SET content = 'the canoe is in the shed' WHERE id = 'e'`)
	})
	if err != nil {
		t.Fatal(err)
	}
	var null bool
	err = m.db.read(ctx, "test", func(q *dbtx) error {
		return q.queryRow(`SELECT terms IS NULL FROM semantic_memory WHERE id = 'e'`, nil, &null)
	})
	if err != nil || !null {
		t.Fatalf("terms cleared: %v (%v)", null, err)
	}
	res, err := m.Search(ctx, SearchOptions{Query: "canoe shed"})
	if err != nil || len(res) != 1 || res[0].Parts.Text != 1 {
		t.Fatalf("search of the changed row: %+v, %v", res, err)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}

	// The row, without its vector, archived and restored, gets one.
	archive := func(extra string) error {
		return m.write(ctx, "test", func(q *dbtx) error {
			var pk int64
			if err := q.queryRow(`SELECT pk FROM semantic_memory WHERE id = 'e'`, nil, &pk); err != nil {
				return err
			}
			if err := m.archive(q, semanticKind, []leaving{{PK: pk}}, "test", m.now()); err != nil {
				return err
			}
			if extra == "" {
				return nil
			}
			_, err := q.exec(extra)
			return err
		})
	}
	err = archive("")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Restore(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	err = m.db.read(ctx, "test", func(q *dbtx) error {
		return q.queryRow(`SELECT terms IS NULL OR length(terms) = 0 FROM semantic_memory WHERE id = 'e'`, nil, &null)
	})
	if err != nil || null {
		t.Fatalf("restored row without a vector: %v (%v)", null, err)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}

	// An archived row without terms, as archives made before them hold.
	err = archive(`UPDATE archive SET row = json_remove(row, '$.terms', '$.ntok', '$.retrievals')`)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Restore(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	err = m.db.read(ctx, "test", func(q *dbtx) error {
		return q.queryRow(`SELECT terms IS NULL FROM semantic_memory WHERE id = 'e'`, nil, &null)
	})
	if err != nil || null {
		t.Fatalf("restored row without terms: %v (%v)", null, err)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
}

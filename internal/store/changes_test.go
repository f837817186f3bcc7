package store

import (
	"testing"
	"time"
)

// The writes report each memory row they insert or delete, and each whose
// text they change, and nothing else: an update that leaves the text as
// it was, or writes other columns, reports nothing.
func TestWritesReportTheirChanges(t *testing.T) {
	q := openSchema(t)
	at := time.UnixMilli(1_700_000_000_000)
	take := func() []Change {
		cs := q.changes
		q.changes = nil
		return cs
	}
	want := func(what string, got []Change, want ...Change) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: reported %+v, want %+v", what, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: change %d is %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}

	pk, err := InsertSemantic(q, "a", &SemanticRow{ID: "s1", Content: "the billing service", CreatedAt: at, UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	want("insert", take(), Change{Kind: Semantic, Op: Inserted, PK: pk, Agent: "a", ID: "s1", Text: "the billing service"})

	pks, err := InsertSemanticBatch(q, "b", []*SemanticRow{{ID: "s2", Content: "two"}, {ID: "s3", Content: "three"}})
	if err != nil {
		t.Fatal(err)
	}
	want("batch", take(), Change{Kind: Semantic, Op: Inserted, PK: pks[0], Agent: "b", ID: "s2", Text: "two"},
		Change{Kind: Semantic, Op: Inserted, PK: pks[1], Agent: "b", ID: "s3", Text: "three"})

	if err := UpdateSemantic(q, "a", &SemanticRow{ID: "s1", Content: "the billing service", Importance: 0.9, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	want("update, same text", take())
	if err := UpdateSemantic(q, "a", &SemanticRow{ID: "s1", Content: "the payments service", UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	want("update of text", take(), Change{Kind: Semantic, Op: TextChanged, PK: pk, Agent: "a", ID: "s1"})
	if err := UpdateSemantic(q, "b", &SemanticRow{ID: "s1", Content: "another agent's"}); err != nil {
		t.Fatal(err)
	}
	want("update of another agent's ID", take())
	if _, err := BumpSemanticAccess(q, "a", []string{"s1"}, at); err != nil {
		t.Fatal(err)
	}
	want("access", take())

	fact, err := InsertFact(q, "a", NewFact{FactRow: FactRow{ID: "f1", Subject: "ada", Predicate: "likes", Object: "tea", ValidFrom: at, RecordedAt: at, Strength: 1}})
	if err != nil {
		t.Fatal(err)
	}
	got := take()
	want("fact", got, Change{Kind: Fact, Op: Inserted, PK: got[0].PK, Agent: "a", ID: fact.ID, Text: "ada likes tea"})

	found, err := DeleteRow(q, Semantic, "a", "s1")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	want("delete", take(), Change{Kind: Semantic, Op: Deleted, PK: pk, Agent: "a", ID: "s1"})
	n, err := DeleteAgentRows(q, "semantic_memory", "b")
	if err != nil || n != 2 {
		t.Fatal(n, err)
	}
	want("delete an agent's", take(), Change{Kind: Semantic, Op: Deleted, PK: pks[0], Agent: "b", ID: "s2"},
		Change{Kind: Semantic, Op: Deleted, PK: pks[1], Agent: "b", ID: "s3"})
	if _, err := DeleteAgentRows(q, "zettel_links", "b"); err != nil {
		t.Fatal(err)
	}
	want("delete from a table of no kind", take())
}

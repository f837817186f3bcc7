package engram

import (
	"context"
	"testing"
)

// A write that moves a row's updated_at alone records nothing; the
// entries before it still give the fields they left, not the row's new
// updated_at (history that keeps no copy of the row keeps one then).
func TestHistoryKeepsWhatAWriteOfUpdatedAtAloneMoves(t *testing.T) {
	m, err := New(Tier1, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, SemanticEntry{Content: "the kayak lives in the garage", Importance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	imp := 0.7
	if _, err := m.Semantic().Update(ctx, id, SemanticPatch{Importance: &imp}); err != nil {
		t.Fatal(err)
	}
	before, err := m.History(ctx, id)
	if err != nil || len(before) != 2 {
		t.Fatal(err, len(before))
	}
	touch := func() {
		t.Helper()
		err := m.write(ctx, "test", func(q *dbtx) error {
			_, err := q.exec(`UPDATE semantic_memory SET updated_at = updated_at + 1000 WHERE id = ?`, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	touch()
	touch()
	after, err := m.History(ctx, id)
	if err != nil || len(after) != 2 {
		t.Fatal(err, len(after))
	}
	for i := range before {
		if string(before[i].Before) != string(after[i].Before) || string(before[i].After) != string(after[i].After) {
			t.Errorf("entry %d changed with updated_at:\n%s → %s\n%s → %s", i, before[i].Before, after[i].Before, before[i].After, after[i].After)
		}
	}
	imp = 0.2
	if _, err := m.Semantic().Update(ctx, id, SemanticPatch{Importance: &imp}); err != nil {
		t.Fatal(err)
	}
	last, err := m.History(ctx, id)
	if err != nil || len(last) != 3 {
		t.Fatal(err, len(last))
	}
	if string(last[1].After) != string(before[1].After) {
		t.Errorf("the update's fields after it: %s, want %s", last[1].After, before[1].After)
	}
	if string(last[2].Before) == string(last[1].After) {
		t.Error("the next update starts from the row's fields, with the updated_at the touches left")
	}
}

package engram

import (
	"context"
	"testing"

	"github.com/engram-go/engram/internal/store"
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
		err := m.write(ctx, "test", func(q store.Tx) error {
			_, err := q.Exec(`UPDATE semantic_memory SET updated_at = updated_at + 1000 WHERE id = ?`, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A decay's entry after the update says nothing of the fields: the
	// update's entry is the one that keeps them.
	err = m.write(ctx, "test", func(q store.Tx) error {
		return recordAs(q, OpDecay, "decay", func() error {
			_, err := q.Exec(`UPDATE semantic_memory SET resonance = 0.05 WHERE id = ?`, id)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	before = append(before, HistoryEntry{})
	touch()
	touch()
	after, err := m.History(ctx, id)
	if err != nil || len(after) != 3 || after[2].Op != OpDecay {
		t.Fatal(err, len(after))
	}
	for i := range before[:2] {
		if string(before[i].Before) != string(after[i].Before) || string(before[i].After) != string(after[i].After) {
			t.Errorf("entry %d changed with updated_at:\n%s → %s\n%s → %s", i, before[i].Before, after[i].Before, before[i].After, after[i].After)
		}
	}
	imp = 0.2
	if _, err := m.Semantic().Update(ctx, id, SemanticPatch{Importance: &imp}); err != nil {
		t.Fatal(err)
	}
	last, err := m.History(ctx, id)
	if err != nil || len(last) != 4 {
		t.Fatal(err, len(last))
	}
	if string(last[1].After) != string(before[1].After) {
		t.Errorf("the update's fields after it: %s, want %s", last[1].After, before[1].After)
	}
	if string(last[3].Before) == string(last[1].After) {
		t.Error("the next update starts from the row's fields, with the updated_at the touches left")
	}
}

// patchFields puts the old values in place byte for byte, whatever the
// values hold (quotes, braces, nested lists and objects, null), and
// refuses what is not a JSON object without panicking.
func TestPatchFields(t *testing.T) {
	fields := `{"id":"a","content":"say \"}\" and {","tags":["x","]"],"metadata":{"k":{"n":[1,2]}},"valid_to":null,"importance":0.5}`
	got, err := patchFields([]byte(fields), []byte(`{"content":"it was \\ \"this\"","valid_to":12,"metadata":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a","content":"it was \\ \"this\"","tags":["x","]"],"metadata":{},"valid_to":12,"importance":0.5}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, err := patchFields([]byte(`{"id":"a"}`), []byte(`{"gone":1}`)); err != nil || string(got) != `{"id":"a","gone":1}` {
		t.Errorf("a field the row no longer has: %s, %v", got, err)
	}
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1`, `{"a":"x}`, `{"a":[1}`, `{"a":1 "b":2}`, `{a:1}`} {
		if _, err := patchFields([]byte(`{"id":"a"}`), []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
		if _, err := patchFields([]byte(bad), []byte(`{"id":"b"}`)); err == nil && bad != "" {
			t.Errorf("fields %q: no error", bad)
		}
	}
}

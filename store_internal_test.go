package engram

import (
	"context"
	"testing"

	"github.com/engram-go/engram/internal/store"
)

// A parked database wakes with what its writer connection held: the
// change log's hook and triggers (the auto-link index follows the next
// store instead of being built again) and history's triggers.
func TestParkedDatabaseWakesWithLogAndHistory(t *testing.T) {
	ctx := context.Background()
	st, err := Open(Tier1, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := st.Agent("ada")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"the deploy pipeline runs on merge", "the deploy pipeline runs nightly"} {
		if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	if !m.stems.built || !sqliteDB(t, m).State().Logging {
		t.Fatalf("index built %v, log on %v: want both before parking", m.stems.built, sqliteDB(t, m).State().Logging)
	}
	wakes := sqliteDB(t, m).State().Wakes
	if !sqliteDB(t, m).Park() {
		t.Fatal("an idle database did not park")
	}
	if st := sqliteDB(t, m).State(); st.Writer || !st.Asleep {
		t.Fatal("the parked database keeps its writer")
	}
	id, err := m.Semantic().Store(ctx, SemanticEntry{Content: "the deploy pipeline runs on tags"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sqliteDB(t, m).State().Wakes; got != wakes+1 {
		t.Fatalf("wakes %d, want %d", got, wakes+1)
	}
	if !m.stems.built || len(m.stems.docs) != 3 {
		t.Fatalf("after the wake the index is built %v with %d entries, want built with 3: the hook did not follow the store", m.stems.built, len(m.stems.docs))
	}
	var flag int
	err = m.db.Read(ctx, "test", func(q store.Tx) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	err = m.write(ctx, "test", func(q store.Tx) error { return q.QueryRow(`SELECT count(*) FROM temp.changes_on`, nil, &flag) })
	if err != nil || flag != 1 {
		t.Fatalf("temp.changes_on holds %d rows (%v), want 1 while the hook is on", flag, err)
	}
	h, err := m.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].Op != OpCreate {
		t.Fatalf("history of the store after the wake: %+v, want one create", h)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
}

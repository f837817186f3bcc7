package engram

import (
	"reflect"
	"testing"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
)

// TestPostgresHistoryKinds: the kinds and columns whose history
// PostgreSQL's schema records (postgres.HistoryKinds, which its tests
// compare with SQLite's triggers made of them) are the registry's, with
// the same operations.
func TestPostgresHistoryKinds(t *testing.T) {
	got := map[string]store.HistoryKind{}
	for _, k := range postgres.HistoryKinds() {
		got[k.Type] = k
	}
	want := map[string]store.HistoryKind{}
	for typ, k := range historyKinds() {
		want[string(typ)] = k
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("postgres.HistoryKinds:\n%+v\nthe registry's kinds:\n%+v\n(a change of the recorded columns needs a new step of the PostgreSQL schema)", got, want)
	}
	ops := [][2]string{{postgres.HistoryCreate, string(OpCreate)}, {postgres.HistoryUpdate, string(OpUpdate)},
		{postgres.HistoryDelete, string(OpDelete)}, {postgres.HistoryDecay, string(OpDecay)}}
	for _, op := range ops {
		if op[0] != op[1] {
			t.Errorf("PostgreSQL's history triggers record %q where SQLite's record %q", op[0], op[1])
		}
	}
}

package engram

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/store"
)

// TestKindColumnsAreTheTables checks that every kind's cols are exactly
// its table's columns besides pk, agent_id and generated ones: the
// archive, history and export copy a row through cols, and a column left
// out would be lost on the way.
func TestKindColumnsAreTheTables(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, k := range kinds {
		var cols []string
		err := m.db.Read(context.Background(), "test.columns", func(q store.Tx) error {
			// hidden: 0 a column, 2 or 3 a generated one.
			rows, err := q.Query(`SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0 AND name NOT IN ('pk', 'agent_id') ORDER BY cid`, k.Table)
			if err != nil {
				return err
			}
			cols, err = store.ScanAll(rows, func(r store.Scanner) (string, error) {
				var c string
				err := r.Scan(&c)
				return c, err
			})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// A column written as another (store.Kind.WriteAs) is read from the
		// generated one.
		got, want := slices.Sorted(slices.Values(k.WrittenCols(k.Cols))), slices.Sorted(slices.Values(cols))
		if !slices.Equal(got, want) {
			t.Errorf("%s: cols %v, the table has %v", k.typ, got, want)
		}
	}
}

// TestDeletesLeaveNoTerms checks that every kind's full-text index takes a
// deleted row's terms out (FTS5's secure-delete), or is one whose deletes
// Forget merges away (store.Kind.Tombstones): forgotten words must not stay in
// the index.
func TestDeletesLeaveNoTerms(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, k := range kinds {
		if k.FTS == "" || k.Tombstones {
			continue
		}
		var on string
		err := m.db.Read(context.Background(), "test.fts", func(q store.Tx) error {
			return q.QueryRow(`SELECT coalesce((SELECT v FROM `+k.FTS+`_config WHERE k = 'secure-delete'), '0')`, nil, &on)
		})
		if err != nil {
			t.Fatal(err)
		}
		if on != "1" {
			t.Errorf("%s: %s has no secure-delete", k.typ, k.FTS)
		}
	}
}

// Every kind whose importance is made of columns has the trigger that
// moves text_stats.ranks when its importance rises (migration 0010), on
// those columns, with its own expression: the in-memory text index's
// bounds on importance hold only while ranks has not moved.
func TestImportanceRisesMoveRanks(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, k := range kinds {
		cols := store.ColumnsOf(k.Importance)
		var sql string
		err := m.db.Read(context.Background(), "test", func(q store.Tx) error {
			return q.QueryRow(`SELECT coalesce((SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 AND name LIKE '%_ranks_au'), '')`,
				[]any{k.Table}, &sql)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) == 0 {
			if sql != "" {
				t.Errorf("%s: importance %q is a constant, yet a trigger moves ranks", k.Table, k.Importance)
			}
			continue
		}
		want := []string{"UPDATE OF " + strings.Join(cols, ", ") + " ON " + k.Table, store.Over(k.Importance, "new") + " > " + store.Over(k.Importance, "old")}
		for _, w := range want {
			if !strings.Contains(sql, w) {
				t.Errorf("%s: the ranks trigger %q lacks %q", k.Table, sql, w)
			}
		}
	}
}

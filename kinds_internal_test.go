package engram

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

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

// TestEveryRecordFieldIsAKindsOfTheRegistry: each field of Record (but
// Type) is one kind's of the registry, which finds a memory in it, reads
// its ID, and is what Get, List, AddAll's check and the transports' view
// go by; a kind added with its field but without its entry fails here.
func TestEveryRecordFieldIsAKindsOfTheRegistry(t *testing.T) {
	rt := reflect.TypeFor[Record]()
	seen := map[*kind]bool{}
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Name == "Type" {
			continue
		}
		var r Record
		v := reflect.New(f.Type.Elem())
		if id := v.Elem().FieldByName("ID"); id.IsValid() {
			id.SetString("x-" + f.Name)
		}
		reflect.ValueOf(&r).Elem().Field(i).Set(v)
		var holders []*kind
		for _, k := range listed {
			if _, _, ok := k.rec.key(&r); ok {
				holders = append(holders, k)
			}
		}
		if len(holders) != 1 {
			t.Errorf("Record.%s is held by %d kinds of the registry, want 1", f.Name, len(holders))
			continue
		}
		k := holders[0]
		seen[k] = true
		typ, err := r.kindOf("r")
		if err != nil || typ != k.typ || r.ID() != "x-"+f.Name || k.rec.value(&r) != v.Interface() {
			t.Errorf("Record.%s: kindOf = %q, %v; ID = %q; want %s, x-%s and the memory", f.Name, typ, err, r.ID(), k.typ, f.Name)
		}
	}
	for _, k := range kinds {
		if !seen[k] {
			t.Errorf("kind %s holds no field of Record", k.Name)
		}
	}
	assert.Equal(t, []MemoryType{TypeSemantic, TypeEpisodic, TypeProcedural, TypeFact, TypeSnapshot, TypeDocument}, listedTypes[:6],
		"Get looks in the order it always has")
}

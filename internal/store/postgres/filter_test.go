package postgres_test

import (
	"database/sql"
	"math"
	"slices"
	"testing"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
)

// A metadata condition in PostgreSQL's form (store.DialectPostgres)
// keeps, on PostgreSQL, the rows that SQLite's form keeps on SQLite.
func TestMetaCondMatchesSQLite(t *testing.T) {
	lite, pg := sqliteDB(t), schemaDB(t)
	docs := map[string]string{
		"1": `{"a": 5, "s": "x", "b": true}`,
		"2": `{"a": 5.5, "s": "y", "b": false}`,
		"3": `{"a": "5", "s": 7}`,
		"4": `{}`,
		"5": `{"a": null, "b": "true"}`,
		"6": `{"a": 10, "s": "10"}`,
		"7": `{"a": -1, "s": "é", "a b": 1}`,
		"8": `{"a": [5], "s": {"x": 1}}`,
	}
	for _, db := range []*sql.DB{lite, pg} {
		if _, err := db.Exec(`CREATE TABLE m (id text, metadata text)`); err != nil {
			t.Fatal(err)
		}
		for id, doc := range docs {
			if _, err := db.Exec(`INSERT INTO m VALUES ($1, $2)`, id, doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	eq := func(k string, v any) *store.MetaCond { return &store.MetaCond{Op: "eq", Key: k, Value: v} }
	op := func(o, k string, v any) *store.MetaCond { return &store.MetaCond{Op: o, Key: k, Value: v} }
	exists := func(k string) *store.MetaCond { return &store.MetaCond{Op: "exists", Key: k} }
	cases := []struct {
		name string
		cond *store.MetaCond
		want []string
	}{
		{"eq number", eq("a", 5.0), []string{"1"}},
		{"eq string", eq("a", "5"), []string{"3"}},
		{"ne number", op("ne", "a", 5.0), []string{"2", "3", "4", "5", "6", "7", "8"}},
		{"gt", op("gt", "a", 5.0), []string{"2", "6"}},
		{"gte", op("gte", "a", 5.0), []string{"1", "2", "6"}},
		{"lt", op("lt", "a", 6.0), []string{"1", "2", "7"}},
		{"lte", op("lte", "a", 5.5), []string{"1", "2", "7"}},
		{"in", &store.MetaCond{Op: "in", Key: "a", Values: []any{5.0, "5", 10.0}}, []string{"1", "3", "6"}},
		{"exists", exists("a"), []string{"1", "2", "3", "5", "6", "7", "8"}},
		{"not exists", &store.MetaCond{Op: "not", Conds: []*store.MetaCond{exists("a")}}, []string{"4"}},
		{"true", eq("b", true), []string{"1"}},
		{"false", eq("b", false), []string{"2"}},
		{"ne true", op("ne", "b", true), []string{"2", "3", "4", "5", "6", "7", "8"}},
		{"string eq", eq("s", "x"), []string{"1"}},
		{"string gt", op("gt", "s", "x"), []string{"2", "7"}},
		{"string lt", op("lt", "s", "y"), []string{"1", "6"}},
		{"key with a space", eq("a b", 1.0), []string{"7"}},
		{"and", &store.MetaCond{Op: "and", Conds: []*store.MetaCond{exists("s"), op("gt", "a", 0.0)}}, []string{"1", "2", "6"}},
		{"or", &store.MetaCond{Op: "or", Conds: []*store.MetaCond{eq("s", 7.0), eq("s", "10")}}, []string{"3", "6"}},
	}
	query := func(t *testing.T, db *sql.DB, d store.Dialect, c *store.MetaCond) []string {
		t.Helper()
		cond, args := store.Scope{Since: store.ZeroMS, Until: math.MaxInt64, Meta: c, Dialect: d}.Where(store.Semantic, "t", 1)
		q := `SELECT t.id FROM m t WHERE ` + cond + ` ORDER BY t.id`
		if d == store.DialectPostgres {
			var err error
			if q, err = postgres.Translate(q); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := db.Query(q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			onSQLite := query(t, lite, store.DialectSQLite, c.cond)
			onPostgres := query(t, pg, store.DialectPostgres, c.cond)
			if !slices.Equal(onSQLite, c.want) {
				t.Errorf("SQLite keeps %q, want %q", onSQLite, c.want)
			}
			if !slices.Equal(onPostgres, onSQLite) {
				t.Errorf("PostgreSQL keeps %q, SQLite %q", onPostgres, onSQLite)
			}
		})
	}
}

package store

import (
	"database/sql"
	"fmt"
	"math"
	"slices"
	"testing"
)

// A Scope's condition keeps the rows its conditions say, whatever its
// arguments' numbering: a metadata condition on a missing key, or on a
// value of another type, is false (so its Not is true).
func TestScopeWhere(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE x (pk INTEGER PRIMARY KEY, user_id TEXT, session_id TEXT, created_at INTEGER, tags TEXT, metadata TEXT)`); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]any{
		{1, "u1", "s1", 1000, `["a"]`, `{"lang":"go","n":3,"ok":true}`},
		{2, "u2", "", 2000, `["b"]`, `{"lang":"rust","n":5}`},
		{3, "", "s1", 3000, `[]`, `{"n":"5"}`},
		{4, "u1", "s2", 4000, `["a","b"]`, `{}`},
	} {
		if _, err := db.Exec(`INSERT INTO x VALUES (?, ?, ?, ?, ?, ?)`, r...); err != nil {
			t.Fatal(err)
		}
	}
	k := KindNamed("semantic")
	open := Scope{Since: ZeroMS, Until: math.MaxInt64} // as the root makes a zero Filter's
	with := func(f func(*Scope)) Scope { sc := open; f(&sc); return sc }
	meta := func(c *MetaCond) Scope { return with(func(sc *Scope) { sc.Meta = c }) }
	eq := func(key string, v any) *MetaCond { return &MetaCond{Op: "eq", Key: key, Value: v} }
	for _, c := range []struct {
		name string
		sc   Scope
		want []int64
	}{
		{"none", open, []int64{1, 2, 3, 4}},
		{"user", with(func(sc *Scope) { sc.User = "u1" }), []int64{1, 4}},
		{"session", with(func(sc *Scope) { sc.Session = "s1" }), []int64{1, 3}},
		{"user and session", with(func(sc *Scope) { sc.User, sc.Session = "u1", "s1" }), []int64{1}},
		{"time", with(func(sc *Scope) { sc.Since, sc.Until = 2000, 4000 }), []int64{2, 3}},
		{"tags", with(func(sc *Scope) { sc.Tags = `["b"]` }), []int64{2, 4}},
		{"eq", meta(eq("lang", "go")), []int64{1}},
		{"ne", meta(&MetaCond{Op: "ne", Key: "lang", Value: "go"}), []int64{2, 3, 4}},
		{"gt number", meta(&MetaCond{Op: "gt", Key: "n", Value: 3.0}), []int64{2}},
		{"lte string", meta(&MetaCond{Op: "lte", Key: "n", Value: "5"}), []int64{3}},
		{"in", meta(&MetaCond{Op: "in", Key: "lang", Values: []any{"go", "rust"}}), []int64{1, 2}},
		{"exists", meta(&MetaCond{Op: "exists", Key: "ok"}), []int64{1}},
		{"bool", meta(eq("ok", true)), []int64{1}},
		{"not", meta(&MetaCond{Op: "not", Conds: []*MetaCond{eq("n", 5.0)}}), []int64{1, 3, 4}},
		{"or", meta(&MetaCond{Op: "or", Conds: []*MetaCond{eq("lang", "rust"), eq("n", "5")}}), []int64{2, 3}},
		{"and", meta(&MetaCond{Op: "and", Conds: []*MetaCond{eq("lang", "go"), eq("n", 3.0)}}), []int64{1}},
		{"user and meta", with(func(sc *Scope) { sc.User, sc.Meta = "u1", eq("lang", "go") }), []int64{1}},
	} {
		for _, base := range []int{0, 3} {
			cond, args := c.sc.Where(k, "s", base)
			if c.name == "none" && (cond != "1" || args != nil) {
				t.Errorf("the open scope's condition is %q %v, want 1", cond, args)
			}
			query := `SELECT pk FROM x s WHERE ` + cond + ` ORDER BY pk`
			if base > 0 {
				// The query's own arguments come first.
				query = `SELECT pk FROM x s WHERE ?1 = 1 AND ?2 = 2 AND ` + cond + ` ORDER BY pk`
				args = append([]any{1, 2}, args...)
			}
			name := fmt.Sprintf("%s (base %d)", c.name, base)
			rows, err := db.Query(query, args...)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, query, err)
			}
			got, err := ScanAll(rows, func(r Scanner) (int64, error) {
				var pk int64
				return pk, r.Scan(&pk)
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %s keeps %v, want %v", name, cond, got, c.want)
			}
		}
	}
}

// OrderBy makes the first term an expression only when a user or a
// session is asked for.
func TestOrderBy(t *testing.T) {
	for _, c := range []struct{ user, session, want string }{
		{"", "", "created_at DESC"},
		{"u", "", "+created_at DESC"},
		{"", "s", "+created_at DESC"},
	} {
		if got := OrderBy(c.user, c.session, "created_at DESC"); got != c.want {
			t.Errorf("OrderBy(%q, %q) = %q, want %q", c.user, c.session, got, c.want)
		}
	}
}

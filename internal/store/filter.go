package store

import (
	"math"
	"strconv"
	"strings"
)

// Scope is a validated filter of the memories a query looks at, below its
// agent: the conditions the root package's Filter holds, as data. The
// zero value of a field leaves it out, but for Until, which is
// math.MaxInt64 when open.
type Scope struct {
	User, Session string
	Since, Until  int64     // created in [Since, Until), Unix ms
	Tags          string    // a JSON list of tags, one of which a row carries; "" for any
	Meta          *MetaCond // a condition on the metadata; nil for none
	// Dialect is the dialect of the engine the condition runs on: the
	// metadata's condition has a form of its own on PostgreSQL.
	Dialect Dialect
}

// Dialect is an engine's SQL dialect. The store's statements are written
// in SQLite's, and the PostgreSQL engine translates them
// (postgres.Translate); the few whose rewrite would be unsafe string
// surgery are made in the dialect their engine gives (see Scope.Dialect).
type Dialect uint8

// The dialects.
const (
	DialectSQLite   Dialect = iota // SQLite's, the zero value
	DialectPostgres                // PostgreSQL's, as postgres.Translate reads it
)

// MetaCond is a validated condition on a memory's metadata, as data: a
// comparison of one top-level key or a combination of conditions. Op is
// one of "eq", "ne", "in", "gt", "gte", "lt", "lte", "exists", "and", "or",
// "not"; Value and Values hold strings, float64s or bools only.
type MetaCond struct {
	Op     string
	Key    string
	Value  any
	Values []any
	Conds  []*MetaCond
}

// Where returns the SQL condition that the row of kind k named alias is
// in the scope, with its arguments numbered from base (or, with base 0,
// plain ?s in order): "1" and no arguments when it keeps every row. k must
// have the columns the scope's conditions read (a user, a session, tags,
// metadata).
func (sc Scope) Where(k *Kind, alias string, base int) (string, []any) {
	a := &scopeArgs{base: base, dialect: sc.Dialect}
	var parts []string
	// A user and a session are said twice so that the partial indexes of
	// the non-empty ones serve (see migration 0013).
	if sc.User != "" {
		parts = append(parts, alias+"."+k.UserCol+" = "+a.add(sc.User)+" AND "+alias+"."+k.UserCol+" <> ''")
	}
	if sc.Session != "" {
		parts = append(parts, alias+"."+k.SessionCol+" = "+a.add(sc.Session)+" AND "+alias+"."+k.SessionCol+" <> ''")
	}
	if sc.Since > ZeroMS {
		parts = append(parts, alias+".created_at >= "+a.add(sc.Since))
	}
	if sc.Until != math.MaxInt64 {
		parts = append(parts, alias+".created_at < "+a.add(sc.Until))
	}
	if sc.Tags != "" {
		parts = append(parts, TagsIn(alias, a.add(sc.Tags)))
	}
	if sc.Meta != nil {
		parts = append(parts, sc.Meta.sql(alias+"."+k.MetaCol, a))
	}
	if len(parts) == 0 {
		return "1", nil
	}
	return strings.Join(parts, " AND "), a.args
}

// OrderBy returns the ORDER BY terms order of a query over rows that a
// scope with the given user and session selects: with either, its first
// term made an expression (+x), so that the planner finds the rows by the
// index of the user or session and sorts them, rather than walking every
// row of the agent in an index of that order.
func OrderBy(user, session, order string) string {
	if user == "" && session == "" {
		return order
	}
	return "+" + order
}

// whereOrAll is Where for a scope that may be nil (no filter), over the
// row named alias, with plain ?s.
func (s *Scope) whereOrAll(k *Kind, alias string) (string, []any) {
	if s == nil {
		return "1", nil
	}
	return s.Where(k, alias, 0)
}

// orderBy is OrderBy for a scope that may be nil.
func (s *Scope) orderBy(order string) string {
	if s == nil {
		return order
	}
	return OrderBy(s.User, s.Session, order)
}

// Scoped returns query with cond, in parentheses, in place of its first
// mark (see ScopeMark).
func Scoped(query, cond string) string {
	return strings.Replace(query, ScopeMark, "("+cond+")", 1)
}

// ScopeMark stands in a query for the condition of a scope, which
// [Scoped] puts in its place; left alone, it keeps every row.
const ScopeMark = "1 /*scope*/"

// scopeArgs collects the arguments of an SQL fragment whose parameters
// are numbered from a base (or, with base 0, are plain ?s, in order): add
// returns the parameter of a new argument.
type scopeArgs struct {
	base    int
	args    []any
	dialect Dialect
}

func (a *scopeArgs) add(v any) string {
	a.args = append(a.args, v)
	if a.base == 0 {
		return "?"
	}
	return "?" + strconv.Itoa(a.base+len(a.args)-1)
}

// metaOps are the SQL operators of the comparisons that order values.
var metaOps = map[string]string{"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

// sql returns the SQL condition that the metadata in the SQL expression
// col meets c.
func (c *MetaCond) sql(col string, a *scopeArgs) string {
	switch c.Op {
	case "and", "or":
		parts := make([]string, len(c.Conds))
		for i, sub := range c.Conds {
			parts[i] = sub.sql(col, a)
		}
		return "(" + strings.Join(parts, map[string]string{"and": " AND ", "or": " OR "}[c.Op]) + ")"
	case "not":
		return "NOT " + c.Conds[0].sql(col, a)
	}
	if a.dialect == DialectPostgres {
		return c.postgres(col, a)
	}
	// A condition on a missing key is false, never NULL, so that NOT
	// turns it true. Each use of the key's path is an argument of its
	// own, for plain ?s.
	path := `$."` + c.Key + `"`
	typ := func() string { return "json_type(" + col + ", " + a.add(path) + ")" }
	value := func() string { return "(" + col + " ->> " + a.add(path) + ")" }
	compare := func(op string, v any) string {
		switch x := v.(type) {
		case bool:
			if x {
				return "coalesce(" + typ() + " = 'true', 0)"
			}
			return "coalesce(" + typ() + " = 'false', 0)"
		case string:
			t := typ()
			return "coalesce(" + t + " = 'text' AND " + value() + " " + op + " " + a.add(x) + ", 0)"
		default:
			t := typ()
			return "coalesce(" + t + " IN ('integer', 'real') AND " + value() + " " + op + " " + a.add(x) + ", 0)"
		}
	}
	return c.comparison(typ, compare)
}

// comparison is the condition of c's comparison (not and, or, not) in
// either dialect: present says the key is there, compare compares its
// value with v by the SQL operator op.
func (c *MetaCond) comparison(present func() string, compare func(op string, v any) string) string {
	switch c.Op {
	case "exists":
		return "(" + present() + " IS NOT NULL)"
	case "eq":
		return compare("=", c.Value)
	case "ne":
		return "NOT " + compare("=", c.Value)
	case "in":
		parts := make([]string, len(c.Values))
		for i, v := range c.Values {
			parts[i] = compare("=", v)
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	return compare(metaOps[c.Op], c.Value)
}

// postgres is sql's comparison (not and, or, not) on PostgreSQL: the
// key is an argument of its own (not a SQLite JSON path), its JSON type
// is jsonb's, and a CASE keeps a string from being read as a number. As
// on SQLite, a condition on a missing key, or on a value of another
// type, is false, never NULL.
func (c *MetaCond) postgres(col string, a *scopeArgs) string {
	doc := "CAST(" + col + " AS jsonb)"
	value := func() string { return "jsonb_extract_path(" + doc + ", " + a.add(c.Key) + ")" }
	text := func() string { return "jsonb_extract_path_text(" + doc + ", " + a.add(c.Key) + ")" }
	compare := func(op string, v any) string {
		switch x := v.(type) {
		case bool:
			return "coalesce(" + value() + " = CAST('" + strconv.FormatBool(x) + "' AS jsonb), false)"
		case string:
			return "CASE WHEN jsonb_typeof(" + value() + ") = 'string' THEN " + text() + " " + op + " CAST(" + a.add(x) + " AS text) ELSE false END"
		default:
			return "CASE WHEN jsonb_typeof(" + value() + ") = 'number' THEN CAST(" + text() + " AS numeric) " + op + " CAST(" + a.add(x) + " AS numeric) ELSE false END"
		}
	}
	return c.comparison(value, compare)
}

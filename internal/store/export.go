package store

import (
	"slices"
	"strings"

	"github.com/engram-go/engram/internal/schema"
)

// An export reads the agent's rows table by table, streaming: every
// kind's memories, the archive, links, fact aliases, extraction rules,
// the history of changes and the vectors. ExportSource says how it reads
// one of them; ExportCond what a filtered export keeps of it; ExportRows
// reads it.

// ExportSource is how an export reads one table: the kind of each row
// (a memory table's own, the archive's and the history's memory_type,
// none for the others), the columns it reads and their order.
type ExportSource struct {
	kind     *Kind  // a memory table's or a vector table's kind
	archive  bool   // the archive
	links    bool   // the links
	aliases  bool   // the fact aliases
	history  bool   // the history of changes
	kindExpr string // the SQL of a row's kind, over t
	exprs    []string
	from     string
	pgFrom   string // from on PostgreSQL, when it differs
	order    string
}

// overT names each of cols over the table aliased t.
func overT(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = "t." + c
	}
	return out
}

// MemoryExport reads the columns cols of kind k's rows, in the order they
// were stored.
func MemoryExport(k *Kind, cols []string) *ExportSource {
	return &ExportSource{kind: k, kindExpr: "'" + k.Name + "'", exprs: overT(cols), from: k.Table + " t", order: "t.pk"}
}

// VectorExport reads the ID and the embedding of each of kind k's rows
// that has one (k.Vec), in the order the rows were stored. On PostgreSQL
// the side table joins its rows by its key, the agent and the pk.
func VectorExport(k *Kind) *ExportSource {
	return &ExportSource{kind: k, kindExpr: "'" + k.Name + "'", exprs: []string{"t.id", "v.embedding"},
		from:   k.Table + " t JOIN " + k.Vec + " v ON v.rowid = t.pk",
		pgFrom: k.Table + " t JOIN " + k.Vec + " v ON v.agent_id = t.agent_id AND v.pk = t.pk", order: "t.pk"}
}

// ArchiveExport reads the archive's columns cols, each row's kind being
// its memory_type, in the order rows were archived. The JSON copy of a
// row (the column "row") is read as stored, derived columns and all: the
// caller leaves those out, keeping the other fields' order and form,
// which an engine's JSON functions would not (PostgreSQL's jsonb orders
// an object's keys its own way).
func ArchiveExport(cols []string) *ExportSource {
	return &ExportSource{archive: true, kindExpr: "t.memory_type", exprs: overT(cols), from: "archive t", order: "t.pk"}
}

// LinkExport reads the links' columns cols (see [LinkCols]), ordered by
// their ends and type.
func LinkExport(cols []string) *ExportSource {
	return &ExportSource{links: true, kindExpr: "''", exprs: overT(cols), from: "zettel_links t",
		order: "t.source_type, t.source_id, t.target_type, t.target_id, t.link_type"}
}

// AliasExport reads the fact aliases' columns cols, ordered by alias.
func AliasExport(cols []string) *ExportSource {
	return &ExportSource{aliases: true, kindExpr: "''", exprs: overT(cols), from: "fact_aliases t", order: "t.alias_key"}
}

// RuleExport reads the extraction rules' columns cols, in the order they
// were stored.
func RuleExport(cols []string) *ExportSource {
	return &ExportSource{kindExpr: "''", exprs: overT(cols), from: "extraction_rules t", order: "t.pk"}
}

// HistoryExport reads the history's columns cols and then, for each
// entry, its sequence number (pk) and its form (NULL for a whole entry),
// each entry's kind being its memory_type, oldest first.
func HistoryExport(cols []string) *ExportSource {
	exprs := append(overT(cols), "t.pk", "t.form")
	return &ExportSource{history: true, kindExpr: "t.memory_type", exprs: exprs, from: "history t", order: "t.pk"}
}

// Statement is the statement ExportRows runs to read the rows of the
// source that cond (see ExportCond) selects: the agent is its first
// parameter, cond's arguments follow.
func (s *ExportSource) Statement(cond string) string {
	return `SELECT ` + s.kindExpr + `, ` + strings.Join(s.exprs, ", ") + ` FROM ` + s.from +
		` WHERE t.agent_id = ? AND ` + cond + ` ORDER BY ` + s.order
}

// ExportRows calls fn with the kind ("" for a table without one) and the
// values, as the driver reads them, of each of the agent's rows of the
// source that cond (with its plain ?s bound to args; see ExportCond)
// selects, streaming, in the source's order. vals is reused from one call
// to the next: fn copies what it keeps. It returns the driver's error or
// fn's.
func ExportRows(q Querier, s *ExportSource, agent, cond string, args []any, fn func(kind string, vals []any) error) error {
	return exportRows(q, s, agent, cond, "", args, fn)
}

// ExportPage is ExportRows for a source ordered by t.pk (the history's):
// it reads the first limit rows whose pk is above after, and returns how
// many it read.
func ExportPage(q Querier, s *ExportSource, agent, cond string, args []any, after int64, limit int, fn func(kind string, vals []any) error) (int, error) {
	n := 0
	err := exportRows(q, s, agent, "("+cond+") AND t.pk > ?", " LIMIT ?", append(slices.Clip(args), after, limit), func(kind string, vals []any) error {
		n++
		return fn(kind, vals)
	})
	return n, err
}

// exportRows is ExportRows with tail after the statement's ORDER BY.
func exportRows(q Querier, s *ExportSource, agent, cond, tail string, args []any, fn func(kind string, vals []any) error) error {
	stmt := s.Statement(cond) + tail
	if s.pgFrom != "" && Postgres(q) {
		pg := *s
		pg.from = s.pgFrom
		stmt = pg.Statement(cond) + tail
	}
	rows, err := q.Query(stmt, append([]any{agent}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var kind string
	vals := make([]any, len(s.exprs))
	dest := make([]any, len(s.exprs)+1)
	dest[0] = &kind
	for i := range vals {
		dest[i+1] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := fn(kind, vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// ScopeCond returns the condition, with plain ?s and its arguments, that
// the row of kind k aliased alias (a table alias, or "{t}" for a template
// that [OverJSON] reads from the archive's copy of a row) is one a filter
// keeps: "1" when it keeps every row. The root package builds it from its
// filter, for now as SQL.
type ScopeCond func(k *Kind, alias string) (string, []any)

// ExportCond returns the condition (over t, with plain ?s and args) that
// a row of the source belongs to what a filtered export holds: the
// memories of the kinds ks (those the filter admits, in engram's order)
// that cond keeps; the archived rows of those it keeps; the links between
// two memories it holds; the fact aliases when ks hold facts; every
// extraction rule; the history of the memories it holds, current or
// archived. skip is true when the source holds none of it.
func ExportCond(s *ExportSource, ks []*Kind, cond ScopeCond) (where string, args []any, skip bool) {
	switch {
	case s.archive:
		return archivedIn(ks, cond, "t")
	case s.links:
		var parts []string
		for _, end := range []string{"source", "target"} {
			c, a, none := byKind(ks, func(k *Kind) bool { return k.Linkable }, "t."+end+"_type", func(k *Kind) (string, []any) {
				return heldBy(k, cond, "t."+end+"_id")
			})
			if none {
				return "", nil, true
			}
			parts, args = append(parts, c), append(args, a...)
		}
		return strings.Join(parts, " AND "), args, false
	case s.aliases:
		return "1", nil, !slices.Contains(ks, Fact)
	case s.history:
		current, a, none := byKind(ks, nil, "t.memory_type", func(k *Kind) (string, []any) {
			return heldBy(k, cond, "t.id")
		})
		if none {
			return "", nil, true
		}
		archived, b, none := archivedIn(ks, cond, "t2")
		if none {
			return current, a, false
		}
		return "(" + current + " OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND " +
			archived + "))", append(a, b...), false
	case s.kind == nil: // the extraction rules
		return "1", nil, false
	}
	if !slices.Contains(ks, s.kind) {
		return "", nil, true
	}
	c, a := cond(s.kind, "t")
	return c, a, false
}

// archivedIn returns the condition (over the archive aliased alias) that
// an archived row is of one of ks and kept by cond, read from its JSON
// copy; none when no kind of ks is archived.
func archivedIn(ks []*Kind, cond ScopeCond, alias string) (string, []any, bool) {
	return byKind(ks, func(k *Kind) bool { return k.Protected != "" }, alias+".memory_type", func(k *Kind) (string, []any) {
		c, a := cond(k, "{t}")
		return OverJSON(c, alias+".row"), a
	})
}

// byKind returns the condition that a row whose kind is the SQL
// expression typ is of one of ks for which has (nil for all) is true and
// meets that kind's condition (by cond); none when there is no such kind.
func byKind(ks []*Kind, has func(*Kind) bool, typ string, cond func(*Kind) (string, []any)) (string, []any, bool) {
	var parts []string
	var args []any
	for _, k := range ks {
		if has != nil && !has(k) {
			continue
		}
		c, a := cond(k)
		parts = append(parts, "("+typ+" = '"+k.Name+"' AND "+c+")")
		args = append(args, a...)
	}
	if len(parts) == 0 {
		return "", nil, true
	}
	return "(" + strings.Join(parts, " OR ") + ")", args, false
}

// heldBy is the condition that the agent's (t.agent_id's) memory of kind
// k with the ID the SQL expression id gives is kept by cond.
func heldBy(k *Kind, cond ScopeCond, id string) (string, []any) {
	c, a := cond(k, "x")
	return "EXISTS (SELECT 1 FROM " + k.Table + " x WHERE x.agent_id = t.agent_id AND x.id = " + id + " AND " + c + ")", a
}

// SchemaVersion returns the version of the database's schema: the number
// of the last migration it ran. On PostgreSQL, whose schema holds the
// tables of SQLite's current version (internal/store/postgres checks it),
// it is that version. It returns the driver's error.
func SchemaVersion(q Querier) (int, error) {
	if Postgres(q) {
		return len(schema.Migrations()), nil
	}
	var v int
	err := q.QueryRow("PRAGMA user_version", nil, &v)
	return v, err
}

package engram

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/exchange"
	"github.com/engram-go/engram/internal/store"
)

// ExportOptions says what [Memory.Export] writes besides the agent's
// memories, archive, links, fact aliases and extraction rules.
type ExportOptions struct {
	// Vectors adds, in Tier 2, each memory's embedding (vector records),
	// so that an import by the same model need not embed again.
	Vectors bool
	// History adds the agent's history of changes (history records),
	// oldest first. An import of the file brings each memory's history
	// in place of the entry that records its import.
	History bool
	// Filter, when not nil, exports only the memories it keeps (see
	// [Filter]): one user's, say. The file then holds those memories,
	// their archived entries that the filter keeps, the links between
	// two memories it holds, their vectors and (with History) their
	// history, the extraction rules, and the fact aliases only when the
	// filter keeps facts.
	Filter *Filter
}

// exchangeTable is a table of the agent's rows that an export writes and
// an import reads back, one record per row: its record type, the columns
// a record's row holds and what identifies a row within the agent. Each
// kind of memory has one (derived from the kind registry); the archive,
// links, fact aliases and extraction rules have theirs. The list of them,
// in order, is the file's sections (see exchangeTables); a new section
// (the history of changes, say) is one more entry.
type exchangeTable struct {
	rec   string // the record type
	kind  *kind  // a memory table's kind
	table string
	// kindExpr is the SQL of a row's kind (over t), "" for records
	// without one.
	kindExpr string
	cols     []string // the columns a record's row holds, in order
	exprs    []string // the SQL that reads each column over t
	key      []string // what identifies a row within the agent and its kind
	order    string   // ORDER BY of an export, over t
	from     string   // FROM, when not the table t
}

// derivedColumns are the columns engram makes from a row's others (term
// vectors, the content hash): an export leaves them out and an import
// makes them again.
var derivedColumns = map[string]bool{"terms": true, "ntok": true, "content_hash": true}

// isJSON reports whether column c holds JSON, which a record holds as a
// JSON value rather than as a string: the kinds' JSON columns (see
// jsonColumns in history.go) and the archive's row and links.
func isJSON(c string) bool {
	return jsonColumns[c] || c == "row" || c == "links" || c == "before" || c == "after"
}

// exported returns cols without the derived columns.
func exported(cols []string) []string {
	return slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return derivedColumns[c] })
}

func overT(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = "t." + c
	}
	return out
}

// memoryTable is the exchange table of kind k's rows.
func memoryTable(k *kind) *exchangeTable {
	cols := exported(k.Cols)
	return &exchangeTable{rec: exchange.TypeMemory, kind: k, table: k.Table, kindExpr: "'" + string(k.typ) + "'",
		cols: cols, exprs: overT(cols), key: []string{"id"}, order: "t.pk"}
}

// archiveCols are the archive's columns in a record (its memory_type is
// the record's kind).
var archiveCols = strings.Fields("id row links reason merged_into archived_at")

var (
	archiveTable = func() *exchangeTable {
		exprs := overT(archiveCols)
		var paths []string
		for c := range derivedColumns {
			paths = append(paths, "'$."+c+"'")
		}
		slices.Sort(paths)
		exprs[1] = "json_remove(t.row, " + strings.Join(paths, ", ") + ")"
		return &exchangeTable{rec: exchange.TypeArchive, table: "archive", kindExpr: "t.memory_type",
			cols: archiveCols, exprs: exprs, key: []string{"id"}, order: "t.pk"}
	}()
	linkTable = func() *exchangeTable {
		cols := strings.Split(strings.ReplaceAll(linkCols, " ", ""), ",")
		return &exchangeTable{rec: exchange.TypeLink, table: "zettel_links", cols: cols, exprs: overT(cols),
			key: cols[:5], order: "t.source_type, t.source_id, t.target_type, t.target_id, t.link_type"}
	}()
	aliasTable = func() *exchangeTable {
		cols := strings.Fields("alias_key entity_key alias created_at")
		return &exchangeTable{rec: exchange.TypeAlias, table: "fact_aliases", cols: cols, exprs: overT(cols),
			key: cols[:1], order: "t.alias_key"}
	}()
	ruleTable = func() *exchangeTable {
		cols := strings.Fields("name pattern memory_type importance tags active created_at subject predicate object")
		return &exchangeTable{rec: exchange.TypeRule, table: "extraction_rules", cols: cols, exprs: overT(cols),
			key: cols[:1], order: "t.pk"}
	}()
)

// historyTable is the history of changes: its entries have no key (two
// may be alike), their order is the file's.
var historyTable = func() *exchangeTable {
	cols := strings.Fields("id op before after actor reason at")
	return &exchangeTable{rec: exchange.TypeHistory, table: "history", kindExpr: "t.memory_type",
		cols: cols, exprs: overT(cols), order: "t.pk"}
}()

// vectorTable is the exchange table of kind k's vectors (k.vec).
func vectorTable(k *kind) *exchangeTable {
	return &exchangeTable{rec: exchange.TypeVector, kind: k, table: k.Table, kindExpr: "'" + string(k.typ) + "'",
		cols: []string{"id", "embedding"}, exprs: []string{"t.id", "v.embedding"}, key: []string{"id"},
		order: "t.pk", from: k.Table + " t JOIN " + k.Vec + " v ON v.rowid = t.pk"}
}

// exchangeTables are the sections of a file, in order: every kind's
// memories, the archive, links, fact aliases, extraction rules, and the
// vectors when asked for.
func (m *Memory) exchangeTables(opts ExportOptions) []*exchangeTable {
	var out []*exchangeTable
	for _, k := range kinds {
		out = append(out, memoryTable(k))
	}
	out = append(out, archiveTable, linkTable, aliasTable, ruleTable)
	if opts.Vectors && m.vectors != nil {
		for _, k := range vectorKinds {
			out = append(out, vectorTable(k))
		}
	}
	if opts.History {
		out = append(out, historyTable)
	}
	return out
}

// Export writes the agent's memory to w in engram's export format
// (documented in docs/export-format.md): a header, then one JSON line per
// memory of every kind, archived memory, link, fact alias and extraction
// rule, and, with opts.Vectors in Tier 2, per vector. It reads one
// snapshot of the database (writes that commit meanwhile are not in it)
// and streams: it holds one row at a time, whatever the memory's size.
// The order is fixed (kinds in engram's order, then the order rows were
// stored in), so two exports of the same memory are the same bytes but
// for the header's time, which is the Memory's clock's (see [WithClock]).
// Access counts that searches noted and no write has written yet are
// written first (the write any other write would make).
//
// It returns the writer's error, [ErrClosed] after Close, the context's
// error when it ends, and a [*DatabaseError] when SQLite fails. What was
// written to w before an error is not a whole file: an import refuses it.
func (m *Memory) Export(ctx context.Context, w io.Writer, opts ExportOptions) error {
	sc, err := m.listScope(opts.Filter)
	if err != nil {
		return err
	}
	if err := m.flushAccess(ctx); err != nil {
		return err
	}
	now := m.now()
	var werr error
	err = m.read(ctx, "export", func(q *dbtx) error {
		ew := exchange.NewWriter(&errWriter{w: w, err: &werr})
		h := exchange.Header{Engram: engramVersion(), Agent: m.agent, Tier: int(m.tier),
			Time: now.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
		if err := q.queryRow("PRAGMA user_version", nil, &h.Schema); err != nil {
			return err
		}
		if m.vectors != nil {
			h.Model, h.Dims = m.vectors.model, m.vectors.dims
		}
		if err := ew.Header(h); err != nil {
			return err
		}
		for _, t := range m.exchangeTables(opts) {
			cond, args, skip := t.scoped(sc)
			if skip {
				continue
			}
			if err := m.exportTable(q, ew, t, cond, args); err != nil {
				return err
			}
		}
		return ew.End()
	})
	if werr != nil {
		return fmt.Errorf("engram: export: %w", werr)
	}
	return err
}

// errWriter keeps the destination's own error apart from the database's.
type errWriter struct {
	w   io.Writer
	err *error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && *e.err == nil {
		*e.err = err
	}
	return n, err
}

// exportTable writes a record per agent's row of t that the SQL condition
// cond (over t, with args) selects, streaming.
func (m *Memory) exportTable(q *dbtx, w *exchange.Writer, t *exchangeTable, cond string, args []any) error {
	from := t.from
	if from == "" {
		from = t.table + " t"
	}
	kindExpr := t.kindExpr
	if kindExpr == "" {
		kindExpr = "''"
	}
	exprs := t.exprs
	if t == historyTable {
		exprs = append(slices.Clone(exprs), "t.pk", "t.form")
	}
	rows, err := q.query(`SELECT `+kindExpr+`, `+strings.Join(exprs, ", ")+` FROM `+from+
		` WHERE t.agent_id = ? AND `+cond+` ORDER BY `+t.order, append([]any{m.agent}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var kind string
	vals := make([]any, len(exprs))
	dest := make([]any, len(exprs)+1)
	dest[0] = &kind
	for i := range vals {
		dest[i+1] = &vals[i]
	}
	var row exchange.Row
	write := func(kind string, vals []any) error {
		row.Reset()
		for i, c := range t.cols {
			if err := encodeColumn(&row, c, vals[i]); err != nil {
				return fmt.Errorf("%s %s: %w", t.table, kind, err)
			}
		}
		return w.Record(t.rec, kind, &row)
	}
	var hist historyBatch
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if t == historyTable {
			if hist.add(kind, vals) < historyBatchSize {
				continue
			}
			if err := hist.flush(q, m.agent, write); err != nil {
				return err
			}
			continue
		}
		if err := write(kind, vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return hist.flush(q, m.agent, write)
}

// historyBatchSize is how many history entries an export reads before it
// writes them.
const historyBatchSize = 256

// historyBatch holds history entries an export read (historyTable's
// columns, then pk and form) until it has put back together the fields of
// those in the compact forms, a batch at a time (see historyStates): a
// memory's fields come from its newer entries and its row, read for all
// the batch's memories of a kind at once.
type historyBatch struct {
	kinds []string
	vals  [][]any
}

// add copies an entry into the batch and returns the batch's size.
func (b *historyBatch) add(kind string, vals []any) int {
	b.kinds = append(b.kinds, kind)
	b.vals = append(b.vals, slices.Clone(vals))
	return len(b.kinds)
}

// flush puts the batch's compact entries back together, writes every
// entry with write, in order, and empties the batch.
func (b *historyBatch) flush(q *dbtx, agent string, write func(kind string, vals []any) error) error {
	ids := map[MemoryType][]string{}
	from := map[MemoryType]int64{}
	seen := map[memoryKey]bool{}
	for i, v := range b.vals {
		if v[len(v)-1] == nil {
			continue // a whole entry
		}
		typ := MemoryType(b.kinds[i])
		id, _ := v[0].(string)
		seq, _ := v[len(v)-2].(int64)
		if k := (memoryKey{typ, id}); !seen[k] {
			seen[k] = true
			ids[typ] = append(ids[typ], id)
		}
		if f, ok := from[typ]; !ok || seq < f {
			from[typ] = seq
		}
	}
	states := map[int64]historyState{}
	for typ, list := range ids {
		if err := q.historyStates(agent, typ, list, from[typ], states); err != nil {
			return err
		}
	}
	for i, v := range b.vals {
		if v[len(v)-1] != nil {
			seq, _ := v[len(v)-2].(int64)
			st := states[seq]
			for j, f := range []json.RawMessage{st.before, st.after} {
				v[2+j] = nil
				if f != nil {
					v[2+j] = string(f)
				}
			}
		}
		if err := write(b.kinds[i], v); err != nil {
			return err
		}
	}
	b.kinds, b.vals = b.kinds[:0], b.vals[:0]
	return nil
}

// encodeColumn adds column c's value v, as the driver read it, to row.
func encodeColumn(row *exchange.Row, c string, v any) error {
	switch v := v.(type) {
	case nil:
		row.Null(c)
	case int64:
		row.Int(c, v)
	case float64:
		row.Float(c, v)
	case string:
		if isJSON(c) {
			return row.Raw(c, []byte(v))
		}
		row.String(c, v)
	case []byte:
		if c == "embedding" {
			row.String(c, base64.StdEncoding.EncodeToString(v))
		} else {
			row.String(c, hex.EncodeToString(v))
		}
	case bool:
		row.Int(c, map[bool]int64{false: 0, true: 1}[v])
	case time.Time:
		row.Int(c, ms(v))
	default:
		return fmt.Errorf("column %s holds a %T", c, v)
	}
	return nil
}

// engramVersion is the engram module's version in the running binary,
// "(devel)" when it is not known.
func engramVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == "github.com/engram-go/engram" && bi.Main.Version != "" {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/engram-go/engram" {
				return d.Version
			}
		}
	}
	return "(devel)"
}

// archivedIn returns the SQL condition (over the archive aliased alias,
// with plain ?s and args) that an archived row belongs to what an export
// filtered by sc holds: its columns, read from its JSON copy; or skip
// when no archived kind is in it.
func archivedIn(sc *scope, alias string) (cond string, args []any, skip bool) {
	return scopeByKind(sc, alias+".memory_type", func(k *kind) (string, []any) {
		c, a := sc.where(k, "{t}", 0)
		return store.OverJSON(c, alias+".row"), a
	}, kindsWith(func(k *kind) bool { return k.Protected != "" }))
}

// scoped returns the SQL condition (over t, with plain ?s and args) that
// a row of the table belongs to what an export filtered by sc holds (see
// ExportOptions.Filter), or skip when the table has none of it: "1" for
// every row without a filter.
func (t *exchangeTable) scoped(sc *scope) (cond string, args []any, skip bool) {
	if sc == nil {
		return "1", nil, false
	}
	switch t {
	case archiveTable:
		return archivedIn(sc, "t")
	case linkTable:
		var parts []string
		for _, end := range []string{"source", "target"} {
			c, a, none := scopeByKind(sc, "t."+end+"_type", func(k *kind) (string, []any) {
				return heldBy(sc, k, "t."+end+"_id")
			}, kindsWith(func(k *kind) bool { return k.Linkable }))
			if none {
				return "", nil, true
			}
			parts, args = append(parts, c), append(args, a...)
		}
		return strings.Join(parts, " AND "), args, false
	case aliasTable:
		return "1", nil, !sc.admits(factKind)
	case ruleTable:
		return "1", nil, false
	case historyTable:
		// The history of the memories the file holds, current or
		// archived.
		current, a, none := scopeByKind(sc, "t.memory_type", func(k *kind) (string, []any) {
			return heldBy(sc, k, "t.id")
		}, kinds)
		if none {
			return "", nil, true
		}
		archived, b, none := archivedIn(sc, "t2")
		if none {
			return current, a, false
		}
		return "(" + current + " OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND " +
			archived + "))", append(a, b...), false
	}
	if t.kind == nil || !sc.admits(t.kind) {
		return "", nil, true
	}
	c, a := sc.where(t.kind, "t", 0)
	return c, a, false
}

// scopeByKind returns the condition that a row whose kind is the SQL
// expression typ is of one of ks that sc admits and meets that kind's
// condition (by cond), or none when sc admits none of them.
func scopeByKind(sc *scope, typ string, cond func(*kind) (string, []any), ks []*kind) (string, []any, bool) {
	var parts []string
	var args []any
	for _, k := range ks {
		if !sc.admits(k) {
			continue
		}
		c, a := cond(k)
		parts = append(parts, "("+typ+" = '"+string(k.typ)+"' AND "+c+")")
		args = append(args, a...)
	}
	if len(parts) == 0 {
		return "", nil, true
	}
	return "(" + strings.Join(parts, " OR ") + ")", args, false
}

// heldBy is the condition that the agent's (t.agent_id's) memory of kind
// k with the ID the SQL expression id gives is in sc.
func heldBy(sc *scope, k *kind, id string) (string, []any) {
	c, a := sc.where(k, "x", 0)
	return "EXISTS (SELECT 1 FROM " + k.Table + " x WHERE x.agent_id = t.agent_id AND x.id = " + id + " AND " + c + ")", a
}

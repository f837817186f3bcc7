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
	cols  []string // the columns a record's row holds, in order
	key   []string // what identifies a row within the agent and its kind
	// src is how an export reads the table: its cols, in the order of
	// an export.
	src *store.ExportSource
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

// memoryTable is the exchange table of kind k's rows.
func memoryTable(k *kind) *exchangeTable {
	cols := exported(k.Cols)
	return &exchangeTable{rec: exchange.TypeMemory, kind: k, table: k.Table, cols: cols, key: []string{"id"},
		src: store.MemoryExport(k.Kind, cols)}
}

// archiveCols are the archive's columns in a record (its memory_type is
// the record's kind).
var archiveCols = strings.Fields("id row links reason merged_into archived_at")

var (
	archiveTable = &exchangeTable{rec: exchange.TypeArchive, table: "archive", cols: archiveCols, key: []string{"id"},
		src: store.ArchiveExport(archiveCols)}
	linkTable = func() *exchangeTable {
		cols := strings.Split(strings.ReplaceAll(linkCols, " ", ""), ",")
		return &exchangeTable{rec: exchange.TypeLink, table: "zettel_links", cols: cols, key: cols[:5],
			src: store.LinkExport(cols)}
	}()
	aliasTable = func() *exchangeTable {
		cols := strings.Fields("alias_key entity_key alias created_at")
		return &exchangeTable{rec: exchange.TypeAlias, table: "fact_aliases", cols: cols, key: cols[:1],
			src: store.AliasExport(cols)}
	}()
	ruleTable = func() *exchangeTable {
		cols := strings.Fields("name pattern memory_type importance tags active created_at subject predicate object")
		return &exchangeTable{rec: exchange.TypeRule, table: "extraction_rules", cols: cols, key: cols[:1],
			src: store.RuleExport(cols)}
	}()
)

// historyTable is the history of changes: its entries have no key (two
// may be alike), their order is the file's.
var historyTable = func() *exchangeTable {
	cols := strings.Fields("id op before after actor reason at")
	return &exchangeTable{rec: exchange.TypeHistory, table: "history", cols: cols, src: store.HistoryExport(cols)}
}()

// vectorTable is the exchange table of kind k's vectors (k.vec).
func vectorTable(k *kind) *exchangeTable {
	return &exchangeTable{rec: exchange.TypeVector, kind: k, table: k.Table, cols: []string{"id", "embedding"},
		key: []string{"id"}, src: store.VectorExport(k.Kind)}
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
	err = m.read(ctx, "export", func(q store.Tx) error {
		ew := exchange.NewWriter(&errWriter{w: w, err: &werr})
		h := exchange.Header{Engram: engramVersion(), Agent: m.agent, Tier: int(m.tier),
			Time: now.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
		var err error
		if h.Schema, err = store.SchemaVersion(q); err != nil {
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

// exportTable writes a record per agent's row of t that the condition
// cond (over t, with args; see exchangeTable.scoped) selects, streaming.
func (m *Memory) exportTable(q store.Tx, w *exchange.Writer, t *exchangeTable, cond string, args []any) error {
	var row exchange.Row
	write := func(kind string, vals []any) error {
		row.Reset()
		for i, c := range t.cols {
			v := vals[i]
			if t == archiveTable && c == "row" {
				s, _ := v.(string)
				var err error
				if v, err = withoutDerived(s); err != nil {
					return fmt.Errorf("archive %s %v: %w", kind, vals[0], err)
				}
			}
			if err := encodeColumn(&row, c, v); err != nil {
				return fmt.Errorf("%s %s: %w", t.table, kind, err)
			}
		}
		return w.Record(t.rec, kind, &row)
	}
	if t != historyTable {
		return store.ExportRows(q, t.src, m.agent, cond, args, write)
	}
	// History is read a batch at a time, each batch by a statement of its
	// own, closed before the batch is written: writing it reads the rows
	// of its memories (see historyBatch.flush), and PostgreSQL runs no
	// other statement of a transaction while one's rows are open.
	pkAt := len(t.cols) // the entry's pk follows the columns
	after := int64(0)
	for {
		var hist historyBatch
		n, err := store.ExportPage(q, t.src, m.agent, cond, args, after, historyBatchSize, func(kind string, vals []any) error {
			hist.add(kind, vals)
			return nil
		})
		if err != nil || n == 0 {
			return err
		}
		last, ok := hist.vals[n-1][pkAt].(int64)
		if !ok {
			return fmt.Errorf("history: an entry's pk is %T", hist.vals[n-1][pkAt])
		}
		if err := hist.flush(q, m.agent, write); err != nil {
			return err
		}
		if n < historyBatchSize {
			return nil
		}
		after = last
	}
}

// withoutDerived returns an archived row's JSON copy, as stored, without
// the derived columns (see derivedColumns), its other fields in their
// order and form, so that an export is the same bytes whatever the
// engine. It returns an error when row is not a JSON object.
func withoutDerived(row string) (string, error) {
	fields, err := exchange.Object([]byte(row))
	if err != nil {
		return "", err
	}
	b := make([]byte, 0, len(row))
	b = append(b, '{')
	for _, f := range fields {
		if derivedColumns[f.Key] {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(exchange.AppendString(b, f.Key), ':')
		b = append(b, f.Value...)
	}
	return string(append(b, '}')), nil
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
func (b *historyBatch) flush(q store.Tx, agent string, write func(kind string, vals []any) error) error {
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
		if err := historyStates(q, agent, typ, list, from[typ], states); err != nil {
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
			// In one form whichever engine wrote it.
			return row.Raw(c, store.CanonicalJSON([]byte(v)))
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
		row.Int(c, store.MS(v))
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

// scoped returns the condition (over t, with plain ?s and args) that a
// row of the table belongs to what an export filtered by sc holds (see
// ExportOptions.Filter and store.ExportCond), or skip when the table has
// none of it: "1" for every row without a filter.
func (t *exchangeTable) scoped(sc *scope) (cond string, args []any, skip bool) {
	if sc == nil {
		return "1", nil, false
	}
	var admitted []*store.Kind
	for _, k := range kinds {
		if sc.admits(k) {
			admitted = append(admitted, k.Kind)
		}
	}
	return store.ExportCond(t.src, admitted, func(k *store.Kind, alias string) (string, []any) {
		return sc.where(kindOf(MemoryType(k.Name)), alias, 0)
	})
}

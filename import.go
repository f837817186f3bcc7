package engram

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/exchange"
	"github.com/engram-go/engram/internal/store"
)

// Conflict says what [Memory.Import] does with a record whose memory (or
// archive entry, link, fact alias, rule) the agent holds already: the
// same kind and ID (a link: the same ends and type; an alias: the same
// name; a rule: the same name).
type Conflict int

// Conflict policies.
const (
	// ConflictFail refuses the whole import, naming the line (an
	// [*ImportError] matching [ErrExists]). It is the zero value.
	ConflictFail Conflict = iota
	// ConflictSkip keeps what the agent holds and leaves the record out.
	ConflictSkip
	// ConflictReplace overwrites what the agent holds with the record,
	// and what engram derives from it (full-text entry, term vector;
	// the vector, when the text changed, is made again). A replaced
	// memory keeps its links.
	ConflictReplace
)

// String returns "fail", "skip" or "replace".
func (c Conflict) String() string {
	switch c {
	case ConflictFail:
		return "fail"
	case ConflictSkip:
		return "skip"
	case ConflictReplace:
		return "replace"
	}
	return fmt.Sprintf("Conflict(%d)", int(c))
}

// ImportOptions configures [Memory.Import].
type ImportOptions struct {
	Conflict Conflict
}

// ImportReport says what [Memory.Import] did. Its maps count by what was
// imported: a kind of memory ("semantic", "episodic", "fact", ...) for
// memory records, else the record type ("archive", "link", "alias",
// "rule", "vector").
type ImportReport struct {
	// Agent is the agent the file was exported from (its header's).
	Agent string
	// Added counts the rows written anew, Replaced those overwritten
	// (ConflictReplace) and Skipped the records left out: by
	// ConflictSkip, and vectors not imported because the file's model
	// or dimension is not the Memory's (or it is Tier 1).
	Added, Replaced, Skipped map[string]int
}

// ImportError reports a file [Memory.Import] refused: Line (from 1) is
// the line at fault, Err why. It matches [ErrInvalid] for a malformed or
// invalid file, and [ErrExists] instead for a record that conflicts with
// what the agent holds under [ConflictFail]. Nothing was imported.
type ImportError struct {
	Line int
	Err  error
}

// Error implements error.
func (e *ImportError) Error() string {
	return fmt.Sprintf("engram: import: line %d: %v", e.Line, e.Err)
}

// Unwrap returns the reason.
func (e *ImportError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalid] (unless the record conflicts:
// see ImportError).
func (e *ImportError) Is(target error) bool {
	return target == ErrInvalid && !errors.Is(e.Err, ErrExists)
}

// maxImportLine is the longest line an import reads: a snapshot's
// messages may take 16 MiB, and escaping may double them.
const maxImportLine = 2 * maxSnapshotBytes

// Import reads a file in engram's export format (see [Memory.Export] and
// docs/export-format.md) into the Memory's own agent, whichever agent the
// file was exported from (the header's agent is only reported), in one
// transaction: either every record is imported or, on any error, none
// is. Each row is validated as the kind's own store path validates it
// (IDs, sizes within [Limits], ranges, tags, event and link types), and
// what engram derives from rows (full-text entries, term vectors and
// statistics, the in-memory indexes) is made again; an imported semantic
// entry is not auto-linked: its links are the file's. A link must join
// memories that exist once the records before it are imported (in the
// file or in the agent already), or the file is refused. In Tier 2 a
// vector record is imported when the header's model and dimension are
// the Memory's embedder's; otherwise, and for memories without one, the
// memory waits to be embedded ([Memory.Flush], [Memory.Reindex]) as if it
// were stored without its vector. An import holds the write lock while it
// reads r.
//
// It returns an [*ImportError] naming the line for a file it refuses
// (matching [ErrInvalid], or [ErrExists] for a conflict under
// [ConflictFail]), an error matching [ErrInvalid] for bad options, the
// reader's error, [ErrClosed] after Close and a [*DatabaseError] when
// SQLite fails. On any error nothing was imported.
func (m *Memory) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	rep, err := m.importRecords(ctx, r, opts)
	if err != nil {
		return ImportReport{}, err
	}
	m.embedSoon(ctx)
	return rep, nil
}

// importRecords is Import but for embedding what the file brought no
// vector of, which it leaves pending (BackupAgent's copy calls no model).
func (m *Memory) importRecords(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	if opts.Conflict < ConflictFail || opts.Conflict > ConflictReplace {
		return ImportReport{}, invalid("Conflict", "unknown conflict policy %d", int(opts.Conflict))
	}
	if m.closed.Load() {
		return ImportReport{}, ErrClosed
	}
	rd := exchange.NewReader(r, maxImportLine)
	h, err := rd.ReadHeader()
	if err != nil {
		return ImportReport{}, readErr(err)
	}
	var rep ImportReport
	var readFail error // the reader's own failure, kept from the write's wrapping
	err = m.write(ctx, "import", func(q store.Tx) error {
		rep = ImportReport{Agent: h.Agent, Added: map[string]int{}, Replaced: map[string]int{}, Skipped: map[string]int{}}
		im := &importer{m: m, q: q, conflict: opts.Conflict, rep: &rep, infos: map[string]map[string]colInfo{},
			tables: map[*kind]*exchangeTable{}, stmts: map[putKey]*putSQL{}, fields: map[[2]string]string{},
			skipped: map[MemoryType]map[string]bool{},
			vectors: m.vectors != nil && h.Model == m.vectors.model && h.Dims == m.vectors.dims}
		// What the import writes is recorded in history as an import,
		// unless the file brings history of its own (see im.history).
		var err error
		if im.historyFrom, err = store.HistoryHead(q); err != nil {
			return err
		}
		return recordAs(q, OpImport, "", func() error {
			for {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if err = readErr(err); !errors.As(err, new(*ImportError)) {
						readFail = err
					}
					return err
				}
				if err := im.record(rec); err != nil {
					return lineErr(rec.Line, err)
				}
			}
			if err := im.flush(); err != nil {
				return err
			}
			if im.rules {
				return m.rules.bumpVersion(q)
			}
			return nil
		})
	})
	if readFail != nil {
		return ImportReport{}, readFail
	}
	if err != nil {
		return ImportReport{}, err
	}
	return rep, nil
}

// readErr turns the reader's error into Import's.
func readErr(err error) error {
	var le *exchange.Error
	if errors.As(err, &le) {
		return &ImportError{Line: le.Line, Err: le.Err}
	}
	return fmt.Errorf("engram: import: reading: %w", err)
}

// lineErr names the line of a record's failure when it is the record's
// fault: invalid, a conflict, or refused by a constraint of the schema.
func lineErr(line int, err error) error {
	var ie *InvalidError
	if errors.As(err, new(*ImportError)) {
		return err // a buffered row's, which names its own line (see importer.flush)
	}
	switch {
	case errors.As(err, &ie), errors.Is(err, ErrExists):
		return &ImportError{Line: line, Err: err}
	case store.IsConstraint(err):
		return &ImportError{Line: line, Err: invalid("row", "%v", err)}
	}
	return err
}

// importer is one import's state, in its transaction.
type importer struct {
	m        *Memory
	q        store.Tx
	conflict Conflict
	rep      *ImportReport
	infos    map[string]map[string]colInfo // by table
	tables   map[*kind]*exchangeTable
	stmts    map[putKey]*putSQL
	fields   map[[2]string]string // see fieldName
	// skipped are the memories whose record ConflictSkip left out: their
	// vector records are left out too.
	skipped map[MemoryType]map[string]bool
	vectors bool // the file's vectors are the embedder's
	rules   bool // rules were written
	// historyFrom is the last pk of the history table before the import;
	// historyOf holds the memories whose history the file brings.
	historyFrom int64
	historyOf   map[MemoryType]map[string]bool
	// args and where are put's arguments, kept for the next row.
	args, where []any
	// pending are memory records waiting to be inserted together (see
	// buffer).
	pending []bufferedRow
}

// colInfo is what the schema says of a column, and its rule.
type colInfo struct {
	typ      string // INTEGER, REAL, TEXT or BLOB
	required bool   // NOT NULL without a default
	notNull  bool
	rule     columnRule
}

// info returns the columns of table, as the schema declares them.
func (im *importer) info(table string) (map[string]colInfo, error) {
	if in, ok := im.infos[table]; ok {
		return in, nil
	}
	cols, err := store.Columns(im.q, table)
	if err != nil {
		return nil, err
	}
	in := make(map[string]colInfo, len(cols))
	for _, c := range cols {
		in[c.Name] = colInfo{typ: c.Type, required: c.Required, notNull: c.NotNull, rule: columnCheck(table, c.Name)}
	}
	for _, k := range kinds {
		if k.Table != table {
			continue
		}
		// A generated column a record holds is written as the column it
		// is generated from (see store.Kind.WriteAs).
		for c, w := range k.WriteAs {
			if ci, ok := in[w]; ok {
				ci.rule = columnCheck(table, c)
				in[c] = ci
				delete(in, w)
			}
		}
	}
	im.infos[table] = in
	return in, nil
}

// record imports one record.
func (im *importer) record(rec exchange.Record) error {
	if rec.Type != exchange.TypeMemory {
		// What follows may need the memories buffered: links, vectors
		// and history name them.
		if err := im.flush(); err != nil {
			return err
		}
	}
	switch rec.Type {
	case exchange.TypeMemory:
		k := kindOf(MemoryType(rec.Kind))
		if k == nil {
			return invalid("kind", "%q is not a kind of memory engram stores", rec.Kind)
		}
		return im.memory(k, rec)
	case exchange.TypeArchive:
		k := kindOf(MemoryType(rec.Kind))
		if k == nil || k.Protected == "" {
			return invalid("kind", "%q is not a kind of memory engram archives", rec.Kind)
		}
		return im.archived(k, rec)
	case exchange.TypeLink:
		return im.link(rec)
	case exchange.TypeAlias:
		return im.plain(aliasTable, rec, nil)
	case exchange.TypeRule:
		im.rules = true
		return im.plain(ruleTable, rec, im.checkRule)
	case exchange.TypeVector:
		return im.vector(rec)
	case exchange.TypeHistory:
		return im.historyEntry(rec)
	}
	return invalid("type", "unknown record type %q", rec.Type)
}

// values are a row's columns, decoded and checked, by name.
type values map[string]any

// decode decodes and checks the fields of row as columns of table that
// the record may hold (cols); when all is set every column the schema
// requires must be there. An archived row (archived set) holds its JSON
// columns as the archive does: as strings of JSON.
func (im *importer) decode(table string, cols []string, row exchange.Fields, all, archived bool, prefix string) (values, error) {
	in, err := im.info(table)
	if err != nil {
		return nil, err
	}
	out := make(values, len(cols)+3)
	for _, f := range row {
		c, raw := f.Key, f.Value
		ci, ok := in[c]
		if !ok || !slices.Contains(cols, c) {
			return nil, invalid(prefix+c, "is not a column of a %s row", table)
		}
		field := im.fieldName(prefix, c)
		v, err := decodeValue(ci, isJSON(c) && !archived, raw, field)
		if err != nil {
			return nil, err
		}
		if v != nil {
			if err := ci.rule(im.m, field, v); err != nil {
				return nil, err
			}
		}
		out[c] = v
	}
	if all {
		for _, c := range cols {
			if _, ok := out[c]; !ok && in[c].required {
				return nil, invalid(prefix+c, "is missing")
			}
		}
	}
	return out, nil
}

// fieldName returns prefix+c, made once per import: what errors name a
// column by ("row.content").
func (im *importer) fieldName(prefix, c string) string {
	k := [2]string{prefix, c}
	if f, ok := im.fields[k]; ok {
		return f
	}
	f := prefix + c
	if len(im.fields) < 1000 { // the prefixes of an archive's links are numbered
		im.fields[k] = f
	}
	return f
}

// decodeValue decodes a column's JSON value as the column's type: an
// integer, a number, a string (the JSON text itself for a JSON column), a
// blob in hex, or null where the column takes NULL.
func decodeValue(ci colInfo, isJSON bool, raw json.RawMessage, field string) (any, error) {
	if string(raw) == "null" {
		if ci.notNull {
			return nil, invalid(field, "must not be null")
		}
		return nil, nil
	}
	if isJSON && ci.typ == "TEXT" {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, invalid(field, "%v", err)
		}
		return b.String(), nil
	}
	switch ci.typ {
	case "INTEGER":
		// Valid JSON (the reader checked the line): a number that
		// ParseInt takes is an integer.
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, invalid(field, "is not an integer: %s", clip(raw))
		}
		return n, nil
	case "REAL":
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || raw[0] == '"' || raw[0] == 'I' || raw[0] == 'N' || raw[0] == '+' {
			return nil, invalid(field, "is not a number: %s", clip(raw))
		}
		return f, nil
	case "TEXT", "BLOB":
		s, ok := jsonString(raw)
		if !ok {
			return nil, invalid(field, "is not a string: %s", clip(raw))
		}
		if ci.typ == "TEXT" {
			return s, nil
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, invalid(field, "is not a hex string: %v", err)
		}
		return b, nil
	}
	return nil, invalid(field, "has a type (%q) engram does not import", ci.typ)
}

// jsonString decodes the JSON string raw (valid JSON): its bytes as they
// are when it has no escapes, so that invalid UTF-8 stays invalid (and is
// refused) rather than turning into U+FFFD.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	if !utf8.Valid(raw) {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// clip is the start of a value, for a message.
func clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

// memory imports a memory of kind k.
func (im *importer) memory(k *kind, rec exchange.Record) error {
	t := im.tables[k]
	if t == nil {
		t = memoryTable(k)
		im.tables[k] = t
	}
	vals, err := im.decode(k.Table, t.cols, rec.Row, true, false, "row.")
	if err != nil {
		return err
	}
	if err := checkMemory(k, vals); err != nil {
		return err
	}
	id := vals["id"].(string)
	filled := false
	if slices.Contains(k.Cols, "content_hash") {
		content, _ := vals["content"].(string)
		vals["content_hash"] = contentHash(k, content)
	}
	if k == semanticKind {
		summary, _ := vals["summary"].(string)
		content, _ := vals["content"].(string)
		vals["summary"] = compactSummary(summary, content)
	}
	if texts, ok := k.indexedTexts(vals); ok && slices.Contains(k.Cols, "terms") {
		vals["terms"], vals["ntok"] = bm25.Vector(texts...)
		filled = true
	}
	if filled {
		return im.buffer(k, vals, rec.Line)
	}
	if err := im.flush(); err != nil {
		return err
	}
	done, err := im.put(k.Table, k.Cols, vals, []string{"id"}, nil, string(k.typ), func() {
		if im.skipped[k.typ] == nil {
			im.skipped[k.typ] = map[string]bool{}
		}
		im.skipped[k.typ][id] = true
	})
	if err != nil || !done || filled || !slices.Contains(k.Cols, "terms") {
		return err
	}
	return store.FillRowTerms(im.q, k.Kind, im.m.agent, id, false)
}

// importBatch is how many memory records an import inserts per
// statement at most (see importer.buffer).
const importBatch = 64

// bufferedRow is a memory record waiting in importer.pending.
type bufferedRow struct {
	k    *kind
	vals values
	line int
}

// buffer keeps the memory record of kind k with the values vals (of the
// file's line), ready to insert, for flush to insert with the records
// before and after it of the same kind and columns, in one statement:
// FTS5 writes what it holds to its index whenever a statement begins, so
// rows inserted one statement each leave one index segment each, which
// FTS5 spends most of an import merging.
func (im *importer) buffer(k *kind, vals values, line int) error {
	if n := len(im.pending); n > 0 {
		first := im.pending[0]
		if n == importBatch || first.k != k || im.sqlFor(k.Table, k.Cols, vals, []string{"id"}, nil) != im.sqlFor(k.Table, k.Cols, first.vals, []string{"id"}, nil) {
			if err := im.flush(); err != nil {
				return err
			}
		}
	}
	im.pending = append(im.pending, bufferedRow{k: k, vals: vals, line: line})
	return nil
}

// flush inserts the buffered memory records in one statement, in a
// savepoint. When that fails (a record conflicts with a memory, or is
// refused by the schema), the savepoint takes the statement back and
// each record is put on its own, in order, as it would have been without
// the buffer: the conflict policy then applies, and an error names the
// record's line.
func (im *importer) flush() error {
	rows := im.pending
	if len(rows) == 0 {
		return nil
	}
	im.pending = im.pending[:0]
	k := rows[0].k
	p := im.sqlFor(k.Table, k.Cols, rows[0].vals, []string{"id"}, nil)
	if len(rows) > 1 {
		args := make([]any, 0, len(rows)*(len(p.names)+1))
		for _, r := range rows {
			args = append(args, im.m.agent)
			for _, c := range p.names {
				args = append(args, r.vals[c])
			}
		}
		if err := im.q.Savepoint(func(q store.Tx) error { return p.Insert(q, len(rows), args) }); err == nil {
			im.rep.Added[string(k.typ)] += len(rows)
			return nil
		}
	}
	for _, r := range rows {
		id := r.vals["id"].(string)
		_, err := im.put(k.Table, k.Cols, r.vals, []string{"id"}, nil, string(k.typ), func() {
			if im.skipped[k.typ] == nil {
				im.skipped[k.typ] = map[string]bool{}
			}
			im.skipped[k.typ][id] = true
		})
		if err != nil {
			return lineErr(r.line, err)
		}
	}
	return nil
}

// indexedTexts returns the row's indexed texts (see store.Kind.Indexed) when
// each is a column of the row, as a term vector is made of them.
func (k *kind) indexedTexts(vals values) ([]string, bool) {
	texts := make([]string, len(k.Indexed))
	for i, x := range k.Indexed {
		c, ok := strings.CutPrefix(x, "{t}.")
		if !ok || !slices.Contains(k.Cols, c) {
			return nil, false
		}
		switch v := vals[c].(type) {
		case string:
			texts[i] = v
		case nil:
		default:
			return nil, false
		}
	}
	return texts, true
}

// putSQL is what put writes for one table and one set of columns.
type putSQL struct {
	names []string // the columns written, in order
	*store.Put
}

// sqlFor returns put's SQL for table with the columns of cols that vals
// holds, key and extra's.
func (im *importer) sqlFor(table string, cols []string, vals values, key []string, extra []any) *putSQL {
	id := putKey{table: table}
	for i, c := range cols {
		if _, ok := vals[c]; ok {
			id.mask |= 1 << i
		}
	}
	cache := len(cols) <= 64 // a wider table's mask would not name its columns
	if p := im.stmts[id]; p != nil && cache {
		return p
	}
	p := &putSQL{}
	where := slices.Clone(key)
	for i := 0; i < len(extra); i += 2 {
		where = append(where, extra[i].(string))
	}
	for _, c := range cols {
		if _, ok := vals[c]; ok {
			p.names = append(p.names, c)
		}
	}
	for i := 0; i < len(extra); i += 2 {
		p.names = append(p.names, extra[i].(string))
	}
	written := p.names
	for _, k := range kinds {
		if k.Table == table {
			written = k.WrittenCols(p.names)
		}
	}
	p.Put = store.NewPut(table, written, where)
	if cache {
		im.stmts[id] = p
	}
	return p
}

// putKey names put's SQL: a table (whose key and extra columns are
// always the same) and which of its columns a row has.
type putKey struct {
	table string
	mask  uint64
}

// put writes a row of table with the values vals (cols in order) after
// the conflict policy: key names the columns that identify it within the
// agent, besides extra (column = value pairs). It reports whether it wrote
// the row; onSkip runs when the policy skips it. what is what the report
// counts it as.
func (im *importer) put(table string, cols []string, vals values, key []string, extra []any, what string, onSkip func()) (bool, error) {
	p := im.sqlFor(table, cols, vals, key, extra)
	where := append(im.where[:0], im.m.agent)
	for _, c := range key {
		where = append(where, vals[c])
	}
	for i := 0; i < len(extra); i += 2 {
		where = append(where, extra[i+1])
	}
	im.where = where
	args := append(im.args[:0], im.m.agent)
	for _, c := range p.names {
		if v, ok := vals[c]; ok {
			args = append(args, v)
		}
	}
	for i := 0; i < len(extra); i += 2 {
		args = append(args, extra[i+1])
	}
	im.args = args
	// Insert first: a conflict is rare, and a refused INSERT writes
	// nothing (SQLite checks the unique indexes before it writes a row).
	// PostgreSQL's refusal ends the transaction but for a savepoint
	// around the INSERT, which is rolled back to.
	var err error
	if store.Postgres(im.q) {
		err = im.q.Savepoint(func(q store.Tx) error { return p.Insert(q, 1, args) })
	} else {
		err = p.Insert(im.q, 1, args)
	}
	if err == nil {
		im.rep.Added[what]++
		return true, nil
	}
	if !store.IsUniqueViolation(err) {
		return false, err
	}
	held, err := p.Exists(im.q, where)
	if err != nil {
		return false, err
	}
	if !held {
		return false, invalid("row", "conflicts with a row the agent holds (%v)", err)
	}
	switch im.conflict {
	case ConflictSkip:
		im.rep.Skipped[what]++
		if onSkip != nil {
			onSkip()
		}
		return false, nil
	case ConflictReplace:
		err := p.Update(im.q, args[1:], where)
		if err == nil {
			im.rep.Replaced[what]++
		}
		return err == nil, err
	}
	return false, fmt.Errorf("engram: %s %s: the agent holds it already: %w", what, keyText(key, vals), ErrExists)
}

func keyText(key []string, vals values) string {
	parts := make([]string, len(key))
	for i, c := range key {
		parts[i] = fmt.Sprintf("%s %q", c, fmt.Sprint(vals[c]))
	}
	return strings.Join(parts, ", ")
}

// plain imports a row of an exchange table that is no memory, checked
// further by check when it is not nil.
func (im *importer) plain(t *exchangeTable, rec exchange.Record, check func(values) error) error {
	vals, err := im.decode(t.table, t.cols, rec.Row, true, false, "row.")
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(vals); err != nil {
			return err
		}
	}
	_, err = im.put(t.table, t.cols, vals, t.key, nil, t.rec, nil)
	return err
}

// link imports a link, whose ends must exist.
func (im *importer) link(rec exchange.Record) error {
	return im.plain(linkTable, rec, func(v values) error {
		for _, end := range []string{"source", "target"} {
			ok, err := store.MemoryExists(im.q, linkableKinds(), im.m.agent, v[end+"_type"], v[end+"_id"])
			if err != nil {
				return err
			}
			if !ok {
				return invalid("row."+end+"_id", "the agent has no %s memory %q (links must follow the memories they join)", v[end+"_type"], v[end+"_id"])
			}
		}
		return nil
	})
}

// checkRule checks a rule as [Rules.Add] does.
func (im *importer) checkRule(v values) error {
	rule := ExtractionRule{Type: MemoryType(str(v["memory_type"]))}
	rule.Name, rule.Pattern = str(v["name"]), str(v["pattern"])
	rule.Importance, _ = v["importance"].(float64)
	rule.Subject, rule.Predicate, rule.Object = str(v["subject"]), str(v["predicate"]), str(v["object"])
	var err error
	if rule.Tags, err = store.DecodeTags(str(v["tags"])); err != nil {
		return invalid("row.tags", "%v", err)
	}
	if err := im.m.rules.validate(&rule); err != nil {
		var ie *InvalidError
		if errors.As(err, &ie) {
			return invalid("row."+ie.Field, "%s", ie.Reason)
		}
		return err
	}
	return nil
}

func str(v any) string { s, _ := v.(string); return s }

// archived imports an archive entry of kind k: its row is checked as a
// memory record's (a column added since it was archived may be missing),
// its links as link records' (their ends need not exist: Restore brings
// back those whose ends do).
func (im *importer) archived(k *kind, rec exchange.Record) error {
	vals, err := im.decode("archive", archiveCols, rec.Row, true, false, "row.")
	if err != nil {
		return err
	}
	rowText := vals["row"].(string)
	obj, err := exchange.Object([]byte(rowText))
	if err != nil {
		return invalid("row.row", "%v", err)
	}
	row, err := im.decode(k.Table, exported(k.Cols), obj, false, true, "row.row.")
	if err != nil {
		return err
	}
	in, err := im.info(k.Table)
	if err != nil {
		return err
	}
	for _, c := range exported(k.Cols) {
		if _, ok := row[c]; !ok && in[c].required && !store.HasDefault(c) {
			return invalid("row.row."+c, "is missing")
		}
	}
	if err := checkMemory(k, row); err != nil {
		return err
	}
	if row["id"] != vals["id"] {
		return invalid("row.row.id", "%q is not the entry's id %q", row["id"], vals["id"])
	}
	if slices.Contains(k.Cols, "content_hash") {
		content, _ := row["content"].(string)
		vals["row"] = strings.TrimSuffix(rowText, "}") + `,"content_hash":"` + hex.EncodeToString(contentHash(k, content)) + `"}`
	}
	var links []json.RawMessage
	if err := json.Unmarshal([]byte(vals["links"].(string)), &links); err != nil {
		return invalid("row.links", "is not a list: %v", err)
	}
	for i, l := range links {
		obj, err := exchange.Object(l)
		if err != nil {
			return invalid(fmt.Sprintf("row.links[%d]", i), "%v", err)
		}
		if _, err := im.decode(linkTable.table, linkTable.cols, obj, true, false, fmt.Sprintf("row.links[%d].", i)); err != nil {
			return err
		}
	}
	_, err = im.put("archive", archiveCols, vals, []string{"id"}, []any{"memory_type", string(k.typ)}, exchange.TypeArchive, nil)
	return err
}

// historyEntry imports an entry of the history of changes. A memory whose
// history the file brings gets that history after its own: the entries
// the import itself recorded of it (its create, or its replacement) give
// way to the file's, so that exporting the agent again gives the same
// history. The history of a memory the import skipped (ConflictSkip) is
// skipped too: it is another memory's.
func (im *importer) historyEntry(rec exchange.Record) error {
	typ := MemoryType(rec.Kind)
	if kindOf(typ) == nil {
		return invalid("kind", "%q is not a kind of memory engram stores", rec.Kind)
	}
	vals, err := im.decode(historyTable.table, historyTable.cols, rec.Row, true, false, "row.")
	if err != nil {
		return err
	}
	id := str(vals["id"])
	if err := validateID("row.id", id); err != nil {
		return err
	}
	if !slices.Contains(historyOps, HistoryOp(str(vals["op"]))) {
		return invalid("row.op", "%q is not an operation history records", str(vals["op"]))
	}
	for _, f := range []string{"before", "after"} {
		if v, ok := vals[f].(string); ok && !strings.HasPrefix(v, "{") {
			return invalid("row."+f, "is not a JSON object or null")
		}
	}
	if im.skipped[typ][id] {
		im.rep.Skipped[exchange.TypeHistory]++
		return nil
	}
	if !im.historyOf[typ][id] {
		if im.historyOf == nil {
			im.historyOf = map[MemoryType]map[string]bool{}
		}
		if im.historyOf[typ] == nil {
			im.historyOf[typ] = map[string]bool{}
		}
		im.historyOf[typ][id] = true
		if err := settleHistory(im.q, im.m.agent, typ, id, im.historyFrom); err != nil {
			return err
		}
		if err := store.DropHistoryAfter(im.q, im.m.agent, string(typ), id, im.historyFrom); err != nil {
			return err
		}
	}
	_, err = im.put(historyTable.table, historyTable.cols, vals, nil, []any{"memory_type", rec.Kind}, exchange.TypeHistory, nil)
	return err
}

// vector imports a memory's vector, when the file's model is the
// embedder's.
func (im *importer) vector(rec exchange.Record) error {
	k := kindOf(MemoryType(rec.Kind))
	if k == nil || k.Vec == "" {
		return invalid("kind", "%q is not a kind of memory with vectors", rec.Kind)
	}
	var id, enc string
	for _, fl := range rec.Row {
		f, raw := fl.Key, fl.Value
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return invalid("row."+f, "is not a string")
		}
		switch f {
		case "id":
			id = s
		case "embedding":
			enc = s
		default:
			return invalid("row."+f, "is not a field of a vector")
		}
	}
	if err := validateID("row.id", id); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) == 0 || len(b)%4 != 0 || len(b) > 4*maxVectorDims {
		return invalid("row.embedding", "is not a vector: base64 of up to %d little-endian float32s", maxVectorDims)
	}
	vec := make([]float32, len(b)/4)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(vec[i])) || math.IsInf(float64(vec[i]), 0) {
			return invalid("row.embedding", "holds %v", vec[i])
		}
	}
	pk, found, err := store.RowPK(im.q, k.Kind, im.m.agent, id)
	if err != nil {
		return err
	}
	if !found {
		return invalid("row.id", "the agent has no %s %q (a vector follows its memory)", k.Noun, id)
	}
	if !im.vectors || im.skipped[k.typ][id] {
		im.rep.Skipped[exchange.TypeVector]++
		return nil
	}
	if len(vec) != im.m.vectors.dims {
		return invalid("row.embedding", "has %d dimensions, the header says %d", len(vec), im.m.vectors.dims)
	}
	if err := im.m.vectors.put(im.q, k.typ, pk, embedded{vec: vec}, true); err != nil {
		return err
	}
	im.rep.Added[exchange.TypeVector]++
	return nil
}

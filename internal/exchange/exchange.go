// Package exchange is engram's export format: JSON Lines, one JSON object
// per line, each ending in a newline, in UTF-8. It knows the shape of the
// file (a header, records, an end), not what the rows mean: the engram
// package derives the rows from its registry of kinds and validates what
// they hold.
//
// # Format version 1
//
// The first line is the header:
//
//	{"type":"header","format":"engram-export","version":1,"engram":"v1.2.3","schema":7,
//	 "agent":"support-bot","tier":2,"model":"hashing-384","dims":384,"time":"2026-01-02T03:04:05.000Z"}
//
// format is always "engram-export" and version the format's version (1);
// engram is the version of the engram module that wrote the file
// ("(devel)" when unknown), schema the database's schema version, agent
// the agent exported (informational: an import goes to the importing
// Memory's own agent), tier the exporting Memory's tier, model and dims
// its embedder's model name and dimension (omitted at Tier 1), and time
// when the export ran (RFC 3339, UTC, milliseconds) by the exporting
// Memory's clock.
//
// Then come the records, in sections, in this order (a file may leave any
// section out, but never goes back to an earlier one):
//
//	{"type":"memory","kind":"semantic","row":{...}}
//	{"type":"archive","kind":"episodic","row":{...}}
//	{"type":"link","row":{...}}
//	{"type":"alias","row":{...}}
//	{"type":"rule","row":{...}}
//	{"type":"vector","kind":"semantic","row":{"id":"...","embedding":"..."}}
//
// A row is one row of an engram table as a JSON object of its columns,
// named as in the table: the columns engram lists for the kind, without
// agent_id (an import writes its own) and without what engram derives
// from the others (term vectors, content hashes). Integers and reals are
// JSON numbers, times Unix milliseconds (UTC), text a JSON string, a
// column holding JSON (tags, metadata, messages, ...) the JSON value
// itself, a blob its bytes in lower-case hex, and NULL null.
//
//   - memory: a stored memory of the kind kind ("semantic", "episodic",
//     "procedural", "snapshot", "fact", ...), a row of its table. Rows
//     with the same id within a kind are duplicates.
//   - archive: an archived memory of the kind kind: id, row (the memory's
//     row, as a memory record's), links (the links it had, as link rows),
//     reason, merged_into, archived_at.
//   - link: a link between two memories: source_type, source_id,
//     target_type, target_id, link_type, strength, created_at.
//   - alias: another name of a fact entity: alias_key, entity_key, alias,
//     created_at.
//   - rule: an extraction rule: name, pattern, memory_type, importance,
//     tags, active, created_at, subject, predicate, object.
//   - vector: the embedding of the memory of kind kind with the given id,
//     by the header's model: embedding is its float32 values,
//     little-endian, in standard base64.
//   - history: one change to the memory of kind kind with the given id,
//     oldest first: op (create, update, delete, archive, restore, merge,
//     supersede, decay, import, forget), before and after (JSON objects
//     of the memory's fields, or null), actor, reason, at. History
//     records have no key: two may be alike, and their order is the
//     file's.
//
// The last line is {"type":"end","records":N}, N counting the records
// between the header and it: a file cut short at a line boundary is
// told from a whole one.
//
// # Reading
//
// A [Reader] refuses, with the line number ([*Error]), a line longer than
// its limit (without holding more of it than the limit), a line that is
// not one JSON object of the shape above (unknown fields, wrong types,
// trailing data), a header that is missing or of another format or
// version, an unknown record type, a record out of its section's order, a
// duplicate (the same key of the same type and kind twice: a memory's,
// archive entry's or vector's id; a link's five key fields; an alias's
// alias_key; a rule's name), a row holding a key twice, a last line
// without its newline, and a file without its end record, or with data
// after it.
package exchange

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"strconv"
	"unicode/utf8"
)

// Format is the header's format field.
const Format = "engram-export"

// Version is the version of the format this package reads and writes.
const Version = 1

// Record types.
const (
	TypeHeader  = "header"
	TypeMemory  = "memory"
	TypeArchive = "archive"
	TypeLink    = "link"
	TypeAlias   = "alias"
	TypeRule    = "rule"
	TypeVector  = "vector"
	TypeHistory = "history"
	TypeEnd     = "end"
)

// order is each record type's section: a file's records never go back to
// an earlier one.
var order = map[string]int{TypeMemory: 1, TypeArchive: 2, TypeLink: 3, TypeAlias: 4, TypeRule: 5, TypeVector: 6, TypeHistory: 7}

// keys are the row fields that identify a record of each type (with its
// kind): two records with the same key are duplicates.
var keys = map[string][]string{
	TypeMemory:  {"id"},
	TypeArchive: {"id"},
	TypeVector:  {"id"},
	TypeLink:    {"source_type", "source_id", "target_type", "target_id", "link_type"},
	TypeAlias:   {"alias_key"},
	TypeRule:    {"name"},
}

// kinded are the record types that name a kind.
var kinded = map[string]bool{TypeMemory: true, TypeArchive: true, TypeVector: true, TypeHistory: true}

// Header is the first line of a file.
type Header struct {
	Type    string `json:"type"`
	Format  string `json:"format"`
	Version int    `json:"version"`
	Engram  string `json:"engram"`
	Schema  int    `json:"schema"`
	Agent   string `json:"agent"`
	Tier    int    `json:"tier"`
	Model   string `json:"model,omitempty"`
	Dims    int    `json:"dims,omitempty"`
	Time    string `json:"time"`
}

// Record is one record of a file.
type Record struct {
	Type string
	Kind string // for memory, archive and vector records
	// Row is the fields of the record's row, in the line's order.
	Row  Fields
	Line int // 1-based
}

// Field is a field of a JSON object: its key and its value, as JSON.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Fields are a JSON object's fields, each key once.
type Fields []Field

// Get returns the value of the field with key k.
func (fs Fields) Get(k string) (json.RawMessage, bool) {
	for _, f := range fs {
		if f.Key == k {
			return f.Value, true
		}
	}
	return nil, false
}

// Error is a file refused at line Line (1-based) for the reason Err.
type Error struct {
	Line int
	Err  error
}

// Error implements error.
func (e *Error) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// ErrLineTooLong reports a line over the reader's limit.
var ErrLineTooLong = errors.New("line too long")

// Reader reads a file record by record. It is not safe for concurrent
// use.
type Reader struct {
	r       *bufio.Reader
	max     int
	line    int
	section int
	records int
	done    bool
	seen    map[[16]byte]struct{}
	hash    hash.Hash
	wire    Fields // the fields of the last line, reused
	buf     []byte
}

// NewReader returns a reader of r that refuses lines longer than maxLine
// bytes (without the newline).
func NewReader(r io.Reader, maxLine int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: maxLine, seen: map[[16]byte]struct{}{}, hash: fnv.New128a()}
}

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

func (r *Reader) fail(format string, args ...any) error {
	return &Error{Line: r.line, Err: fmt.Errorf(format, args...)}
}

// next returns the next line, without its newline, valid until the next
// call; io.EOF at the end of the input.
func (r *Reader) next() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(r.buf)+len(chunk) > r.max+1 { // +1: the newline
			r.line++
			return nil, &Error{Line: r.line, Err: fmt.Errorf("%w: over %d bytes", ErrLineTooLong, r.max)}
		}
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			r.line++
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(r.buf) == 0 {
				return nil, io.EOF
			}
			r.line++
			return nil, r.fail("the file ends in the middle of a line (no newline): truncated")
		default:
			return nil, err
		}
	}
}

// ReadHeader reads the header, the file's first line. It returns an
// [*Error] when it is missing or not the header of a file of this format
// and version.
func (r *Reader) ReadHeader() (Header, error) {
	var h Header
	line, err := r.next()
	if errors.Is(err, io.EOF) {
		r.line++
		return h, r.fail("empty file: no header")
	}
	if err != nil {
		return h, err
	}
	var probe struct {
		Type    string `json:"type"`
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return h, r.fail("not a JSON object: %v", err)
	}
	if probe.Type != TypeHeader {
		return h, r.fail("the first line is a %q record, not the header", probe.Type)
	}
	if probe.Format != Format {
		return h, r.fail("format %q is not %q", probe.Format, Format)
	}
	if probe.Version != Version {
		return h, r.fail("format version %d is not supported (this engram reads version %d)", probe.Version, Version)
	}
	if err := decodeStrict(line, &h); err != nil {
		return h, r.fail("header: %v", err)
	}
	return h, nil
}

// decodeStrict decodes one JSON object into v, refusing unknown fields
// and anything after the object.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON object")
	}
	return nil
}

// wire is a record as a line holds it.
type wire struct {
	Type    string          `json:"type"`
	Kind    string          `json:"kind"`
	Row     json.RawMessage `json:"row"`
	Records *int            `json:"records"`
}

// readWire reads a line's record: an object of the fields of wire, each
// of its type, and no others.
func (r *Reader) readWire(line []byte) (wire, error) {
	var w wire
	fields, err := appendObject(r.wire, line)
	if err != nil {
		return w, err
	}
	r.wire = fields
	for _, f := range fields {
		k, v := f.Key, f.Value
		switch k {
		case "type", "kind":
			var s string
			if v[0] != '"' || json.Unmarshal(v, &s) != nil {
				return w, fmt.Errorf("%s is not a string", k)
			}
			if k == "type" {
				w.Type = s
			} else {
				w.Kind = s
			}
		case "row":
			w.Row = v
		case "records":
			var n int
			if err := json.Unmarshal(v, &n); err != nil {
				return w, fmt.Errorf("records is not an integer")
			}
			w.Records = &n
		default:
			return w, fmt.Errorf("unknown field %q", k)
		}
	}
	return w, nil
}

// Next returns the next record, or io.EOF after the end record. Any
// other error is an [*Error] naming the line, or the input's own error.
// The record's row refers to the reader's buffer: it is valid until the
// next call.
func (r *Reader) Next() (Record, error) {
	if r.done {
		return Record{}, io.EOF
	}
	line, err := r.next()
	if errors.Is(err, io.EOF) {
		r.line++
		return Record{}, r.fail("the file ends without its end record: truncated")
	}
	if err != nil {
		return Record{}, err
	}
	w, err := r.readWire(line)
	if err != nil {
		return Record{}, r.fail("not a record: %v", err)
	}
	if w.Type == TypeEnd {
		if w.Records == nil || w.Kind != "" || w.Row != nil {
			return Record{}, r.fail("an end record holds records and nothing else")
		}
		if *w.Records != r.records {
			return Record{}, r.fail("the end record counts %d records, the file holds %d", *w.Records, r.records)
		}
		if _, err := r.r.ReadByte(); !errors.Is(err, io.EOF) {
			r.line++
			if err != nil {
				return Record{}, err
			}
			return Record{}, r.fail("data after the end record")
		}
		r.done = true
		return Record{}, io.EOF
	}
	sec, ok := order[w.Type]
	if !ok {
		return Record{}, r.fail("unknown record type %q", w.Type)
	}
	if w.Records != nil {
		return Record{}, r.fail("a %s record holds no records field", w.Type)
	}
	if sec < r.section {
		return Record{}, r.fail("a %s record after the records of a later section", w.Type)
	}
	r.section = sec
	if kinded[w.Type] != (w.Kind != "") {
		if w.Kind == "" {
			return Record{}, r.fail("a %s record needs a kind", w.Type)
		}
		return Record{}, r.fail("a %s record has no kind", w.Type)
	}
	if w.Row == nil {
		return Record{}, r.fail("a %s record needs a row", w.Type)
	}
	row, err := Object(w.Row)
	if err != nil {
		return Record{}, r.fail("row: %v", err)
	}
	if len(keys[w.Type]) == 0 { // history: entries may be alike
		r.records++
		return Record{Type: w.Type, Kind: w.Kind, Row: row, Line: r.line}, nil
	}
	h := r.hash
	h.Reset()
	h.Write([]byte(w.Type))
	h.Write([]byte{0})
	h.Write([]byte(w.Kind))
	for _, k := range keys[w.Type] {
		var s string
		raw, ok := row.Get(k)
		if !ok {
			return Record{}, r.fail("row: no %s", k)
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return Record{}, r.fail("row: %s is not a string", k)
		}
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	var sum [16]byte
	h.Sum(sum[:0])
	if _, dup := r.seen[sum]; dup {
		return Record{}, r.fail("duplicate %s record: its key (%v) is on an earlier line", w.Type, keyOf(row, keys[w.Type]))
	}
	r.seen[sum] = struct{}{}
	r.records++
	return Record{Type: w.Type, Kind: w.Kind, Row: row, Line: r.line}, nil
}

func keyOf(row Fields, fields []string) string {
	var b bytes.Buffer
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		v, _ := row.Get(f)
		b.WriteString(f + " " + string(v))
	}
	return b.String()
}

// Object decodes a JSON object into its fields' raw values, refusing a
// value that is not an object and an object holding a key twice. (It
// checks the whole value with json.Valid, then splits the object itself:
// a json.Decoder reading tokens costs several times as much.)
func Object(raw []byte) (Fields, error) { return appendObject(make(Fields, 0, 20), raw) }

// appendObject is Object, appending the fields to out[:0].
func appendObject(out Fields, raw []byte) (Fields, error) {
	out = out[:0]
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		if err == nil {
			err = errors.New("not JSON")
		}
		return nil, err
	}
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var keys map[string]bool // for a large object: Get is linear
	i = skipSpace(raw, i+1)
	for raw[i] != '}' {
		end := stringEnd(raw, i)
		var k string
		if bytes.IndexByte(raw[i+1:end-1], '\\') < 0 {
			k = string(raw[i+1 : end-1])
		} else if err := json.Unmarshal(raw[i:end], &k); err != nil {
			return nil, err
		}
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // the colon
		vend := valueEnd(raw, i)
		if len(out) == 32 {
			keys = make(map[string]bool, 64)
			for _, f := range out {
				keys[f.Key] = true
			}
		}
		dup := keys[k]
		if keys == nil {
			_, dup = out.Get(k)
		} else {
			keys[k] = true
		}
		if dup {
			return nil, fmt.Errorf("key %q twice", k)
		}
		out = append(out, Field{Key: k, Value: json.RawMessage(raw[i:vend])})
		i = skipSpace(raw, vend)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just after the JSON string that starts at
// b[i] (a quote), in valid JSON.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// valueEnd returns the index just after the JSON value that starts at
// b[i], in valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// Writer writes a file. It buffers: call End, which flushes. It is not
// safe for concurrent use.
type Writer struct {
	w       *bufio.Writer
	buf     []byte
	records int
}

// NewWriter returns a writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 256<<10)} }

// Header writes the header line; h's Type, Format and Version are set to
// this format's.
func (w *Writer) Header(h Header) error {
	h.Type, h.Format, h.Version = TypeHeader, Format, Version
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_, err = w.w.Write(append(b, '\n'))
	return err
}

// Record writes a record of type typ (of kind kind, or "") whose row is
// row's fields.
func (w *Writer) Record(typ, kind string, row *Row) error {
	b := append(w.buf[:0], `{"type":`...)
	b = AppendString(b, typ)
	if kind != "" {
		b = append(b, `,"kind":`...)
		b = AppendString(b, kind)
	}
	b = append(b, `,"row":`...)
	b = append(b, row.Bytes()...)
	b = append(b, "}\n"...)
	w.buf = b
	w.records++
	_, err := w.w.Write(b)
	return err
}

// End writes the end record and flushes.
func (w *Writer) End() error {
	if _, err := fmt.Fprintf(w.w, `{"type":"end","records":%d}`+"\n", w.records); err != nil {
		return err
	}
	return w.w.Flush()
}

// Row builds a row's JSON object, field by field, in the order given.
// Reset it to build another.
type Row struct{ b []byte }

// Reset empties the row.
func (r *Row) Reset() { r.b = r.b[:0] }

func (r *Row) key(name string) {
	if len(r.b) == 0 {
		r.b = append(r.b, '{')
	} else {
		r.b = append(r.b, ',')
	}
	r.b = AppendString(r.b, name)
	r.b = append(r.b, ':')
}

// Int adds an integer field.
func (r *Row) Int(name string, v int64) { r.key(name); r.b = strconv.AppendInt(r.b, v, 10) }

// Float adds a number field, written so that it reads back exactly.
func (r *Row) Float(name string, v float64) {
	r.key(name)
	r.b = strconv.AppendFloat(r.b, v, 'g', -1, 64)
}

// String adds a string field.
func (r *Row) String(name, v string) { r.key(name); r.b = AppendString(r.b, v) }

// Null adds a null field.
func (r *Row) Null(name string) { r.key(name); r.b = append(r.b, "null"...) }

// Raw adds a field whose value is the JSON v, compacted. It returns an
// error if v is not JSON.
func (r *Row) Raw(name string, v []byte) error {
	r.key(name)
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.b = append(r.b, b.Bytes()...)
	return nil
}

// Bytes returns the row's JSON object.
func (r *Row) Bytes() []byte {
	if len(r.b) == 0 {
		return []byte("{}")
	}
	return append(r.b, '}')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD,
// as encoding/json writes it.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

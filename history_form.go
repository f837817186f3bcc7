package engram

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// How a history entry holds the memory's fields (the history table's form
// column, since schema v13). An entry of the first form (form NULL, every
// entry written before v13, and those an import or forget writes) holds
// them as HistoryEntry gives them: before and after as JSON objects. The
// triggers (see historyStatements) write the other two, which hold no
// copy of what the memory's row, or a newer entry, already holds:
//
//   - formCreate: neither; the fields after the change are those the next
//     entry of the memory that knows them had before its change, or, when
//     no entry follows, the row's now.
//   - formUpdate: before holds the old values of the fields that changed
//     only; after, as for formCreate.
//
// An entry of either form holds after, whole, when a later write moved
// the row's updated_at alone (which history does not record) while it
// was the memory's last entry (see the _touch trigger).
//
// A deletion keeps the whole row in before, as it did, because nothing
// else holds it once it is gone. historyStates puts the entries back
// together, newest first. (What a change made with history off did is not
// in history either way; in these forms it shows in the entries before
// it, as what they left.)
const (
	formCreate = 1
	formUpdate = 2
)

// noField is a JSON path member no recorded field has: the update trigger
// removes it from the old fields in place of a field that did not change.
const noField = "-"

// historyRow is an entry as read, with its form.
type historyRow struct {
	HistoryEntry
	form sql.NullInt64
}

const historyRowCols = historyCols + `, form`

func scanHistoryRow(r scanner) (historyRow, error) {
	var h historyRow
	var before, after *string
	var at int64
	if err := r.Scan(&h.Seq, &h.Op, &h.Type, &h.ID, &before, &after, &h.Actor, &h.Reason, &at, &h.form); err != nil {
		return h, err
	}
	if before != nil {
		h.Before = json.RawMessage(*before)
	}
	if after != nil {
		h.After = json.RawMessage(*after)
	}
	h.At = fromMS(at)
	return h, nil
}

// historyEntries returns rows as entries, the fields of those written in
// the compact forms put back together (see historyStates).
func (q *dbtx) historyEntries(agent string, rows []historyRow) ([]HistoryEntry, error) {
	from := map[memoryKey]int64{}
	for _, r := range rows {
		if r.form.Valid {
			k := memoryKey{r.Type, r.ID}
			if f, ok := from[k]; !ok || r.Seq < f {
				from[k] = r.Seq
			}
		}
	}
	states := map[int64]historyState{}
	for k, f := range from {
		if err := q.historyStates(agent, k.typ, k.id, f, states); err != nil {
			return nil, err
		}
	}
	out := make([]HistoryEntry, len(rows))
	for i, r := range rows {
		out[i] = r.HistoryEntry
		if r.form.Valid {
			st := states[r.Seq]
			out[i].Before, out[i].After = st.before, st.after
		}
	}
	return out, nil
}

// settleHistory writes the fields of the compact entries of the memory
// typ/id up to Seq upTo whole (form NULL), before the entries after
// upTo are deleted: an import that brings the memory's history replaces
// what it recorded itself, from which the older entries are put back
// together.
func (q *dbtx) settleHistory(agent string, typ MemoryType, id string, upTo int64) error {
	rows, err := q.query(`SELECT pk FROM history INDEXED BY history_by_memory
		WHERE agent_id = ? AND id = ? AND pk <= ? AND memory_type = ? AND form IS NOT NULL ORDER BY pk LIMIT 1`,
		agent, id, upTo, string(typ))
	if err != nil {
		return err
	}
	first, err := scanAll(rows, func(r scanner) (int64, error) {
		var pk int64
		return pk, r.Scan(&pk)
	})
	if err != nil || len(first) == 0 {
		return err
	}
	states := map[int64]historyState{}
	if err := q.historyStates(agent, typ, id, first[0], states); err != nil {
		return err
	}
	for seq, st := range states {
		if seq > upTo {
			continue
		}
		var before, after any
		if st.before != nil {
			before = string(st.before)
		}
		if st.after != nil {
			after = string(st.after)
		}
		if _, err := q.exec(`UPDATE history SET before = ?, after = ?, form = NULL WHERE pk = ?`, before, after, seq); err != nil {
			return err
		}
	}
	return nil
}

// memoryKey names a memory in history: its kind and ID.
type memoryKey struct {
	typ MemoryType
	id  string
}

// historyState is a compact entry's fields put back together.
type historyState struct{ before, after json.RawMessage }

// historyStates puts back together the fields of the compact entries of
// the memory typ/id from Seq from on, into states by Seq: it reads the
// memory's entries from there, newest first, starting from the row's
// fields now (when it still exists) and undoing each change.
func (q *dbtx) historyStates(agent string, typ MemoryType, id string, from int64, states map[int64]historyState) error {
	rows, err := q.query(`SELECT pk, before, after, form FROM history INDEXED BY history_by_memory
		WHERE agent_id = ? AND id = ? AND pk >= ? AND memory_type = ? ORDER BY pk DESC`, agent, id, from, string(typ))
	if err != nil {
		return err
	}
	type entry struct {
		seq           int64
		before, after []byte
		form          sql.NullInt64
	}
	es, err := scanAll(rows, func(r scanner) (entry, error) {
		var e entry
		var before, after *string
		err := r.Scan(&e.seq, &before, &after, &e.form)
		if before != nil {
			e.before = []byte(*before)
		}
		if after != nil {
			e.after = []byte(*after)
		}
		return e, err
	})
	if err != nil {
		return err
	}
	var cur json.RawMessage // the fields after the entry at hand
	known := false
	for _, e := range es {
		switch {
		case !e.form.Valid:
			// A whole entry: a deletion's (or an imported or older
			// change's) before is the row before it; other entries (a
			// decay's, a forget's, a creation's) say nothing of the
			// fields before them.
			if isRowFields(e.before) {
				cur, known = json.RawMessage(e.before), true
			}
			continue
		case e.after != nil:
			cur, known = json.RawMessage(e.after), true // kept when updated_at moved alone
		case !known:
			if cur, err = q.rowFields(agent, typ, id); err != nil {
				return err
			}
			known = true
		}
		st := historyState{after: cur}
		switch e.form.Int64 {
		case formCreate:
			cur = nil // nothing before a creation
		case formUpdate:
			if st.before, err = patchFields(cur, e.before); err != nil {
				return fmt.Errorf("history entry %d: %w", e.seq, err)
			}
			cur = st.before
		default:
			return fmt.Errorf("history entry %d: unknown form %d", e.seq, e.form.Int64)
		}
		states[e.seq] = st
	}
	return nil
}

// rowFields returns the recorded fields of the memory typ/id as its row
// holds them now, as history's triggers write them; nil when it has no
// row.
func (q *dbtx) rowFields(agent string, typ MemoryType, id string) (json.RawMessage, error) {
	k := kindOf(typ)
	if k == nil {
		return nil, nil
	}
	var s string
	err := q.queryRow(`SELECT `+k.recordedJSON("t")+` FROM `+k.table+` t WHERE t.agent_id = ? AND t.id = ?`,
		[]any{agent, id}, &s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

// isRowFields reports whether b is a row's recorded fields (a JSON object
// with an id), not a decay's resonance or nothing.
func isRowFields(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var probe struct {
		ID *json.RawMessage `json:"id"`
	}
	return json.Unmarshal(b, &probe) == nil && probe.ID != nil
}

// patchFields returns the JSON object fields with the members of old in
// place of its own, in fields' order: the fields before an update, from
// those after it and the old values of those it changed. The values are
// copied byte for byte, so the object is the one SQLite's json_object
// made of the old row.
func patchFields(fields, old json.RawMessage) (json.RawMessage, error) {
	if fields == nil {
		return old, nil // the row is gone and no entry holds it: what is known
	}
	repl, err := jsonMembers(old)
	if err != nil {
		return nil, err
	}
	members, err := jsonMembers(fields)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]json.RawMessage, len(repl))
	for _, m := range repl {
		byKey[m.key] = m.value
	}
	var b bytes.Buffer
	b.Grow(len(fields) + len(old))
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.rawKey)
		b.WriteByte(':')
		if v, ok := byKey[m.key]; ok {
			b.Write(v)
			delete(byKey, m.key)
		} else {
			b.Write(m.value)
		}
	}
	for _, m := range repl { // a field the row no longer has
		if _, ok := byKey[m.key]; ok {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.Write(m.rawKey)
			b.WriteByte(':')
			b.Write(m.value)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonMember is one member of a JSON object: its key as written, decoded,
// and its value as written.
type jsonMember struct {
	rawKey []byte
	key    string
	value  json.RawMessage
}

// jsonMembers splits a JSON object into its members, in order.
func jsonMembers(obj json.RawMessage) ([]jsonMember, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("history fields are not a JSON object: %.40q", obj)
	}
	var out []jsonMember
	for d.More() {
		start := d.InputOffset()
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("history fields: key %v", t)
		}
		raw := bytes.TrimLeft(obj[start:d.InputOffset()], " \t\r\n,")
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{rawKey: raw, key: key, value: v})
	}
	return out, nil
}

package engram

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/engram-go/engram/internal/store"
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
	formWhole  = store.HistoryWhole
	formCreate = store.HistoryCreate
	formUpdate = store.HistoryUpdate
)

// historyEntries returns rows as entries, the fields of those written in
// the compact forms put back together (see historyStates).
func historyEntries(q store.Tx, agent string, rows []store.HistoryRow) ([]HistoryEntry, error) {
	from := map[memoryKey]int64{}
	for _, r := range rows {
		if r.Form != formWhole {
			k := memoryKey{MemoryType(r.Type), r.ID}
			if f, ok := from[k]; !ok || r.Seq < f {
				from[k] = r.Seq
			}
		}
	}
	states := map[int64]historyState{}
	byType := map[MemoryType][]string{}
	since := map[MemoryType]int64{}
	for k, f := range from {
		byType[k.typ] = append(byType[k.typ], k.id)
		if s, ok := since[k.typ]; !ok || f < s {
			since[k.typ] = f
		}
	}
	for typ, ids := range byType {
		if err := historyStates(q, agent, typ, ids, since[typ], states); err != nil {
			return nil, err
		}
	}
	out := make([]HistoryEntry, len(rows))
	for i, r := range rows {
		out[i] = HistoryEntry{
			Seq: r.Seq, Op: HistoryOp(r.Op), Type: MemoryType(r.Type), ID: r.ID, Before: r.Before, After: r.After,
			Actor: r.Actor, Reason: r.Reason, At: r.At,
		}
		if r.Form != formWhole {
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
func settleHistory(q store.Tx, agent string, typ MemoryType, id string, upTo int64) error {
	first, ok, err := store.FirstCompactEntry(q, agent, string(typ), id, upTo)
	if err != nil || !ok {
		return err
	}
	states := map[int64]historyState{}
	if err := historyStates(q, agent, typ, []string{id}, first, states); err != nil {
		return err
	}
	for seq, st := range states {
		if seq > upTo {
			continue
		}
		if err := store.SettleEntry(q, seq, st.before, st.after); err != nil {
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
// the memories of kind typ with the given IDs, from Seq from on, into
// states by Seq: it reads their entries from there, newest first,
// starting from each row's fields now (when it still exists) and undoing
// each change.
func historyStates(q store.Tx, agent string, typ MemoryType, ids []string, from int64, states map[int64]historyState) error {
	es, err := store.EntriesFrom(q, agent, string(typ), ids, from)
	if err != nil {
		return err
	}
	current, err := rowFields(q, agent, typ, ids)
	if err != nil {
		return err
	}
	var cur json.RawMessage // the fields after the entry at hand
	for i, e := range es {
		if i == 0 || e.ID != es[i-1].ID { // the newest entry of the next memory
			cur = current[e.ID]
		}
		switch {
		case e.Form == formWhole:
			// A whole entry: a deletion's (or an imported or older
			// change's) before is the row before it; other entries (a
			// decay's, a forget's, a creation's) say nothing of the
			// fields before them.
			if isRowFields(e.Before) {
				cur = json.RawMessage(e.Before)
			}
			continue
		case e.After != nil:
			cur = json.RawMessage(e.After) // kept when updated_at moved alone
		}
		st := historyState{after: cur}
		switch e.Form {
		case formCreate:
			cur = nil // nothing before a creation
		case formUpdate:
			if st.before, err = patchFields(cur, e.Before); err != nil {
				return fmt.Errorf("history entry %d: %w", e.Seq, err)
			}
			cur = st.before
		default:
			return fmt.Errorf("history entry %d: unknown form %d", e.Seq, e.Form)
		}
		states[e.Seq] = st
	}
	return nil
}

// rowFields returns the recorded fields of the memories of kind typ with
// the given IDs, as their rows hold them now (as history's triggers write
// them), by ID; a memory without a row has none.
func rowFields(q store.Tx, agent string, typ MemoryType, ids []string) (map[string][]byte, error) {
	hk, ok := historyKinds()[typ]
	if !ok {
		return nil, nil
	}
	return store.RowFields(q, hk, agent, ids)
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
	used := make([]bool, len(repl)) // an update changes a few fields: look them up in order
	var b bytes.Buffer
	b.Grow(len(fields) + len(old))
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.key)
		b.WriteByte(':')
		v := m.value
		for r := range repl {
			if !used[r] && bytes.Equal(repl[r].key, m.key) {
				v, used[r] = repl[r].value, true
				break
			}
		}
		b.Write(v)
	}
	for r, m := range repl { // a field the row no longer has
		if !used[r] {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.Write(m.key)
			b.WriteByte(':')
			b.Write(m.value)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonMember is one member of a JSON object: its key and its value, as
// written.
type jsonMember struct {
	key, value []byte
}

// errNotObject says history fields are not a JSON object.
var errNotObject = errors.New("history fields are not a JSON object")

// jsonMembers splits a JSON object into its members, in order.
func jsonMembers(obj []byte) ([]jsonMember, error) {
	i := skipSpace(obj, 0)
	if i == len(obj) || obj[i] != '{' {
		return nil, errNotObject
	}
	out := make([]jsonMember, 0, 24)
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return out, nil
	}
	for {
		k := i
		i = skipString(obj, i)
		if i < 0 {
			return nil, errNotObject
		}
		key := obj[k:i]
		if i = skipSpace(obj, i); i == len(obj) || obj[i] != ':' {
			return nil, errNotObject
		}
		v := skipSpace(obj, i+1)
		if i = skipValue(obj, v); i < 0 {
			return nil, errNotObject
		}
		out = append(out, jsonMember{key: key, value: obj[v:i]})
		if i = skipSpace(obj, i); i == len(obj) {
			return nil, errNotObject
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return out, nil
		default:
			return nil, errNotObject
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the JSON string at b[i], or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the end of the JSON value at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

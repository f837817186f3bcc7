package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// How a history entry holds the memory's fields (the history table's form
// column): HistoryWhole (NULL in the table) holds them as they are, before
// and after as JSON objects; the triggers write the compact forms, which
// the root package puts back together (see its history_form.go).
const (
	HistoryWhole  = 0 // form NULL: before and after whole
	HistoryCreate = 1 // neither: what the next entry, or the row, knows
	HistoryUpdate = 2 // before holds the old values of the changed fields only
)

// historyNoField is a JSON path member no recorded field has: the update
// trigger removes it from the old fields in place of a field that did not
// change.
const historyNoField = "-"

// HistoryRow is an entry of history: one change to one memory.
type HistoryRow struct {
	Seq      int64 // the entry's pk
	Op       string
	Type, ID string
	// Before and After are the JSON texts of the columns before and
	// after, nil for NULL, in one form on every engine (see
	// CanonicalJSON).
	Before, After []byte
	Actor, Reason string
	At            time.Time
	Form          int // HistoryWhole, HistoryCreate or HistoryUpdate
}

// HistoryColumn is a column of a kind's table that history records.
type HistoryColumn struct {
	Name string
	JSON bool // it holds JSON, which history keeps as JSON, not as a string
}

// HistoryKind is what history's triggers and RowFields need of a kind of
// memory, from the root package's registry of kinds: its type, its table,
// the columns history records (in order) and the columns an update of
// those names (Written, in the same order), and whether decay moves its
// resonance.
type HistoryKind struct {
	Type, Table string
	Recorded    []HistoryColumn
	Written     []string
	Decay       bool
}

// recordedJSON is the SQL expression of the recorded fields of the row
// named alias as a JSON object.
func (k HistoryKind) recordedJSON(alias string) string {
	var parts []string
	for _, c := range k.Recorded {
		v := alias + "." + c.Name
		if c.JSON {
			v = "CASE WHEN json_valid(" + v + ") THEN json(" + v + ") ELSE " + v + " END"
		}
		parts = append(parts, "'"+c.Name+"'", v)
	}
	return "json_object(" + strings.Join(parts, ", ") + ")"
}

// HistoryStatements returns what makes, on a connection, history's
// context table (see BeginChanges) and the triggers that record every
// change to the rows of kinds: createOp, updateOp, deleteOp and decayOp
// are the operations their entries take when the context names none.
func HistoryStatements(kinds []HistoryKind, createOp, updateOp, deleteOp, decayOp string) []string {
	stmts := []string{
		`CREATE TEMP TABLE IF NOT EXISTS history_ctx (
			one INTEGER PRIMARY KEY CHECK (one = 1), op TEXT, actor TEXT NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL)`,
		`INSERT OR IGNORE INTO temp.history_ctx (one, op, actor, reason, at) VALUES (1, NULL, '', '', 0)`,
	}
	insert := func(k HistoryKind, alias, op, before, after, form string) string {
		return `INSERT INTO main.history (agent_id, memory_type, id, op, before, after, form, actor, reason, at)
			SELECT ` + alias + `.agent_id, '` + k.Type + `', ` + alias + `.id, coalesce(c.op, '` + op + `'), ` +
			before + `, ` + after + `, ` + form + `, c.actor, c.reason, c.at FROM temp.history_ctx c;`
	}
	for _, k := range kinds {
		name := "history_" + k.Table
		stmts = append(stmts,
			`CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_insert AFTER INSERT ON main.`+k.Table+` BEGIN `+
				insert(k, "new", createOp, "NULL", "NULL", strconv.Itoa(HistoryCreate))+` END`,
			`CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_delete AFTER DELETE ON main.`+k.Table+` BEGIN `+
				insert(k, "old", deleteOp, k.recordedJSON("old"), "NULL", "NULL")+` END`)
		var changed, same []string
		for _, col := range k.Recorded {
			c := col.Name
			if c != "updated_at" {
				changed = append(changed, "old."+c+" IS NOT new."+c)
			}
			same = append(same, "CASE WHEN old."+c+" IS new."+c+" THEN '$."+c+"' ELSE '$."+historyNoField+"' END")
		}
		// An update keeps the old values of the fields it changed.
		stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_update AFTER UPDATE OF `+strings.Join(k.Written, ", ")+
			` ON main.`+k.Table+` WHEN `+strings.Join(changed, " OR ")+` BEGIN `+
			insert(k, "new", updateOp, "json_remove("+k.recordedJSON("old")+", "+strings.Join(same, ", ")+")", "NULL", strconv.Itoa(HistoryUpdate))+` END`)
		if slices.ContainsFunc(k.Recorded, func(c HistoryColumn) bool { return c.Name == "updated_at" }) {
			// A write that moves updated_at alone is no change (nothing
			// is recorded of it), but the row no longer holds the fields
			// the memory's last entry that knows them (not a decay's)
			// left: that entry keeps them.
			stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_touch AFTER UPDATE OF updated_at ON main.`+k.Table+
				` WHEN old.updated_at IS NOT new.updated_at AND NOT (`+strings.Join(changed, " OR ")+`) BEGIN
				UPDATE main.history SET after = `+k.recordedJSON("old")+` WHERE pk = (SELECT max(pk) FROM main.history
					WHERE agent_id = old.agent_id AND id = old.id AND memory_type = '`+k.Type+`'
						AND (form IS NOT NULL OR json_type(before, '$.id') IS NOT NULL)) AND form IS NOT NULL AND after IS NULL; END`)
		}
		if k.Decay {
			stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_decay AFTER UPDATE OF resonance ON main.`+k.Table+
				` WHEN CAST(old.resonance * 10 AS INTEGER) > CAST(new.resonance * 10 AS INTEGER) BEGIN `+
				insert(k, "new", decayOp, "json_object('resonance', old.resonance)", "json_object('resonance', new.resonance)", "NULL")+` END`)
		}
	}
	return stmts
}

// HistoryConn runs a statement on a connection.
type HistoryConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// InstallHistory runs stmts (what HistoryStatements returned) on conn,
// in order. It returns the driver's first error unchanged.
func InstallHistory(ctx context.Context, conn HistoryConn, stmts []string) error {
	for _, stmt := range stmts {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// BeginChanges fills the history's context for a write transaction: who
// makes its changes, why and when, and no operation. It returns the
// driver's errors unchanged.
func BeginChanges(q Querier, actor, reason string, at time.Time) error {
	_, err := q.Exec(`UPDATE temp.history_ctx SET op = NULL, actor = ?, reason = ?, at = ?`, actor, reason, MS(at))
	return err
}

// HistoryContext returns the operation (nil for none) and the reason of
// the history's context. It returns the driver's errors unchanged.
func HistoryContext(q Querier) (op *string, reason string, err error) {
	err = q.QueryRow(`SELECT op, reason FROM temp.history_ctx`, nil, &op, &reason)
	return op, reason, err
}

// SetHistoryContext sets the operation (nil for none) and the reason of
// the history's context. It returns the driver's errors unchanged.
func SetHistoryContext(q Querier, op *string, reason string) error {
	_, err := q.Exec(`UPDATE temp.history_ctx SET op = ?, reason = ?`, op, reason)
	return err
}

const historyRowCols = `pk, op, memory_type, id, before, after, actor, reason, at, form`

// History returns the entries of the agent's memory id, oldest first. It
// returns the driver's errors unchanged.
func History(q Querier, agent, id string) ([]HistoryRow, error) {
	rows, err := q.Query(`SELECT `+historyRowCols+` FROM history INDEXED BY history_by_memory
			WHERE agent_id = ? AND id = ? ORDER BY pk`, agent, id)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanHistoryRow)
}

// ChangeSelect selects entries of an agent's history by time and Seq:
// those after (Since, AfterSeq) and before (Until, BeforeSeq), by time
// then Seq, of Actor only when it is not "", the first Limit of them, or
// the last with Newest, newest first. A zero Since, Until or BeforeSeq
// sets no bound.
type ChangeSelect struct {
	Since, Until        time.Time
	AfterSeq, BeforeSeq int64
	Limit               int
	Newest              bool
	Actor               string
}

// minChangeTime is the earliest time Changes reads from without a Since.
const minChangeTime = -1 << 62

// Changes returns the entries of the agent's history that cs selects. It
// returns the driver's errors unchanged.
func Changes(q Querier, agent string, cs ChangeSelect) ([]HistoryRow, error) {
	since, until, before := int64(minChangeTime), int64(math.MaxInt64), int64(math.MaxInt64)
	if !cs.Since.IsZero() {
		since = MS(cs.Since)
	}
	if !cs.Until.IsZero() {
		until = MS(cs.Until)
	}
	if cs.BeforeSeq != 0 {
		before = cs.BeforeSeq
	}
	order := "at, pk"
	if cs.Newest {
		order = "at DESC, pk DESC"
	}
	rows, err := q.Query(`SELECT `+historyRowCols+` FROM history INDEXED BY history_by_time
			WHERE agent_id = ?1 AND (at > ?2 OR (at = ?2 AND pk > ?3)) AND (at < ?5 OR (at = ?5 AND pk < ?6))
				AND (?7 = '' OR actor = ?7)
			ORDER BY `+order+` LIMIT ?4`,
		agent, since, cs.AfterSeq, cs.Limit, until, before, cs.Actor)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanHistoryRow)
}

// scanHistoryRow scans a row of historyRowCols. Its targets are one
// variable, which costs one allocation for all of them; before and after
// scan into byte slices, nil for NULL.
func scanHistoryRow(r Scanner) (HistoryRow, error) {
	var v struct {
		h    HistoryRow
		at   int64
		form sql.NullInt64
	}
	h := &v.h
	if err := r.Scan(&h.Seq, &h.Op, &h.Type, &h.ID, &h.Before, &h.After, &h.Actor, &h.Reason, &v.at, &v.form); err != nil {
		return *h, err
	}
	h.At, h.Form = FromMS(v.at), int(v.form.Int64)
	h.Before, h.After = CanonicalJSON(h.Before), CanonicalJSON(h.After)
	return *h, nil
}

// PruneHistory deletes the agent's entries from before before and returns
// how many it deleted. It returns the driver's errors unchanged.
func PruneHistory(q Querier, agent string, before time.Time) (int64, error) {
	res, err := q.Exec(`DELETE FROM history WHERE agent_id = ? AND at < ?`, agent, MS(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// FirstCompactEntry returns the Seq of the first entry of the agent's
// memory typ/id up to Seq upTo in a compact form, and whether there is
// one. It returns the driver's errors unchanged.
func FirstCompactEntry(q Querier, agent, typ, id string, upTo int64) (int64, bool, error) {
	rows, err := q.Query(`SELECT pk FROM history INDEXED BY history_by_memory
		WHERE agent_id = ? AND id = ? AND pk <= ? AND memory_type = ? AND form IS NOT NULL ORDER BY pk LIMIT 1`,
		agent, id, upTo, typ)
	if err != nil {
		return 0, false, err
	}
	first, err := ScanAll(rows, func(r Scanner) (int64, error) {
		var pk int64
		return pk, r.Scan(&pk)
	})
	if err != nil || len(first) == 0 {
		return 0, false, err
	}
	return first[0], true, nil
}

// SettleEntry writes the entry seq whole: before and after (nil for NULL)
// as JSON texts, in form HistoryWhole. It returns the driver's errors
// unchanged.
func SettleEntry(q Querier, seq int64, before, after []byte) error {
	_, err := q.Exec(`UPDATE history SET before = ?, after = ?, form = NULL WHERE pk = ?`, historyJSONText(before), historyJSONText(after), seq)
	return err
}

// historyJSONText is b as a text to bind, or nil (NULL) when b is.
func historyJSONText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// EntriesFrom returns the Seq, ID, Before, After and Form of the entries
// of the agent's memories of kind typ with the given IDs, from Seq from
// on, by ID then newest first. It returns the driver's errors unchanged.
func EntriesFrom(q Querier, agent, typ string, ids []string, from int64) ([]HistoryRow, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(`SELECT id, pk, before, after, form FROM history INDEXED BY history_by_memory
		WHERE agent_id = ?1 AND id IN (SELECT value FROM json_each(?2)) AND pk >= ?3 AND memory_type = ?4
		ORDER BY id, pk DESC`, agent, string(list), from, typ)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (HistoryRow, error) {
		var v struct {
			e    HistoryRow
			form sql.NullInt64
		}
		e := &v.e
		err := r.Scan(&e.ID, &e.Seq, &e.Before, &e.After, &v.form)
		e.Form = int(v.form.Int64)
		e.Before, e.After = CanonicalJSON(e.Before), CanonicalJSON(e.After)
		return *e, err
	})
}

// RowFields returns the recorded fields of the agent's rows of kind k
// with the given IDs, as a JSON object each (as history's triggers write
// them), by ID; an ID without a row has none. It returns the driver's
// errors unchanged.
func RowFields(q Querier, k HistoryKind, agent string, ids []string) (map[string][]byte, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	stmt := `SELECT t.id, ` + k.recordedJSON("t") + ` FROM ` + k.Table + ` t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))`
	if Postgres(q) {
		// The schema's engram_history_fields makes what its history
		// triggers record (internal/store/postgres's schema.sql).
		stmt = PG(`SELECT t.id, engram_history_fields(t)::text FROM ` + k.Table + ` t
			WHERE t.agent_id = $1 AND t.id IN (SELECT jsonb_array_elements_text($2::jsonb))`)
	}
	rows, err := q.Query(stmt, agent, string(list))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	_, err = ScanAll(rows, func(r Scanner) (struct{}, error) {
		var id, fields string
		err := r.Scan(&id, &fields)
		out[id] = CanonicalJSON([]byte(fields))
		return struct{}{}, err
	})
	return out, err
}

// CanonicalJSON returns the JSON text b in one form whichever engine wrote
// it: no space outside strings, and each number with a fraction or an
// exponent as the shortest text that reads back as the same float64
// (SQLite's json_object writes 0.55865892708214282 and 1.0 where
// PostgreSQL's writes 0.5586589270821428 and 1, and PostgreSQL puts
// spaces around ':' and after ','). Strings are copied byte for byte. A
// text that is not JSON is returned as it is; nil stays nil.
func CanonicalJSON(b []byte) []byte {
	if b == nil || !json.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			out = append(out, b[i:j+1]...)
			i = j + 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for ; j < len(b) && strings.IndexByte("0123456789.eE+-", b[j]) >= 0; j++ {
			}
			num := b[i:j]
			if bytes.ContainsAny(num, ".eE") {
				if f, err := strconv.ParseFloat(string(num), 64); err == nil {
					num = strconv.AppendFloat(nil, f, 'g', -1, 64)
				}
			}
			out = append(out, num...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

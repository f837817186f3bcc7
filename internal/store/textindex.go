package store

import (
	"database/sql"
	"fmt"
	"strings"
)

// The statements of the in-memory text index (the root's textindex.go):
// the agent's text statistics, its searchable rows read once to build
// the index, and the rows inserted since, read to catch it up.

// TextKinds are the kinds searched by text, in the order the text index
// and the full-text search keep them (Kinds' order).
var TextKinds []*Kind

// makeTextKinds makes TextKinds (see makeStatements).
func makeTextKinds() []*Kind {
	var out []*Kind
	for _, k := range Kinds {
		if k.FTS != "" {
			out = append(out, k)
		}
	}
	return out
}

// TextStats returns the agent's text statistics: how many searchable
// rows it has, the version of its texts (-1 before the first) and the
// version of their ranks.
// Errors are the driver's.
func TextStats(q Querier, agent string) (docs int, version, ranks int64, err error) {
	err = q.QueryRow(`SELECT coalesce((SELECT docs FROM text_stats WHERE agent_id = ?1), 0),
		coalesce((SELECT version FROM text_stats WHERE agent_id = ?1), -1),
		coalesce((SELECT ranks FROM text_stats WHERE agent_id = ?1), 0)`, []any{agent}, &docs, &version, &ranks)
	return docs, version, ranks, err
}

// TextVersion returns the version of the agent's texts, -1 before the
// first.
// Errors are the driver's.
func TextVersion(q Querier, agent string) (int64, error) {
	var v int64
	err := q.QueryRow(`SELECT coalesce((SELECT version FROM text_stats WHERE agent_id = ?1), -1)`, []any{agent}, &v)
	return v, err
}

// SetCacheKiB sets the page cache of the connection q runs on to kib
// KiB, which gives back the pages the process's pool holds beyond its new
// size.
// Errors are the driver's.
func SetCacheKiB(q Querier, kib int) error {
	_, err := q.Exec(fmt.Sprintf("PRAGMA cache_size = -%d", kib))
	return err
}

// TextRow is a row read for the text index.
type TextRow struct {
	PK, Created int64 // Created in Unix milliseconds, as stored
	ID          string
	// Importance is the kind's Importance of the row.
	Importance float64
	// Terms is the row's term vector, NTok its length; nil for a row
	// without one, which Texts then holds the indexed texts of (see
	// Kind.Indexed).
	Terms []byte
	NTok  int
	Texts []string
	// Session is the kind's Session of the row ("" for none); UserID and
	// SessionID its UserCol's and SessionCol's.
	Session, UserID, SessionID string
	// Asks says the row of a kind with sessions asks a question (see
	// Kind.AsksOver).
	Asks bool
}

// textCols are the columns TextRowsSQL and TextAfterSQL read of a row
// of k, its indexed texts padded with empty strings to n.
func textCols(k *Kind, n int) string {
	session := "''"
	if k.Session != "" {
		session = Over(k.Session, "t")
	}
	user, sess := "''", "''"
	if k.UserCol != "" {
		user = "t." + k.UserCol
	}
	if k.SessionCol != "" {
		sess = "t." + k.SessionCol
	}
	cols := `t.pk, t.id, t.created_at, ` + Over(k.Importance, "t") + `, t.ntok, t.terms, ` + session + `, ` + user + `, ` + sess + `, ` + k.AsksOver("t")
	for i := range n {
		if i < len(k.Indexed) {
			cols += `, CASE WHEN t.terms IS NULL THEN coalesce(` + Over(k.Indexed[i], "t") + `, '') ELSE '' END`
		} else {
			cols += `, ''`
		}
	}
	return cols
}

// TextRowsSQL reads, per kind, the agent's (?1) rows in pk order: what
// the index keeps of them, their term vector and, for a row without one,
// its indexed texts, through an index on agent_id: what a build reads
// when the kind's table holds other agents' rows too.
var TextRowsSQL map[*Kind]string

// makeTextRowsSQL makes TextRowsSQL (see makeStatements).
func makeTextRowsSQL() map[*Kind]string {
	out := map[*Kind]string{}
	for _, k := range TextKinds {
		out[k] = `SELECT ` + textCols(k, len(k.Indexed)) + ` FROM ` + k.Table + ` t WHERE t.agent_id = ?1 ORDER BY t.pk`
	}
	return out
}

// TextScanSQL is TextRowsSQL for a table that holds the agent's rows
// alone: straight through the table in pk order. Through an index on
// agent_id, SQLite looks every row up by its pk and sorts them all: about
// a third of a build's time at 100K memories.
var TextScanSQL map[*Kind]string

// makeTextScanSQL makes TextScanSQL (see makeStatements).
func makeTextScanSQL() map[*Kind]string {
	out := map[*Kind]string{}
	for _, k := range TextKinds {
		out[k] = `SELECT ` + textCols(k, len(k.Indexed)) + ` FROM ` + k.Table + ` t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk`
	}
	return out
}

// EachTextRow calls fn with every row of kind k of agent, in pk order.
// The row, its Terms and its Texts are valid only during the call.
// Errors are the driver's.
func EachTextRow(q Querier, k *Kind, agent string, fn func(*TextRow)) error {
	var others bool
	err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM `+k.Table+` WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM `+k.Table+` WHERE agent_id > ?1)`, []any{agent}, &others)
	if err != nil {
		return err
	}
	stmt := TextScanSQL[k]
	if others {
		stmt = TextRowsSQL[k]
	}
	rows, err := q.Query(stmt, agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	r := TextRow{Texts: make([]string, len(k.Indexed))}
	var terms sql.RawBytes
	dest := TextsDest(r.Texts, &r.PK, &r.ID, &r.Created, &r.Importance, &r.NTok, &terms, &r.Session, &r.UserID, &r.SessionID, &r.Asks)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		r.Terms = terms
		fn(&r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// TextAfterSQL reads, for a catch-up, the agent's (?1) rows of every
// text kind after the pk the index last saw of the kind's table (?2, ?3,
// … in TextKinds' order), each row led by its kind's place in TextKinds:
// one statement, not one a kind, since a search after every write pays
// it. Each kind's rows come through the range of pks (the rows inserted
// since, any agent's, filtered by agent), not through an index on
// agent_id: left to choose, SQLite reads every row of the agent through
// one and sorts them, on every search after a write (at 100K memories,
// 36 ms where the range takes 0.02).
var TextAfterSQL string

// makeTextAfterSQL makes TextAfterSQL (see makeStatements).
func makeTextAfterSQL() string {
	var parts []string
	for i, k := range TextKinds {
		parts = append(parts, fmt.Sprintf(`SELECT %d, %s FROM %s t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?%d`, i, textCols(k, textAfterTexts), k.Table, i+2))
	}
	return strings.Join(parts, "\nUNION ALL ")
}

// textAfterTexts is how many indexed texts a row of TextAfterSQL holds.
var textAfterTexts int

// makeTextAfterTexts makes textAfterTexts (see makeStatements).
func makeTextAfterTexts() int {
	n := 0
	for _, k := range TextKinds {
		n = max(n, len(k.Indexed))
	}
	return n
}

// TextAfter calls fn with the rows of agent of each text kind after the
// pk last[i] (in TextKinds' order), with the kind's place in TextKinds,
// in one statement. The row's Terms are its own; the row and its Texts
// are valid only during the call. The rows of a kind come in pk order as
// the range gives them, which SQL does not promise without an ORDER BY
// (which a compound statement would sort by): the caller checks.
// Errors are the driver's or fn's.
func TextAfter(q Querier, agent string, last []int64, fn func(kind int, r *TextRow) error) error {
	args := make([]any, 0, 1+len(last))
	args = append(args, agent)
	for _, l := range last {
		args = append(args, l)
	}
	rows, err := q.Query(TextAfterSQL, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	texts := make([]string, textAfterTexts)
	var r TextRow
	var at int
	dest := TextsDest(texts, &at, &r.PK, &r.ID, &r.Created, &r.Importance, &r.NTok, &r.Terms, &r.Session, &r.UserID, &r.SessionID, &r.Asks)
	for rows.Next() {
		r.Terms = nil
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if at < 0 || at >= len(TextKinds) {
			return fmt.Errorf("text index: a row of kind %d", at)
		}
		r.Texts = texts[:len(TextKinds[at].Indexed)]
		if err := fn(at, &r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// TextLastSQL reads the largest pk of each text kind's table, 0 for
// none, in TextKinds' order.
var TextLastSQL string

// makeTextLastSQL makes TextLastSQL (see makeStatements).
func makeTextLastSQL() string {
	var cols []string
	for _, k := range TextKinds {
		cols = append(cols, `coalesce((SELECT max(pk) FROM `+k.Table+`), 0)`)
	}
	return `SELECT ` + strings.Join(cols, ", ")
}

// TextLast returns the largest pk of each text kind's table in q's
// snapshot, in TextKinds' order.
// Errors are the driver's.
func TextLast(q Querier) ([]int64, error) {
	out := make([]int64, len(TextKinds))
	dest := make([]any, len(out))
	for i := range out {
		dest[i] = &out[i]
	}
	return out, q.QueryRow(TextLastSQL, nil, dest...)
}

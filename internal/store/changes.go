package store

import (
	"bytes"
	"database/sql"
	"strings"
)

// The functions of this package that insert or delete a memory kind's
// rows, or change their text, report each row they changed to the
// transaction they run in, as a [Change] (see [Querier]'s Changed), so
// that in-memory state kept beside the rows (the text and vector
// indexes, auto-linking's stems) follows them without an engine hook:
// the write paths say what they changed. An insert's Change carries its
// text when the kind's text is one Go can make (Kind.TextErr is nil).

// KindOfTable returns the kind whose table is table, or nil.
func KindOfTable(table string) *Kind {
	for _, k := range Kinds {
		if k.Table == table {
			return k
		}
	}
	return nil
}

// inserted reports to q the insert of agent's row id of k, at rowid pk,
// whose text is text.
func inserted(q Querier, k *Kind, agent, id string, pk int64, text string) {
	q.Changed(Change{Kind: k.Name, Op: ChangeInsert, PK: pk, Agent: agent, ID: id, Text: text})
}

// returning is the RETURNING clause that reads what a change op of a
// row of k is reported with: its rowid, agent and ID, then, for an
// insert, its text columns (see reportRows).
func (k *Kind) returning(op byte) string {
	if op != ChangeInsert {
		return ` RETURNING pk, agent_id, id`
	}
	return ` RETURNING pk, agent_id, id` + textColList(k)
}

// reportRows reports each row of rows, a statement's over k with k's
// RETURNING clause, to q as a change op, and to each when it is not nil,
// and closes rows. It returns how many rows there were; errors are the
// driver's.
func reportRows(q Querier, k *Kind, op byte, rows *sql.Rows, each func(Change)) (int64, error) {
	var cols []sql.NullString
	if op == ChangeInsert {
		cols = make([]sql.NullString, len(k.TextCols))
	}
	dest := make([]any, 3+len(cols))
	var c Change
	dest[0], dest[1], dest[2] = &c.PK, &c.Agent, &c.ID
	for i := range cols {
		dest[3+i] = &cols[i]
	}
	var n int64
	_, err := ScanAll(rows, func(r Scanner) (struct{}, error) {
		c = Change{Kind: k.Name, Op: op}
		if err := r.Scan(dest...); err != nil {
			return struct{}{}, err
		}
		if op == ChangeInsert && k.TextErr == nil {
			c.Text = k.TextFrom(func(i int) string { return cols[i].String })
		}
		q.Changed(c)
		if each != nil {
			each(c)
		}
		n++
		return struct{}{}, nil
	})
	return n, err
}

// changing runs stmt, which writes k's rows, with RETURNING k's clause
// added, and reports each row it returns to q as a change op. It returns
// how many rows it changed; errors are the driver's.
func changing(q Querier, k *Kind, op byte, stmt string, args ...any) (int64, error) {
	rows, err := q.Query(stmt+k.returning(op), args...)
	if err != nil {
		return 0, err
	}
	return reportRows(q, k, op, rows, nil)
}

// textState is a row's text columns, before or after an update that may
// change them (see updatingText).
type textState struct {
	pk        int64
	agent, id string
	cols      []any
}

// textStates scans rows of the rowid, agent, ID and text columns of k's
// rows, and closes rows. Errors are the driver's.
func textStates(k *Kind, rows *sql.Rows) ([]textState, error) {
	return ScanAll(rows, func(r Scanner) (textState, error) {
		s := textState{cols: make([]any, len(k.TextCols))}
		dest := []any{&s.pk, &s.agent, &s.id}
		for i := range s.cols {
			dest = append(dest, &s.cols[i])
		}
		return s, r.Scan(dest...)
	})
}

// textColList is ", " and k's text columns, or "" for none.
func textColList(k *Kind) string {
	if len(k.TextCols) == 0 {
		return ""
	}
	return ", " + strings.Join(k.TextCols, ", ")
}

// updatingText runs an UPDATE of k's rows that may change their text
// columns: stmt with args, whose rows where (with whereArgs) selects as
// well. It reads the rows' text before, takes their text after from the
// UPDATE's own RETURNING, reports each row whose text columns it changed
// (one compared with its value before, as SQL's IS NOT compares) to q as
// ChangeText, and returns how many rows the UPDATE changed. Errors are
// the driver's.
func updatingText(q Querier, k *Kind, stmt string, args []any, where string, whereArgs ...any) (int64, error) {
	rows, err := q.Query(`SELECT pk, agent_id, id`+textColList(k)+` FROM `+k.Table+` WHERE `+where, whereArgs...)
	if err != nil {
		return 0, err
	}
	before, err := textStates(k, rows)
	if err != nil {
		return 0, err
	}
	if rows, err = q.Query(stmt+` RETURNING pk, agent_id, id`+textColList(k), args...); err != nil {
		return 0, err
	}
	after, err := textStates(k, rows)
	if err != nil {
		return 0, err
	}
	was := make(map[int64][]any, len(before))
	for _, s := range before {
		was[s.pk] = s.cols
	}
	for _, s := range after {
		old, ok := was[s.pk]
		if ok && !sameValues(old, s.cols) {
			q.Changed(Change{Kind: k.Name, Op: ChangeText, PK: s.pk, Agent: s.agent, ID: s.id})
		}
	}
	return int64(len(after)), nil
}

// sameValues reports whether two rows of column values, as the driver
// scans them into any, are equal column by column, as SQL's IS compares
// them: NULL equals only NULL, and values of different types differ.
func sameValues(a, b []any) bool {
	for i := range a {
		x, y := a[i], b[i]
		switch xv := x.(type) {
		case nil:
			if y != nil {
				return false
			}
		case []byte:
			yv, ok := y.([]byte)
			if !ok || !bytes.Equal(xv, yv) {
				return false
			}
		default:
			if _, ok := y.([]byte); ok || x != y {
				return false
			}
		}
	}
	return true
}

package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"
)

// The reads of ranking (the root's rank.go): what ranking and the
// results need of the rows a search found, by pk.

// RawQuerier is a Querier that may run a read through the driver itself,
// without database/sql's conversions and locks, which cost more than
// SQLite's work on a read of a few dozen short rows. The SQLite engine's
// read transactions on a reader are one (internal/store/sqlite's Tx).
type RawQuerier interface {
	Querier
	// RawQuery runs query with args and calls row with each row's values
	// (valid until the next call); ok is false, and nothing ran, when
	// the transaction has no such path.
	RawQuery(query string, args []any, row func(vals []driver.Value) error) (ok bool, err error)
}

// contentSQL reads, per kind, the text of the rows whose pks are listed
// in ?1, as a search result shows it, and where it was found.
var contentSQL map[*Kind]string

// makeContentSQL makes contentSQL (see makeStatements).
func makeContentSQL() map[*Kind]string {
	out := map[*Kind]string{}
	for _, k := range Kinds {
		out[k] = `SELECT j.value, ` + k.TextOver("t") + `, ` + k.CiteOver("t") + ` FROM json_each(?1) j CROSS JOIN ` + k.Table + ` t ON t.pk = CAST(j.value AS INTEGER)`
	}
	return out
}

// EachContent calls each with the pk, text (as a search result shows it)
// and citation (where it was found, or "") of every row of kind k whose pk
// is in pks. It returns the driver's errors or each's.
func EachContent(q Querier, k *Kind, pks []int64, each func(pk int64, text, cite string) error) error {
	list, err := json.Marshal(pks)
	if err != nil {
		return err
	}
	rows, err := q.Query(contentSQL[k], string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var text, cite string
		if err := rows.Scan(&pk, &text, &cite); err != nil {
			return err
		}
		if err := each(pk, text, cite); err != nil {
			return err
		}
	}
	// A read cut short must not pass for rows deleted since.
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// RowRead says which columns ReadRows reads besides a row's pk, text and
// importance (and its citation and tags, for the kinds that have them).
type RowRead struct {
	Touched bool // when it was last touched
	Recall  bool // retrievals and strength
}

// RankRow is what ReadRows reads of a row: those of Touched, Retrievals
// and Strength its RowRead did not ask for are zero.
type RankRow struct {
	PK         int64
	Text, Cite string
	Tags       []string
	Importance float64
	Touched    time.Time
	Retrievals int
	Strength   float64
}

// rowReadSQL holds the statements of ReadRows, by kind and RowRead: the
// columns of the rows whose pks are listed in ?1, in the order ReadRows
// scans them.
var rowReadSQL map[*Kind]map[RowRead]string

// makeRowReadSQL makes rowReadSQL (see makeStatements).
func makeRowReadSQL() map[*Kind]map[RowRead]string {
	out := map[*Kind]map[RowRead]string{}
	for _, k := range Kinds {
		out[k] = map[RowRead]string{}
		for _, r := range []RowRead{{}, {true, false}, {false, true}, {true, true}} {
			cols := `t.pk, ` + k.TextOver("t")
			if k.Cite != "" {
				cols += `, ` + k.CiteOver("t")
			}
			if k.Tagged {
				cols += `, ` + k.TagsOver("t")
			}
			cols += `, ` + Over(k.Importance, "t")
			if r.Touched {
				cols += `, ` + Over(k.Touched, "t")
			}
			if r.Recall {
				cols += `, t.retrievals, ` + Over(k.Strength, "t")
			}
			out[k][r] = `SELECT ` + cols + ` FROM json_each(?1) j CROSS JOIN ` + k.Table + ` t ON t.pk = CAST(j.value AS INTEGER)`
		}
	}
	return out
}

// ReadRows calls each with what rr says of every row of kind k whose pk
// is listed in list (a JSON list of pks), in the list's order; row is
// valid only during the call. Through a RawQuerier with a raw path it
// reads through the driver itself. It returns the driver's errors, a tag
// list's decoding error, or each's.
func ReadRows(q Querier, k *Kind, list []byte, rr RowRead, each func(row *RankRow) error) error {
	var row RankRow
	var touched int64
	var tags string
	dest := []any{&row.PK, &row.Text}
	if k.Cite != "" {
		dest = append(dest, &row.Cite)
	}
	if k.Tagged {
		dest = append(dest, &tags)
	}
	dest = append(dest, &row.Importance)
	if rr.Touched {
		dest = append(dest, &touched)
	}
	if rr.Recall {
		dest = append(dest, &row.Retrievals, &row.Strength)
	}
	// fill completes the row just read into dest and hands it on.
	fill := func() error {
		var err error
		if row.Tags, err = DecodeTags(tags); err != nil {
			return err
		}
		if rr.Touched {
			row.Touched = FromMS(touched)
		}
		return each(&row)
	}
	query := rowReadSQL[k][rr]
	if rq, ok := q.(RawQuerier); ok {
		ran, err := rq.RawQuery(query, []any{string(list)}, func(vals []driver.Value) error {
			if err := assignRaw(vals, dest); err != nil {
				return err
			}
			return fill()
		})
		if ran || err != nil {
			return err
		}
	}
	rows, err := q.Query(query, string(list))
	if err != nil {
		return err
	}
	_, err = ScanAll(rows, func(r Scanner) (struct{}, error) {
		if err := r.Scan(dest...); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fill()
	})
	return err
}

// assignRaw stores a row's values, as the driver gives them, into dest,
// as Scan would for the types ReadRows reads: an INTEGER or REAL into a
// float64, an INTEGER into an int or int64, TEXT into a string. Any other
// value is an error.
func assignRaw(vals []driver.Value, dest []any) error {
	if len(vals) != len(dest) {
		return fmt.Errorf("%d columns read into %d values", len(vals), len(dest))
	}
	for i, d := range dest {
		ok := false
		switch d := d.(type) {
		case *int64:
			var v int64
			if v, ok = vals[i].(int64); ok {
				*d = v
			}
		case *int:
			var v int64
			if v, ok = vals[i].(int64); ok {
				*d = int(v)
			}
		case *float64:
			switch v := vals[i].(type) {
			case float64:
				*d, ok = v, true
			case int64:
				*d, ok = float64(v), true
			}
		case *string:
			switch v := vals[i].(type) {
			case string:
				*d, ok = v, true
			case []byte:
				*d, ok = string(v), true
			}
		}
		if !ok {
			return fmt.Errorf("column %d: cannot store %T in %T", i, vals[i], d)
		}
	}
	return nil
}

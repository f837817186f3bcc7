package store

import (
	"encoding/json"
	"strings"

	"github.com/engram-go/engram/internal/bm25"
)

// BatchMax is how many rows [InsertRows] inserts per statement at most: it
// inserts 64, 16, 4 or 1, the most that what is left holds, so that a
// batch runs few statements, and few are prepared.
const BatchMax = 64

// batchSize returns how many of left rows the next statement of a batch
// inserts: BatchMax, or a quarter of it again and again until it fits.
func batchSize(left int) int {
	n := BatchMax
	for n > left {
		n /= 4
	}
	return n
}

// InsertRows inserts n rows into table, up to [BatchMax] per statement:
// FTS5 writes what it holds to its index whenever a statement of the
// transaction begins, so rows inserted one statement each leave one index
// segment each, which FTS5 then spends most of a batch merging. cols names
// the columns written; row(i, args) appends the values of the i-th row,
// one per column in order, to args and returns it. The table name and
// columns come from the caller's kind registry, not from input.
//
// cols must hold "id", the rows' IDs must be distinct strings, and pk is
// called with the index of each row inserted and its rowid (the table's
// pk column): the caller reports the inserts (see [Change]).
//
// It returns the first statement's error, the driver's unchanged (see
// [IsUniqueViolation] for a row whose key is held); the rows of earlier
// statements stay inserted in the caller's transaction, which should roll
// back.
func InsertRows(q Querier, table string, cols []string, n int, row func(i int, args []any) []any, pk func(i int, pk int64)) error {
	one := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
	head := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES `
	idAt := -1
	for j, c := range cols {
		if c == "id" {
			idAt = j
		}
	}
	for start := 0; start < n; {
		k := batchSize(n - start)
		args := make([]any, 0, k*len(cols))
		for i := start; i < start+k; i++ {
			args = row(i, args)
		}
		stmt := head + one + strings.Repeat(", "+one, k-1)
		at := make(map[string]int, k)
		for i := range k {
			id, _ := args[i*len(cols)+idAt].(string)
			at[id] = start + i
		}
		rows, err := q.Query(stmt+` RETURNING id, pk`, args...)
		if err != nil {
			return err
		}
		_, err = ScanAll(rows, func(sc Scanner) (struct{}, error) {
			var id string
			var p int64
			err := sc.Scan(&id, &p)
			if err == nil {
				pk(at[id], p)
			}
			return struct{}{}, err
		})
		if err != nil {
			return err
		}
		start += k
	}
	return nil
}

// HeldIDs returns which of ids agent's rows of table hold, in one query.
// The table name comes from the caller's kind registry. Errors are the
// driver's, unchanged.
func HeldIDs(q Querier, table, agent string, ids []string) (map[string]bool, error) {
	list, _ := json.Marshal(ids) // a []string always marshals
	return JSONSet(q, `SELECT json_group_array(id) FROM `+table+`
		WHERE agent_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, agent, string(list))
}

// derived holds a row's derived columns: the term vector of its indexed
// texts and their token count (see internal/bm25), computed once by the
// row's Derive, or by its insert or update when Derive was not called.
type derived struct {
	terms []byte
	ntok  int
	done  bool
}

// derive computes the derived columns of texts, unless they are already,
// and calls each, when not nil, with every token as bm25.VectorEach gives
// it.
func (d *derived) derive(each func(i int, tok, stem string), texts ...string) {
	if d.done {
		return
	}
	if each == nil {
		d.terms, d.ntok = bm25.Vector(texts...)
	} else {
		d.terms, d.ntok = bm25.VectorEach(each, texts...)
	}
	d.done = true
}

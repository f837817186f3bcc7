package store

import (
	"database/sql"
	"sync"
	"time"
)

// RankedRow is what ranking needs of a memory a search found: its row's
// pk and ID, tags, creation time, importance, when it was last touched,
// retrievals and strength (see [RankCols]).
type RankedRow struct {
	PK         int64
	ID         string
	Tags       []string
	Created    time.Time
	Importance float64
	Touched    time.Time
	Retrievals int
	Strength   float64
}

// RankCols returns the columns of a row of k, named alias, that ranking
// needs, in the order [ScanRanked] reads them: pk, id, tags, created_at,
// importance, last touched, retrievals and strength.
func RankCols(k *Kind, alias string) string {
	return alias + ".pk, " + alias + ".id, " + k.TagsOver(alias) + ", " + alias + ".created_at, " +
		Over(k.Importance, alias) + ", " + Over(k.Touched, alias) + ", " + alias + ".retrievals, " + Over(k.Strength, alias)
}

// ScanRanked scans a row whose first columns are [RankCols] into row,
// and the columns after them, if any, into more. It returns the scan's
// error, or the decoding error of a malformed tag list.
func ScanRanked(r Scanner, row *RankedRow, more ...any) error {
	var tags string
	var created, touched int64
	dest := make([]any, 0, 8+len(more))
	dest = append(dest, &row.PK, &row.ID, &tags, &created, &row.Importance, &touched, &row.Retrievals, &row.Strength)
	dest = append(dest, more...)
	if err := r.Scan(dest...); err != nil {
		return err
	}
	row.Created, row.Touched = FromMS(created), FromMS(touched)
	var err error
	row.Tags, err = DecodeTags(tags)
	return err
}

// ExprError is the error of [CheckExpression] for a malformed FTS5
// expression: Err is the engine's.
type ExprError struct{ Err error }

// Error returns the engine's message.
func (e *ExprError) Error() string { return e.Err.Error() }

// Unwrap returns the engine's error.
func (e *ExprError) Unwrap() error { return e.Err }

// exprCheck is an empty in-memory FTS5 index with every column engram's
// indexes have, on which CheckExpression tries expressions: an
// expression that fails there is malformed, whatever the database holds,
// and one that runs there is not, so a failure of the real search (a
// damaged file, say) is never mistaken for a bad query.
var exprCheck struct {
	once sync.Once
	mu   sync.Mutex // the one connection runs one check at a time
	st   *sql.Stmt
	err  error
}

// CheckExpression tries the FTS5 expression expr on an empty index: it
// returns an *ExprError if expr is malformed, the engine's error if the
// index could not be made, and nil otherwise.
func CheckExpression(expr string) error {
	c := &exprCheck
	c.once.Do(func() {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			c.err = err
			return
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		if _, err := db.Exec(`CREATE VIRTUAL TABLE q USING fts5(content, tags, name, description, pattern, agent_tok, tokenize = 'porter unicode61')`); err != nil {
			c.err = err
			return
		}
		c.st, c.err = db.Prepare(`SELECT count(*) FROM q WHERE q MATCH ?`)
	})
	if c.err != nil {
		return c.err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int
	if err := c.st.QueryRow(expr).Scan(&n); err != nil {
		return &ExprError{Err: err}
	}
	return nil
}

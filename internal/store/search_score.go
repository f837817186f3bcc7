package store

import (
	"database/sql/driver"
	"errors"
	"sync"

	"modernc.org/sqlite"
)

// Scoring inside SQLite: a full-text query can match hundreds of rows,
// and handing each one to Go (its row through database/sql, a couple of
// microseconds) cost more than everything else a search does. So FTS5's
// matches are scored where they are read, by two SQL functions that call
// the search's own scorer, and only each kind's k best rows come out,
// with what ranking needs of them.
//
//	engram_bm25(handle, terms, ntok)       a row's BM25 score from its term vector; NULL without one
//	engram_bm25_text(handle, text, ...)    from its indexed texts (a row without a term vector, or prefixes)
//
// handle names the scorer of a search under way; the functions return
// the error of the lookup given to RegisterScoring for any other.

// TextScorer scores a row for the scoring functions.
type TextScorer interface {
	// Score returns the BM25 score of a row from its term vector v of
	// n tokens, and which of the query's terms it holds.
	Score(v []byte, n int) (float64, uint64)
	// ScoreTexts returns the BM25 score of a row from its indexed texts.
	ScoreTexts(texts ...string) float64
}

var scoring sync.Once

// RegisterScoring registers the SQL functions engram_bm25 and
// engram_bm25_text, which score a row with the scorer lookup returns for
// their first argument, a handle (an error for an unknown one fails the
// statement). It registers them once per process: a later call does
// nothing.
func RegisterScoring(lookup func(handle int64) (TextScorer, error)) {
	scoring.Do(func() {
		// The term vector is read where SQLite keeps it, without a copy:
		// Score keeps nothing of it.
		sqlite.MustRegisterFunction("engram_bm25", &sqlite.FunctionImpl{
			NArgs: 3, VolatileArgs: true,
			Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				h, _ := args[0].(int64)
				sc, err := lookup(h)
				if err != nil {
					return nil, err
				}
				v, ok := args[1].([]byte)
				if !ok {
					return nil, nil
				}
				n, _ := args[2].(int64)
				score, _ := sc.Score(v, int(n))
				return score, nil
			},
		})
		sqlite.MustRegisterFunction("engram_bm25_text", &sqlite.FunctionImpl{
			NArgs: -1,
			Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				var h int64
				if len(args) > 0 {
					h, _ = args[0].(int64)
				}
				sc, err := lookup(h)
				if err != nil {
					return nil, err
				}
				if len(args) < 2 {
					return nil, errNoTexts
				}
				texts := make([]string, len(args)-1)
				for i, a := range args[1:] {
					switch a := a.(type) {
					case string:
						texts[i] = a
					case []byte:
						texts[i] = string(a)
					}
				}
				return sc.ScoreTexts(texts...), nil
			},
		})
	})
}

// errNoTexts is the error of engram_bm25_text called with no text.
var errNoTexts = errors.New("engram_bm25_text: no text to score")

package engram

import (
	"database/sql/driver"
	"errors"
	"sync"

	"github.com/engram-go/engram/internal/bm25"
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
// handle names a scorer registered for the search under way (see
// scorers.add); the functions return an error for any other.

// scorers holds the scorers of the searches under way by handle.
var scorers = scorerTable{byHandle: map[int64]*scorer{}}

type scorerTable struct {
	mu       sync.RWMutex // guards byHandle and next
	byHandle map[int64]*scorer
	next     int64
}

// add registers sc and returns its handle and the function that
// unregisters it.
func (t *scorerTable) add(sc *scorer) (int64, func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	h := t.next
	t.byHandle[h] = sc
	return h, func() {
		t.mu.Lock()
		delete(t.byHandle, h)
		t.mu.Unlock()
	}
}

func (t *scorerTable) get(h any) (*scorer, error) {
	n, _ := h.(int64)
	t.mu.RLock()
	sc := t.byHandle[n]
	t.mu.RUnlock()
	if sc == nil {
		return nil, errNoScorer
	}
	return sc, nil
}

var errNoScorer = errors.New("engram: no search scorer with this handle")

func init() {
	// The term vector is read where SQLite keeps it, without a copy:
	// Score keeps nothing of it.
	sqlite.MustRegisterFunction("engram_bm25", &sqlite.FunctionImpl{
		NArgs: 3, VolatileArgs: true,
		Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			sc, err := scorers.get(args[0])
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
			if len(args) < 2 {
				return nil, errNoScorer
			}
			sc, err := scorers.get(args[0])
			if err != nil {
				return nil, err
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
			v, n := bm25.VectorPrefixed(sc.prefixes, texts...)
			score, _ := sc.Score(v, n)
			return score, nil
		},
	})
}

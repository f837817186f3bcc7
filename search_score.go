package engram

import (
	"errors"
	"sync"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/store"
)

// Scoring inside SQLite (see store.RegisterScoring): FTS5's matches are
// scored where they are read, by the search's own scorer, which the
// statement names by a handle (see scorers.add); an unknown handle is an
// error.

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

func (t *scorerTable) get(h int64) (*scorer, error) {
	t.mu.RLock()
	sc := t.byHandle[h]
	t.mu.RUnlock()
	if sc == nil {
		return nil, errNoScorer
	}
	return sc, nil
}

var errNoScorer = errors.New("engram: no search scorer with this handle")

func init() {
	store.RegisterScoring(func(h int64) (store.TextScorer, error) {
		sc, err := scorers.get(h)
		if err != nil {
			return nil, err
		}
		return sc, nil
	})
}

// ScoreTexts returns the BM25 score of a row from its indexed texts, the
// search's prefixes included (see bm25.VectorPrefixed).
func (sc *scorer) ScoreTexts(texts ...string) float64 {
	v, n := bm25.VectorPrefixed(sc.prefixes, texts...)
	score, _ := sc.Score(v, n)
	return score
}

package engram_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/testutil"
)

// One agent's choice of embedding model never drops another's vectors: in
// a shared file, another model is refused while another agent has
// vectors, and that agent's vectors and results stay as they were; alone,
// an agent changes model freely, and WithModelChange changes the file's.
func TestAnotherModelDoesNotDropAnotherAgentsVectors(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	path := newDB(t)
	one := func() *testEmbedder { e := newTestEmbedder(t, 64); e.model = "one"; return e }
	two := func() *testEmbedder { e := newTestEmbedder(t, 64); e.model = "two"; return e }
	clock := testutil.NewClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	a := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(one()), engram.WithClock(clock.Now))
	_, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy key lives in the vault"})
	require.NoError(t, err)
	search := func() []engram.Result {
		res, err := a.Search(ctx, engram.SearchOptions{Query: "where is the deploy key?", Mode: engram.SearchVector})
		require.NoError(t, err)
		return res
	}
	before := search()
	require.Len(t, before, 1)
	require.Equal(t, 1, dbRows(t, path, "vec_semantic"))

	_, err = tryOpenOn(t, path, "b", engram.Tier2, engram.WithEmbedder(two()))
	require.ErrorIs(t, err, engram.ErrInvalid)
	assert.Contains(t, err.Error(), `agent "a"`)
	assert.Equal(t, 1, dbRows(t, path, "vec_semantic"), "a's vector is still there")
	assert.Equal(t, before, search())
	assert.Zero(t, pending(t, a))

	// b with the file's model is fine; a alone in another file changes
	// model freely.
	b := openOn(t, path, "b", engram.Tier2, engram.WithEmbedder(one()))
	_, err = b.Semantic().Store(ctx, engram.SemanticEntry{Content: "Staging runs on port 8443"})
	require.NoError(t, err)
	solo := newDB(t)
	s := openOn(t, solo, "s", engram.Tier2, engram.WithEmbedder(one()))
	_, err = s.Semantic().Store(ctx, engram.SemanticEntry{Content: "alone in the file"})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	s = openOn(t, solo, "s", engram.Tier2, engram.WithEmbedder(two()))
	assert.Equal(t, 1, pending(t, s), "its memory is embedded again by the new model")

	// WithModelChange takes the whole file to another model, on purpose.
	require.NoError(t, b.Close())
	b = openOn(t, path, "b", engram.Tier2, engram.WithEmbedder(two()), engram.WithModelChange())
	assert.Equal(t, 1, pending(t, b))
	_, err = engram.New(engram.Tier1, engram.InMemory(), engram.WithModelChange())
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

// cancellingEmbedder cancels a context once it has embedded after calls.
type cancellingEmbedder struct {
	*testEmbedder
	after  int
	cancel context.CancelFunc
	calls  int
}

func (e *cancellingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls++
	if e.calls == e.after {
		defer e.cancel() // the vectors come back; the write that follows is cancelled
	}
	return e.testEmbedder.Embed(ctx, texts)
}

// A cancelled Reindex reports only the progress it committed.
func TestCancelledReindexReportsWhatItCommitted(t *testing.T) {
	ctx := context.Background()
	e := &cancellingEmbedder{testEmbedder: newTestEmbedder(t, 64), after: 2}
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	batch := make([]engram.SemanticEntry, 300)
	for i := range batch {
		batch[i] = engram.SemanticEntry{Content: "fact number " + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + " " + strconv.Itoa(i)}
	}
	e.set(true, 0) // stored pending, with nothing in the embedding cache
	_, err := m.Semantic().StoreBatch(ctx, batch)
	require.NoError(t, err)
	e.set(false, 0)

	e.calls = 0
	cctx, cancel := context.WithCancel(ctx)
	e.cancel = cancel
	done, total := 0, 0
	err = m.Reindex(cctx, func(d, t int) { done, total = d, t })
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 300, total)
	assert.Equal(t, total-done, pending(t, m), "what is reported done is what is no longer pending")
}

// A search of the working set alone never calls the embedder: working
// items have no vectors.
func TestWorkingSearchDoesNotEmbed(t *testing.T) {
	ctx := context.Background()
	e := newTestEmbedder(t, 64)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	_, err := m.Working().Add(engram.WorkingItem{Content: "Ada wants it before Friday", Importance: 0.8})
	require.NoError(t, err)
	e.set(false, 0) // counts from here
	res, err := m.Working().Search(ctx, engram.SearchOptions{Query: "Friday"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Zero(t, e.embedded())
}

// The embedding cache keeps only what live (or archived) memories may
// need embedded again: a deleted memory's text, a changed memory's old
// text and a purged memory's text leave it with them. It holds a vector
// of its own only for an archived memory, whose vector has left its vec0
// table: a live memory's vector is stored once.
func TestEmbeddingCacheIsPrunedWithTheMemories(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	path := newDB(t)
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 2
	m := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)), engram.WithConfig(cfg))
	ids := map[string]string{}
	for _, c := range []string{"first fact", "second fact", "third fact", "fourth fact"} {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c, Importance: 0.3})
		require.NoError(t, err)
		ids[c] = id
	}
	require.Equal(t, 4, dbRows(t, path, "embedding_cache"))

	require.NoError(t, m.Semantic().Delete(ctx, ids["first fact"]))
	assert.Equal(t, 3, dbRows(t, path, "embedding_cache"), "a deleted memory's text goes")
	_, err := m.Semantic().Update(ctx, ids["second fact"], engram.SemanticPatch{Content: new("second fact, corrected")})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	assert.Equal(t, 3, dbRows(t, path, "embedding_cache"), "the old text went, the new one came")

	assert.Zero(t, cachedVectors(t, path), "the cache names the rows that hold the vectors")

	rep, err := m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Count(engram.ActionArchive))
	assert.Equal(t, 3, dbRows(t, path, "embedding_cache"), "an archived memory's text stays, for Restore")
	assert.Equal(t, 1, cachedVectors(t, path), "with its vector, which left vec_semantic")
	n, err := m.PurgeArchive(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, 2, dbRows(t, path, "embedding_cache"), "a purged memory's text goes")
	assert.Zero(t, cachedVectors(t, path))
}

// cachedVectors counts the vectors the embedding cache holds itself.
func cachedVectors(t *testing.T, db testDB) int {
	t.Helper()
	const count = `SELECT count(*) FROM embedding_cache WHERE length(vector) > 0`
	if dsn, ok := pgNamed.Load(db.path); ok {
		return pgCount(t, dsn.(string), count)
	}
	sdb, err := sql.Open("sqlite", db.file(t))
	require.NoError(t, err)
	defer sdb.Close()
	var n int
	require.NoError(t, sdb.QueryRow(count).Scan(&n))
	return n
}

// A restored memory's vector comes from the cache's copy, which then
// gives way to a name of the restored row; an identical text stored
// meanwhile is not embedded again either.
func TestRestoreTakesItsVectorFromTheCache(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	path := newDB(t)
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 1
	e := newTestEmbedder(t, 64)
	m := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(e), engram.WithConfig(cfg))
	low, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the spare key is under the mat", Importance: 0.1})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the boiler was serviced in March", Importance: 0.9})
	require.NoError(t, err)
	_, err = m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	require.Equal(t, 1, cachedVectors(t, path))

	e.set(false, 0) // counts from here
	require.NoError(t, m.Restore(ctx, low))
	assert.Zero(t, pending(t, m))
	assert.Zero(t, cachedVectors(t, path), "the restored row holds the vector")
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: "the spare key is under the mat"})
	require.NoError(t, err)
	assert.Zero(t, e.embedded())
	res, err := m.Search(ctx, engram.SearchOptions{Query: "where is the spare key?", Mode: engram.SearchVector,
		Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 1})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, low, res[0].ID)
}

// CheckIntegrity checks the embedding cache against the rows: an entry
// that names a row whose text is another, or a row without its vector, is
// reported.
func TestCheckIntegrityChecksTheEmbeddingCache(t *testing.T) {
	sqliteOnly(t, "raw SQL damages the embedding cache")
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	m, err := engram.New(engram.Tier2, engram.WithPath(path), engram.WithEmbedder(newTestEmbedder(t, 64)))
	require.NoError(t, err)
	defer m.Close()
	_, err = m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{Content: "first fact"}, {Content: "second fact"}})
	require.NoError(t, err)
	require.NoError(t, m.CheckIntegrity(ctx))
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	for _, damage := range []struct{ break_, mend, want string }{
		{`UPDATE embedding_cache SET memory_pk = 3 - memory_pk`, `UPDATE embedding_cache SET memory_pk = 3 - memory_pk`, "whose text is another"},
		{`UPDATE embedding_cache SET memory_pk = 7 WHERE memory_pk = 1`, `UPDATE embedding_cache SET memory_pk = 1 WHERE memory_pk = 7`, "without a vector"},
		{`UPDATE embedding_cache SET memory_type = 'snapshot'`, `UPDATE embedding_cache SET memory_type = 'semantic'`, "of a kind without vectors"},
	} {
		_, err := db.Exec(damage.break_)
		require.NoError(t, err)
		err = m.CheckIntegrity(ctx)
		require.Error(t, err, damage.break_)
		assert.Contains(t, err.Error(), damage.want)
		_, err = db.Exec(damage.mend)
		require.NoError(t, err)
		require.NoError(t, m.CheckIntegrity(ctx))
	}
}

// The Tier 2 schema is versioned: a database made before it had versions
// (its vector tables there, no vector.schema in meta) is taken to have the
// first step, opens with its vectors, and is brought up to the latest
// (the steps after the first may run again).
func TestTier2SchemaIsVersioned(t *testing.T) {
	sqliteOnly(t, "raw SQL sets the vector schema's version")
	ctx := context.Background()
	latest := strconv.Itoa(len(schema.Tier2Migrations(64, 64)))
	path := newDB(t)
	m := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy key lives in the vault"})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	defer db.Close()
	var v string
	require.NoError(t, db.QueryRow(`SELECT value FROM meta WHERE key = 'vector.schema'`).Scan(&v))
	assert.Equal(t, latest, v)
	_, err = db.Exec(`DELETE FROM meta WHERE key = 'vector.schema'`)
	require.NoError(t, err)

	m = openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	assert.Zero(t, pending(t, m), "the vectors are kept")
	res, err := m.Search(ctx, engram.SearchOptions{Query: "where is the deploy key?", Mode: engram.SearchVector})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.NoError(t, db.QueryRow(`SELECT value FROM meta WHERE key = 'vector.schema'`).Scan(&v))
	assert.Equal(t, latest, v)

	_, err = db.Exec(`UPDATE meta SET value = '99' WHERE key = 'vector.schema'`)
	require.NoError(t, err)
	_, err = engram.New(engram.Tier2, engram.WithPath(path.file(t)), engram.WithAgent("a"), engram.WithEmbedder(newTestEmbedder(t, 64)))
	assert.ErrorIs(t, err, engram.ErrSchemaTooNew)
}

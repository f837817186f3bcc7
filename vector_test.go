package engram_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// testEmbedder wraps the hashing embedder: it can be told to fail, to fail
// after some calls, or to call itself another model, and it counts what it
// embeds. It stands for a model's API, so it is not local (its embeddings
// are cached), whatever the hashing embedder it wraps says.
type testEmbedder struct {
	*engram.HashingEmbedder
	model string // "" keeps the hashing embedder's

	mu        sync.Mutex
	failing   bool
	failAfter int // > 0: calls that succeed before it fails
	calls     int
	texts     int
}

func newTestEmbedder(t testing.TB, dims int) *testEmbedder {
	h, err := engram.NewHashingEmbedder(dims)
	require.NoError(t, err)
	return &testEmbedder{HashingEmbedder: h}
}

var errProvider = errors.New("provider is down")

func (e *testEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	if e.failing || e.failAfter > 0 && e.calls >= e.failAfter {
		e.mu.Unlock()
		return nil, errProvider
	}
	e.calls++
	e.texts += len(texts)
	e.mu.Unlock()
	return e.HashingEmbedder.Embed(ctx, texts)
}

// Local reports false: see testEmbedder.
func (e *testEmbedder) Local() bool { return false }

func (e *testEmbedder) Model() string {
	if e.model != "" {
		return e.model
	}
	return e.HashingEmbedder.Model()
}

func (e *testEmbedder) set(failing bool, failAfter int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failing, e.failAfter, e.calls, e.texts = failing, failAfter, 0, 0
}

func (e *testEmbedder) embedded() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

// vectorRows counts the rows of a vec0 table, through a connection of its
// own.
func vectorRows(t *testing.T, path, table string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
	return n
}

// needsRowCounts skips t unless the engine under test keeps its
// database where memRows and dbRows can count a table's rows: a SQLite
// file, or a PostgreSQL database.
func needsRowCounts(t *testing.T) {
	t.Helper()
	if !strings.HasPrefix(os.Getenv(engineEnv), "postgres") {
		needs(t, enginetest.CapFile)
	}
}

// memRows counts the rows of table, every agent's, in m's database (see
// needsRowCounts).
func memRows(t *testing.T, m *engram.Memory, table string) int {
	t.Helper()
	if dsn, ok := pgOf.Load(m); ok {
		return pgCount(t, dsn.(string), `SELECT count(*) FROM `+table)
	}
	return vectorRows(t, m.Path(), table)
}

// dbRows counts the rows of table, every agent's, in the database db
// (see needsRowCounts).
func dbRows(t *testing.T, db testDB, table string) int {
	t.Helper()
	if dsn, ok := pgNamed.Load(db.path); ok {
		return pgCount(t, dsn.(string), `SELECT count(*) FROM `+table)
	}
	return vectorRows(t, db.file(t), table)
}

func pending(t *testing.T, m *engram.Memory) int {
	t.Helper()
	st, err := m.Stats(context.Background())
	require.NoError(t, err)
	return st.PendingEmbeddings
}

func TestTier2StoresSearchesAndDeletesVectors(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 128)))
	facts := []string{
		"The deploy pipeline runs on GitHub Actions and takes twelve minutes",
		"Alice prefers dark roast coffee in the morning",
		"The staging database is PostgreSQL 16 on a small instance",
		"Bob is allergic to peanuts and shellfish",
	}
	var ids []string
	for _, f := range facts {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: f, Importance: 0.5})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	epID, err := m.Episodic().Log(ctx, engram.Episode{Content: "Deployed release 4.2 to staging"})
	require.NoError(t, err)
	_, err = m.Procedural().Store(ctx, engram.Procedure{Name: "roll back a deploy", Description: "revert the release tag and redeploy"})
	require.NoError(t, err)
	assert.Equal(t, 4, memRows(t, m, "vec_semantic"))
	assert.Equal(t, 1, memRows(t, m, "vec_episodic"))
	assert.Equal(t, 1, memRows(t, m, "vec_procedural"))
	assert.Zero(t, pending(t, m))

	res, err := m.Search(ctx, engram.SearchOptions{Query: "Alice prefers dark roast coffee", Mode: engram.SearchVector})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, ids[1], res[0].ID)
	assert.InDelta(t, 1, res[0].Parts.Vector, 0.35, "the nearest is the same words")
	assert.Zero(t, res[0].Parts.Text, "a vector search reports no text part")
	for i := 1; i < len(res); i++ {
		assert.GreaterOrEqual(t, res[i-1].Parts.Vector+0.2, res[i].Parts.Vector)
	}

	res, err = m.Search(ctx, engram.SearchOptions{Query: "which database does staging use?"})
	require.NoError(t, err, "hybrid is the Tier 2 default")
	require.NotEmpty(t, res)
	assert.Equal(t, ids[2], res[0].ID)
	assert.Positive(t, res[0].Parts.Text)
	assert.Positive(t, res[0].Parts.Vector)
	assert.Positive(t, res[0].Parts.Fused)
	assert.LessOrEqual(t, res[0].Parts.Fused, 1.0)

	res, err = m.Search(ctx, engram.SearchOptions{Query: "deploy", Mode: engram.SearchText})
	require.NoError(t, err)
	for _, r := range res {
		assert.Zero(t, r.Parts.Vector, "a text search reports no vector part")
	}

	require.NoError(t, m.Semantic().Delete(ctx, ids[1]))
	require.NoError(t, m.Episodic().Delete(ctx, epID))
	assert.Equal(t, 3, memRows(t, m, "vec_semantic"), "a deleted entry's vector goes with it")
	assert.Equal(t, 0, memRows(t, m, "vec_episodic"))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "Alice prefers dark roast coffee", Mode: engram.SearchVector})
	require.NoError(t, err)
	for _, r := range res {
		assert.NotEqual(t, ids[1], r.ID, "a deleted entry is not found")
	}

	// New content is embedded again.
	_, err = m.Semantic().Update(ctx, ids[3], engram.SemanticPatch{Content: ptr("Bob now drinks green tea every afternoon")})
	require.NoError(t, err)
	assert.Zero(t, pending(t, m))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "Bob drinks green tea every afternoon", Mode: engram.SearchVector, Limit: 1})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, ids[3], res[0].ID)
}

func ptr[T any](v T) *T { return &v }

// TestHybridRanksEveryCandidateByVector: a text match the vector search
// did not return (its words are mostly others', and near-misses of the
// query's word crowd the vector search's places) still has its vector
// similarity in a hybrid search, and takes its place in the vector
// ranking.
func TestHybridRanksEveryCandidateByVector(t *testing.T) {
	ctx := context.Background()
	e := newTestEmbedder(t, 256)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	long := "zeppelin " + strings.Repeat("harbour lantern orchard violin meadow quarry saddle thimble walnut ", 3)
	target, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: long})
	require.NoError(t, err)
	for i := range 12 {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("zeppelix zeppelon zeppelux note %d", i)})
		require.NoError(t, err)
	}
	vec, err := m.Search(ctx, engram.SearchOptions{Query: "zeppelin", Mode: engram.SearchVector, Limit: 2})
	require.NoError(t, err)
	for _, r := range vec {
		require.NotEqual(t, target, r.ID, "the vector search must not find the target itself for this test")
	}
	res, err := m.Search(ctx, engram.SearchOptions{Query: "zeppelin", Limit: 2})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	require.Equal(t, target, res[0].ID, "the only text match leads")
	q, err := e.Embed(ctx, []string{"zeppelin"})
	require.NoError(t, err)
	d, err := e.Embed(ctx, []string{long})
	require.NoError(t, err)
	assert.InDelta(t, cosine32(q[0], d[0]), res[0].Parts.Vector, 1e-3)
	assert.Positive(t, res[0].Parts.Vector)
}

// TestFilteredVectorSearchFillsItsLimit: when the nearest neighbours fail
// a search's filters, a vector search still returns as many memories as
// pass them, up to its limit, nearest first.
func TestFilteredVectorSearchFillsItsLimit(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 128)))
	for i := range 60 {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("harbour lantern number %d", i)})
		require.NoError(t, err)
	}
	var rare []string
	for _, c := range []string{"quarterly invoice totals", "harbour invoice totals", "invoice archive"} {
		id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c, Tags: []string{"rare"}})
		require.NoError(t, err)
		rare = append(rare, id)
	}
	for _, mode := range []engram.SearchMode{engram.SearchVector, engram.SearchHybrid} {
		res, err := m.Search(ctx, engram.SearchOptions{Query: "harbour lantern", Mode: mode, Tags: []string{"rare"}, Limit: 5})
		require.NoError(t, err, mode)
		var got []string
		for _, r := range res {
			got = append(got, r.ID)
		}
		assert.ElementsMatch(t, rare, got, "%s: every memory the filter passes", mode)
		if mode == engram.SearchVector {
			require.Len(t, res, 3)
			assert.Equal(t, rare[1], res[0].ID, "the one sharing a word is nearest")
			assert.GreaterOrEqual(t, res[1].Parts.Vector, res[2].Parts.Vector)
		}
	}
}

// TestFlakyEmbedderNeverLosesAMemory: a memory stored while the embedder
// fails is kept and found by text; Flush embeds it once the embedder is
// back.
func TestFlakyEmbedderNeverLosesAMemory(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	e := newTestEmbedder(t, 64)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	e.set(true, 0)
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The API key rotates every ninety days", Importance: 0.8})
	require.NoError(t, err, "the row is kept when embedding fails")
	_, err = m.Episodic().LogBatch(ctx, []engram.Episode{{Content: "rotated the key"}, {Content: "rotated it again"}})
	require.NoError(t, err)
	assert.Equal(t, 3, pending(t, m))
	assert.Zero(t, memRows(t, m, "vec_semantic"))

	res, err := m.Search(ctx, engram.SearchOptions{Query: "how often does the API key rotate?"})
	require.NoError(t, err, "hybrid falls back to text when the query cannot be embedded")
	require.NotEmpty(t, res)
	assert.Equal(t, id, res[0].ID)
	_, err = m.Search(ctx, engram.SearchOptions{Query: "API key", Mode: engram.SearchVector})
	assert.ErrorIs(t, err, engram.ErrEmbedding)

	err = m.Flush(ctx)
	assert.ErrorIs(t, err, engram.ErrEmbedding, "Flush says the embedder failed")
	assert.Equal(t, 3, pending(t, m), "and keeps the memories pending")

	e.set(false, 0)
	require.NoError(t, m.Flush(ctx))
	assert.Zero(t, pending(t, m))
	assert.Equal(t, 1, memRows(t, m, "vec_semantic"))
	assert.Equal(t, 2, memRows(t, m, "vec_episodic"))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "The API key rotates every ninety days", Mode: engram.SearchVector, Limit: 1})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, id, res[0].ID)
}

func TestEmbeddingCacheEmbedsATextOnce(t *testing.T) {
	ctx := context.Background()
	e := newTestEmbedder(t, 64)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	e.set(false, 0)
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "same words", Importance: 0.5})
	require.NoError(t, err)
	_, err = m.Episodic().LogBatch(ctx, []engram.Episode{{Content: "same words"}, {Content: "other words"}, {Content: "other words"}})
	require.NoError(t, err)
	assert.Equal(t, 2, e.embedded(), "each distinct text once")
	require.NoError(t, m.Reindex(ctx, nil))
	assert.Equal(t, 2, e.embedded(), "reindexing with the same model pays nothing")
	assert.Zero(t, pending(t, m))
}

// TestReindexResumes: a Reindex the embedder breaks off carries on where it
// stopped, and embeds no text twice.
func TestReindexResumes(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	path := newDB(t)
	first := newTestEmbedder(t, 64)
	m, err := tryOpenOn(t, path, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(first))
	require.NoError(t, err)
	const n = 300
	entries := make([]engram.SemanticEntry, n)
	for i := range entries {
		entries[i] = engram.SemanticEntry{Content: fmt.Sprintf("fact number %d about topic %d", i, i%17), Importance: 0.5}
	}
	_, err = m.Semantic().StoreBatch(ctx, entries)
	require.NoError(t, err)
	require.NoError(t, m.Close())

	// Another model of the same dimension: the old vectors go and
	// everything is pending.
	second := newTestEmbedder(t, 64)
	second.model = "another-model"
	second.set(false, 2) // two batches, then down
	m = openOn(t, path, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(second))
	assert.Equal(t, n, pending(t, m))
	assert.Zero(t, dbRows(t, path, "vec_semantic"))

	var seen []int
	err = m.Reindex(ctx, func(done, total int) {
		assert.Equal(t, n, total)
		seen = append(seen, done)
	})
	require.ErrorIs(t, err, engram.ErrEmbedding)
	assert.Equal(t, []int{64, 128}, seen)
	assert.Equal(t, n-128, pending(t, m))
	assert.Equal(t, 128, dbRows(t, path, "vec_semantic"))
	embeddedBefore := second.embedded()

	second.mu.Lock()
	second.failAfter = 0
	second.mu.Unlock()
	seen = nil
	require.NoError(t, m.Reindex(ctx, func(done, total int) { seen = append(seen, done) }))
	assert.Equal(t, n-128, second.embedded()-embeddedBefore, "the second run embeds only what the first did not")
	require.NotEmpty(t, seen)
	assert.Equal(t, n-128, seen[len(seen)-1], "progress counts what was left")
	assert.Zero(t, pending(t, m))
	assert.Equal(t, n, dbRows(t, path, "vec_semantic"))

	// A finished Reindex starts over the next time (all cached now).
	second.set(false, 0)
	require.NoError(t, m.Reindex(ctx, nil))
	assert.Zero(t, second.embedded())
}

func TestDimensionMismatchIsAClearError(t *testing.T) {
	db := newDB(t)
	m, err := tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	require.NoError(t, err)
	require.NoError(t, m.Close())
	_, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 128)))
	require.ErrorIs(t, err, engram.ErrInvalid)
	assert.Contains(t, err.Error(), "64-dimension")
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "WithEmbedder", ie.Field)
}

// TestDimensionChangeEmbedsEverythingAgain: WithDimensionChange opens a
// database whose vectors have another dimension; every agent's memories
// are kept, pending, found by text, and embedded again at the new
// dimension by Flush; the cache drops the old dimension's vectors of the
// same model. A handle still open with the old embedder
// gets a clear error.
func TestDimensionChangeEmbedsEverythingAgain(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	path := newDB(t)
	old := func() *testEmbedder { e := newTestEmbedder(t, 64); e.model = "same-name"; return e }
	a := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(old()))
	_, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy key lives in the vault"})
	require.NoError(t, err)
	_, err = a.Episodic().LogBatch(ctx, []engram.Episode{{Content: "rotated the deploy key"}})
	require.NoError(t, err)
	b := openOn(t, path, "b", engram.Tier2, engram.WithEmbedder(old()))
	_, err = b.Semantic().Store(ctx, engram.SemanticEntry{Content: "Staging runs on port 8443"})
	require.NoError(t, err)
	require.NoError(t, a.Close())

	_, err = tryOpenOn(t, path, engram.DefaultAgent, engram.Tier1, engram.WithDimensionChange())
	require.ErrorIs(t, err, engram.ErrInvalid, "Tier 1 stores no vectors")

	e := newTestEmbedder(t, 128)
	e.model = "same-name"
	a = openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(e), engram.WithDimensionChange())
	assert.Equal(t, 2, pending(t, a))
	assert.Zero(t, dbRows(t, path, "vec_semantic"), "every agent's old vectors are gone")
	assert.Zero(t, dbRows(t, path, "embedding_cache"), "nor are the old dimension's cached embeddings of the same model")
	res, err := a.Search(ctx, engram.SearchOptions{Query: "deploy key", Mode: engram.SearchText})
	require.NoError(t, err)
	assert.Len(t, res, 2, "text search finds them meanwhile")

	_, err = b.Search(ctx, engram.SearchOptions{Query: "staging port", Mode: engram.SearchVector})
	require.ErrorIs(t, err, engram.ErrInvalid, "a handle with the old embedder is told")
	assert.Contains(t, err.Error(), "128 dimensions")
	require.NoError(t, b.Close())

	require.NoError(t, a.Flush(ctx))
	assert.Zero(t, pending(t, a))
	assert.Equal(t, 1, dbRows(t, path, "vec_semantic"))
	assert.Equal(t, 1, dbRows(t, path, "vec_episodic"))
	res, err = a.Search(ctx, engram.SearchOptions{Query: "where does the deploy key live?", Mode: engram.SearchVector, Limit: 1})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Contains(t, res[0].Content, "vault")

	b = openOn(t, path, "b", engram.Tier2, engram.WithEmbedder(e))
	assert.Equal(t, 1, pending(t, b), "the other agent's memories wait for its own Flush")
	require.NoError(t, b.Flush(ctx))
	assert.Equal(t, 2, dbRows(t, path, "vec_semantic"))
	_, err = tryOpenOn(t, path, "b", engram.Tier2, engram.WithEmbedder(old()))
	require.ErrorIs(t, err, engram.ErrInvalid, "the database now holds 128-dimension vectors")
}

// TestModelChangeEmptiesTheCache: the embeddings cached for a model the
// database no longer uses are deleted when another model takes over.
func TestModelChangeEmptiesTheCache(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	path := newDB(t)
	e := newTestEmbedder(t, 64)
	e.model = "one"
	m := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(e))
	_, err := m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{Content: "first fact"}, {Content: "second fact"}})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	require.Equal(t, 2, dbRows(t, path, "embedding_cache"))

	e2 := newTestEmbedder(t, 64)
	e2.model = "two"
	m = openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(e2))
	assert.Zero(t, dbRows(t, path, "embedding_cache"))
	require.NoError(t, m.Flush(ctx))
	assert.Equal(t, 2, dbRows(t, path, "embedding_cache"), "the new model's embeddings are cached")
	assert.Equal(t, 2, e2.embedded())
}

func TestVectorCallsOnTier1(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	_, err := m.Search(ctx, engram.SearchOptions{Query: "x", Mode: engram.SearchVector})
	assert.ErrorIs(t, err, engram.ErrTierUnsupported)
	_, err = m.Search(ctx, engram.SearchOptions{Query: "x", Mode: engram.SearchHybrid})
	assert.ErrorIs(t, err, engram.ErrTierUnsupported)
	assert.ErrorIs(t, m.Reindex(ctx, nil), engram.ErrTierUnsupported)
	_, err = m.Search(ctx, engram.SearchOptions{Query: "x", Mode: "sideways"})
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

// TestVectorsFollowOtherHandles: changes made through another Memory on
// the same file (another process, say) reach this one's vector search.
func TestVectorsFollowOtherHandles(t *testing.T) {
	ctx := context.Background()
	path := newDB(t)
	a := openOn(t, path, "agent", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	b := openOn(t, path, "agent", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	text1 := openOn(t, path, "agent", engram.Tier1)
	search := func(q string) []string {
		res, err := a.Search(ctx, engram.SearchOptions{Query: q, Mode: engram.SearchVector, Limit: 3})
		require.NoError(t, err)
		var ids []string
		for _, r := range res {
			ids = append(ids, r.ID)
		}
		return ids
	}
	first, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: "the office wifi password is on the fridge", Importance: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{first}, search("wifi password fridge"), "loads the index")

	second, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: "the printer is on the third floor", Importance: 0.5})
	require.NoError(t, err)
	assert.Contains(t, search("printer third floor"), second, "another handle's store")

	require.NoError(t, b.Semantic().Delete(ctx, second))
	assert.NotContains(t, search("printer third floor"), second, "another handle's delete")

	third, err := text1.Semantic().Store(ctx, engram.SemanticEntry{Content: "parking is free after six", Importance: 0.5})
	require.NoError(t, err, "a Tier 1 handle on a Tier 2 file stores without a vector")
	assert.Equal(t, 1, pending(t, a))
	require.NoError(t, a.Flush(ctx))
	assert.Contains(t, search("parking free after six"), third)
	require.NoError(t, text1.Semantic().Delete(ctx, first))
	assert.NotContains(t, search("wifi password fridge"), first, "a Tier 1 handle's delete")
}

// TestFailedWriteLeavesVectorsAsTheyWere: a batch that fails part way
// stores nothing, vectors included, and the index forgets what it saw.
func TestFailedWriteLeavesVectorsAsTheyWere(t *testing.T) {
	needsRowCounts(t) // counts rows of the vector tables in the database
	ctx := context.Background()
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "01JTAKEN0000000000000000AA", Content: "first", Importance: 0.5})
	require.NoError(t, err)
	_, err = m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{
		{Content: "a new entry about lighthouses", Importance: 0.5},
		{ID: "01JTAKEN0000000000000000AA", Content: "a clash", Importance: 0.5},
	})
	require.ErrorIs(t, err, engram.ErrExists)
	assert.Equal(t, 1, memRows(t, m, "vec_semantic"))
	assert.Zero(t, pending(t, m))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "a new entry about lighthouses", Mode: engram.SearchVector})
	require.NoError(t, err)
	for _, r := range res {
		assert.NotEqual(t, "a new entry about lighthouses", r.Content)
	}
}

func TestTier2AutoLinksByCosine(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 256)))
	a, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy pipeline runs on GitHub Actions every night", Importance: 0.5})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Bob keeps bees on the roof", Importance: 0.5})
	require.NoError(t, err)
	b, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy pipeline runs on GitHub Actions every night at two", Importance: 0.5})
	require.NoError(t, err)
	links, err := m.Links().For(ctx, b)
	require.NoError(t, err)
	require.Len(t, links, 1, "linked to its near-duplicate only")
	assert.Equal(t, a, links[0].TargetID)
	assert.Equal(t, engram.LinkSimilar, links[0].Type)
	assert.GreaterOrEqual(t, links[0].Strength, 0.85)
	assert.LessOrEqual(t, links[0].Strength, 1.0)
}

func TestTier2IsIsolated(t *testing.T) {
	ctx := context.Background()
	path := newDB(t)
	alice := openOn(t, path, "alice", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	bob := openOn(t, path, "bob", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)))
	_, err := alice.Semantic().Store(ctx, engram.SemanticEntry{Content: "alice's secret recipe uses saffron", Importance: 0.5})
	require.NoError(t, err)
	res, err := bob.Search(ctx, engram.SearchOptions{Query: "alice's secret recipe uses saffron", Mode: engram.SearchVector})
	require.NoError(t, err)
	assert.Empty(t, res, "bob's vector search never sees alice's memories")
	res, err = bob.Search(ctx, engram.SearchOptions{Query: "secret recipe saffron"})
	require.NoError(t, err)
	assert.Empty(t, res)
	require.NoError(t, bob.Reindex(ctx, nil))
	assert.Equal(t, 0, pending(t, alice))
}

func TestExistingVectorsRecordNothing(t *testing.T) {
	needs(t, enginetest.CapFile) // reads the file
	db := newDB(t)
	ctx := context.Background()
	m, err := tryOpenOn(t, db, engram.DefaultAgent, engram.Tier1)
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada prefers short answers"})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	before, err := os.ReadFile(db.file(t))
	require.NoError(t, err)

	// No vectors yet: nothing is recorded, so that a later embedder of
	// any dimension still fits.
	_, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)), engram.WithExistingVectors())
	require.ErrorIs(t, err, engram.ErrNoVectors)
	after, err := os.ReadFile(db.file(t))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the file is as it was")
	m, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 128)))
	require.NoError(t, err, "the first embedder to set the vectors up chooses their dimension")
	require.NoError(t, m.Reindex(ctx, nil))
	require.NoError(t, m.Close())

	// The vectors' own embedder reads them.
	m, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 128)), engram.WithExistingVectors())
	require.NoError(t, err)
	found, err := m.Find(ctx, engram.SearchOptions{Query: "short answers", Mode: engram.SearchVector})
	require.NoError(t, err)
	assert.NotEmpty(t, found.Results)
	require.NoError(t, m.Close())

	// Another model of the same dimension drops nothing.
	renamed := &testEmbedder{HashingEmbedder: newTestEmbedder(t, 128).HashingEmbedder, model: "another-model"}
	_, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(renamed), engram.WithExistingVectors())
	var mismatch *engram.VectorMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, engram.VectorMismatchError{Dims: 128, Model: newTestEmbedder(t, 128).Model(), EmbedderDims: 128, EmbedderModel: "another-model"},
		engram.VectorMismatchError{Dims: mismatch.Dims, Model: mismatch.Model, EmbedderDims: mismatch.EmbedderDims, EmbedderModel: mismatch.EmbedderModel})
	assert.Equal(t, 1, dbRows(t, db, "vec_semantic"), "the vectors are kept")

	// Another dimension is a VectorMismatchError with or without the option.
	for _, opts := range [][]engram.Option{nil, {engram.WithExistingVectors()}} {
		_, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, append(opts, engram.WithEmbedder(newTestEmbedder(t, 64)))...)
		require.ErrorAs(t, err, &mismatch)
		assert.Equal(t, 128, mismatch.Dims)
		assert.Equal(t, 64, mismatch.EmbedderDims)
	}

	_, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64)),
		engram.WithExistingVectors(), engram.WithDimensionChange())
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = tryOpenOn(t, db, engram.DefaultAgent, engram.Tier1, engram.WithExistingVectors())
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

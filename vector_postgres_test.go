package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// Tier 2 on PostgreSQL compared with SQLite. These tests open both
// engines themselves; they run under PostgreSQL's configurations of
// ENGRAM_TEST_ENGINE (see postgresTest), and are skipped where
// PostgreSQL is not installed.

// postgresTest skips t unless ENGRAM_TEST_ENGINE names one of
// PostgreSQL's configurations: a test of PostgreSQL's engine against
// SQLite's, which runs with the suite on PostgreSQL.
func postgresTest(t *testing.T) {
	t.Helper()
	if !strings.HasPrefix(os.Getenv(engineEnv), "postgres") {
		t.Skipf("a test of PostgreSQL's engine against SQLite's: it runs under %s=postgres…", engineEnv)
	}
}

// pgTier2Queries are the vector searches the tests compare.
var pgTier2Queries = []string{
	"deploy the pipeline on friday", "the office wifi password", "lighthouse keepers and their logs",
	"coffee machine on the third floor", "rotate the database credentials", "a walk in the park",
}

// pgTier2Write makes the same memories in m whatever its engine: entries
// of three kinds with vectors, then an update and a delete (which the
// triggers see), their vectors all written by m.
func pgTier2Write(t *testing.T, m *engram.Memory, clock *testutil.Clock) {
	t.Helper()
	ctx := context.Background()
	texts := []string{
		"the deploy pipeline runs every friday at noon", "the office wifi password is on the fridge",
		"lighthouse keepers wrote their logs by hand", "the coffee machine is on the third floor",
		"database credentials are rotated every month", "the park is closed for a walk on sundays",
		"friday deploys need a second reviewer", "the printer next to the coffee machine jams",
	}
	for i, text := range texts {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: fmt.Sprintf("sem-%02d", i), Content: text, Importance: 0.3 + 0.05*float64(i)})
		require.NoError(t, err)
		clock.Advance(time.Minute)
	}
	for i, text := range []string{"deployed the pipeline by hand on friday", "rotated the credentials of the database", "walked to the lighthouse"} {
		_, err := m.Episodic().Log(ctx, engram.Episode{ID: fmt.Sprintf("ep-%02d", i), Content: text})
		require.NoError(t, err)
		clock.Advance(time.Minute)
	}
	_, err := m.Procedural().Store(ctx, engram.Procedure{ID: "proc-deploy", Name: "deploy", Description: "deploy the pipeline after a review", Pattern: "review; merge; deploy"})
	require.NoError(t, err)
	moved := "the office wifi password changed to the one on the whiteboard"
	_, err = m.Semantic().Update(ctx, "sem-01", engram.SemanticPatch{Content: &moved})
	require.NoError(t, err)
	require.NoError(t, m.Semantic().Delete(ctx, "sem-05"))
	require.NoError(t, m.Flush(ctx))
	clock.Advance(time.Hour)
}

// pgTier2Same asserts that every vector search of pgTier2Queries returns,
// on got, the IDs of want in the same order with the same scores (to
// 1e-9). It searches want first, then got, so that both note the same
// accesses.
func pgTier2Same(t *testing.T, label string, want, got *engram.Memory) {
	t.Helper()
	ctx := context.Background()
	for _, q := range pgTier2Queries {
		opts := engram.SearchOptions{Query: q, Mode: engram.SearchVector, Limit: 6}
		w, err := want.Search(ctx, opts)
		require.NoError(t, err, "%s: SQLite: %q", label, q)
		g, err := got.Search(ctx, opts)
		require.NoError(t, err, "%s: PostgreSQL: %q", label, q)
		require.NotEmpty(t, w, "%s: %q", label, q)
		var wantIDs, gotIDs []string
		for _, r := range w {
			wantIDs = append(wantIDs, r.ID)
		}
		for _, r := range g {
			gotIDs = append(gotIDs, r.ID)
		}
		require.Equal(t, wantIDs, gotIDs, "%s: %q", label, q)
		for i := range w {
			assert.InDelta(t, w[i].Score, g[i].Score, 1e-9, "%s: %q: %s's score", label, q, w[i].ID)
			assert.InDelta(t, w[i].Parts.Vector, g[i].Parts.Vector, 1e-9, "%s: %q: %s's cosine", label, q, w[i].ID)
		}
	}
}

// pgTier2Open opens agent's Tier 2 memory on PostgreSQL's database dsn.
func pgTier2Open(t *testing.T, dsn string, opts ...engram.Option) *engram.Memory {
	t.Helper()
	m, err := engram.New(engram.Tier2, append([]engram.Option{engram.WithPostgres(dsn)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.Close()) })
	return m
}

// TestTier2SearchSameOnPostgres: a vector search on PostgreSQL returns
// the same memories in the same order with the same scores as on SQLite,
// for the same memories embedded by the same embedder: with the index
// the writing handle kept in step (updates and deletes included), and
// with the index a new handle loads from the side tables.
func TestTier2SearchSameOnPostgres(t *testing.T) {
	postgresTest(t)
	ctx := context.Background()
	lite, pg, dsn, opts := pgTier2Pair(t)
	pgTier2Same(t, "written", lite, pg)
	require.NoError(t, pg.CheckIntegrity(ctx))
	pgTier2Same(t, "loaded by another handle", lite, pgTier2Open(t, dsn, opts...))
}

// TestTier2ImportExportOnPostgres: SQLite's export with vectors imported
// into PostgreSQL brings the vectors (nothing is embedded again), a
// vector search then answers as on SQLite, and PostgreSQL exports the
// same file again.
func TestTier2ImportExportOnPostgres(t *testing.T) {
	postgresTest(t)
	ctx := context.Background()
	lite, _, _, opts := pgTier2Pair(t)
	file := exExport(t, lite, engram.ExportOptions{Vectors: true})
	imported := pgTier2Open(t, pgDatabase(t), opts...)
	rep, err := imported.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	require.Positive(t, rep.Added["vector"], "the vectors come from the file")
	assert.Zero(t, pending(t, imported), "nothing left to embed")
	pgTier2Same(t, "imported", lite, imported)
	require.NoError(t, imported.CheckIntegrity(ctx))
	assert.Equal(t, string(exExport(t, lite, engram.ExportOptions{Vectors: true})),
		string(exExport(t, imported, engram.ExportOptions{Vectors: true})))
}

// pgTier2Pair makes the same memories (pgTier2Write) on SQLite (lite, a
// file of its own) and on a fresh PostgreSQL database (pg, on dsn), each
// at a clock of its own that the writes move on alike; opts open another
// handle on PostgreSQL with the same clock and embedder.
func pgTier2Pair(t *testing.T) (lite, pg *engram.Memory, dsn string, opts []engram.Option) {
	t.Helper()
	dsn = pgDatabase(t)
	liteClock, clock := testutil.NewClock(exStart), testutil.NewClock(exStart)
	emb := newTestEmbedder(t, 64)
	lite, err := engram.New(engram.Tier2, engram.WithPath(filepath.Join(t.TempDir(), "memory.db")),
		engram.WithClock(liteClock.Now), engram.WithEmbedder(emb))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lite.Close()) })
	opts = []engram.Option{engram.WithClock(clock.Now), engram.WithEmbedder(emb)}
	pg = pgTier2Open(t, dsn, opts...)
	pgTier2Write(t, lite, liteClock)
	pgTier2Write(t, pg, clock)
	return lite, pg, dsn, opts
}

// pgCount returns the result of a count over PostgreSQL's database dsn.
func pgCount(t *testing.T, dsn, query string) int {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(query).Scan(&n))
	return n
}

// pgExec runs a statement on PostgreSQL's database dsn.
func pgExec(t *testing.T, dsn, stmt string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(stmt)
	require.NoError(t, err)
}

// TestTier2DimensionChangeOnPostgres: on PostgreSQL a change of
// dimension keeps the side tables and deletes their vectors, every row
// is embedded again at the new dimension, and the vectors agree with the
// rows (CheckIntegrity), which a vector deleted behind engram's back
// breaks.
func TestTier2DimensionChangeOnPostgres(t *testing.T) {
	postgresTest(t)
	ctx := context.Background()
	dsn := pgDatabase(t)
	clock := testutil.NewClock(exStart)
	m := pgTier2Open(t, dsn, engram.WithClock(clock.Now), engram.WithEmbedder(newTestEmbedder(t, 64)))
	pgTier2Write(t, m, clock)
	require.Equal(t, 7, pgCount(t, dsn, `SELECT count(*) FROM vec_semantic WHERE length(embedding) = 4 * 64`))
	require.NoError(t, m.Close())

	_, err := engram.New(engram.Tier2, engram.WithPostgres(dsn), engram.WithEmbedder(newTestEmbedder(t, 32)))
	require.ErrorIs(t, err, engram.ErrInvalid, "another dimension without WithDimensionChange")
	m2 := pgTier2Open(t, dsn, engram.WithClock(clock.Now), engram.WithEmbedder(newTestEmbedder(t, 32)), engram.WithDimensionChange())
	assert.Zero(t, pgCount(t, dsn, `SELECT count(*) FROM vec_semantic`)+pgCount(t, dsn, `SELECT count(*) FROM vec_episodic`),
		"the old dimension's vectors are gone")
	assert.Equal(t, 11, pending(t, m2), "every row waits for its vector")
	require.NoError(t, m2.Flush(ctx))
	assert.Equal(t, 7, pgCount(t, dsn, `SELECT count(*) FROM vec_semantic WHERE length(embedding) = 4 * 32`))
	res, err := m2.Search(ctx, engram.SearchOptions{Query: "lighthouse keepers and their logs", Mode: engram.SearchVector, Limit: 1})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Contains(t, []string{"sem-02", "ep-02"}, res[0].ID, "a memory of lighthouses")
	require.NoError(t, m2.CheckIntegrity(ctx))

	pgExec(t, dsn, `DELETE FROM vec_episodic WHERE pk = (SELECT min(pk) FROM vec_episodic)`)
	err = m2.CheckIntegrity(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "episodic_log: 1 rows neither embedded nor pending")
}

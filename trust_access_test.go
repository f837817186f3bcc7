package engram_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// Reads never write the access counts searches noted: with another
// connection holding the write lock, Get and List still answer, with the
// counts not written yet added, and the counts reach the file later.
func TestReadsDoNotWriteAccessCounts(t *testing.T) {
	sqliteOnly(t, "raw SQL holds the write lock")
	path := newDB(t)
	cfg := engram.DefaultConfig()
	cfg.Storage.BusyTimeout = 20 * time.Millisecond
	m := openOn(t, path, engram.DefaultAgent, engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the deploy runs from the blue pipeline", Importance: 0.5})
	require.NoError(t, err)
	for range 3 {
		res, err := m.Search(ctx, engram.SearchOptions{Query: "deploy"})
		require.NoError(t, err)
		require.Len(t, res, 1)
	}

	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(t, err)

	e, err := m.Semantic().Get(ctx, id)
	require.NoError(t, err, "a read does not need the write lock")
	assert.Equal(t, 3, e.AccessCount)
	list, err := m.Semantic().List(ctx, engram.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, 3, list[0].AccessCount)
	assert.False(t, list[0].LastAccessedAt.Before(e.CreatedAt))

	_, err = conn.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
	// A write path writes them, and reads count them once.
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	e, err = m.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 3, e.AccessCount)
	var stored int
	require.NoError(t, conn.QueryRowContext(ctx, `SELECT access_count FROM semantic_memory WHERE id = ?`, id).Scan(&stored))
	assert.Equal(t, 3, stored, "in the file")
}

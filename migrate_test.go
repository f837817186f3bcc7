package engram_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/schema"
)

// A database of schema version 4, written before rows had term vectors
// and snapshots were searched, opens at the current version: every row
// gets its term vector, text_stats its counts, the snapshot index its
// snapshots; search finds them, and the integrity check (which checks all
// of that against the rows) passes.
func TestSchema4DatabaseIsMigrated(t *testing.T) {
	sqliteOnly(t, "a schema-4 file made with raw SQL is migrated")
	path := newDB(t)
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	for _, m := range schema.Migrations()[:4] {
		_, err := db.Exec(m.SQL)
		require.NoError(t, err, m.Name)
	}
	for _, stmt := range []string{
		`PRAGMA user_version = 4`,
		fmt.Sprintf(`PRAGMA application_id = %d`, engram.ApplicationID),
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('fact', 'b', 'the kayak lives in the garage', 'the kayak lives in the garage', 0.7, '["home"]', x'00', 0, 0, 0)`,
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('other', 'a', 'the kayak belongs to agent a', 'the kayak belongs to agent a', 0.7, '[]', x'00', 0, 0, 0)`,
		`INSERT INTO episodic_log (id, agent_id, content, event_type, created_at) VALUES ('episode', 'b', 'paddled the kayak across the lake', 'observation', 0)`,
		`INSERT INTO procedural_memory (id, agent_id, name, description, success_rate, created_at, updated_at)
			VALUES ('procedure', 'b', 'launch', 'carry the kayak to the water', 0.8, 0, 0)`,
		`INSERT INTO session_snapshots (id, agent_id, session_id, summary, key_decisions, started_at, ended_at, created_at)
			VALUES ('snapshot', 'b', 's1', 'planned a kayak trip', '["leave at dawn"]', 0, 0, 0)`,
	} {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	require.NoError(t, db.Close())

	m := openOn(t, path, "b", engram.Tier1)
	ctx := context.Background()
	require.NoError(t, m.CheckIntegrity(ctx))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak"})
	require.NoError(t, err)
	kinds := map[engram.MemoryType]string{}
	for _, r := range res {
		kinds[r.Type] = r.ID
		assert.Positive(t, r.Parts.Text, r.ID)
	}
	assert.Equal(t, map[engram.MemoryType]string{engram.TypeSemantic: "fact", engram.TypeEpisodic: "episode",
		engram.TypeProcedural: "procedure", engram.TypeSnapshot: "snapshot"}, kinds)
	res, err = m.Search(ctx, engram.SearchOptions{Query: "dawn"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "snapshot", res[0].ID)
}

// A database of schema version 13, whose full-text indexes keep FTS5's
// column sizes (_docsize), opens with indexes that keep none (engram
// scores with its own BM25), rebuilt from the rows: search finds the
// rows, a forget takes them out, and the integrity check passes.
func TestSchema13FullTextIndexesKeepNoColumnSizes(t *testing.T) {
	sqliteOnly(t, "a schema-13 file made with raw SQL is migrated")
	path := newDB(t)
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	for _, m := range schema.Migrations()[:13] {
		_, err := db.Exec(m.SQL)
		require.NoError(t, err, m.Name)
	}
	for _, stmt := range []string{
		`PRAGMA user_version = 13`,
		fmt.Sprintf(`PRAGMA application_id = %d`, engram.ApplicationID),
		`INSERT INTO semantic_memory (id, agent_id, content, summary_own, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('fact', 'b', 'the canoe lives in the boathouse', '', 0.7, '["home"]', x'00', 0, 0, 0)`,
		`INSERT INTO episodic_log (id, agent_id, content, event_type, created_at) VALUES ('episode', 'b', 'paddled the canoe across the lake', 'observation', 0)`,
	} {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	var sizes int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name LIKE '%\_fts\_docsize' ESCAPE '\'`).Scan(&sizes))
	require.Equal(t, 6, sizes, "schema 13 keeps the column sizes of its six indexes")
	require.NoError(t, db.Close())

	m := openOn(t, path, "b", engram.Tier1)
	ctx := context.Background()
	require.NoError(t, m.CheckIntegrity(ctx))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "canoe"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"fact", "episode"}, searchIDs(res))
	require.NoError(t, m.Forget(ctx, "fact"))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "canoe"})
	require.NoError(t, err)
	assert.Equal(t, []string{"episode"}, searchIDs(res))
	require.NoError(t, m.CheckIntegrity(ctx))
	require.NoError(t, m.Close())

	db, err = sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	defer db.Close()
	var left []string
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE name LIKE '%\_fts\_docsize' ESCAPE '\' ORDER BY name`)
	require.NoError(t, err)
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		left = append(left, name)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []string{"snapshot_fts_docsize"}, left, "only the contentless snapshot index keeps its column sizes")
}

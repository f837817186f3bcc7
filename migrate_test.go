package engram_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
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

// A semantic entry keeps an 8-byte content hash from schema 14 on; a file
// of schema 13, whose rows and archived copies kept 16 bytes, opens with
// them cut to 8 (the new hash of their content), in the rows and in the
// archived copies, which a restore brings back with the new hash.
func TestSchema13ContentHashesAreCut(t *testing.T) {
	sqliteOnly(t, "the file is made schema 13 with raw SQL")
	path := newDB(t)
	ctx := context.Background()
	m := openOn(t, path, "b", engram.Tier1)
	kept, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the canoe lives in the boathouse", Importance: 0.6})
	require.NoError(t, err)
	gone, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the paddles hang by the door", Importance: 0.6})
	require.NoError(t, err)
	require.NoError(t, m.Archive(ctx, gone, "moved"))
	require.NoError(t, m.Close())

	long := func(text string) []byte { sum := sha256.Sum256([]byte(text)); return sum[:16] }
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	var hashLen int
	require.NoError(t, db.QueryRow(`SELECT length(content_hash) FROM semantic_memory WHERE id = ?`, kept).Scan(&hashLen))
	require.Equal(t, 8, hashLen, "a new entry's content hash")
	_, err = db.Exec(`UPDATE semantic_memory SET content_hash = ? WHERE id = ?`, long("the canoe lives in the boathouse"), kept)
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE archive SET row = json_set(row, '$.content_hash', ?) WHERE id = ?`, hex.EncodeToString(long("the paddles hang by the door")), gone)
	require.NoError(t, err)
	_, err = db.Exec(`PRAGMA user_version = 13`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	m = openOn(t, path, "b", engram.Tier1)
	require.NoError(t, m.CheckIntegrity(ctx))
	require.NoError(t, m.Restore(ctx, gone))
	require.NoError(t, m.Close())
	db, err = sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	defer db.Close()
	for _, c := range []struct{ id, text string }{{kept, "the canoe lives in the boathouse"}, {gone, "the paddles hang by the door"}} {
		var hash []byte
		require.NoError(t, db.QueryRow(`SELECT content_hash FROM semantic_memory WHERE id = ?`, c.id).Scan(&hash))
		assert.Equal(t, long(c.text)[:8], hash, c.id)
	}
}

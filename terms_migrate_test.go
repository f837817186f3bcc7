package engram_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/schema"
)

// fixedTerms is the term vector of texts in the form schema v5 to v12
// wrote: 6 bytes a stem, its hash and its count.
func fixedTerms(texts ...string) ([]byte, int) {
	v, n := bm25.Vector(texts...)
	var out []byte
	bm25.Each(v, func(h uint32, c int) {
		out = binary.LittleEndian.AppendUint32(out, h)
		out = binary.LittleEndian.AppendUint16(out, uint16(c))
	})
	return out, n
}

// A file of schema v12 has its term vectors, and those its archive keeps,
// in their fixed-width form: opening it rewrites them, so that search
// scores its rows as before, the integrity check (which checks every
// vector against its row's text) passes, and an archived row comes back
// with a vector of its own.
func TestSchema12TermVectorsAreRewritten(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	sqliteOnly(t, "a schema-12 file made with raw SQL is migrated")
	path := newDB(t)
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	for _, m := range schema.Migrations()[:12] {
		_, err := db.Exec(m.SQL)
		require.NoError(t, err, m.Name)
	}
	live, liveN := fixedTerms("the kayak lives in the garage, the kayak", `["home"]`)
	archived, _ := fixedTerms("the canoe lives at the lake", `[]`)
	archivedRow := fmt.Sprintf(`{"id":"old","content":"the canoe lives at the lake","summary":"the canoe lives at the lake","importance":0.5,"verified":0,"tags":"[]","source":"","content_hash":"00","created_at":0,"updated_at":0,"access_count":0,"last_accessed_at":0,"resonance":1,"merged_from":"[]","promoted_at_count":0,"retrievals":0,"terms":"%s","ntok":6,"user_id":"","session_id":"","metadata":"{}"}`,
		hex.EncodeToString(archived))
	for _, stmt := range []string{
		`PRAGMA user_version = 12`,
		fmt.Sprintf(`PRAGMA application_id = %d`, engram.ApplicationID),
		fmt.Sprintf(`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at, terms, ntok)
			VALUES ('fact', 'default', 'the kayak lives in the garage, the kayak', 'the kayak lives in the garage', 0.7, '["home"]', x'00', 0, 0, 0, x'%s', %d)`,
			hex.EncodeToString(live), liveN),
		`INSERT INTO archive (agent_id, memory_type, id, row, reason, archived_at) VALUES ('default', 'semantic', 'old', '` + archivedRow + `', 'count', 0)`,
	} {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	require.NoError(t, db.Close())

	m := openOn(t, path, "default", engram.Tier1)
	ctx := context.Background()
	require.NoError(t, m.CheckIntegrity(ctx))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak garage"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "fact", res[0].ID)
	assert.Positive(t, res[0].Parts.Text)

	require.NoError(t, m.Restore(ctx, "old"))
	require.NoError(t, m.CheckIntegrity(ctx))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "canoe"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "old", res[0].ID)
}

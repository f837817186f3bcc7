package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/schema"
)

// ownSummary reads what the row of the semantic entry id holds of its
// summary, in the file at path.
func ownSummary(t *testing.T, path, id string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	var s string
	require.NoError(t, db.QueryRow(`SELECT summary_own FROM semantic_memory WHERE id = ?`, id).Scan(&s))
	return s
}

// A semantic entry whose summary is its content (a one-line content, the
// most common) holds the text once; every read gives the summary as
// before, through an update, an export and an import.
func TestSummaryStoredOnce(t *testing.T) {
	sqliteOnly(t, "the row layout: raw SQL reads summary_own")
	path := newDB(t)
	m := openOn(t, path, "default", engram.Tier1)
	ctx := context.Background()
	one := "The deploy runs from CI only"
	a, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: one, Importance: 0.5})
	require.NoError(t, err)
	b, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The payments service retries declined cards", Summary: "retries", Importance: 0.5})
	require.NoError(t, err)
	c, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Deploys\nrun from CI only, on weekdays", Importance: 0.5})
	require.NoError(t, err)

	assert.Equal(t, "", ownSummary(t, path.file(t), a), "the summary is the content: held once")
	assert.Equal(t, "retries", ownSummary(t, path.file(t), b))
	assert.Equal(t, "Deploys", ownSummary(t, path.file(t), c), "a summary of its own")
	for id, want := range map[string]string{a: one, b: "retries", c: "Deploys"} {
		e, err := m.Semantic().Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, e.Summary)
	}

	two := "The deploy runs from CI only, on weekdays"
	e, err := m.Semantic().Update(ctx, a, engram.SemanticPatch{Content: &two})
	require.NoError(t, err)
	assert.Equal(t, two, e.Summary)
	assert.Equal(t, "", ownSummary(t, path.file(t), a))
	e, err = m.Semantic().Get(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, two, e.Summary)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "weekdays deploy"})
	require.NoError(t, err)
	require.NotEmpty(t, res)

	var file bytes.Buffer
	require.NoError(t, m.Export(ctx, &file, engram.ExportOptions{}))
	assert.Contains(t, file.String(), `"summary":"`+two+`"`, "an export holds the summary")
	path2 := newDB(t)
	m2 := openOn(t, path2, "default", engram.Tier1)
	_, err = m2.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{})
	require.NoError(t, err)
	e, err = m2.Semantic().Get(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, two, e.Summary)
	assert.Equal(t, "", ownSummary(t, path2.file(t), a), "an import holds it once too")
	e, err = m2.Semantic().Get(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, "retries", e.Summary)
	require.NoError(t, m2.CheckIntegrity(ctx))
}

// A file of schema v12 holds every summary whole: opening it keeps the
// summaries that are the content once, and reads them as before.
func TestSchema12SummariesAreHeldOnce(t *testing.T) {
	sqliteOnly(t, "a schema-12 file made with raw SQL is migrated")
	path := newDB(t)
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	for _, m := range schema.Migrations()[:12] {
		_, err := db.Exec(m.SQL)
		require.NoError(t, err, m.Name)
	}
	for _, stmt := range []string{
		`PRAGMA user_version = 12`,
		fmt.Sprintf(`PRAGMA application_id = %d`, engram.ApplicationID),
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('same', 'default', 'the kayak lives in the garage', 'the kayak lives in the garage', 0.7, '[]', x'00', 0, 0, 0)`,
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('own', 'default', 'the canoe lives at the lake', 'canoe', 0.7, '[]', x'00', 0, 0, 0)`,
	} {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	require.NoError(t, db.Close())

	m := openOn(t, path, "default", engram.Tier1)
	ctx := context.Background()
	for id, want := range map[string]string{"same": "the kayak lives in the garage", "own": "canoe"} {
		e, err := m.Semantic().Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, e.Summary)
	}
	assert.Equal(t, "", ownSummary(t, path.file(t), "same"))
	assert.Equal(t, "canoe", ownSummary(t, path.file(t), "own"))
}

package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/testutil"
)

// rawHistory reads the history table of the file at path as stored:
// before, after and form of each entry, in order ("" for NULL).
func rawHistory(t *testing.T, path string) [][3]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT coalesce(before, ''), coalesce(after, ''), coalesce(form, '') FROM history ORDER BY pk`)
	require.NoError(t, err)
	defer rows.Close()
	var out [][3]string
	for rows.Next() {
		var r [3]string
		require.NoError(t, rows.Scan(&r[0], &r[1], &r[2]))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// History keeps no copy of what the row holds: a creation stores no
// fields, an update the old values of the fields it changed, a deletion
// the row it deleted; History gives them whole.
func TestHistoryStoresWhatChanged(t *testing.T) {
	needs(t, enginetest.CapFile) // reads the history rows in the file
	path := newDB(t)
	clock := testutil.NewClock(day0)
	m := openOn(t, path, "default", engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy runs from CI only", Importance: 0.6})
	require.NoError(t, err)
	clock.Advance(time.Second)
	imp := 0.9
	_, err = m.Semantic().Update(ctx, id, engram.SemanticPatch{Importance: &imp})
	require.NoError(t, err)
	require.NoError(t, m.Semantic().Delete(ctx, id))

	raw := rawHistory(t, path.file(t))
	require.Len(t, raw, 3)
	assert.Equal(t, [3]string{"", "", "1"}, raw[0], "a creation: the row holds its fields")
	assert.Equal(t, [3]string{fmt.Sprintf(`{"importance":0.6,"updated_at":%d}`, day0.UnixMilli()), "", "2"}, raw[1],
		"an update: the old values of what changed")
	assert.Contains(t, raw[2][0], `"content":"The deploy runs from CI only"`, "a deletion: the row it deleted")
	assert.Equal(t, "", raw[2][1]+raw[2][2])

	h, err := m.History(ctx, id)
	require.NoError(t, err)
	require.Len(t, h, 3)
	assert.Equal(t, string(h[1].Before), string(h[0].After), "the fields a creation made are those the update changed")
	assert.Equal(t, string(h[2].Before), string(h[1].After))
	assert.Equal(t, 0.6, field(t, h[1].Before, "importance"))
	assert.Equal(t, 0.9, field(t, h[1].After, "importance"))
}

// A file whose history migration 0008's triggers wrote (two whole copies
// of the row) reads as it was written, and a change made after it opens
// now continues it.
func TestSchema12HistoryReads(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	sqliteOnly(t, "a schema-12 file made with raw SQL")
	path := newDB(t)
	db, err := sql.Open("sqlite", path.file(t))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	for _, m := range schema.Migrations()[:12] {
		_, err := db.Exec(m.SQL)
		require.NoError(t, err, m.Name)
	}
	const fields = `{"id":"e1","content":"the kayak lives in the garage","summary":"the kayak lives in the garage","importance":0.7,"verified":0,"tags":["home"],"source":"","created_at":0,"updated_at":0,"merged_from":[],"user_id":"","session_id":"","metadata":{}}`
	const updated = `{"id":"e1","content":"the kayak lives in the garage","summary":"the kayak lives in the garage","importance":0.7,"verified":0,"tags":["home"],"source":"","created_at":0,"updated_at":5,"merged_from":[],"user_id":"","session_id":"","metadata":{}}`
	for _, stmt := range []string{
		`PRAGMA user_version = 12`,
		fmt.Sprintf(`PRAGMA application_id = %d`, engram.ApplicationID),
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('e1', 'default', 'the kayak lives in the garage', 'the kayak lives in the garage', 0.7, '["home"]', x'00', 0, 5, 0)`,
		`INSERT INTO history (agent_id, memory_type, id, op, before, after, actor, reason, at)
			VALUES ('default', 'semantic', 'e1', 'create', NULL, '` + fields + `', 'default', '', 0)`,
		`INSERT INTO history (agent_id, memory_type, id, op, before, after, actor, reason, at)
			VALUES ('default', 'semantic', 'e1', 'update', '` + fields + `', '` + updated + `', 'ada', 'a reason', 5)`,
	} {
		_, err := db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	require.NoError(t, db.Close())

	m := openOn(t, path, "default", engram.Tier1)
	ctx := context.Background()
	h, err := m.History(ctx, "e1")
	require.NoError(t, err)
	require.Len(t, h, 2)
	assert.Nil(t, h[0].Before)
	assert.Equal(t, fields, string(h[0].After))
	assert.Equal(t, fields, string(h[1].Before))
	assert.Equal(t, updated, string(h[1].After))
	assert.Equal(t, "ada", h[1].Actor)

	imp := 0.2
	_, err = m.Semantic().Update(ctx, "e1", engram.SemanticPatch{Importance: &imp})
	require.NoError(t, err)
	h, err = m.History(ctx, "e1")
	require.NoError(t, err)
	require.Len(t, h, 3)
	assert.Equal(t, fields, string(h[0].After), "the old entries as they were written")
	assert.Equal(t, updated, string(h[1].After))
	assert.Equal(t, 0.7, field(t, h[2].Before, "importance"))
	assert.Equal(t, 0.2, field(t, h[2].After, "importance"))
	assert.Equal(t, "the kayak lives in the garage", field(t, h[2].Before, "content"))
	changes, err := m.Changes(ctx, engram.ChangeQuery{})
	require.NoError(t, err)
	assert.Equal(t, h, changes)
	require.NoError(t, m.CheckIntegrity(ctx))
}

// An export gives the entries of a memory with a long history (which it
// puts back together once, not once an entry) as History does, between
// the entries of another memory.
func TestExportOfALongHistory(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	long, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the kayak lives in the garage", Importance: 0.5})
	require.NoError(t, err)
	other, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "the canoe lives at the lake", Importance: 0.5})
	require.NoError(t, err)
	for i := range 40 {
		imp := float64(i%10) / 10
		_, err := m.Semantic().Update(ctx, long, engram.SemanticPatch{Importance: &imp})
		require.NoError(t, err)
		if i%7 == 0 {
			tags := []string{fmt.Sprint(i)}
			_, err := m.Semantic().Update(ctx, other, engram.SemanticPatch{Tags: &tags})
			require.NoError(t, err)
		}
	}
	var file bytes.Buffer
	require.NoError(t, m.Export(ctx, &file, engram.ExportOptions{History: true}))
	exported := map[string][][2]string{}
	for _, line := range bytes.Split(file.Bytes(), []byte("\n")) {
		var rec struct {
			Type string
			Row  struct {
				ID            string
				Before, After json.RawMessage
			}
		}
		if len(line) == 0 || json.Unmarshal(line, &rec) != nil || rec.Type != "history" {
			continue
		}
		exported[rec.Row.ID] = append(exported[rec.Row.ID], [2]string{string(rec.Row.Before), string(rec.Row.After)})
	}
	for _, id := range []string{long, other} {
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		require.Len(t, exported[id], len(h), id)
		for i, e := range h {
			before, after := string(e.Before), string(e.After)
			if before == "" {
				before = "null"
			}
			if after == "" {
				after = "null"
			}
			assert.Equal(t, [2]string{before, after}, exported[id][i], "%s entry %d", id, i)
		}
	}
	assert.Len(t, exported[long], 41)
}

package engram

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
)

// apiEmbedder is the hashing embedder standing for a model's API: not
// local (its embeddings are cached), and counting the texts it embeds.
type apiEmbedder struct {
	*HashingEmbedder
	texts atomic.Int64
}

func (e *apiEmbedder) Local() bool { return false }

func (e *apiEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.texts.Add(int64(len(texts)))
	return e.HashingEmbedder.Embed(ctx, texts)
}

// A Tier 2 file of schema v5 and Tier 2 schema v1, whose embedding cache
// holds a copy of every vector, opens at the current versions: the
// memories keep their vectors and nothing is embedded again, on opening,
// on Reindex or on Restore; the cache names the rows that hold the
// vectors instead of copying them (another agent's too), keeps its copy
// of an archived memory's embedding until Restore brings the memory back,
// and drops the copy of a text no memory has; the integrity check, which
// checks the names against the rows, passes.
func TestTier2CacheOfSchema5IsMigrated(t *testing.T) {
	ctx := context.Background()
	const dims = 64
	h, err := NewHashingEmbedder(dims)
	if err != nil {
		t.Fatal(err)
	}
	e := &apiEmbedder{HashingEmbedder: h}
	path := filepath.Join(t.TempDir(), "memory.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	exec := func(stmt string, args ...any) {
		t.Helper()
		if _, err := db.Exec(stmt, args...); err != nil {
			t.Fatalf("%.60s: %v", stmt, err)
		}
	}
	migrations := schema.Migrations()
	for _, m := range migrations[:4] {
		exec(m.SQL)
	}
	for _, stmt := range []string{
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('fact', 'a', 'the kayak lives in the garage', 'the kayak lives in the garage', 0.7, '[]', x'00', 0, 0, 0)`,
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('tent', 'a', 'the tent is in the attic', 'the tent is in the attic', 0.7, '[]', x'00', 0, 0, 0)`,
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('note', 'a', 'an old note about paddles', 'an old note about paddles', 0.2, '[]', x'00', 0, 0, 0)`,
		`INSERT INTO semantic_memory (id, agent_id, content, summary, importance, tags, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('other', 'b', 'agent b keeps bees', 'agent b keeps bees', 0.7, '[]', x'00', 0, 0, 0)`,
		`INSERT INTO episodic_log (id, agent_id, content, event_type, created_at) VALUES ('episode', 'a', 'paddled the kayak across the lake', 'observation', 0)`,
		`INSERT INTO procedural_memory (id, agent_id, name, description, success_rate, created_at, updated_at)
			VALUES ('procedure', 'a', 'launch', 'carry the kayak to the water', 0.8, 0, 0)`,
	} {
		exec(stmt)
	}
	exec(migrations[4].SQL)
	exec(`PRAGMA user_version = 5`)
	exec(fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID))
	exec(schema.Tier2Migrations(dims, vectorChunk)[0].SQL)
	for k, v := range map[string]string{metaVectorDims: fmt.Sprint(dims), metaVectorModel: e.Model(), metaVectorSchema: "1"} {
		exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, k, v)
	}
	// As v5 stored them: every row's vector in its vec0 table, and a copy
	// of it in the cache; and the copy of a text whose memory is gone.
	cache := func(text string) []byte {
		vecs, err := h.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		blob := encodeVector(vecs[0])
		exec(`INSERT INTO embedding_cache (model, hash, vector, used_at) VALUES (?, ?, ?, 0)`, e.Model(), textHash(text), blob)
		return blob
	}
	live := 0
	for _, vk := range vectorKinds {
		if vk == documentKind {
			continue // no table before schema v9
		}
		rows, err := db.Query(`SELECT pk, ` + vk.TextOver("t") + ` FROM ` + vk.Table + ` t`)
		if err != nil {
			t.Fatal(err)
		}
		texts := map[int64]string{}
		for rows.Next() {
			var pk int64
			var text string
			if err := rows.Scan(&pk, &text); err != nil {
				t.Fatal(err)
			}
			texts[pk] = text
		}
		rows.Close()
		for pk, text := range texts {
			exec(`INSERT INTO `+vk.Vec+` (rowid, embedding) VALUES (?, ?)`, pk, cache(text))
			live++
		}
	}
	cache("a memory deleted long ago")
	// v5's compaction: the row to the archive, then deleted (its vector
	// goes with it, its cached copy stays).
	// (The row as v5 had it: without the columns of schema v12.)
	v5, v5store := *semanticKind, *semanticKind.Kind
	v5.Kind = &v5store
	v5.Cols = slices.DeleteFunc(slices.Clone(v5.Cols), func(c string) bool { return c == "user_id" || c == "session_id" || c == "metadata" })
	exec(`INSERT INTO archive (agent_id, memory_type, id, row, reason, archived_at)
		SELECT r.agent_id, 'semantic', r.id, ` + v5.RowJSON("r") + `, 'count', 0 FROM semantic_memory r WHERE r.id = 'note'`)
	exec(`DELETE FROM semantic_memory WHERE id = 'note'`)
	live--
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	m, err := New(Tier2, WithPath(path), WithAgent("a"), WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	counts := func() (names, copies int) {
		t.Helper()
		err := m.db.Read(ctx, "test", func(q store.Tx) error {
			return q.QueryRow(`SELECT count(memory_pk), count(*) - count(memory_pk) FROM embedding_cache`, nil, &names, &copies)
		})
		if err != nil {
			t.Fatal(err)
		}
		return names, copies
	}
	var version int
	var tier2 string
	err = m.db.Read(ctx, "test", func(q store.Tx) error {
		if err := q.QueryRow(`PRAGMA user_version`, nil, &version); err != nil {
			return err
		}
		return q.QueryRow(`SELECT value FROM meta WHERE key = ?`, []any{metaVectorSchema}, &tier2)
	})
	if err != nil {
		t.Fatal(err)
	}
	if version != schema.Latest() || tier2 != fmt.Sprint(len(schema.Tier2Migrations(dims, vectorChunk))) {
		t.Errorf("schema v%d, Tier 2 schema v%s; want the latest", version, tier2)
	}
	if names, copies := counts(); names != live || copies != 1 {
		t.Errorf("the cache names %d rows and holds %d copies; want %d names and the archived memory's copy", names, copies, live)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := m.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.PendingEmbeddings != 0 {
		t.Errorf("%d memories pending; want their vectors kept", st.PendingEmbeddings)
	}
	res, err := m.Search(ctx, SearchOptions{Query: "the kayak lives in the garage", Mode: SearchVector, Types: []MemoryType{TypeSemantic}, Limit: 1})
	if err != nil || len(res) != 1 || res[0].ID != "fact" {
		t.Fatalf("vector search: %v, %v; want the kayak", res, err)
	}
	embedded := e.texts.Load() // the query
	if err := m.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Restore(ctx, "note"); err != nil {
		t.Fatal(err)
	}
	if n := e.texts.Load() - embedded; n != 0 {
		t.Errorf("Reindex and Restore embedded %d texts; want none, all cached", n)
	}
	if names, copies := counts(); names != live+1 || copies != 0 {
		t.Errorf("after Restore the cache names %d rows and holds %d copies; want %d names and no copy", names, copies, live+1)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
}

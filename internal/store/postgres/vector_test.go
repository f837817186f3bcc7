package postgres_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/schema"
)

// vecKind says how to change a row of a kind with vectors: its embedded
// text, and a column that is not embedded.
type vecKind struct {
	kind, table, text, other string
}

var vecKinds = []vecKind{
	{"semantic", "semantic_memory", "content = 'c2'", "importance = 0.9"},
	{"episodic", "episodic_log", "content = 'c2'", "event_type = 'e2'"},
	{"procedural", "procedural_memory", "description = 'd2'", "pattern = 'p2'"},
	{"document", "document_chunks", "content = 'c2'", "heading = 'h2'"},
}

// vectorState is what the vector triggers keep, as both engines can be
// compared on it.
func vectorState(e *engine, vec string) string {
	e.t.Helper()
	var ids string
	if e.name == "sqlite" {
		ids = `SELECT rowid FROM ` + vec + ` ORDER BY rowid`
	} else {
		ids = `SELECT agent_id || '/' || pk FROM ` + vec + ` ORDER BY pk`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pending %v\n", e.strings(`SELECT agent_id || ' ' || memory_type || '/' || pk FROM vector_pending ORDER BY 1`))
	vecs := e.strings(ids)
	for i, v := range vecs { // SQLite's rowids name no agent: compare the pks
		if _, pk, ok := strings.Cut(v, "/"); ok {
			vecs[i] = pk
		}
	}
	fmt.Fprintf(&b, "vectors %v\n", vecs)
	fmt.Fprintf(&b, "cache %v\n", e.strings(`SELECT model || ' ' || length(vector) || ' ' || coalesce(memory_type, '-') || '/' || coalesce(memory_pk, 0) FROM embedding_cache ORDER BY model`))
	fmt.Fprintf(&b, "meta %v", e.strings(`SELECT key || '=' || value FROM meta ORDER BY key`))
	return b.String()
}

// TestVectorTriggersMatchSQLite runs the same writes on each kind with
// vectors on SQLite, with its Tier 2 schema (vec0 tables and triggers),
// and on PostgreSQL, opened at Tier 2 (meta's vector.schema), and
// compares after each the pending marks, the vectors, the embedding
// cache and the counters: a new row is pending; a change of the embedded
// text drops the vector and the cache's name of it, marks the row
// pending and moves the agent's vector counter; another change does
// nothing; a delete drops the vector, the mark and the cache's name, but
// an archived memory's cache entry keeps the vector.
func TestVectorTriggersMatchSQLite(t *testing.T) {
	specs := map[string]kindSpec{}
	for _, k := range kinds {
		specs[k.table] = k
	}
	for _, vk := range vecKinds {
		t.Run(vk.kind, func(t *testing.T) {
			k := specs[vk.table]
			liteDB := sqliteDB(t)
			for _, m := range schema.Tier2Migrations(2, 64) {
				if _, err := liteDB.Exec(m.SQL); err != nil {
					t.Fatalf("%s: %v", m.Name, err)
				}
			}
			lite := &engine{t: t, name: "sqlite", db: liteDB, blob: "x'01'", blob2: "x'02'", versions: map[string]int64{}}
			pg := &engine{t: t, name: "postgres", db: schemaDB(t), blob: `'\x01'::bytea`, blob2: `'\x02'::bytea`, versions: map[string]int64{}}
			vec := "vec_" + vk.kind
			row := func(agent, id string) string {
				vals := strings.ReplaceAll(k.vals, "{ID}", "'"+id+"'")
				return fmt.Sprintf("INSERT INTO %s (agent_id, id, ntok, %s) VALUES ('%s', '%s', 1, %s)", k.table, k.cols, agent, id, vals)
			}
			where := func(agent, id string) string { return fmt.Sprintf(" WHERE agent_id = '%s' AND id = '%s'", agent, id) }
			// put writes row pk's vector as the store does, on each engine.
			put := func(agent string, pk int) (string, string) {
				vec8 := "0000803f00000040" // float32s 1, 2
				done := fmt.Sprintf("; DELETE FROM vector_pending WHERE memory_type = '%s' AND pk = %d", vk.kind, pk)
				return fmt.Sprintf("INSERT INTO %s (rowid, embedding) VALUES (%d, x'%s')", vec, pk, vec8) + done,
					fmt.Sprintf(`INSERT INTO %s (agent_id, pk, embedding) VALUES ('%s', %d, '\x%s')`, vec, agent, pk, vec8) + done
			}
			// name records in the cache that row pk holds the embedding of
			// the text hashed to hash.
			name := func(hash string, pk int) (string, string) {
				q := fmt.Sprintf("INSERT INTO embedding_cache (model, hash, vector, used_at, memory_type, memory_pk) VALUES ('m%s', {H}, {E}, 1, '%s', %d)", hash, vk.kind, pk)
				return strings.NewReplacer("{H}", "x'"+hash+"'", "{E}", "x''").Replace(q),
					strings.NewReplacer("{H}", `'\x`+hash+`'`, "{E}", `'\x'::bytea`).Replace(q)
			}
			same := func(q string) (string, string) { return q, q }
			steps := []struct {
				name       string
				lite, post string
			}{}
			add := func(name string, l, p string) {
				steps = append(steps, struct{ name, lite, post string }{name, l, p})
			}
			// As the root's Tier 2 opening does (SQLite made its triggers above).
			add("tier 2", "INSERT INTO meta (key, value) VALUES ('vector.schema', '3')", "INSERT INTO meta (key, value) VALUES ('vector.schema', '3')")
			add("insert a/1", row("a", "1"), row("a", "1"))
			add("insert a/2", row("a", "2"), row("a", "2"))
			add("insert b/1", row("b", "1"), row("b", "1"))
			l, p := put("a", 1)
			add("vector of a/1", l, p)
			l, p = put("a", 2)
			add("vector of a/2", l, p)
			l, p = put("b", 3)
			add("vector of b/1", l, p)
			l, p = name("01", 1)
			add("cache names a/1", l, p)
			l, p = name("02", 2)
			add("cache names a/2", l, p)
			l, p = name("03", 3)
			add("cache names b/1", l, p)
			l, p = same("UPDATE " + vk.table + " SET " + vk.other + where("a", "1"))
			add("other change", l, p)
			l, p = same("UPDATE " + vk.table + " SET " + vk.text + where("a", "1"))
			add("text change", l, p)
			l, p = same("UPDATE " + vk.table + " SET " + vk.text + where("a", "1"))
			add("same text again", l, p)
			l, p = same(fmt.Sprintf("INSERT INTO archive (agent_id, memory_type, id, row, reason, archived_at) VALUES ('a', '%s', '2', '{}', 'count', 1)", vk.kind))
			add("archive a/2", l, p)
			l, p = same("DELETE FROM " + vk.table + where("a", "2"))
			add("delete archived a/2", l, p)
			l, p = same("DELETE FROM " + vk.table + where("b", "1"))
			add("delete b/1", l, p)
			l, p = same("DELETE FROM " + vk.table + where("a", "1"))
			add("delete pending a/1", l, p)
			for _, st := range steps {
				lite.exec(st.lite)
				pg.exec(st.post)
				if ls, ps := vectorState(lite, vec), vectorState(pg, vec); ls != ps {
					t.Fatalf("after %s:\nSQLite:\n%s\nPostgreSQL:\n%s", st.name, ls, ps)
				}
			}
		})
	}
}

// TestVectorTriggersTier1: a database never opened at Tier 2 (no
// vector.schema in meta) marks nothing pending and moves no vector
// counter, as SQLite's, which has no vector triggers then.
func TestVectorTriggersTier1(t *testing.T) {
	pg := &engine{t: t, name: "postgres", db: schemaDB(t), blob: `'\x01'::bytea`, versions: map[string]int64{}}
	for _, vk := range vecKinds {
		for _, k := range kinds {
			if k.table != vk.table {
				continue
			}
			vals := strings.ReplaceAll(k.vals, "{ID}", "'1'")
			pg.exec(fmt.Sprintf("INSERT INTO %s (agent_id, id, ntok, %s) VALUES ('a', '1', 1, %s)", k.table, k.cols, vals))
			pg.exec("UPDATE " + k.table + " SET " + vk.text)
		}
	}
	if got := pg.strings(`SELECT memory_type || '/' || pk FROM vector_pending`); len(got) != 0 {
		t.Errorf("pending at Tier 1: %v", got)
	}
	for _, vk := range vecKinds {
		pg.exec("DELETE FROM " + vk.table)
	}
	if got := pg.strings(`SELECT key FROM meta WHERE key LIKE 'vector.%'`); len(got) != 0 {
		t.Errorf("vector counters at Tier 1: %v", got)
	}
}

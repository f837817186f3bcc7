package postgres_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// kindSpec says how to write a row of one kind of memory in statements
// both engines take.
type kindSpec struct {
	table, kind    string
	cols, vals     string // the required columns but agent_id, id and ntok, and their values
	text           string // an assignment that changes the row's text
	rankUp, rankDn string // assignments that raise and lower its rank weight ("" when it has none)
	scope          string // an assignment that changes its scope ("" when it has none)
}

var kinds = []kindSpec{
	{"semantic_memory", "semantic", "content, summary_own, importance, content_hash, created_at, updated_at, last_accessed_at",
		"'c', '', 0.5, {B}, 1, 1, 1", "content = 'c2'", "importance = 0.9", "importance = 0.1", "user_id = 'u'"},
	{"episodic_log", "episodic", "content, event_type, created_at, resonance", "'c', 'e', 1, 0.5",
		"content = 'c2'", "resonance = 0.9", "resonance = 0.1", "session_id = 's'"},
	{"procedural_memory", "procedural", "name, success_rate, created_at, updated_at", "'n' || {ID}, 0.5, 1, 1",
		"description = 'd2'", "success_rate = 0.9", "success_rate = 0.1", "user_id = 'u'"},
	{"facts", "fact", "subject, predicate, object, subject_key, predicate_key, object_key, valid_from, created_at, updated_at, strength",
		"'s', 'p', 'o', 's', 'p', 'o', 1, 1, 1, 1", "object = 'o2'", "", "", ""},
	{"document_chunks", "document", "source, content, content_hash, created_at, updated_at", "'src', 'c', {B}, 1, 1",
		"heading = 'h2'", "", "", ""},
	{"session_snapshots", "snapshot", "session_id, started_at, ended_at, created_at", "'s', 1, 1, 1",
		"summary = 'x2'", "", "", ""},
}

// state is what the triggers keep, as both engines can be compared on
// it: text_stats (with whether its version moved since the last state,
// since SQLite moves it twice where PostgreSQL moves it once), meta, which
// rows have terms, and the links.
type state struct {
	stats, meta, terms, links []string
}

func (s state) String() string {
	return fmt.Sprintf("stats %v\nmeta %v\nterms %v\nlinks %v", s.stats, s.meta, s.terms, s.links)
}

// engine runs the statements of the test on one engine.
type engine struct {
	t        *testing.T
	name     string
	db       *sql.DB
	blob     string           // a one-byte blob literal, {B} in a statement
	blob2    string           // another, {B2}
	versions map[string]int64 // text_stats.version by agent at the last state
}

func (e *engine) exec(q string) {
	e.t.Helper()
	q = strings.NewReplacer("{B}", e.blob, "{B2}", e.blob2).Replace(q)
	if _, err := e.db.Exec(q); err != nil {
		e.t.Fatalf("%s: %s: %v", e.name, q, err)
	}
}

func (e *engine) strings(q string) []string {
	e.t.Helper()
	rows, err := e.db.Query(q)
	if err != nil {
		e.t.Fatalf("%s: %s: %v", e.name, q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *engine) state(k kindSpec) state {
	e.t.Helper()
	var s state
	rows, err := e.db.Query(`SELECT agent_id, docs, tokens, ranks, version FROM text_stats ORDER BY agent_id`)
	if err != nil {
		e.t.Fatal(err)
	}
	for rows.Next() {
		var agent string
		var docs, tokens, ranks, version int64
		if err := rows.Scan(&agent, &docs, &tokens, &ranks, &version); err != nil {
			e.t.Fatal(err)
		}
		s.stats = append(s.stats, fmt.Sprintf("%s docs=%d tokens=%d ranks=%d moved=%v", agent, docs, tokens, ranks, version > e.versions[agent]))
		e.versions[agent] = version
	}
	rows.Close()
	s.meta = e.strings(`SELECT key || '=' || value FROM meta ORDER BY key`)
	s.terms = e.strings(`SELECT agent_id || '/' || id || CASE WHEN terms IS NULL THEN ' none' ELSE ' set' END FROM ` + k.table + ` ORDER BY agent_id, id`)
	s.links = e.strings(`SELECT agent_id || ':' || source_id || '>' || target_id FROM zettel_links ORDER BY 1`)
	return s
}

// TestTriggersMatchSQLite runs the same writes on each kind of memory on
// SQLite (engram's migrations) and on PostgreSQL (schema.sql) and compares
// after each what the triggers keep: the text statistics, the counters,
// the terms a text change clears and the links a deletion removes.
func TestTriggersMatchSQLite(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			lite := &engine{t: t, name: "sqlite", db: sqliteDB(t), blob: "x'01'", blob2: "x'02'", versions: map[string]int64{}}
			pg := &engine{t: t, name: "postgres", db: schemaDB(t), blob: `'\x01'::bytea`, blob2: `'\x02'::bytea`, versions: map[string]int64{}}
			row := func(agent, id string, ntok int) string {
				vals := strings.ReplaceAll(k.vals, "{ID}", "'"+id+"'")
				return fmt.Sprintf("INSERT INTO %s (agent_id, id, ntok, terms, %s) VALUES ('%s', '%s', %d, {B}, %s)", k.table, k.cols, agent, id, ntok, vals)
			}
			where := func(id string) string { return fmt.Sprintf(" WHERE agent_id = 'a' AND id = '%s'", id) }
			steps := []struct{ name, stmt string }{
				{"insert a/1", row("a", "1", 2)},
				{"insert a/2", row("a", "2", 3)},
				{"insert b/1", row("b", "1", 4)},
				{"new terms", "UPDATE " + k.table + " SET terms = {B}, ntok = 5" + where("1")},
				{"new text", "UPDATE " + k.table + " SET " + k.text + where("1")},
				{"new text and terms", "UPDATE " + k.table + " SET " + k.text + ", terms = {B2}, ntok = 1" + where("2")},
				{"retrieved", "UPDATE " + k.table + " SET retrievals = retrievals + 1" + where("2")},
				{"rank up", "UPDATE " + k.table + " SET " + k.rankUp + where("1")},
				{"rank down", "UPDATE " + k.table + " SET " + k.rankDn + where("1")},
				{"scope", "UPDATE " + k.table + " SET " + k.scope + where("2")},
				{"links", fmt.Sprintf(`INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
					VALUES ('a', '%[1]s', '1', '%[1]s', '2', 'r', 0.5, 1), ('a', '%[1]s', '2', '%[1]s', '1', 'r', 0.5, 1), ('b', '%[1]s', '1', '%[1]s', '9', 'r', 0.5, 1)`, k.kind)},
				{"delete a/1", "DELETE FROM " + k.table + where("1")},
			}
			for _, st := range steps {
				if strings.Contains(st.stmt, "SET  WHERE") {
					continue // the kind has no such column
				}
				lite.exec(st.stmt)
				pg.exec(st.stmt)
				if l, p := lite.state(k), pg.state(k); l.String() != p.String() {
					t.Fatalf("after %s:\nSQLite:\n%v\nPostgreSQL:\n%v", st.name, l, p)
				}
			}
		})
	}
}

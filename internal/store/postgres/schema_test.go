package postgres_test

import (
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/engram-go/engram/internal/pgtest"
	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store/postgres"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pgtest.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// schemaDB makes a database for the test and applies Schema to it.
func schemaDB(t *testing.T) *sql.DB {
	t.Helper()
	d := pgtest.NewDatabase(t)
	db, err := sql.Open("pgx", d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(postgres.Schema); err != nil {
		t.Fatalf("applying schema.sql: %v", err)
	}
	return db
}

// sqliteDB opens an in-memory SQLite database holding engram's schema at
// SchemaVersion.
func sqliteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ms := schema.Migrations()
	if len(ms) != postgres.SchemaVersion {
		t.Fatalf("the SQLite schema is at version %d, schema.sql holds version %d: bring it up to date", len(ms), postgres.SchemaVersion)
	}
	for _, m := range ms {
		if _, err := db.Exec(m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	return db
}

// sqliteColumns returns the columns of each ordinary table of the SQLite
// schema at SchemaVersion, without FTS5's tables and the agent_tok
// columns that only FTS5 reads.
func sqliteColumns(t *testing.T) map[string][]string {
	t.Helper()
	db := sqliteDB(t)
	rows, err := db.Query(`SELECT m.name, p.name FROM sqlite_schema m, pragma_table_xinfo(m.name) p
		WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%'
		AND m.name NOT LIKE '%\_fts\_%' ESCAPE '\' AND p.name <> 'agent_tok'
		ORDER BY m.name, p.name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var tbl, col string
		if err := rows.Scan(&tbl, &col); err != nil {
			t.Fatal(err)
		}
		out[tbl] = append(out[tbl], col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaTables: schema.sql applies on an empty database and holds
// every table and column of the SQLite schema but FTS5's, and a side table
// of vectors per kind.
func TestSchemaTables(t *testing.T) {
	db := schemaDB(t)
	want := sqliteColumns(t)
	for _, kind := range []string{"semantic", "episodic", "procedural", "document"} {
		want["vec_"+kind] = []string{"agent_id", "embedding", "pk"}
	}
	rows, err := db.Query(`SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' ORDER BY table_name, column_name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string][]string{}
	for rows.Next() {
		var tbl, col string
		if err := rows.Scan(&tbl, &col); err != nil {
			t.Fatal(err)
		}
		got[tbl] = append(got[tbl], col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for tbl, cols := range want {
		if !slices.Equal(got[tbl], cols) {
			t.Errorf("table %s: columns %v, want SQLite's %v", tbl, got[tbl], cols)
		}
	}
	for tbl := range got {
		if _, ok := want[tbl]; !ok {
			t.Errorf("table %s is not in the SQLite schema", tbl)
		}
	}
}

// TestSchemaKeyedByAgent: every table but meta and embedding_cache (which
// are not per agent) has a primary key that begins with agent_id, as a
// table distributed by agent_id needs.
func TestSchemaKeyedByAgent(t *testing.T) {
	db := schemaDB(t)
	rows, err := db.Query(`SELECT c.relname, a.attname FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
		WHERE k.contype = 'p' ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var tbl, first string
		if err := rows.Scan(&tbl, &first); err != nil {
			t.Fatal(err)
		}
		n++
		if tbl == "meta" || tbl == "embedding_cache" {
			continue
		}
		if first != "agent_id" {
			t.Errorf("table %s: primary key begins with %s, not agent_id", tbl, first)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no primary keys found")
	}
}

// stats is an agent's text_stats row and semantic.version counter.
type stats struct {
	docs, tokens, version, ranks int64
	counter                      string
}

func readStats(t *testing.T, db *sql.DB, agent string) stats {
	t.Helper()
	var s stats
	err := db.QueryRow(`SELECT docs, tokens, version, ranks,
		coalesce((SELECT value FROM meta WHERE key = 'semantic.version:' || $1), '')
		FROM text_stats WHERE agent_id = $1`, agent).Scan(&s.docs, &s.tokens, &s.version, &s.ranks, &s.counter)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaTriggers: the triggers keep text_stats and the semantic
// version counter as rows come, change and go, clear the terms of a row
// whose text changes, and delete a deleted memory's links.
func TestSchemaTriggers(t *testing.T) {
	db := schemaDB(t)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	insert := `INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, content_hash,
		created_at, updated_at, last_accessed_at, terms, ntok) VALUES ($1, $2, $3, '', 0.5, '\x00', 1, 1, 1, '\x01', $4)`
	exec(insert, "a", "s1", "hello world", 2)
	exec(insert, "a", "s2", "goodbye", 1)
	exec(insert, "b", "s1", "other agent", 2)
	if got, want := readStats(t, db, "a"), (stats{docs: 2, tokens: 3, version: 1, counter: "2"}); got != want {
		t.Fatalf("after two inserts: %+v, want %+v", got, want)
	}

	// A new text without new terms: the terms are cleared, the counters move.
	exec(`UPDATE semantic_memory SET content = 'hello there' WHERE agent_id = 'a' AND id = 's1'`)
	var terms []byte
	var summary string
	if err := db.QueryRow(`SELECT terms, summary FROM semantic_memory WHERE agent_id = 'a' AND id = 's1'`).Scan(&terms, &summary); err != nil {
		t.Fatal(err)
	}
	if terms != nil || summary != "hello there" {
		t.Fatalf("after a content change: terms %x, summary %q; want NULL terms and the content as summary", terms, summary)
	}
	if got, want := readStats(t, db, "a"), (stats{docs: 2, tokens: 3, version: 2, counter: "3"}); got != want {
		t.Fatalf("after a content change: %+v, want %+v", got, want)
	}
	// New terms and token count, as engram writes them.
	exec(`UPDATE semantic_memory SET terms = '\x02', ntok = 4 WHERE agent_id = 'a' AND id = 's1'`)
	if got, want := readStats(t, db, "a"), (stats{docs: 2, tokens: 5, version: 3, counter: "3"}); got != want {
		t.Fatalf("after new terms: %+v, want %+v", got, want)
	}
	// A rank weight that rises moves ranks; one that falls does not.
	exec(`UPDATE semantic_memory SET importance = 0.9 WHERE agent_id = 'a' AND id = 's1'`)
	exec(`UPDATE semantic_memory SET importance = 0.1 WHERE agent_id = 'a' AND id = 's1'`)
	if got, want := readStats(t, db, "a"), (stats{docs: 2, tokens: 5, version: 3, ranks: 1, counter: "3"}); got != want {
		t.Fatalf("after rank changes: %+v, want %+v", got, want)
	}
	// A scope change moves the version.
	exec(`UPDATE semantic_memory SET user_id = 'u' WHERE agent_id = 'a' AND id = 's2'`)
	if got, want := readStats(t, db, "a"), (stats{docs: 2, tokens: 5, version: 4, ranks: 1, counter: "3"}); got != want {
		t.Fatalf("after a scope change: %+v, want %+v", got, want)
	}

	// A deletion: the stats and counter move, the memory's links go, the
	// other agent's rows and links stay.
	link := `INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		VALUES ($1, 'semantic', $2, 'semantic', $3, 'related', 0.5, 1)`
	exec(link, "a", "s1", "s2")
	exec(link, "a", "s2", "s1")
	exec(link, "b", "s1", "s9")
	exec(`DELETE FROM semantic_memory WHERE agent_id = 'a' AND id = 's1'`)
	if got, want := readStats(t, db, "a"), (stats{docs: 1, tokens: 1, version: 5, ranks: 1, counter: "4"}); got != want {
		t.Fatalf("after a delete: %+v, want %+v", got, want)
	}
	var links []string
	rows, err := db.Query(`SELECT agent_id || ':' || source_id || '>' || target_id FROM zettel_links ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		links = append(links, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"b:s1>s9"}; !slices.Equal(links, want) {
		t.Fatalf("links after the delete: %v, want %v", links, want)
	}
	if got, want := readStats(t, db, "b"), (stats{docs: 1, tokens: 2, version: 0, counter: "1"}); got != want {
		t.Fatalf("agent b: %+v, want %+v", got, want)
	}
}

// TestSchemaIndexes: every index of the SQLite schema (but FTS5's) is in
// schema.sql under its name, on the same table and columns.
func TestSchemaIndexes(t *testing.T) {
	lite := sqliteDB(t)
	want := indexes(t, lite, `SELECT i.name || ' ON ' || i.tbl_name || ' (' || (SELECT group_concat(name, ', ')
			FROM (SELECT name FROM pragma_index_info(i.name) ORDER BY seqno)) || ')'
		FROM sqlite_schema i WHERE i.type = 'index' AND i.sql IS NOT NULL ORDER BY 1`)
	pg := schemaDB(t)
	got := indexes(t, pg, `SELECT c.relname || ' ON ' || r.relname || ' (' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n)
			FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = k.attnum) || ')'
		FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = 'public'
		WHERE NOT x.indisprimary AND NOT x.indisunique ORDER BY 1`)
	for name, def := range want {
		if got[name] != def {
			t.Errorf("index %s: PostgreSQL has %q, SQLite %q", name, got[name], def)
		}
	}
	if len(want) == 0 {
		t.Fatal("no SQLite indexes found")
	}
}

// indexes runs q, whose rows are "name ON table (columns)", and returns
// them by name.
func indexes(t *testing.T, db *sql.DB, q string) map[string]string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var def string
		if err := rows.Scan(&def); err != nil {
			t.Fatal(err)
		}
		name, _, _ := strings.Cut(def, " ")
		out[name] = def
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaCollation: every text column compares byte by byte
// (COLLATE "C"), as SQLite's BINARY does.
func TestSchemaCollation(t *testing.T) {
	db := schemaDB(t)
	rows, err := db.Query(`SELECT table_name || '.' || column_name || ' ' || coalesce(collation_name, 'the database''s')
		FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatal(err)
		}
		n++
		if !strings.HasSuffix(col, " C") {
			t.Errorf("column %s collation, want C", col)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no text columns found")
	}
}

// TestSchemaByteOrder: in a database whose own collation is ICU's
// English, which orders "_x" < "a" < "B", IDs and meta keys still order
// and compare byte by byte, as on SQLite.
func TestSchemaByteOrder(t *testing.T) {
	admin, err := sql.Open("pgx", pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("icu_%d", os.Getpid())
	if _, err := admin.Exec(`CREATE DATABASE ` + name + ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`); err != nil {
		t.Skipf("no ICU collation to test against: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", pgtest.DSN(t))
		if err != nil {
			t.Error(err)
			return
		}
		defer a.Close()
		if _, err := a.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
			t.Error(err)
		}
	})
	dsn := strings.Replace(pgtest.DSN(t), "dbname=postgres", "dbname="+name, 1)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var icu []string
	if err := func() error {
		rows, err := db.Query(`SELECT x FROM unnest(ARRAY['b', 'B', '_x', 'a', 'Z', 'é', 'e']) x ORDER BY x`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			icu = append(icu, s)
		}
		return rows.Err()
	}(); err != nil {
		t.Fatal(err)
	}
	want := []string{"B", "Z", "_x", "a", "b", "e", "é"}
	if slices.Equal(icu, want) {
		t.Fatalf("the database's own collation orders %v by bytes: the test shows nothing", icu)
	}
	if _, err := db.Exec(postgres.Schema); err != nil {
		t.Fatal(err)
	}
	for _, id := range want {
		if _, err := db.Exec(`INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, content_hash,
			created_at, updated_at, last_accessed_at) VALUES ('a', $1, 'c', '', 0.5, '\x00', 1, 1, 1)`, id); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO meta (key, value) VALUES ($1, '1')`, id+".version:a"); err != nil {
			t.Fatal(err)
		}
	}
	e := &engine{t: t, name: "postgres", db: db}
	if got := e.strings(`SELECT id FROM semantic_memory WHERE agent_id = 'a' ORDER BY id`); !slices.Equal(got, want) {
		t.Errorf("IDs in order: %v, want %v", got, want)
	}
	if got, want := e.strings(`SELECT key FROM meta WHERE key >= 'a' AND key < 'b' ORDER BY key`), []string{"a.version:a"}; !slices.Equal(got, want) {
		t.Errorf("meta keys from a to b: %v, want %v", got, want)
	}
}

// TestSchemaByPK: the tables the store reads or writes by pk alone (with
// the memory type for vector_pending), without the agent, have an index
// that leads with it.
func TestSchemaByPK(t *testing.T) {
	db := schemaDB(t)
	e := &engine{t: t, name: "postgres", db: db}
	lead := map[string][]string{}
	for _, def := range e.strings(`SELECT r.relname || ' ' || (SELECT string_agg(a.attname, ',' ORDER BY k.n)
			FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = k.attnum)
		FROM pg_index x JOIN pg_class r ON r.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = 'public'`) {
		tbl, cols, _ := strings.Cut(def, " ")
		lead[tbl] = append(lead[tbl], cols)
	}
	want := map[string]string{"history": "pk", "vector_pending": "memory_type,pk"}
	for _, k := range kinds {
		want[k.table] = "pk"
	}
	for _, v := range vecKinds {
		want["vec_"+v.kind] = "pk"
	}
	for tbl, cols := range want {
		if !slices.ContainsFunc(lead[tbl], func(c string) bool { return c == cols || strings.HasPrefix(c, cols+",") }) {
			t.Errorf("table %s: no index leads with %s (its indexes: %v)", tbl, cols, lead[tbl])
		}
	}
}

package postgres_test

import (
	"errors"
	"testing"

	"github.com/engram-go/engram/internal/store/postgres"
)

func TestTranslate(t *testing.T) {
	cases := []struct{ name, in, want string }{
		// Parameters.
		{"numbered", `SELECT a FROM t WHERE b = ?1 AND c = ?12`, `SELECT a FROM t WHERE b = $1 AND c = $12`},
		{"bare", `SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{"bare after numbered", `SELECT ?3, ?, ?1, ?`, `SELECT $3, $4, $1, $5`},
		// Literals, quoted names and comments are left alone.
		{"literal", `SELECT '?1 INDEXED BY x json_each(y) -> ''$.k'' GLOB' FROM t`, `SELECT '?1 INDEXED BY x json_each(y) -> ''$.k'' GLOB' FROM t`},
		{"quoted name", `SELECT "min(a, b)", "temp.x" FROM t`, `SELECT "min(a, b)", "temp.x" FROM t`},
		{"comment", "SELECT a -- ?1 min(a, b)\nFROM t /* ? */ WHERE b = ?", "SELECT a -- ?1 min(a, b)\nFROM t /* ? */ WHERE b = $1"},
		// JSON.
		{"->> key", `SELECT row ->> '$.user_id' FROM archive`, `SELECT row::jsonb ->> 'user_id' FROM archive`},
		{"->> label", `SELECT l.value ->> 'source_id' FROM x`, `SELECT l.value::jsonb ->> 'source_id' FROM x`},
		{"->> path", `SELECT (row ->> '$.a.b') FROM x`, `SELECT (row::jsonb #>> '{a,b}') FROM x`},
		{"->> quoted key", `SELECT m ->> '$."a b"' FROM x`, `SELECT m::jsonb ->> 'a b' FROM x`},
		{"->> after parenthesis", `SELECT (row ->> '$.m') ->> '$.k' FROM x`, `SELECT (row::jsonb ->> 'm')::jsonb ->> 'k' FROM x`},
		{"json_each", `SELECT value FROM json_each(?2) j WHERE j.value = 1`,
			`SELECT value FROM jsonb_array_elements_text(CAST($2 AS jsonb)) j WHERE j.value = 1`},
		{"json_each of a column", `EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?)))`,
			`EXISTS (SELECT 1 FROM jsonb_array_elements_text(CAST(t.tags AS jsonb)) g WHERE g.value IN (SELECT value FROM jsonb_array_elements_text(CAST($1 AS jsonb))))`},
		{"json_each key", `SELECT s.pk FROM json_each(?1) j CROSS JOIN s ON s.pk = j.value ORDER BY j.key`,
			`SELECT s.pk FROM jsonb_array_elements_text(CAST($1 AS jsonb)) WITH ORDINALITY AS j(value, key) JOIN s ON s.pk = j.value ORDER BY j.key`},
		{"json_array_length", `SELECT 1 + json_array_length(t.sources)`, `SELECT 1 + jsonb_array_length(CAST(t.sources AS jsonb))`},
		{"json_group_array", `SELECT json_group_array(id) FROM t`, `SELECT coalesce(json_agg(id), '[]') FROM t`},
		{"json_object", `SELECT json_object('id', r.id, 'n', r.n) FROM r`, `SELECT json_build_object('id', r.id, 'n', r.n) FROM r`},
		{"json_extract", `SELECT json_extract(row, '$.id') FROM archive`, `SELECT (CAST(row AS jsonb) #>> '{id}') FROM archive`},
		{"json_remove", `SELECT json_remove(t.row, '$.a', '$.b') FROM t`, `SELECT (CAST(t.row AS jsonb) #- '{a}' #- '{b}')::text FROM t`},
		// Functions.
		{"group_concat", `SELECT group_concat(value, '; ') FROM x`, `SELECT string_agg(CAST(value AS text), '; ') FROM x`},
		{"group_concat default separator", `SELECT group_concat(value) FROM x`, `SELECT string_agg(CAST(value AS text), ',') FROM x`},
		{"scalar min max", `SELECT min(1, max(0, a + b)) FROM t`, `SELECT LEAST(1, GREATEST(0, a + b)) FROM t`},
		{"aggregate min max", `SELECT min(pk), max(d) FROM t`, `SELECT min(pk), max(d) FROM t`},
		{"nested call in min", `SELECT max(coalesce(a, 0), f(b, c))`, `SELECT GREATEST(coalesce(a, 0), f(b, c))`},
		{"unhex", `SELECT unhex(nullif(x, ''))`, `SELECT decode(nullif(x, ''), 'hex')`},
		{"hex", `SELECT hex(t.terms)`, `SELECT coalesce(upper(encode(t.terms, 'hex')), '')`},
		{"ifnull", `SELECT ifnull(a, b)`, `SELECT coalesce(a, b)`},
		{"cast", `SELECT CAST(value AS INTEGER), CAST(x AS REAL)`, `SELECT CAST(value AS bigint), CAST(x AS double precision)`},
		{"blob", `SELECT x'', X'0aFF'`, `SELECT '\x'::bytea, '\x0aFF'::bytea`},
		// Names.
		{"indexed by", `SELECT 1 FROM facts e INDEXED BY facts_out WHERE a = 1`, `SELECT 1 FROM facts e WHERE a = 1`},
		{"not indexed", `SELECT 1 FROM facts t NOT INDEXED WHERE a = 1`, `SELECT 1 FROM facts t WHERE a = 1`},
		{"temp and main", `INSERT INTO main.history SELECT * FROM temp.ctx`, `INSERT INTO history SELECT * FROM pg_temp.ctx`},
		{"rowid", `SELECT rowid, embedding FROM vec_semantic WHERE rowid = ?`, `SELECT pk, embedding FROM vec_semantic WHERE pk = $1`},
		// Operators.
		{"is between values", `SELECT 1 WHERE a IS b AND c IS NOT ?`, `SELECT 1 WHERE a IS NOT DISTINCT FROM b AND c IS DISTINCT FROM $1`},
		{"is null stays", `SELECT 1 WHERE a IS NULL AND b IS NOT NULL AND c IS TRUE AND d IS NOT DISTINCT FROM e`,
			`SELECT 1 WHERE a IS NULL AND b IS NOT NULL AND c IS TRUE AND d IS NOT DISTINCT FROM e`},
		{"glob prefix", `SELECT count(*) FROM meta WHERE key GLOB 'links.deferred_*'`,
			`SELECT count(*) FROM meta WHERE key LIKE 'links.deferred\_%' ESCAPE '\'`},
		{"insert or ignore", `INSERT OR IGNORE INTO meta (key, value) VALUES (?, '')`, `INSERT INTO meta (key, value) VALUES ($1, '') ON CONFLICT DO NOTHING`},
		{"insert or ignore returning", `INSERT OR IGNORE INTO m (k) VALUES (?) RETURNING (k)`, `INSERT INTO m (k) VALUES ($1) ON CONFLICT DO NOTHING RETURNING (k)`},
		{"boolean literals", `SELECT a FROM t WHERE b = ?1 AND 1 AND (1 /*scope*/) AND NOT 0 ORDER BY a`,
			`SELECT a FROM t WHERE b = $1 AND true AND (true /*scope*/) AND NOT false ORDER BY a`},
		{"numbers stay", `SELECT 1, 0 FROM t WHERE a = 1 AND 1 = b AND c + 0 > 1 LIMIT 1`, `SELECT 1, 0 FROM t WHERE a = 1 AND 1 = b AND c + 0 > 1 LIMIT 1`},
		// Joins.
		{"cross join on", `SELECT t.a FROM json_each(?1) j CROSS JOIN t ON t.pk = j.value WHERE t.b = 1`,
			`SELECT t.a FROM jsonb_array_elements_text(CAST($1 AS jsonb)) j JOIN t ON t.pk = j.value WHERE t.b = 1`},
		{"cross join without on", `SELECT 1 FROM a CROSS JOIN b WHERE a.x = b.x`, `SELECT 1 FROM a CROSS JOIN b WHERE a.x = b.x`},
		{"in a table", `SELECT 1 FROM e WHERE +e.k IN n AND e.k <> 1`, `SELECT 1 FROM e WHERE e.k IN (SELECT * FROM n) AND e.k <> 1`},
		{"subquery alias", `SELECT i FROM (SELECT a AS i FROM t) WHERE i > 1`, `SELECT i FROM (SELECT a AS i FROM t) AS _s1 WHERE i > 1`},
		{"subquery with alias", `SELECT p.i FROM (SELECT a AS i FROM t) p, c`, `SELECT p.i FROM (SELECT a AS i FROM t) p, c`},
		{"scalar subquery", `SELECT a, (SELECT max(b) FROM t) FROM u`, `SELECT a, (SELECT max(b) FROM t) FROM u`},
		{"unary plus", `SELECT a FROM t WHERE +a > 1 AND (+b, c) < (1, 2) ORDER BY +a, b + 1`,
			`SELECT a FROM t WHERE a > 1 AND (b, c) < (1, 2) ORDER BY a, b + 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := postgres.Translate(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Translate(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// Inputs the fuzzer found (FuzzTranslate): rewrites that made two tokens
// one, and statements cut short.
func TestTranslateKeepsTokensApart(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a?`:                  `SELECT a $1`, // a$1 is one name in PostgreSQL
		`SELECT 1?2`:                 `SELECT 1 $2`,
		`SELECT a FROM t WHERE -+-b`: `SELECT a FROM t WHERE - -b`, // not --b, a comment
		`SELECT 1 -+-1`:              `SELECT 1 - -1`,
		`SELECT a FROM t INDEXED BY`: `SELECT a FROM t`,
	} {
		got, err := postgres.Translate(in)
		if err != nil || got != want {
			t.Errorf("Translate(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestTranslateRefuses(t *testing.T) {
	cases := []struct {
		name, in string
		want     error
	}{
		{"fts5 match", `SELECT rowid FROM semantic_fts WHERE semantic_fts MATCH ?`, postgres.ErrSQLiteOnly},
		{"fts5 vocab", `SELECT term, doc FROM semantic_vocab WHERE term = ?`, postgres.ErrSQLiteOnly},
		{"vec0 shadow table", `SELECT count(*) FROM vec_semantic_rowids`, postgres.ErrSQLiteOnly},
		{"catalog", `SELECT name FROM pragma_table_info(?)`, postgres.ErrSQLiteOnly},
		{"sqlite_schema", `SELECT name FROM sqlite_schema`, postgres.ErrSQLiteOnly},
		{"pragma", `PRAGMA user_version`, postgres.ErrSQLiteOnly},
		{"schema change", `DROP TRIGGER IF EXISTS vec_semantic_ai`, postgres.ErrSQLiteOnly},
		{"engine function", `SELECT engram_bm25(?1, x'00', 1)`, postgres.ErrSQLiteOnly},
		{"path parameter", `SELECT (t.metadata ->> ?) = ? FROM t`, postgres.ErrUntranslatable},
		{"array path", `SELECT row ->> '$[0]' FROM t`, postgres.ErrUntranslatable},
		{"arrow", `SELECT row -> '$.a' FROM t`, postgres.ErrUntranslatable},
		{"printf", `SELECT printf('%!.20g', s) FROM t`, postgres.ErrUntranslatable},
		{"json_type", `SELECT json_type(m, '$.a') FROM t`, postgres.ErrUntranslatable},
		{"glob suffix", `DELETE FROM meta WHERE key GLOB '*:' || ?`, postgres.ErrUntranslatable},
		{"glob class", `SELECT 1 WHERE k GLOB 'a[bc]*'`, postgres.ErrUntranslatable},
		{"insert or replace", `INSERT OR REPLACE INTO m (k) VALUES (?)`, postgres.ErrUntranslatable},
		{"named parameter", `SELECT :name`, postgres.ErrUntranslatable},
		{"dollar parameter", `SELECT $1`, postgres.ErrUntranslatable},
		{"unterminated literal", `SELECT 'abc`, postgres.ErrUntranslatable},
		{"unterminated comment", `SELECT 1 /* x`, postgres.ErrUntranslatable},
		{"parameter zero", `SELECT ?0`, postgres.ErrUntranslatable},
		{"parameter too large", `SELECT ?65536`, postgres.ErrUntranslatable},
		{"parameter overflowing", `SELECT ?99999999999999999999`, postgres.ErrUntranslatable},
		{"insert or at the end", `INSERT OR`, postgres.ErrUntranslatable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := postgres.Translate(c.in)
			if !errors.Is(err, c.want) {
				t.Fatalf("Translate(%q) = %q, %v; want an error matching %v", c.in, got, err, c.want)
			}
		})
	}
	// A word that only looks like an FTS5 table inside a literal is not one.
	if _, err := postgres.Translate(`SELECT 'semantic_fts MATCH x' FROM meta`); err != nil {
		t.Errorf("a literal naming FTS5: %v", err)
	}
}

package postgres_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
)

// historyEngine runs the statements of the history tests on one
// connection of one engine (history's context lives in the session).
type historyEngine struct {
	t      *testing.T
	name   string
	conn   *sql.Conn
	blob   string // a one-byte blob literal, {B} in a statement
	ctxTbl string // the context table's qualified name, {CTX}
}

func (e *historyEngine) exec(q string) {
	e.t.Helper()
	q = strings.NewReplacer("{B}", e.blob, "{B2}", e.blob, "{CTX}", e.ctxTbl).Replace(q)
	if _, err := e.conn.ExecContext(context.Background(), q); err != nil {
		e.t.Fatalf("%s: %s: %v", e.name, q, err)
	}
}

// entries returns history's rows, oldest first, with their JSON as
// values: parsed and written again, so that 1.0 and 1, or spacing and the
// order of members, compare equal.
func (e *historyEngine) entries() []string {
	e.t.Helper()
	rows, err := e.conn.QueryContext(context.Background(), `SELECT pk, agent_id, memory_type, id, op, before, after, actor, reason, at, form
		FROM history ORDER BY pk`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pk, at int64
		var agent, typ, id, op, actor, reason string
		var before, after sql.NullString
		var form sql.NullInt64
		if err := rows.Scan(&pk, &agent, &typ, &id, &op, &before, &after, &actor, &reason, &at, &form); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d %s %s/%s %s by %q for %q at %d form %v\n\tbefore %s\n\tafter  %s",
			pk, agent, typ, id, op, actor, reason, at, nullInt(form), e.jsonValue(before), e.jsonValue(after)))
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func nullInt(v sql.NullInt64) string {
	if !v.Valid {
		return "NULL"
	}
	return fmt.Sprint(v.Int64)
}

// jsonValue is s parsed as JSON and written again (keys sorted, numbers
// as float64s), or NULL.
func (e *historyEngine) jsonValue(s sql.NullString) string {
	e.t.Helper()
	if !s.Valid {
		return "NULL"
	}
	var v any
	if err := json.Unmarshal([]byte(s.String), &v); err != nil {
		e.t.Fatalf("%s: history holds invalid JSON %q: %v", e.name, s.String, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// historyEngines returns SQLite with store.HistoryStatements' triggers
// made of postgres.HistoryKinds, and PostgreSQL with schema.sql and a
// session that records history, each on one connection.
func historyEngines(t *testing.T) (lite, pg *historyEngine) {
	t.Helper()
	ctx := context.Background()
	lc, err := sqliteDB(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.Close() })
	stmts := store.HistoryStatements(postgres.HistoryKinds(), postgres.HistoryCreate, postgres.HistoryUpdate, postgres.HistoryDelete, postgres.HistoryDecay)
	if err := store.InstallHistory(ctx, lc, stmts); err != nil {
		t.Fatal(err)
	}
	pc, err := schemaDB(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	if _, err := pc.ExecContext(ctx, postgres.HistoryContextSQL); err != nil {
		t.Fatalf("HistoryContextSQL: %v", err)
	}
	return &historyEngine{t: t, name: "sqlite", conn: lc, blob: "x'01'", ctxTbl: "temp.history_ctx"},
		&historyEngine{t: t, name: "postgres", conn: pc, blob: `'\x01'::bytea`, ctxTbl: "pg_temp.history_ctx"}
}

// columnTypes returns the PostgreSQL data type of each column of table.
func columnTypes(t *testing.T, e *historyEngine, table string) map[string]string {
	t.Helper()
	rows, err := e.conn.QueryContext(context.Background(), `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name = $1`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var c, typ string
		if err := rows.Scan(&c, &typ); err != nil {
			t.Fatal(err)
		}
		out[c] = typ
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sqliteParses are the JSON columns that SQLite's full-text triggers
// parse, which cannot hold text that is not JSON there.
var sqliteParses = map[string]bool{"session_snapshots.messages": true, "session_snapshots.key_decisions": true}

// TestHistoryMatchesSQLite runs the same writes on each kind of memory
// on SQLite, with history's TEMP triggers, and on PostgreSQL, in a
// session with history_ctx, and compares the history after each: the
// entries of a creation, a change of each recorded field (a JSON field to
// JSON and to text that is not JSON), writes that change nothing recorded,
// updated_at moved alone (the touch rule), an operation and reason named
// by the context, decay into a lower tenth (alone and with a change), a
// new ID and a deletion.
func TestHistoryMatchesSQLite(t *testing.T) {
	specs := map[string]kindSpec{}
	for _, k := range kinds {
		specs[k.table] = k
	}
	for _, hk := range postgres.HistoryKinds() {
		t.Run(hk.Type, func(t *testing.T) {
			k, ok := specs[hk.Table]
			if !ok {
				t.Fatalf("no kindSpec for table %s", hk.Table)
			}
			lite, pg := historyEngines(t)
			types := columnTypes(t, pg, hk.Table)
			row := func(agent, id string) string {
				vals := strings.ReplaceAll(k.vals, "{ID}", "'"+id+"'")
				return fmt.Sprintf("INSERT INTO %s (agent_id, id, ntok, terms, %s) VALUES ('%s', '%s', 1, {B}, %s)", k.table, k.cols, agent, id, vals)
			}
			where := func(id string) string { return fmt.Sprintf(" WHERE agent_id = 'a' AND id = '%s'", id) }
			update := func(id, set string) string { return "UPDATE " + hk.Table + " SET " + set + where(id) }
			type step struct{ name, stmt string }
			steps := []step{
				{"context", "UPDATE {CTX} SET op = NULL, actor = 'alice', reason = 'because', at = 100"},
				{"insert a/1", row("a", "1")},
				{"insert a/2", row("a", "2")},
				{"insert b/1", row("b", "1")},
				{"retrieved", update("1", "retrievals = retrievals + 1")},
				{"same values", update("1", hk.Written[1]+" = "+hk.Written[1])},
			}
			hasUpdated := false
			for i, c := range hk.Recorded {
				w := hk.Written[i]
				var set []string
				switch {
				case c.Name == "id":
					continue // below, once the other changes are made
				case c.Name == "updated_at":
					hasUpdated = true
					set = []string{w + " = " + w + " + 1000"}
				case c.JSON:
					set = []string{w + ` = '[{"content": "é\"\\", "k": 1.5, "n": null}]'`, w + " = '{}'"}
					if !sqliteParses[hk.Table+"."+w] {
						set = append(set, w+" = 'not JSON'")
					}
				case types[w] == "text":
					set = []string{w + " = 'new " + c.Name + "'"}
				case types[w] == "double precision":
					set = []string{w + " = 0.25"}
				case types[w] == "integer" && (c.Name == "verified" || c.Name == "disabled"):
					set = []string{w + " = 1 - " + w}
				case types[w] == "bigint" || types[w] == "integer":
					set = []string{w + " = coalesce(" + w + ", 1) + 7"}
				default:
					t.Fatalf("column %s is of type %q", w, types[w])
				}
				for j, s := range set {
					steps = append(steps, step{fmt.Sprintf("%s change %d", c.Name, j), update("1", s)})
				}
			}
			if hasUpdated {
				steps = append(steps,
					step{"touch after an update", update("1", "updated_at = updated_at + 1")},
					step{"touch again", update("1", "updated_at = updated_at + 1")},
					step{"change with updated_at", update("1", hk.Written[1]+" = 'touched', updated_at = updated_at + 1")},
					step{"touch after a creation", update("2", "updated_at = updated_at + 1")},
				)
			}
			steps = append(steps,
				step{"named operation", "UPDATE {CTX} SET op = 'merge', reason = 'dupes', at = 200"},
				step{"change under merge", update("2", hk.Written[1]+" = 'merged'")},
				step{"context again", "UPDATE {CTX} SET op = NULL, reason = 'because', at = 300"},
			)
			if hk.Decay {
				steps = append(steps,
					step{"decay", update("1", "resonance = 0.95")},
					step{"decay within a tenth", update("1", "resonance = 0.91")},
					step{"decay with a change", update("1", "resonance = 0.5, "+hk.Written[1]+" = 'decayed'")},
					step{"resonance up", update("1", "resonance = 0.8")},
				)
				if hasUpdated {
					// The touch passes over the decay's entry to the update's.
					steps = append(steps, step{"touch after a decay", update("1", "updated_at = updated_at + 1")})
				}
			}
			steps = append(steps,
				step{"new id", update("2", "id = '2b'")},
				step{"delete a/1", "DELETE FROM " + hk.Table + where("1")},
				step{"delete b/1", "DELETE FROM " + hk.Table + " WHERE agent_id = 'b'"},
			)
			for _, st := range steps {
				lite.exec(st.stmt)
				pg.exec(st.stmt)
				if l, p := lite.entries(), pg.entries(); !slices.Equal(l, p) {
					t.Fatalf("after %s:\nSQLite:\n%s\nPostgreSQL:\n%s", st.name, strings.Join(l, "\n"), strings.Join(p, "\n"))
				}
			}
			if n := len(pg.entries()); n < len(steps)/2 {
				t.Fatalf("only %d entries after %d steps", n, len(steps))
			}
		})
	}
}

// TestHistoryOnlyWithContext: a session without history_ctx records
// nothing; the same writes in a session with it are recorded.
func TestHistoryOnlyWithContext(t *testing.T) {
	db := schemaDB(t)
	ctx := context.Background()
	count := func() int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM history`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := `INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, content_hash,
		created_at, updated_at, last_accessed_at) VALUES ('a', $1, 'c', '', 0.5, '\x00', 1, 1, 1)`
	off, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if _, err := off.ExecContext(ctx, insert, "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := off.ExecContext(ctx, `UPDATE semantic_memory SET content = 'd' WHERE id = '1'`); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("a session without history_ctx recorded %d entries", n)
	}
	on, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	if _, err := on.ExecContext(ctx, postgres.HistoryContextSQL); err != nil {
		t.Fatal(err)
	}
	if _, err := on.ExecContext(ctx, postgres.HistoryContextSQL); err != nil {
		t.Fatalf("HistoryContextSQL again on the session: %v", err)
	}
	if _, err := on.ExecContext(ctx, insert, "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := on.ExecContext(ctx, `UPDATE semantic_memory SET content = 'e' WHERE id = '1'`); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("a session with history_ctx recorded %d entries, want 2", n)
	}
	// The other session still records nothing.
	if _, err := off.ExecContext(ctx, `DELETE FROM semantic_memory`); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d entries after a delete in the session without history_ctx, want 2", n)
	}
}

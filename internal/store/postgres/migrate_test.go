package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"

	"github.com/engram-go/engram/internal/pgtest"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
)

// openDB opens the database dsn, closed when the test ends.
func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// appliedSteps returns the versions engram_schema records, in order.
func appliedSteps(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.Query(`SELECT version FROM engram_schema ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tableExists reports whether the database has the table name.
func tableExists(t *testing.T, db *sql.DB, name string) bool {
	t.Helper()
	var ok bool
	if err := db.QueryRow(`SELECT to_regclass($1) IS NOT NULL`, name).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestMigrateConcurrent: eight processes' worth of connection pools
// migrate one new database at once; one applies schema.sql, every one
// returns the latest version, and the schema lock is free after.
func TestMigrateConcurrent(t *testing.T) {
	d := pgtest.NewDatabase(t)
	const n = 8
	dbs := make([]*sql.DB, n)
	for i := range dbs {
		dbs[i] = openDB(t, d.DSN)
		if err := dbs[i].Ping(); err != nil {
			t.Fatal(err)
		}
	}
	versions := make([]int, n)
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range dbs {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			versions[i], errs[i] = postgres.Migrate(context.Background(), dbs[i])
		}()
	}
	start.Done()
	done.Wait()
	for i := range dbs {
		if errs[i] != nil || versions[i] != postgres.Latest() {
			t.Errorf("migration %d: version %d, error %v; want version %d, no error", i, versions[i], errs[i], postgres.Latest())
		}
	}
	if got := appliedSteps(t, dbs[0]); len(got) != postgres.Latest() || got[0] != 1 {
		t.Errorf("engram_schema holds versions %v, want 1 to %d once each", got, postgres.Latest())
	}
	var free bool
	if err := dbs[0].QueryRow(`SELECT pg_try_advisory_lock($1)`, postgres.MigrateLockKey).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if !free {
		t.Error("the schema lock is still held after every Migrate returned")
	}
}

// TestMigrateAgain: a migrated database is left as it is.
func TestMigrateAgain(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t).DSN)
	ctx := context.Background()
	if v, err := postgres.Migrate(ctx, db); err != nil || v != postgres.Latest() {
		t.Fatalf("first Migrate: version %d, error %v", v, err)
	}
	if v, err := postgres.Migrate(ctx, db); err != nil || v != postgres.Latest() {
		t.Fatalf("second Migrate: version %d, error %v", v, err)
	}
	if got := appliedSteps(t, db); len(got) != postgres.Latest() {
		t.Fatalf("engram_schema holds versions %v", got)
	}
}

// TestMigrateNewer: a database whose schema is newer than this engram's
// is refused with ErrSchemaTooNew, and left as it is.
func TestMigrateNewer(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t).DSN)
	ctx := context.Background()
	if _, err := postgres.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	newer := postgres.Latest() + 1
	if _, err := db.Exec(`INSERT INTO engram_schema (version, name) VALUES ($1, 'from the future')`, newer); err != nil {
		t.Fatal(err)
	}
	v, err := postgres.Migrate(ctx, db)
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Migrate on a newer schema: %v, want ErrSchemaTooNew", err)
	}
	if v != newer {
		t.Errorf("Migrate returned version %d, want the database's %d", v, newer)
	}
	if got := appliedSteps(t, db); len(got) != postgres.Latest()+1 {
		t.Errorf("engram_schema holds versions %v after the refusal", got)
	}
}

// TestMigrateFailingStep: a step that fails is rolled back whole and
// leaves the version where it was; the steps before it stay applied.
func TestMigrateFailingStep(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t).DSN)
	ctx := context.Background()
	steps := append(append([]postgres.Step{}, postgres.Steps...),
		postgres.NewStep("bad.sql", `CREATE TABLE half_made (x int); SELECT 1/0`))
	v, err := postgres.MigrateSteps(ctx, db, steps)
	if err == nil {
		t.Fatal("Migrate with a failing step: no error")
	}
	if v != postgres.Latest() {
		t.Errorf("Migrate returned version %d, want %d (the steps before the failing one)", v, postgres.Latest())
	}
	if got := appliedSteps(t, db); len(got) != postgres.Latest() {
		t.Errorf("engram_schema holds versions %v, want 1 to %d", got, postgres.Latest())
	}
	if tableExists(t, db, "half_made") {
		t.Error("the failing step's table was left behind")
	}
	// The lock was released: a later Migrate runs.
	if v, err := postgres.Migrate(ctx, db); err != nil || v != postgres.Latest() {
		t.Errorf("Migrate after the failure: version %d, error %v", v, err)
	}
}

// TestMigrateNotEngram: a database holding another program's tables and
// no engram schema is refused with ErrNotEngram, and left as it is.
func TestMigrateNotEngram(t *testing.T) {
	db := openDB(t, pgtest.NewDatabase(t).DSN)
	if _, err := db.Exec(`CREATE TABLE meta (k text)`); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Migrate(context.Background(), db)
	if !errors.Is(err, store.ErrNotEngram) {
		t.Fatalf("Migrate on another program's database: %v, want ErrNotEngram", err)
	}
	if tableExists(t, db, "engram_schema") {
		t.Error("engram_schema was made in another program's database")
	}
}

// TestMigrateCutsContentHashes: step 2 cuts a semantic entry's 16-byte
// content hash to its first 8 bytes, in the row and in the JSON text of
// an archived copy (in either spacing, the rest of the text as it was),
// and leaves a document chunk's hash and other kinds' copies alone.
func TestMigrateCutsContentHashes(t *testing.T) {
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.DSN)
	ctx := context.Background()
	if v, err := postgres.MigrateSteps(ctx, db, postgres.Steps[:1]); err != nil || v != 1 {
		t.Fatalf("migrating to schema.sql: version %d, %v", v, err)
	}
	long := "00112233445566778899aabbccddeeff"
	for _, stmt := range []string{
		`INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, content_hash, created_at, updated_at, last_accessed_at)
			VALUES ('a', 's', 'the canoe', '', 0.5, decode('` + long + `', 'hex'), 0, 0, 0)`,
		`INSERT INTO archive (agent_id, memory_type, id, row, reason, archived_at) VALUES
			('a', 'semantic', 'x', '{"id":"x","content_hash":"` + long + `","content":"a"}', '', 0),
			('a', 'semantic', 'y', '{"id" : "y", "content_hash" : "` + long + `", "content" : "b"}', '', 0),
			('a', 'document', 'z', '{"id":"z","content_hash":"` + long + `"}', '', 0)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if v, err := postgres.Migrate(ctx, db); err != nil || v != postgres.Latest() {
		t.Fatalf("Migrate: version %d, %v", v, err)
	}
	var hash string
	if err := db.QueryRow(`SELECT encode(content_hash, 'hex') FROM semantic_memory WHERE id = 's'`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if hash != long[:16] {
		t.Errorf("the row's content_hash is %s, want %s", hash, long[:16])
	}
	want := map[string]string{
		"x": `{"id":"x","content_hash":"` + long[:16] + `","content":"a"}`,
		"y": `{"id" : "y", "content_hash" : "` + long[:16] + `", "content" : "b"}`,
		"z": `{"id":"z","content_hash":"` + long + `"}`,
	}
	for id, w := range want {
		var row string
		if err := db.QueryRow(`SELECT row FROM archive WHERE id = $1`, id).Scan(&row); err != nil {
			t.Fatal(err)
		}
		if row != w {
			t.Errorf("archived %s: %s, want %s", id, row, w)
		}
	}
}

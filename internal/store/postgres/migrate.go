package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/engram-go/engram/internal/store"
)

// MigrateLockKey is the key of the session advisory lock
// (pg_advisory_lock) that Migrate holds while it reads and changes the
// schema's version: the bytes of "engram" and a 1, so that it does not
// collide with the per-agent transaction locks, which take
// hashtextextended of an agent's ID.
const MigrateLockKey int64 = 0x656e6772616d0001

// step is a numbered schema script: steps[i] takes a database from
// version i to version i+1.
type step struct {
	name string
	sql  string
}

// steps are the schema's scripts, in order, append-only as internal/schema's
// SQLite migrations are: schema.sql is version 1, and a later change is a
// new step, never an edit of one a database may have applied.
var steps = []step{
	{name: "schema.sql", sql: Schema},
	{name: "content_hash", sql: contentHash},
}

// contentHash is step 2, SQLite's migration 14 for the tables the engines
// share: a semantic entry's content_hash keeps the first 8 bytes of its
// hash (see store.ContentHash), in the row and in its archived copy (whose
// JSON text keeps its form: only the hex digits are cut).
const contentHash = `UPDATE semantic_memory SET content_hash = substring(content_hash from 1 for 8) WHERE length(content_hash) > 8;
UPDATE archive SET row = regexp_replace(row, '("content_hash"\s*:\s*")([0-9a-fA-F]{16})[0-9a-fA-F]{16}"', '\1\2"')
	WHERE memory_type = 'semantic' AND row LIKE '%"content_hash"%';`

// Latest is the newest schema version this engram knows: how many steps
// Migrate applies to an empty database.
func Latest() int { return len(steps) }

// Migrate brings the database's engram schema up to Latest and returns the
// version it is at. It works on one connection of db, under the session
// advisory lock MigrateLockKey, so that of several processes starting at
// once one applies each step and the others wait and find it applied:
// it makes the table engram_schema (one row per applied step) if it is
// missing, reads the version (the highest step applied, 0 for none), and
// applies each missing step in a transaction of its own that also records
// it, so a step that fails leaves the database at the version before it.
// The lock is released before Migrate returns (the connection is closed
// instead when the unlock fails, which releases it too).
//
// It returns an error wrapping store.ErrSchemaTooNew when the database's
// version is newer than Latest, store.ErrNotEngram when a database
// without engram's schema already holds tables of another program in
// the schema engram would use (the first of search_path), and otherwise
// the driver's error, prefixed with what failed (the step's name for a
// step), with nothing of the failing step applied.
func Migrate(ctx context.Context, db *sql.DB) (version int, err error) {
	return migrate(ctx, db, steps)
}

// migrate is Migrate with the given steps.
func migrate(ctx context.Context, db *sql.DB, steps []step) (version int, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("engram: migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, MigrateLockKey); err != nil {
		return 0, fmt.Errorf("engram: migrate: taking the schema lock: %w", err)
	}
	defer func() {
		// Unlocked even when ctx is done: the connection goes back to the
		// pool, which must not keep the lock.
		_, uerr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, MigrateLockKey)
		if uerr != nil {
			// Closing the session releases its locks.
			conn.Raw(func(any) error { return driver.ErrBadConn })
			if err == nil {
				err = fmt.Errorf("engram: migrate: releasing the schema lock: %w", uerr)
			}
		}
	}()
	version, err = schemaVersion(ctx, conn)
	if err != nil {
		return 0, err
	}
	if version > len(steps) {
		return version, fmt.Errorf("engram: migrate: schema version %d, this engram knows %d: %w", version, len(steps), store.ErrSchemaTooNew)
	}
	for ; version < len(steps); version++ {
		if err := applyStep(ctx, conn, version+1, steps[version]); err != nil {
			return version, err
		}
	}
	return version, nil
}

// schemaVersion makes engram_schema if it is missing and returns the
// highest version it records. A database without it must hold no table
// in the schema engram uses: another program's (store.ErrNotEngram).
func schemaVersion(ctx context.Context, conn *sql.Conn) (int, error) {
	var made bool
	var others int
	err := conn.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE c.relname = 'engram_schema') > 0, count(*)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`).
		Scan(&made, &others)
	if err != nil {
		return 0, fmt.Errorf("engram: migrate: reading the schema: %w", err)
	}
	if !made {
		if others > 0 {
			return 0, fmt.Errorf("engram: migrate: the schema holds %d tables and no engram_schema: %w", others, store.ErrNotEngram)
		}
		if _, err := conn.ExecContext(ctx, `CREATE TABLE engram_schema (
			version    integer     PRIMARY KEY CHECK (version > 0),
			name       text        NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return 0, fmt.Errorf("engram: migrate: making engram_schema: %w", err)
		}
	}
	var version int
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM engram_schema`).Scan(&version); err != nil {
		return 0, fmt.Errorf("engram: migrate: reading the schema version: %w", err)
	}
	return version, nil
}

// applyStep runs s, version v, and records it, in one transaction.
func applyStep(ctx context.Context, conn *sql.Conn, v int, s step) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("engram: migrate: %s: %w", s.name, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	// Without arguments pgx sends the script in one simple-protocol
	// query, which may hold several statements.
	if _, err := tx.ExecContext(ctx, s.sql); err != nil {
		return fmt.Errorf("engram: migrate: %s: %w", s.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO engram_schema (version, name) VALUES ($1, $2)`, v, s.name); err != nil {
		return fmt.Errorf("engram: migrate: %s: recording version %d: %w", s.name, v, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("engram: migrate: %s: %w", s.name, err)
	}
	return nil
}

// schemaVersionOf reads the database's engram schema version without
// writing: 0 when it has no engram_schema table. It returns the driver's
// error.
func schemaVersionOf(ctx context.Context, db *sql.DB) (int, error) {
	var made bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('engram_schema') IS NOT NULL`).Scan(&made); err != nil || !made {
		return 0, err
	}
	var version int
	err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM engram_schema`).Scan(&version)
	return version, err
}

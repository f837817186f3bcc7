package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
)

// VacuumInto writes a compacted copy of the database into the empty file
// path with VACUUM INTO. The copy is one read transaction: for a file,
// on a connection of its own (the readers are query-only, which VACUUM
// INTO refuses; read-only, as the database is, when it is), beside which
// the writer goes on; in memory, on the only connection, holding the
// writer lock. It returns store.ErrClosed after Close, ctx's error when
// it ended, and the driver's as Config.Wrap makes it for "backup".
func (s *DB) VacuumInto(ctx context.Context, path string) error {
	if s.memory {
		if err := s.lockWriter(ctx); err != nil {
			return err
		}
		defer s.wmu.Unlock()
		_, err := s.wconn.ExecContext(ctx, "VACUUM INTO ?", path)
		return s.wrap(ctx, "backup", err)
	}
	db, err := sql.Open("sqlite", dsn(s.name, []string{fmt.Sprintf("busy_timeout(%d)", s.cfg.BusyTimeout.Milliseconds())}))
	if err != nil {
		return s.fail("backup", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, "VACUUM INTO ?", path)
	return s.wrap(ctx, "backup", err)
}

// UnrecordInCopy removes the meta rows whose keys begin with prefix (the
// records of backups in progress, the copy's own among them: the
// source's bookkeeping) from the copy at path, with secure_delete on. It
// returns the driver's error as Config.Wrap makes it for "backup".
func (s *DB) UnrecordInCopy(ctx context.Context, path, prefix string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return s.fail("backup", err)
	}
	// By URI, which escapes what the file's name holds ("?", "#").
	db, err := sql.Open("sqlite", FileURI(abs, ""))
	if err != nil {
		return s.fail("backup", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, `PRAGMA secure_delete = 1`)
	if err == nil {
		_, err = db.ExecContext(ctx, `DELETE FROM meta WHERE key >= ? AND key < ?`, prefix, prefix[:len(prefix)-1]+string(prefix[len(prefix)-1]+1))
	}
	if err != nil {
		return s.fail("backup", err)
	}
	return s.fail("backup", db.Close())
}

// CheckCopy opens the copy at path read-only and checks it as
// DB.IntegrityCheck checks a database: it must be engram's, of this
// engram's schema version, pass SQLite's integrity check (which runs the
// FTS5 indexes' own) and pass derived (the checks of the data derived
// from the rows). A failed check is an error matching store.ErrCorrupt,
// as cfg.Wrap makes it for "backup"; a cancelled ctx returns its
// error.
func CheckCopy(ctx context.Context, path string, cfg Config, derived func(q store.Tx) error) error {
	db, err := sql.Open("sqlite", FileURI(path, "mode=ro"))
	if err != nil {
		return cfg.fail("backup", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var app, version int
	meta := func(q store.Tx) error {
		return q.(*Tx).queryRow(`SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version)`, nil, &app, &version)
	}
	if err := readCopy(ctx, db, meta); err != nil {
		return cfg.fail("backup", err)
	}
	if want := len(schema.Migrations()); app != ApplicationID || version != want {
		return cfg.fail("backup", fmt.Errorf("the copy has application_id %#x and schema version %d, want %#x and %d: %w", app, version, ApplicationID, want, store.ErrCorrupt))
	}
	err = readCopy(ctx, db, func(q store.Tx) error { return errors.Join(Check(q), derived(q)) })
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("engram: backup: %w", ctxErr)
		}
		return cfg.fail("backup", fmt.Errorf("the copy fails its integrity check: %v: %w", err, store.ErrCorrupt))
	}
	return nil
}

// readCopy runs fn in a read transaction on a connection of db.
func readCopy(ctx context.Context, db *sql.DB, fn func(q store.Tx) error) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	r := &reader{conn: conn, stmts: map[string]*sql.Stmt{}}
	defer func() { err = errors.Join(err, r.close()) }()
	q := &Tx{ctx: ctx, prep: r.prep}
	if _, err := q.exec("BEGIN"); err != nil {
		return err
	}
	err = fn(q)
	endErr := q.execStmt(context.Background(), "COMMIT")
	return errors.Join(err, endErr)
}

// OneFile takes the database file at path out of WAL mode, so that it
// is one file, as VACUUM INTO makes a copy. It returns the driver's error
// as cfg.Wrap makes it for "backup".
func OneFile(ctx context.Context, path string, cfg Config) error {
	db, err := sql.Open("sqlite", dsn(path, nil))
	if err != nil {
		return cfg.fail("backup", err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "PRAGMA journal_mode = DELETE")
	return cfg.fail("backup", err)
}

package engram

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/engram-go/engram/internal/schema"
)

// Backup writes a consistent copy of the database file to dst, a new
// file, while the Memory (and any other process) goes on reading and
// writing: every write acknowledged before Backup was called is in the
// copy. Copying memory.db with cp is not a backup: the writes of the last
// moments live in memory.db-wal until a checkpoint moves them into
// memory.db, and a copy without them, or with a -wal of another moment,
// loses them or is damaged.
//
// The copy is the whole file: in a file shared by several agents (see
// [WithPath]) it holds every agent's memory, not only the Memory's own
// (an agent's memory alone is what an export is for). It is made by
// SQLite's VACUUM INTO in one read transaction, which no writer waits
// for, so it is also compacted: it holds no free pages. It is written to a
// temporary file beside dst (mode 0600, like every file engram makes),
// synced, opened read-only and checked as [Memory.CheckIntegrity] checks
// a database (SQLite's integrity check, which covers the full-text
// indexes, and the data derived from the rows), and only then renamed to
// dst and its directory synced; on any failure the temporary file is
// removed and dst is not made. The copy is a plain SQLite file (not in
// WAL mode until opened by engram): [New] with [WithPath] opens it. An
// in-memory database is backed up the same way, to a file.
//
// Backup returns an error matching [ErrInvalid] when dst is empty, is the
// database's own file (or one of SQLite's files beside it), or its
// directory does not exist; [ErrExists] when dst exists already;
// [ErrClosed] after Close; a [*DatabaseError] when SQLite fails, one
// matching [ErrCorrupt] when the copy fails the check, and an
// [*fs.PathError] when the file system does. A cancelled ctx interrupts
// the copy and returns its error.
func (m *Memory) Backup(ctx context.Context, dst string) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	abs, err := m.checkBackupPath(dst)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".backup-*")
	if err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	name := tmp.Name()
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("engram: backup: %w", err)
	}
	if err := m.backupTo(ctx, name, abs); err != nil {
		_ = os.Remove(name)
		// VACUUM INTO and the check make no file beside the copy; a
		// failure half-way through might.
		for _, suffix := range []string{"-journal", "-wal", "-shm"} {
			_ = os.Remove(name + suffix)
		}
		return err
	}
	m.log.Debug("engram: backup written", "agent", m.agent, "db", m.dbPath, "backup", abs)
	return nil
}

// backupTo copies the database to the empty file tmp, syncs and checks
// it, and moves it to dst.
func (m *Memory) backupTo(ctx context.Context, tmp, dst string) error {
	if err := m.vacuumInto(ctx, tmp); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	if err := checkCopy(ctx, tmp); err != nil {
		return err
	}
	if err := placeNew(tmp, dst); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	return nil
}

// checkBackupPath returns dst made absolute, or the error Backup returns
// for it.
func (m *Memory) checkBackupPath(dst string) (string, error) {
	if dst == "" {
		return "", invalid("dst", "empty path")
	}
	abs, err := filepath.Abs(dst)
	if err != nil {
		return "", invalid("dst", "%v", err)
	}
	if m.dbPath != "" {
		db, err := filepath.Abs(m.dbPath)
		if err != nil {
			return "", invalid("dst", "%v", err)
		}
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if abs == db+suffix {
				return "", invalid("dst", "%q is the database's own file %q", dst, m.dbPath+suffix)
			}
		}
	}
	dir := filepath.Dir(abs)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", invalid("dst", "directory %q does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("engram: backup: %w", err)
	case !st.IsDir():
		return "", invalid("dst", "%q is not a directory", dir)
	}
	if _, err := os.Lstat(abs); err == nil {
		return "", fmt.Errorf("engram: backup: %q: %w", dst, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("engram: backup: %w", err)
	}
	return abs, nil
}

// vacuumInto writes a compacted copy of the database into the empty file
// path with VACUUM INTO. The copy is one read transaction: for a file,
// on a connection of its own (the readers are query-only, which VACUUM
// INTO refuses; read-only, as the database is, when it is), beside which
// the writer goes on; in memory, on the only connection, holding the
// writer lock.
func (m *Memory) vacuumInto(ctx context.Context, path string) error {
	s := m.db
	if s.memory {
		if err := s.lockWriter(ctx); err != nil {
			return err
		}
		defer s.wmu.Unlock()
		_, err := s.wconn.ExecContext(ctx, "VACUUM INTO ?", path)
		return s.wrap(ctx, "backup", err)
	}
	db, err := sql.Open("sqlite", dsn(s.name, []string{fmt.Sprintf("busy_timeout(%d)", m.cfg.Storage.BusyTimeout.Milliseconds())}))
	if err != nil {
		return &DatabaseError{Op: "backup", Err: err}
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, "VACUUM INTO ?", path)
	return s.wrap(ctx, "backup", err)
}

// checkCopy opens the copy at path read-only and checks it as
// CheckIntegrity checks a database: it must be engram's, of this
// engram's schema version, pass SQLite's integrity check (which runs the
// FTS5 indexes' own) and hold derived data that agrees with its rows.
// A failed check matches ErrCorrupt.
func checkCopy(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", fileURI(path, "mode=ro"))
	if err != nil {
		return &DatabaseError{Op: "backup", Err: err}
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var app, version int
	meta := func(q *dbtx) error {
		return q.queryRow(`SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version)`, nil, &app, &version)
	}
	if err := readCopy(ctx, db, meta); err != nil {
		return dbErr("backup", err)
	}
	if want := len(schema.Migrations()); app != ApplicationID || version != want {
		return &DatabaseError{Op: "backup", Err: fmt.Errorf("the copy has application_id %#x and schema version %d, want %#x and %d: %w", app, version, ApplicationID, want, ErrCorrupt)}
	}
	err = readCopy(ctx, db, func(q *dbtx) error { return errors.Join(sqliteCheck(q), checkDerived(q)) })
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("engram: backup: %w", ctxErr)
		}
		return &DatabaseError{Op: "backup", Err: fmt.Errorf("the copy fails its integrity check: %v: %w", err, ErrCorrupt)}
	}
	return nil
}

// readCopy runs fn in a read transaction on a connection of db.
func readCopy(ctx context.Context, db *sql.DB, fn func(q *dbtx) error) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	r := &reader{conn: conn, stmts: map[string]*sql.Stmt{}}
	defer func() { err = errors.Join(err, r.close()) }()
	q := &dbtx{ctx: ctx, prep: r.prep}
	if _, err := q.exec("BEGIN"); err != nil {
		return err
	}
	err = fn(q)
	_, endErr := q.execBackground("COMMIT")
	return errors.Join(err, endErr)
}

// placeNew moves the file tmp to dst, which must not exist: a hard link
// cannot replace a file made meanwhile, as a rename would; where the file
// system has no hard links, the rename follows a last look.
func placeNew(tmp, dst string) error {
	err := os.Link(tmp, dst)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("engram: backup: %q: %w", dst, ErrExists)
	}
	if _, serr := os.Lstat(dst); serr == nil {
		return fmt.Errorf("engram: backup: %q: %w", dst, ErrExists)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	return nil
}

// syncFile flushes the file at path to stable storage.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// syncDir flushes a directory's entries, so that a rename in it
// survives a crash. Some systems cannot sync a directory; that is no
// error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	cerr := d.Close()
	if err != nil && (errors.Is(err, fs.ErrInvalid) || errors.Is(err, fs.ErrPermission)) {
		err = nil
	}
	return errors.Join(err, cerr)
}

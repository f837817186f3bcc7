package engram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// Read-only storage.
//
// A database is opened read-only when [WithReadOnly] asks for it, or when
// the file or its directory cannot be written: a read-only mount, an
// immutable file, permissions. SQLite then opens it by a file: URI that
// says so (see readOnlyName), every write is refused with ErrReadOnly
// before it begins (see the engine's DB.Write), and nothing that a Memory writes
// on its own (access counts, memory.md and its record, schema
// migrations, the application_id mark, WAL mode) is attempted.

// storageReadOnly reports whether the existing database file at path must
// be opened read-only because this process cannot write it or make files
// in its directory (where SQLite keeps the -wal and -shm files of a
// database in WAL mode). A file that does not exist is not read-only:
// opening it creates it, or fails saying why.
func storageReadOnly(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	return !writable(path) || !writable(filepath.Dir(path))
}

// readOnlyName returns the name SQLite opens the database at path by to
// read it only: a file: URI with mode=ro, which reads a database in WAL
// mode through its -wal and -shm files, making them when they are missing
// (SQLite 3.22 and later); or, when the directory cannot be written (so
// they cannot be made) and there is neither (no connection has the
// database open), with immutable=1, which
// reads the file alone, without locks or -shm. The file is then all
// there is to read; immutable=1 assumes nothing changes it while it is
// open, which holds on a read-only mount and for an immutable file, and
// which a process allowed to write the directory must respect (see
// WithReadOnly).
func readOnlyName(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	query := "mode=ro"
	if !writable(filepath.Dir(abs)) && !exists(abs+"-wal") && !exists(abs+"-shm") {
		// No -wal or -shm: no connection has the database open (the last
		// to close removes both), so none is writing it as it is opened.
		query = "immutable=1"
	}
	return sqlite.FileURI(abs, query), nil
}

// explainReadOnly makes the failure to open a read-only database that has
// a -wal (another connection's, or one left by a crash) and no -shm that
// can be made say so: SQLite only says it cannot open the file.
func explainReadOnly(path string, err error) error {
	if !store.IsCantOpen(err) || !exists(path+"-wal") {
		return err
	}
	cause := err
	var de *DatabaseError
	if errors.As(err, &de) {
		cause = de.Err
	}
	return &DatabaseError{Op: "open", Err: fmt.Errorf("%s may hold writes not yet in the database, which SQLite reads only through a -shm file it cannot make in a directory it may not write: open it once where it can be written, or let the directory be written: %w (%w)",
		path+"-wal", ErrReadOnly, cause)}
}

// openDB opens the memory's database as s says: PostgreSQL's with
// WithPostgres, and otherwise SQLite's at path (see openStorage).
func openDB(ctx context.Context, path string, s *settings) (store.DB, error) {
	if s.postgres == "" {
		db, err := openStorage(ctx, path, s)
		if err != nil {
			return nil, err
		}
		return db, nil
	}
	db, err := postgres.Open(ctx, postgres.Config{DSN: s.postgres, ReadOnly: s.readOnly, Wrap: dbErr})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// openStorage opens the database at path ("" in memory) with the
// storage configuration of s: read-only with WithReadOnly or when the
// storage cannot be written (see storageReadOnly), and otherwise creating
// it when needed (see createPrivate). A read-only database is never
// created: with WithReadOnly, a file that does not exist is an error
// matching ErrNotFound.
func openStorage(ctx context.Context, path string, s *settings) (*sqlite.DB, error) {
	cfg := engineConfig(s.cfg.Storage)
	cfg.Image = true
	if path == "" {
		return sqlite.Open(ctx, path, cfg)
	}
	cfg.ReadOnly = s.readOnly || storageReadOnly(path)
	name := path
	if !cfg.ReadOnly {
		if err := createPrivate(path); err != nil {
			return nil, &DatabaseError{Op: "open", Err: err}
		}
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("engram: open: a read-only memory makes no database: %w", notFound("database", path))
	} else if name, err = readOnlyName(path); err != nil {
		return nil, &DatabaseError{Op: "open", Err: err}
	}
	db, err := sqlite.Open(ctx, name, cfg)
	if err != nil && cfg.ReadOnly {
		err = explainReadOnly(path, err)
	}
	return db, err
}

// engineConfig is the engine's configuration for st: its errors are
// engram's (see dbErr).
func engineConfig(st StorageConfig) sqlite.Config {
	return sqlite.Config{Synchronous: string(st.Synchronous), BusyTimeout: st.BusyTimeout, CacheMiB: st.CacheMiB, ReadConns: st.ReadConns, Wrap: dbErr}
}

// exists reports whether there is a file at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

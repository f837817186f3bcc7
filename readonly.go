package engram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
)

// Read-only storage.
//
// A database is opened read-only when [WithReadOnly] asks for it, or when
// the file or its directory cannot be written: a read-only mount, an
// immutable file, permissions. SQLite then opens it by a file: URI that
// says so (see readOnlyName), every write is refused with ErrReadOnly
// before it begins (see database.write), and nothing that a Memory writes
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
	return fileURI(abs, query), nil
}

// fileURI returns the SQLite URI of the file at the absolute path abs,
// with query.
func fileURI(abs, query string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: query}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // a Windows volume: file:///C:/…
	}
	return u.String()
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

// checkSchema is migrate for a read-only database, which cannot be
// migrated: the schema must be this engram's.
func (s *database) checkSchema(ctx context.Context) error {
	latest := len(schema.Migrations())
	version, err := s.userVersion(ctx)
	switch {
	case err != nil:
		return err
	case version > latest:
		return fmt.Errorf("engram: open: schema version %d, this engram knows %d: %w", version, latest, ErrSchemaTooNew)
	case version < latest:
		return fmt.Errorf("engram: open: schema version %d, this engram needs %d and cannot bring a read-only database up to date; open it once where it can be written: %w",
			version, latest, ErrReadOnly)
	}
	return nil
}

// openStorage opens the database at path ("" in memory) with the
// storage configuration of s: read-only with WithReadOnly or when the
// storage cannot be written (see storageReadOnly), and otherwise creating
// it when needed (see createPrivate). A read-only database is never
// created: with WithReadOnly, a file that does not exist is an error
// matching ErrNotFound.
func openStorage(ctx context.Context, path string, s *settings) (*database, error) {
	if path == "" {
		return openDatabase(ctx, path, s.cfg.Storage)
	}
	readOnly := s.readOnly || storageReadOnly(path)
	if !readOnly {
		if err := createPrivate(path); err != nil {
			return nil, &DatabaseError{Op: "open", Err: err}
		}
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("engram: open: a read-only memory makes no database: %w", notFound("database", path))
	}
	return openDatabaseWith(ctx, path, s.cfg.Storage, dbOptions{image: true, readOnly: readOnly})
}

// exists reports whether there is a file at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

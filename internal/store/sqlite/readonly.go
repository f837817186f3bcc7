package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/engram-go/engram/internal/schema"
	"github.com/engram-go/engram/internal/store"
)

// FileURI returns the SQLite URI of the file at the absolute path abs,
// with query ("mode=ro", "immutable=1", or ""): a name that escapes what
// the file's name holds ("?", "#").
func FileURI(abs, query string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: query}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // a Windows volume: file:///C:/…
	}
	return u.String()
}

// checkSchema is migrate for a read-only database, which cannot be
// migrated: the schema must be this engram's.
func (s *DB) checkSchema(ctx context.Context) error {
	latest := len(schema.Migrations())
	version, err := s.userVersion(ctx)
	switch {
	case err != nil:
		return err
	case version > latest:
		return fmt.Errorf("engram: open: schema version %d, this engram knows %d: %w", version, latest, store.ErrSchemaTooNew)
	case version < latest:
		return fmt.Errorf("engram: open: schema version %d, this engram needs %d and cannot bring a read-only database up to date; open it once where it can be written: %w",
			version, latest, store.ErrReadOnly)
	}
	return nil
}

// ReadFile runs fn in a read-only transaction on a connection of its own
// to the database file name (a path, or a file: URI from FileURI), which
// only reads, after checking that the file is engram's (see Open). It
// returns an error matching store.ErrNotEngram for another program's
// file, the driver's error as cfg.Wrap makes it for "agents" when the file
// cannot be opened or read as a database, and fn's error unchanged.
func ReadFile(ctx context.Context, name string, cfg Config, fn func(q store.Tx) error) error {
	s := &DB{cfg: cfg}
	db, err := sql.Open("sqlite", dsn(name, []string{"query_only(1)", fmt.Sprintf("busy_timeout(%d)", cfg.BusyTimeout.Milliseconds())}))
	if err != nil {
		return s.fail("agents", err)
	}
	defer db.Close()
	if s.wconn, err = db.Conn(ctx); err != nil {
		return s.fail("agents", err)
	}
	defer s.wconn.Close()
	if _, err := s.checkOwner(ctx); err != nil {
		return err
	}
	tx, err := s.wconn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.fail("agents", err)
	}
	defer tx.Rollback() //nolint:errcheck // a read
	return fn(&Tx{ctx: ctx, prep: tx.PrepareContext})
}

package engram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// A backup is written to a temporary file beside its destination and
// linked into place once checked (see Backup). A process killed half-way
// leaves that file behind, a full copy of the database: it would fill the
// disk, and keep what Forget erases. So every temporary copy is
//
//   - named for its destination (.NAME.backup-RANDOM, with SQLite's
//     -journal beside it while the copy is written),
//   - locked (flock) by the process writing it, for as long as it does,
//   - recorded in the source database's meta table (key
//     backup.pending:PATH) before the copy starts, and the record removed
//     when the backup ends, whichever way; the copy's own record is taken
//     out of the copy before it is checked.
//
// A temporary copy whose lock nobody holds is stale: its writer is gone.
// Stale copies of a destination are removed by the next Backup to it and
// by opening it (New, Open, and so `engram check`); stale copies recorded
// in a database are removed by opening it, and by Forget and ForgetAgent
// before they return. A Memory opened read-only removes nothing.

// backupTempPattern is the os.CreateTemp pattern of dst's temporary copy.
func backupTempPattern(dst string) string { return "." + filepath.Base(dst) + ".backup-*" }

// pendingBackupKey is the meta key recording a temporary copy in progress.
const pendingBackupKey = "backup.pending:"

// backupTemp is a temporary copy being written, locked by this process.
type backupTemp struct {
	path string
	lock *os.File // holds the lock; closed by release
}

// newBackupTemp creates and locks an empty temporary copy beside dst.
//
// Between its creation and its lock, another process's sweep may take the
// new file for a stale one and remove it: then it is made again.
func newBackupTemp(dst string) (*backupTemp, error) {
	for range 8 {
		f, err := os.CreateTemp(filepath.Dir(dst), backupTempPattern(dst))
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			return nil, err
		}
		held, herr := f.Stat()
		named, nerr := os.Stat(f.Name())
		if herr == nil && nerr == nil && os.SameFile(held, named) {
			return &backupTemp{path: f.Name(), lock: f}, nil
		}
		_ = f.Close()
		if herr != nil {
			return nil, herr
		}
	}
	return nil, errors.New("the temporary copy was removed as soon as made, again and again")
}

// remove deletes the temporary copy and the files SQLite may have left
// beside it, then lets the lock go.
func (t *backupTemp) remove() {
	removeCopy(t.path)
	t.release()
}

// release lets the lock go, leaving the file.
func (t *backupTemp) release() {
	if t.lock != nil {
		_ = t.lock.Close()
		t.lock = nil
	}
}

// sqliteSidecars are the files SQLite keeps beside a database, by suffix.
var sqliteSidecars = []string{"-journal", "-wal", "-shm"}

// removeDatabase removes the files SQLite keeps beside the database at
// path, and with file the database file too; what is not there is no
// error.
func removeDatabase(path string, file bool) error {
	var errs []error
	if file {
		errs = append(errs, removeIfExists(path))
	}
	for _, suffix := range sqliteSidecars {
		errs = append(errs, removeIfExists(path+suffix))
	}
	return errors.Join(errs...)
}

// removeCopy removes the database file at path and SQLite's files beside
// it, as far as it can: a copy that failed is gone or a sweep's to take.
func removeCopy(path string) { _ = removeDatabase(path, true) }

// removeIfStale removes the temporary copy at path, and the files beside
// it, unless a live process holds its lock; it reports whether the copy is
// gone (or never was).
func removeIfStale(path string) (bool, error) {
	if !isBackupTemp(path) {
		return false, fmt.Errorf("%s is not the name of a temporary backup copy: left as it is", path)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		removeCopy(path) // a -journal left without its file
		return true, nil
	}
	if err != nil {
		return false, err
	}
	held, err := tryLockFile(f)
	// Closed before the removal, which Windows refuses for an open file.
	_ = f.Close()
	if err != nil || !held {
		return false, err
	}
	if err := removeDatabase(path, true); err != nil {
		return false, err
	}
	return true, nil
}

// backupTempName is the base name of a temporary copy: a dot, its
// destination's name, ".backup-" and os.CreateTemp's random digits.
var backupTempName = regexp.MustCompile(`^\..+\.backup-[0-9]+$`)

// isBackupTemp reports whether path names a temporary copy, and nothing
// else: a record in a database (which may come from anywhere) or a file
// beside a destination that merely starts like one is never removed.
func isBackupTemp(path string) bool {
	return filepath.IsAbs(path) && backupTempName.MatchString(filepath.Base(path))
}

// sweepBackupTemps removes the stale temporary copies of dst (see above).
// Copies in progress, and files it cannot remove, are left; what went
// wrong is returned.
func sweepBackupTemps(dst string) error {
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(dst), globEscape(backupTempPattern(dst))+"*"))
	if err != nil {
		return err
	}
	var errs []error
	seen := map[string]bool{}
	for _, p := range matches {
		for _, suffix := range sqliteSidecars {
			p = strings.TrimSuffix(p, suffix)
		}
		if seen[p] || !isBackupTemp(p) {
			continue
		}
		seen[p] = true
		if _, err := removeIfStale(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// globEscape escapes filepath.Glob's metacharacters in the pattern's
// literal part, keeping a trailing * (os.CreateTemp's random part).
func globEscape(pattern string) string {
	lit, star := strings.CutSuffix(pattern, "*")
	var b strings.Builder
	for _, r := range lit {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if star {
		b.WriteByte('*')
	}
	return b.String()
}

// sweepBackups removes, when a database file is opened, the stale
// temporary copies a killed Backup left: those of the file itself, when it
// is a backup's destination, and those the database recorded as its own.
// A copy that cannot be removed is logged, not an error: the next open,
// Backup or Forget tries again.
func sweepBackups(ctx context.Context, s store.DB, path string, log *slog.Logger) {
	if path == "" || s.ReadOnly() {
		return // read-only: nothing is removed or written
	}
	if err := errors.Join(sweepBackupTemps(path), sweepRecordedBackups(ctx, s)); err != nil && log != nil {
		log.Warn("engram: open: a stale temporary backup copy could not be removed", "db", path, "err", err)
	}
}

// recordBackup records the temporary copy at path as in progress in the
// database. A database that cannot be written (read-only storage) keeps
// no record: nothing can be forgotten in it either.
func recordBackup(ctx context.Context, s store.DB, path string) (bool, error) {
	err := s.Write(ctx, "backup", func(q store.Tx) error {
		return store.SetMeta(q, pendingBackupKey+path, "in progress")
	})
	if errors.Is(err, ErrReadOnly) {
		return false, nil
	}
	return err == nil, err
}

// unrecordBackup removes the record of the temporary copy at path.
func unrecordBackup(ctx context.Context, s store.DB, path string) error {
	return s.Write(ctx, "backup", func(q store.Tx) error {
		return store.DeleteMeta(q, pendingBackupKey+path)
	})
}

// sweepRecordedBackups removes the stale temporary copies recorded in the
// database, and their records; copies still in progress stay recorded.
func sweepRecordedBackups(ctx context.Context, s store.DB) error {
	var paths []string
	err := s.Read(ctx, "backup", func(q store.Tx) error {
		keys, err := store.MetaKeys(q, pendingBackupKey)
		for _, k := range keys {
			paths = append(paths, strings.TrimPrefix(k, pendingBackupKey))
		}
		return err
	})
	if err != nil || len(paths) == 0 {
		return err
	}
	var gone []string
	var errs []error
	for _, p := range paths {
		if !isBackupTemp(p) {
			// Not a name engram gives a copy: the record goes, the file
			// it names stays.
			gone = append(gone, p)
			continue
		}
		ok, err := removeIfStale(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("a stale backup copy %s: %w", p, err))
		}
		if ok {
			gone = append(gone, p)
		}
	}
	if len(gone) > 0 {
		errs = append(errs, s.Write(ctx, "backup", func(q store.Tx) error {
			for _, p := range gone {
				if err := store.DeleteMeta(q, pendingBackupKey+p); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	return errors.Join(errs...)
}

// emptyCopy empties the temporary copy at path, keeping the file (and so
// its lock), and removes SQLite's files beside it.
func emptyCopy(path string) error {
	if err := removeDatabase(path, false); err != nil {
		return err
	}
	return os.Truncate(path, 0)
}

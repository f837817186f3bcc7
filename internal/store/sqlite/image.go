package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// A new database starts as a copy of an empty one of the current schema
// instead of being migrated step by step: SQLite parses the whole schema
// again after most steps (ALTER TABLE, DROP), so the nine migrations cost a
// new file or in-memory database about 17 ms, and a server that opens
// agents on demand pays that for each new one. The image is made once per
// process by migrating an in-memory database, so it is exactly what the
// migrations make; a file older than it is still migrated as before.

// emptyImage returns the image: the bytes of an empty engram database of
// the current schema (marked with ApplicationID), as SQLite serializes it.
// Its error is the one migrating an in-memory database returned.
func emptyImage() ([]byte, error) {
	image.once.Do(func() { image.bytes, image.err = makeImage() })
	return image.bytes, image.err
}

var image struct {
	once  sync.Once
	bytes []byte
	err   error

	walOnce sync.Once // walImage
	wal     []byte
	walErr  error
}

// makeImage migrates a new in-memory database and serializes it.
func makeImage() ([]byte, error) {
	s, err := Open(context.Background(), "", Config{Synchronous: "normal", BusyTimeout: 5 * time.Second, CacheMiB: writerCacheMiB})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var img []byte
	err = s.wconn.Raw(func(dc any) error {
		ser, ok := dc.(interface{ Serialize() ([]byte, error) })
		if !ok {
			return fmt.Errorf("the SQLite driver's connection (%T) cannot serialize a database", dc)
		}
		img, err = ser.Serialize()
		return err
	})
	return img, err
}

// loadImage makes the writer's in-memory database the empty image.
func (s *DB) loadImage() error {
	img, err := emptyImage()
	if err != nil {
		return err
	}
	return s.wconn.Raw(func(dc any) error {
		de, ok := dc.(interface{ Deserialize([]byte) error })
		if !ok {
			return fmt.Errorf("the SQLite driver's connection (%T) cannot load a database", dc)
		}
		return de.Deserialize(img)
	})
}

// walImage returns the empty image marked as a database in WAL mode, as
// a file of engram's is once opened: the file format's write and read
// versions (bytes 18 and 19 of the header) are 2, which is all that
// PRAGMA journal_mode = WAL changes in a database (see the file format's
// description, sqlite.org/fileformat2.html). A new file made from it is
// in WAL mode from the start, so that opening it does not switch the
// journal mode: a switch writes the header through a rollback journal,
// two fsyncs and a journal made and deleted, which for a new agent's file
// cost more than the rest of making it.
func walImage() ([]byte, error) {
	image.walOnce.Do(func() {
		img, err := emptyImage()
		if err != nil {
			image.walErr = err
			return
		}
		if len(img) < 100 || string(img[:16]) != "SQLite format 3\x00" || img[18] != 1 || img[19] != 1 {
			image.walErr = errors.New("the empty image has no rollback-journal SQLite header")
			return
		}
		image.wal = slices.Clone(img)
		image.wal[18], image.wal[19] = 2, 2
	})
	return image.wal, image.walErr
}

// CreateFile makes the database file at path, which does not exist,
// as a copy of the empty image in WAL mode (walImage), mode 0600: written
// to a temporary file beside it, synced, and linked into place, so that
// another process opening path meanwhile, or after a crash, sees no file
// or the whole of it. A file made meanwhile by another process is left as
// it is. When the image cannot be made, the file is made empty, and
// opening it migrates it.
//
// It returns the file system's error (an existing file is none).
func CreateFile(path string) error {
	img, err := walImage()
	if err != nil {
		return createEmpty(path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600.
	_, err = tmp.Write(img)
	if err := errors.Join(err, tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// createEmpty makes an empty file at path, mode 0600, unless one exists.
func createEmpty(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // made meanwhile, by another process opening it
	}
	if err != nil {
		return err
	}
	return f.Close()
}

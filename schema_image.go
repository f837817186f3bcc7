package engram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
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
func emptyImage() ([]byte, error) {
	image.once.Do(func() { image.bytes, image.err = makeImage() })
	return image.bytes, image.err
}

var image struct {
	once  sync.Once
	bytes []byte
	err   error
}

// makeImage migrates a new in-memory database and serializes it.
func makeImage() ([]byte, error) {
	s, err := openDatabaseWith(context.Background(), "", DefaultConfig().Storage, dbOptions{})
	if err != nil {
		return nil, err
	}
	defer s.close()
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
func (s *database) loadImage() error {
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

// createFromImage makes the database file at path, which does not exist,
// as a copy of the empty image, mode 0600: written to a temporary file
// beside it and linked into place, so that another process opening path
// meanwhile sees no file or the whole of it. A file made meanwhile by
// another process is left as it is. When the image cannot be made, the
// file is made empty, and opening it migrates it.
func createFromImage(path string) error {
	img, err := emptyImage()
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

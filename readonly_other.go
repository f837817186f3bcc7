//go:build !unix

package engram

import (
	"errors"
	"io/fs"
	"os"
)

// writable reports whether this process may write the file at path:
// false when opening it for writing is refused. A directory counts as
// writable (Windows lets a process make files in a directory whatever its
// read-only attribute says); any other answer says yes, and SQLite says
// what is wrong when it opens the file.
func writable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return true
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return !errors.Is(err, fs.ErrPermission)
	}
	_ = f.Close() // opened to ask, nothing written
	return true
}

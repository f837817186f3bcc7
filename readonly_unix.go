//go:build unix

package engram

import (
	"errors"
	"io/fs"
	"syscall"
)

// writable reports whether this process may write the file at path, or
// make files in the directory at path: false on a read-only file system
// (EROFS), for an immutable file (EPERM) and without the permission
// (EACCES; never for root). Any other answer says yes, and SQLite says
// what is wrong when it opens the file.
func writable(path string) bool {
	const wOK = 2 // W_OK of access(2)
	err := syscall.Access(path, wOK)
	return !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS)
}

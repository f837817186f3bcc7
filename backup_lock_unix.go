//go:build unix

package engram

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, held until f is closed. It is
// independent of SQLite's own (fcntl) locks on the same file.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// tryLockFile reports whether f's flock could be taken: false when
// another open file description holds it.
func tryLockFile(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

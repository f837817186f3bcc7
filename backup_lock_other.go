//go:build !unix

package engram

import "os"

// lockFile holds f open, which is what keeps it on systems without flock:
// there (Windows) a file open in another process cannot be removed.
func lockFile(f *os.File) error { return nil }

// tryLockFile reports true: removing a file another process holds open
// fails there, which leaves a copy in progress alone.
func tryLockFile(f *os.File) (bool, error) { return true, nil }

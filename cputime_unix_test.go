//go:build unix

package engram_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user and
// system, all its threads: on a shared machine it drifts far less than
// wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

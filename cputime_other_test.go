//go:build !unix

package engram_test

import "time"

// cpuTime returns 0 where the process's CPU time is not read: the
// benchmarks then report no CPU time.
func cpuTime() time.Duration { return 0 }

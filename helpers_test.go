package engram_test

import (
	"io"
	"log/slog"
	"math"
)

// Parallel tests. The package's longest tests that use the CPU alone call
// t.Parallel() first (the comment "parallel: see helpers_test.go" marks
// them), so that on a machine of two cores they run two at a time, after
// every other test. Such a test touches nothing another test shares: no
// hook (textSimilarHook, stemSnapshotHook), no environment variable, no
// count of the process's file descriptors, heap or page cache, and only
// files under its own t.TempDir(). A test that measures the process
// (TestStoreThousandAgents, TestExportStreams) or sets a hook stays
// sequential: the parallel tests wait, not yet started, until the
// sequential ones have all run.

func nan() float64 { return math.NaN() }

func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

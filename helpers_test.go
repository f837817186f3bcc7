package engram_test

import (
	"io"
	"log/slog"
	"math"
)

func nan() float64 { return math.NaN() }

func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

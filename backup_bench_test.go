package engram_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
)

var backupSizes = flag.String("backup.sizes", "10000",
	"the sizes of the Backup and Summary benchmarks' memories (semantic entries), comma-separated; 100000 is the issue's size")

func benchSizes(b *testing.B, list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("bad size %q: %v", f, err)
		}
		out = append(out, n)
	}
	return out
}

// medianMS is the median of ds in milliseconds.
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkBackup times, interleaved in each iteration, the baseline
// (checkpoint the WAL, then io.Copy memory.db and fsync the copy), the
// copy step Backup runs (VACUUM INTO on a connection of its own, as
// Backup does) and the whole of Backup (copy, fsync, read-only integrity
// check, rename), and reports the medians and Backup's ratio to the
// baseline.
func BenchmarkBackup(b *testing.B) {
	for _, n := range benchSizes(b, *backupSizes) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			dir := searchDir(b, n)
			m, err := engram.New(engram.Tier1, engram.WithDir(dir))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			path := m.Path()
			raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close()
			raw.SetMaxOpenConns(1)
			ctx := context.Background()
			out := b.TempDir()
			var copies, vacuums, backups []time.Duration
			var size int64
			i := 0
			for b.Loop() {
				i++
				start := time.Now()
				if _, err := raw.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
					b.Fatal(err)
				}
				plain := filepath.Join(out, fmt.Sprintf("plain-%d.db", i))
				size = copyPlain(b, path, plain)
				copies = append(copies, time.Since(start))

				start = time.Now()
				vac := filepath.Join(out, fmt.Sprintf("vacuum-%d.db", i))
				if _, err := raw.ExecContext(ctx, "VACUUM INTO ?", vac); err != nil {
					b.Fatal(err)
				}
				vacuums = append(vacuums, time.Since(start))

				start = time.Now()
				dst := filepath.Join(out, fmt.Sprintf("backup-%d.db", i))
				if err := m.Backup(ctx, dst); err != nil {
					b.Fatal(err)
				}
				backups = append(backups, time.Since(start))
				for _, f := range []string{plain, vac, dst} {
					os.Remove(f)
				}
			}
			b.ReportMetric(medianMS(copies), "copy-ms")
			b.ReportMetric(medianMS(vacuums), "vacuum-ms")
			b.ReportMetric(medianMS(backups), "backup-ms")
			b.ReportMetric(medianMS(backups)/medianMS(copies), "backup/copy")
			b.ReportMetric(medianMS(vacuums)/medianMS(copies), "vacuum/copy")
			b.ReportMetric(float64(size)/(1<<20), "file-MiB")
		})
	}
}

// copyPlain copies memory.db to dst, syncs it and returns its size.
func copyPlain(b *testing.B, path, dst string) int64 {
	src, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(f, src)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkSummary times Summary cold (after a write: an access recorded
// outside the timer) and warm (nothing changed since the last call).
func BenchmarkSummary(b *testing.B) {
	for _, n := range benchSizes(b, *backupSizes) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m, err := engram.New(engram.Tier1, engram.WithDir(searchDir(b, n)))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			ctx := context.Background()
			list, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1})
			if err != nil || len(list) == 0 {
				b.Fatal(list, err)
			}
			id := list[0].ID
			b.Run("cold", func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					if err := m.Semantic().RecordAccess(ctx, id); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, err := m.Summary(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("warm", func(b *testing.B) {
				if _, err := m.Summary(ctx); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := m.Summary(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

// row is one line of the results table: a timed operation, repeated reps
// times, ops times each.
type row struct {
	tier   int
	name   string
	perRep []time.Duration // each repetition's p50
	all    []time.Duration // every op
	target time.Duration   // 0: none
	goal   string          // how the target is put, when not "≤ target"
	note   string
}

// p50 is the median of the repetitions' p50s.
func (r row) p50() time.Duration { return median(r.perRep) }

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// runner runs the measurements and keeps their rows.
type runner struct {
	reps    int
	profDir string
	only    map[string]bool // nil: all
	rows    []row
	notes   []string
}

// want reports whether the measurement called name is to run.
func (r *runner) want(name string) bool { return r.only == nil || r.only[name] }

// note adds a line under the table.
func (r *runner) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	log.Print(s)
	r.notes = append(r.notes, s)
}

// profile runs fn under the CPU profiler when profiles are asked for,
// writing tier<tier>-<name>.pprof.
func (r *runner) profile(tier int, name string, fn func() error) error {
	if r.profDir == "" {
		return fn()
	}
	path := filepath.Join(r.profDir, fmt.Sprintf("tier%d-%s.pprof", tier, name))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	err = fn()
	pprof.StopCPUProfile()
	return err
}

// time runs op reps times, ops times each (op gets the repetition and
// the op's number in the whole run), under the profiler, and adds the
// row it makes.
func (r *runner) time(tier int, name string, ops int, target time.Duration, op func(rep, i int) error) (*row, error) {
	rw := row{tier: tier, name: name, target: target}
	runtime.GC() // the garbage of what ran before is not this measurement's
	err := r.profile(tier, slug(name), func() error {
		k := 0
		for rep := range r.reps {
			lat := make([]time.Duration, 0, ops)
			for range ops {
				start := time.Now()
				if err := op(rep, k); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				lat = append(lat, time.Since(start))
				k++
			}
			rw.perRep = append(rw.perRep, median(lat))
			rw.all = append(rw.all, lat...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	log.Printf("tier %d %s: p50 %s", tier, name, fmtDur(rw.p50()))
	r.rows = append(r.rows, rw)
	return &r.rows[len(r.rows)-1], nil
}

// add adds a row measured elsewhere.
func (r *runner) add(rw row) {
	log.Printf("tier %d %s: p50 %s", rw.tier, rw.name, fmtDur(rw.p50()))
	r.rows = append(r.rows, rw)
}

// slug turns a measurement's name into a file name.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// fmtDur prints a duration in ms with three significant digits, or in µs
// under 1 ms.
func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}

// table prints the rows as a markdown table.
func (r *runner) table() string {
	var b strings.Builder
	b.WriteString("| tier | measurement | p50 | reps' p50 range | mean | p99 | reps × ops | target | |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, rw := range r.rows {
		lo, hi := slices.Min(rw.perRep), slices.Max(rw.perRep)
		target, verdict := "", ""
		if rw.target > 0 {
			target = "≤ " + fmtDur(rw.target)
			if rw.goal != "" {
				target = rw.goal
			}
			verdict = "met"
			if rw.p50() > rw.target {
				verdict = "**not met**"
			}
		}
		if rw.note != "" {
			verdict = strings.TrimPrefix(verdict+"; "+rw.note, "; ")
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s – %s | %s | %s | %d × %d | %s | %s |\n", rw.tier, rw.name,
			fmtDur(rw.p50()), fmtDur(lo), fmtDur(hi), fmtDur(mean(rw.all)), fmtDur(percentile(rw.all, 99)),
			len(rw.perRep), len(rw.all)/max(1, len(rw.perRep)), target, verdict)
	}
	return b.String()
}

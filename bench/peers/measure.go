package main

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// contender is one library answering a section's queries: ask runs the
// i-th query and keeps what it found where check can see it later.
type contender struct {
	name string
	ask  func(i int) error
}

// timing is what one contender measured: the p50 and p90 of each
// repetition's query latencies.
type timing struct {
	name     string
	p50, p90 []time.Duration
}

// measure asks every contender all n queries, reps times, round-robin:
// repetition r runs the contenders one after another, starting with
// contender r mod len(cs), so that each is first as often as the others
// and drift in the machine's speed falls on all of them alike. Before the
// first repetition each contender answers every query once, untimed: that
// pass loads what a first search loads; afterFirst, if not nil, runs after
// it, to read what the contenders found.
func measure(label string, reps, n int, cs []contender, afterFirst func() error) ([]timing, error) {
	for _, c := range cs {
		for i := range n {
			if err := c.ask(i); err != nil {
				return nil, fmt.Errorf("%s %s: query %d: %w", label, c.name, i, err)
			}
		}
	}
	if afterFirst != nil {
		if err := afterFirst(); err != nil {
			return nil, err
		}
	}
	out := make([]timing, len(cs))
	for j, c := range cs {
		out[j].name = c.name
	}
	lat := make([]time.Duration, n)
	for r := range reps {
		for k := range cs {
			j := (r + k) % len(cs)
			c := cs[j]
			runtime.GC() // no contender pays for another's garbage
			for i := range n {
				start := time.Now()
				err := c.ask(i)
				lat[i] = time.Since(start)
				if err != nil {
					return nil, fmt.Errorf("%s %s: query %d: %w", label, c.name, i, err)
				}
			}
			p50, p90 := percentiles(lat)
			out[j].p50 = append(out[j].p50, p50)
			out[j].p90 = append(out[j].p90, p90)
		}
		logf("%s: repetition %d/%d done", label, r+1, reps)
	}
	return out, nil
}

// percentiles returns the p50 and p90 of lat (nearest rank), sorting a
// copy.
func percentiles(lat []time.Duration) (p50, p90 time.Duration) {
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*9/10]
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios returns a's p50 divided by b's p50 in each repetition, sorted:
// pairing the two measured minutes apart cancels most of the machine's
// drift.
func ratios(a, b timing) []float64 {
	rs := make([]float64, len(a.p50))
	for r := range rs {
		rs[r] = float64(a.p50[r]) / float64(b.p50[r])
	}
	slices.Sort(rs)
	return rs
}

// ratio is the median of ratios(a, b).
func ratio(a, b timing) float64 {
	rs := ratios(a, b)
	if len(rs)%2 == 1 {
		return rs[len(rs)/2]
	}
	return (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
}

// ms formats a duration in milliseconds with three significant digits
// or so.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	case v >= 1:
		return fmt.Sprintf("%.2f ms", v)
	default:
		return fmt.Sprintf("%.3f ms", v)
	}
}

package locomodata

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Ks are the cut-offs turn-level recall is reported at.
var Ks = []int{1, 5, 10, 25}

// SessionK is the cut-off of session-level recall: the sessions of the
// top SessionK turns.
const SessionK = 10

// CategoryNames are LoCoMo's question categories 1 to 4.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// Report sums recall over questions, per category.
type Report struct {
	Name string
	cats map[int]*sums
}

// sums are a category's sums over its questions.
type sums struct {
	n        int
	recall   []float64 // turn-level recall at each of Ks
	sessions float64   // session-level recall at SessionK
	spanned  float64   // distinct sessions in the top SessionK
}

// NewReport returns an empty report named name.
func NewReport(name string) *Report { return &Report{Name: name, cats: map[int]*sums{}} }

// Add counts a question of category cat whose evidence turns are
// evidence, answered by the turns ranked, best first. sessionOf gives a
// turn's session.
//
// Turn-level R@k is the share of the evidence turns among the top k.
// Session-level R@10 is the share of the evidence's sessions among the
// sessions of the top ten turns.
func (r *Report) Add(cat int, evidence, ranked []string, sessionOf func(turn string) string) {
	s := r.cats[cat]
	if s == nil {
		s = &sums{recall: make([]float64, len(Ks))}
		r.cats[cat] = s
	}
	s.n++
	for i, k := range Ks {
		top := ranked[:min(k, len(ranked))]
		hit := 0
		for _, e := range evidence {
			for _, id := range top {
				if id == e {
					hit++
					break
				}
			}
		}
		s.recall[i] += float64(hit) / float64(len(evidence))
	}
	seen := map[string]bool{}
	for _, id := range ranked[:min(SessionK, len(ranked))] {
		seen[sessionOf(id)] = true
	}
	s.spanned += float64(len(seen))
	want := map[string]bool{}
	for _, e := range evidence {
		want[sessionOf(e)] = true
	}
	hit := 0
	for sess := range want {
		if seen[sess] {
			hit++
		}
	}
	s.sessions += float64(hit) / float64(len(want))
}

// Line is a row of figures: over a category's questions or all of them.
type Line struct {
	Questions int
	Recall    []float64 // turn-level, at each of Ks
	Sessions  float64   // session-level R@10
	Spanned   float64   // mean distinct sessions in the top ten
}

// Category returns the figures of the questions of category cat.
func (r *Report) Category(cat int) Line { return r.line(func(c int) bool { return c == cat }) }

// Overall returns the figures over every question.
func (r *Report) Overall() Line { return r.line(func(int) bool { return true }) }

func (r *Report) line(in func(int) bool) Line {
	l := Line{Recall: make([]float64, len(Ks))}
	for c, s := range r.cats {
		if !in(c) {
			continue
		}
		l.Questions += s.n
		for i := range Ks {
			l.Recall[i] += s.recall[i]
		}
		l.Sessions += s.sessions
		l.Spanned += s.spanned
	}
	n := float64(max(l.Questions, 1))
	for i := range l.Recall {
		l.Recall[i] /= n
	}
	l.Sessions /= n
	l.Spanned /= n
	return l
}

// Categories returns the categories the report holds, in order.
func (r *Report) Categories() []int {
	out := make([]int, 0, len(r.cats))
	for c := range r.cats {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

func (l Line) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "questions=%d", l.Questions)
	for i, k := range Ks {
		fmt.Fprintf(&b, " R@%d=%.3f", k, l.Recall[i])
	}
	fmt.Fprintf(&b, " sessionR@%d=%.3f sessions@%d=%.2f", SessionK, l.Sessions, SessionK, l.Spanned)
	return b.String()
}

// String is the report: a line per category, then the overall line.
func (r *Report) String() string {
	var b strings.Builder
	for _, c := range r.Categories() {
		fmt.Fprintf(&b, "%s category %d (%s) %s\n", r.Name, c, CategoryNames[c], r.Category(c))
	}
	fmt.Fprintf(&b, "%s %s", r.Name, r.Overall())
	return b.String()
}

// ParseConvs reads a selection of conversations, numbered from 1, as
// "1-5", "6-10", "1,3,7" or "" (all of them), and returns the indexes
// (from 0) of the n conversations it keeps. It returns an error for a
// malformed selection or a number outside [1, n].
func ParseConvs(sel string, n int) ([]int, error) {
	if sel == "" {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(sel, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("conversations %q: %q is not a number", sel, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("conversations %q: %q is not a number", sel, hi)
			}
		}
		if a < 1 || b > n || a > b {
			return nil, fmt.Errorf("conversations %q: %q is outside 1-%d", sel, part, n)
		}
		for i := a; i <= b; i++ {
			if !seen[i] {
				seen[i] = true
				out = append(out, i-1)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// SessionOfTurn returns the session of a turn ID as the data set writes
// it: "D3" of "D3:14".
func SessionOfTurn(turn string) string {
	s, _, _ := strings.Cut(turn, ":")
	return s
}

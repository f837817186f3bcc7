// Command peers measures engram against two other pure-Go libraries an
// agent could keep its memory in, on the same data, in one run: bleve
// (full-text search, BM25) and chromem-go (vector search), with a plain
// exact scan as the vector baseline.
//
//	cd bench/peers && go run . -data ../../../shared/data/locomo/locomo10.json
//
// Sections (-only picks some): locomo (recall and latency of questions on
// the LoCoMo conversations, engram Tier 1 against bleve), text (latency of
// questions on a synthetic corpus of each -sizes entries, and resident
// memory, each contender measured alone in a child process, engram Tier 1
// against bleve) and vector (top-10 latency and recall@10 on 384-dimension
// vectors, engram Tier 2 against chromem-go and an exact scan) and loop
// (an agent's loop on the text corpus, every turn a write then a search:
// engram's Log and Search against bleve's Index and match query, with
// chromem-go's AddDocument and QueryEmbedding on the vectors beside).
//
// Every section asks each contender the same queries, -reps times,
// contenders interleaved round-robin, and reports the median over
// repetitions of each repetition's p50 and p90, and engram/peer: the
// median over repetitions of engram's p50 divided by the peer's in the
// same repetition (above 1, engram is slower). It prints markdown tables
// on standard output and its progress on standard error.
//
// It is a module of its own so that engram never depends on bleve or
// chromem-go.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/engram-go/engram/internal/locomodata"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// config is what the flags say.
type config struct {
	data     string
	reps     int
	sizes    []int
	sections []string
	dir      string
	convs    string // the LoCoMo conversations to ask, as -convs says
}

// parseError is an error the flag package has already printed, with the
// usage.
type parseError struct{ error }

var allSections = []string{"locomo", "text", "vector", "loop"}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	data := fs.String("data", "../../../shared/data/locomo/locomo10.json", "path to LoCoMo's locomo10.json")
	reps := fs.Int("reps", 5, "timed repetitions of each section's queries per contender (at least 1; medians want 5 or more)")
	sizes := fs.String("sizes", "10000,100000", "comma-separated corpus sizes of the text, vector and loop sections")
	only := fs.String("only", strings.Join(allSections, ","), "comma-separated sections to run: locomo, text, vector, loop")
	dir := fs.String("dir", os.TempDir(), "directory to build the stores in (a fresh subdirectory, removed at the end)")
	convs := fs.String("convs", "", "locomo: the conversations to ask, numbered from 1: 1-5, 6-10, 1,3,7 (default all)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, parseError{err}
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	c := config{data: *data, reps: *reps, dir: *dir, convs: *convs}
	if c.reps < 1 {
		return c, fmt.Errorf("-reps %d: want at least 1", c.reps)
	}
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 || n > 10_000_000 {
			return c, fmt.Errorf("-sizes %q: %q is not a size from 100 to 10,000,000", *sizes, f)
		}
		if !slices.Contains(c.sizes, n) {
			c.sizes = append(c.sizes, n)
		}
	}
	for _, f := range strings.Split(*only, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(allSections, f) {
			return c, fmt.Errorf("-only %q: unknown section %q (want some of %s)", *only, f, strings.Join(allSections, ", "))
		}
		if !slices.Contains(c.sections, f) {
			c.sections = append(c.sections, f)
		}
	}
	if slices.Contains(c.sections, "locomo") {
		if _, err := os.Stat(c.data); err != nil {
			return c, fmt.Errorf("-data: %w (the locomo section needs LoCoMo's locomo10.json; leave it out with -only text,vector)", err)
		}
	}
	if st, err := os.Stat(c.dir); err != nil {
		return c, fmt.Errorf("-dir: %w", err)
	} else if !st.IsDir() {
		return c, fmt.Errorf("-dir %s: not a directory", c.dir)
	}
	return c, nil
}

func main() {
	if arg, ok := os.LookupEnv(rssChildEnv); ok {
		if err := rssChild(arg); err != nil {
			fmt.Fprintln(os.Stderr, "peers: child:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:])
	var pe parseError
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &pe): // the flag package has said what is wrong
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config, args []string) error {
	began := time.Now()
	root, err := os.MkdirTemp(cfg.dir, "engram-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	// An interrupted run leaves no stores behind either.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		os.RemoveAll(root)
		fmt.Fprintln(os.Stderr, "peers: interrupted")
		os.Exit(130)
	}()
	logf("building in %s", root)

	var out strings.Builder
	fmt.Fprintf(&out, "## Peers (issue 15), %s\n\n", began.Format("2006-01-02 15:04"))
	fmt.Fprintf(&out, "`cd bench/peers && go run . %s`\n\n", strings.Join(args, " "))
	out.WriteString(machine())
	fmt.Fprintf(&out, "\nEach contender answers the same queries %d times, contenders interleaved round-robin "+
		"(repetition r starts with the r-th), after one untimed pass. p50 and p90 are the medians over "+
		"repetitions of each repetition's percentiles; engram/peer is the median over repetitions of engram's "+
		"p50 over the peer's in the same repetition (above 1, engram is slower), with the lowest and highest of those ratios in brackets.\n", cfg.reps)

	for _, s := range cfg.sections {
		switch s {
		case "locomo":
			r, err := runLoCoMo(ctx, cfg.data, cfg.convs, filepath.Join(root, "locomo"), cfg.reps)
			if err != nil {
				return err
			}
			out.WriteString(r.table())
		case "text":
			var rs []*textResult
			for _, n := range cfg.sizes {
				r, err := runText(ctx, filepath.Join(root, fmt.Sprintf("text-%d", n)), n, cfg.reps)
				if err != nil {
					return err
				}
				rs = append(rs, r)
				runtime.GC()
			}
			out.WriteString(textTable(rs))
		case "vector":
			var rs []*vectorResult
			for _, n := range cfg.sizes {
				d := filepath.Join(root, fmt.Sprintf("vector-%d", n))
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
				r, err := runVector(ctx, d, n, cfg.reps)
				if err != nil {
					return err
				}
				rs = append(rs, r)
				runtime.GC()
			}
			out.WriteString(vectorTable(rs))
		case "loop":
			var rs []*loopResult
			for _, n := range cfg.sizes {
				r, err := runLoop(ctx, filepath.Join(root, fmt.Sprintf("loop-%d", n)), n, cfg.reps)
				if err != nil {
					return err
				}
				rs = append(rs, r)
				runtime.GC()
			}
			out.WriteString(loopTable(rs, cfg.reps))
		}
		fmt.Fprint(os.Stderr, "\n")
	}
	fmt.Fprintf(&out, "\nWall time: %s.\n", time.Since(began).Round(time.Second))
	fmt.Print(out.String())
	return nil
}

// machine describes the run's machine and the versions measured.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s, %d CPUs (GOMAXPROCS %d), %s %s/%s.", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		var mods []string
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/blevesearch/bleve/v2", "github.com/philippgille/chromem-go", "modernc.org/sqlite":
				mods = append(mods, d.Path+" "+d.Version)
			}
		}
		if len(mods) > 0 {
			fmt.Fprintf(&b, " Versions: %s; engram from this checkout.", strings.Join(mods, ", "))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

func (r *locomoResult) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### LoCoMo: %s questions on %s turns of %d conversations (%s), limit %d\n\n", count(r.questions), count(r.turns), r.convs, r.which, locomoLimit)
	b.WriteString("engram: Tier 1, one agent per conversation, `Episodic().Search` as `internal/eval/locomo` asks. ")
	b.WriteString("bleve: one scorch index per conversation (as engram keeps one database per agent), `en` analyser, ")
	b.WriteString("a match query on the question, stored text loaded, equal scores ordered by ID (else bleve's order changes from build to build); ")
	b.WriteString("scored by BM25 or by TF-IDF, bleve's default. All on disk, built once, each bleve index merged into one segment. ")
	b.WriteString("R@k: the share of a question's evidence turns in the top k, averaged over questions.\n\n")
	b.WriteString("| contender | R@5 | R@10 | R@25 | p50 | p90 | engram/peer p50 |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	eng := find(r.timings, "engram")
	for _, t := range r.timings {
		rec := r.recall[t.name]
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %s | %s | %s |\n", label(t.name), rec[0], rec[1], rec[2],
			ms(median(t.p50)), ms(median(t.p90)), ratioCell(eng, t))
	}
	b.WriteString("\nBy category, engram and bleve BM25 (ties by ID) in the same run. sR@10: session-level recall, the share of a question's ")
	b.WriteString("evidence sessions among the sessions of its top ten turns; sessions: how many sessions the top ten span.\n\n")
	b.WriteString("| contender | category | questions | R@1 | R@5 | R@10 | R@25 | sR@10 | sessions |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, name := range []string{"engram", "bleve BM25"} {
		rep := r.reports[name]
		row := func(cat string, l locomodata.Line) {
			fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f |\n", label(name), cat, l.Questions,
				l.Recall[0], l.Recall[1], l.Recall[2], l.Recall[3], l.Sessions, l.Spanned)
		}
		for _, c := range rep.Categories() {
			row(fmt.Sprintf("%d %s", c, locomodata.CategoryNames[c]), rep.Category(c))
		}
		row("all", rep.Overall())
	}
	return b.String()
}

func textTable(rs []*textResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Text search: synthetic corpus, %d questions, limit 10\n\n", textQuestions)
	b.WriteString("The corpus and questions of engram's `BenchmarkSearchText` (half stopwords, Zipf vocabulary of 5,000 words, fixed seeds). ")
	b.WriteString("engram: Tier 1, semantic memories of one agent, `Memory.Search`. bleve: one scorch index, `en` analyser, BM25, match query, stored text loaded. ")
	b.WriteString("Both on disk, merged after building.\n\n")
	b.WriteString("| N | contender | p50 | p90 | engram/peer p50 | build (one run) | build CPU |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		eng := find(r.timings, "engram")
		for _, t := range r.timings {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", count(r.n), label(t.name), ms(median(t.p50)), ms(median(t.p90)),
				ratioCell(eng, t), r.build[t.name].Round(100*time.Millisecond), r.buildCPU[t.name].Round(100*time.Millisecond))
		}
	}
	fmt.Fprintf(&b, "\nResident memory, each contender alone in a process of its own (this binary run again, %d times, contenders alternating; medians), on the stores above: ", rssRounds)
	fmt.Fprintf(&b, "MiB over what the process held just before opening its store (VmRSS, VmHWM of `/proc/self/status`), "+
		"after the open, after asking every question %d times (engram's text index built in the background meanwhile), and the peak between.\n\n", rssPasses)
	b.WriteString("| N | contender | after the open | after the searches | peak | engram/peer after the searches | peak |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		eng := r.rss["engram"]
		for _, t := range r.timings {
			f := r.rss[t.name]
			var after, peak string
			if t.name != "engram" {
				after, peak = fmt.Sprintf("**%.2f×**", float64(eng.After)/float64(f.After)), fmt.Sprintf("%.2f×", float64(eng.Peak)/float64(f.Peak))
			}
			fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %.1f | %s | %s |\n", count(r.n), label(t.name), mib(f.Open), mib(f.After), mib(f.Peak), after, peak)
		}
	}
	return b.String()
}

func vectorTable(rs []*vectorResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Vector top-%d: %d dimensions, clustered, %d queries\n\n", topK, dims, vectorQuestions)
	b.WriteString("The data set of engram's `BenchmarkSearchVector` (`internal/vecdata`, fixed seeds). ")
	b.WriteString("engram: Tier 2, semantic memories, `Memory.Search` with `Mode: SearchVector`, on disk. ")
	b.WriteString("chromem-go: in-memory collection, `QueryEmbedding` (exhaustive). exact scan: float32 vectors in one slice, on GOMAXPROCS goroutines. ")
	b.WriteString("recall@10 is against an exact float64 ranking of every cosine.\n\n")
	b.WriteString("| N | contender | recall@10 | p50 | p90 | engram/peer p50 | build (one run) |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		eng := find(r.timings, "engram")
		for _, t := range r.timings {
			fmt.Fprintf(&b, "| %s | %s | %.4f | %s | %s | %s | %s |\n", count(r.n), label(t.name), r.recall[t.name],
				ms(median(t.p50)), ms(median(t.p90)), ratioCell(eng, t), r.build[t.name].Round(100*time.Millisecond))
		}
	}
	return b.String()
}

func find(ts []timing, name string) timing {
	for _, t := range ts {
		if t.name == name {
			return t
		}
	}
	panic("no timing for " + name)
}

func label(name string) string {
	if name == "engram" {
		return "**engram**"
	}
	return name
}

func ratioCell(eng, t timing) string {
	if t.name == eng.name {
		return ""
	}
	rs := ratios(eng, t)
	if len(rs) == 1 {
		return fmt.Sprintf("**%.2f×**", rs[0])
	}
	return fmt.Sprintf("**%.2f×** (%.2f–%.2f)", ratio(eng, t), rs[0], rs[len(rs)-1])
}

// count writes n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/procmem"
)

// rssChildEnv names the environment variable that makes the binary a
// child measuring one contender's resident memory (see rssChild) instead
// of running the benchmark: resident memory is the process's, so each
// contender is measured alone in a process of its own.
const rssChildEnv = "PEERS_RSS_CHILD"

// rssPasses is how many times a child asks all the questions: the first
// pass is the one the text section does untimed (engram's text index
// builds in the background meanwhile, about a second at 100K), the others
// the timed repetitions.
const rssPasses = 4

// rssFigures is one contender's resident memory in bytes, over what its
// process held just before opening the store: after the open, after
// rssPasses passes of the questions, and the peak (VmHWM) between.
type rssFigures struct {
	Open, After, Peak int64
}

// rssRounds is how many times measureRSS measures each contender: one
// process's figures vary by tens of MiB with the moments its garbage
// collector and SQLite happen to free memory.
const rssRounds = 3

// measureRSS runs the binary again as a child per contender, rssRounds
// times (engram then bleve, alternating), on the stores built under dir
// for a corpus of n, and returns each one's medians. The stores must be
// closed: bleve locks its index.
func measureRSS(dir string, n int) (map[string]rssFigures, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	names := []string{"engram", "bleve BM25"}
	got := map[string][]rssFigures{}
	for range rssRounds {
		for _, name := range names {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), rssChildEnv+"="+strconv.Quote(name)+" "+strconv.Itoa(n)+" "+strconv.Quote(dir))
			cmd.Stderr = os.Stderr
			b, err := cmd.Output()
			if err != nil {
				return nil, fmt.Errorf("resident memory of %s: %w", name, err)
			}
			var f rssFigures
			if err := json.Unmarshal(b, &f); err != nil {
				return nil, fmt.Errorf("resident memory of %s: %w (child printed %q)", name, err, b)
			}
			got[name] = append(got[name], f)
			logf("text N=%d: %s resident %.1f MiB after the open, %.1f MiB after the searches, peak %.1f MiB", n, name,
				mib(f.Open), mib(f.After), mib(f.Peak))
		}
	}
	out := map[string]rssFigures{}
	for _, name := range names {
		fs := got[name]
		mid := func(field func(rssFigures) int64) int64 {
			vs := make([]int64, len(fs))
			for i, f := range fs {
				vs[i] = field(f)
			}
			slices.Sort(vs)
			return vs[len(vs)/2]
		}
		out[name] = rssFigures{
			Open:  mid(func(f rssFigures) int64 { return f.Open }),
			After: mid(func(f rssFigures) int64 { return f.After }),
			Peak:  mid(func(f rssFigures) int64 { return f.Peak }),
		}
	}
	return out, nil
}

// rssChild is the child's side of measureRSS: arg is rssChildEnv's value,
// the contender's name, n and the stores' directory. It prints the
// figures as JSON on standard output.
func rssChild(arg string) error {
	var name, dir string
	var n int
	if _, err := fmt.Sscanf(arg, "%q %d %q", &name, &n, &dir); err != nil {
		return fmt.Errorf("%s=%q: %w", rssChildEnv, arg, err)
	}
	qs := benchdata.NewCorpus(n).Questions(textQuestions)
	ask, closeFn, base, err := openContender(name, dir)
	if err != nil {
		return err
	}
	opened, _, err := procmem.Resident()
	if err != nil {
		return err
	}
	for range rssPasses {
		for _, q := range qs {
			if err := ask(q); err != nil {
				return fmt.Errorf("%s: %q: %w", name, q, err)
			}
		}
	}
	after, peak, err := procmem.Resident()
	if err != nil {
		return err
	}
	if err := closeFn(); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(rssFigures{Open: opened - base, After: after - base, Peak: peak - base})
}

// openContender returns the child's resident memory just before opening
// the store (the corpus made for the questions returned to the system
// first, the peak reset), then opens name's store under dir and returns
// what asks it a question and what closes it.
func openContender(name, dir string) (ask func(string) error, closeFn func() error, base int64, err error) {
	runtime.GC()
	debug.FreeOSMemory()
	if base, err = procmem.ResetPeak(); err != nil {
		return nil, nil, 0, fmt.Errorf("resetting the peak resident memory: %w", err)
	}
	switch name {
	case "engram":
		m, err := engram.New(engram.Tier1, engram.WithDir(dir+"/engram"))
		if err != nil {
			return nil, nil, 0, err
		}
		return func(q string) error {
			rs, err := m.Search(context.Background(), engram.SearchOptions{Query: q})
			if err == nil && len(rs) == 0 {
				err = errors.New("no results")
			}
			return err
		}, m.Close, base, nil
	case "bleve BM25":
		idx, err := bleve.Open(dir + "/bleve")
		if err != nil {
			return nil, nil, 0, err
		}
		return func(q string) error {
			ids, err := bleveSearch(idx, q, 10, false)
			if err == nil && len(ids) == 0 {
				err = errors.New("no results")
			}
			return err
		}, idx.Close, base, nil
	}
	return nil, nil, 0, fmt.Errorf("no contender %q", name)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

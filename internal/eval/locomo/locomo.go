package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/locomodata"
)

// ks are the cut-offs recall is reported at.
var ks = []int{1, 5, 10, 25}

// report sums recall per category.
type report struct {
	tier      int
	questions map[int]int
	recall    map[int][]float64 // category → sum of recall at each k
}

func newReport(tier int) *report {
	return &report{tier: tier, questions: map[int]int{}, recall: map[int][]float64{}}
}

func (r *report) add(cat int, evidence, ranked []string) {
	if r.recall[cat] == nil {
		r.recall[cat] = make([]float64, len(ks))
	}
	r.questions[cat]++
	for i, k := range ks {
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
		r.recall[cat][i] += float64(hit) / float64(len(evidence))
	}
}

// overall returns the number of questions and the mean recall at each k.
func (r *report) overall() (int, []float64) {
	n := 0
	sum := make([]float64, len(ks))
	for cat, c := range r.questions {
		n += c
		for i := range ks {
			sum[i] += r.recall[cat][i]
		}
	}
	for i := range sum {
		sum[i] /= float64(max(n, 1))
	}
	return n, sum
}

func (r *report) String() string {
	var b strings.Builder
	cats := make([]int, 0, len(r.questions))
	for c := range r.questions {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	names := map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
	for _, c := range cats {
		n := r.questions[c]
		fmt.Fprintf(&b, "category %d (%s) questions=%d", c, names[c], n)
		for i, k := range ks {
			fmt.Fprintf(&b, " R@%d=%.3f", k, r.recall[c][i]/float64(n))
		}
		b.WriteByte('\n')
	}
	n, rec := r.overall()
	fmt.Fprintf(&b, "locomo tier%d questions=%d", r.tier, n)
	for i, k := range ks {
		fmt.Fprintf(&b, " R@%d=%.3f", k, rec[i])
	}
	return b.String()
}

// searchMode is the mode questions are asked in; "" is the tier's default.
var searchMode engram.SearchMode

// run loads each conversation into a fresh memory of the tier and asks
// its questions. Tier 2 embeds with the hashing embedder (384 dimensions)
// and searches in hybrid mode, its default.
func run(ctx context.Context, d locomodata.Dataset, cfg engram.Config, tier engram.Tier) (*report, error) {
	rep := newReport(int(tier))
	opts := []engram.Option{engram.InMemory(), engram.WithConfig(cfg), engram.WithAgent("locomo")}
	if tier == engram.Tier2 {
		h, err := engram.NewHashingEmbedder(384)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engram.WithEmbedder(h))
	}
	maxK := ks[len(ks)-1]
	for _, c := range d {
		sessions, err := c.Sessions()
		if err != nil {
			return nil, err
		}
		eps := locomodata.Episodes(sessions)
		turns := make(map[string]bool, len(eps))
		for _, e := range eps {
			turns[e.ID] = true
		}
		// The clock stands a day after the last session, as if the agent
		// were asked the next day.
		end := sessions[len(sessions)-1].Date.Add(24 * time.Hour)
		m, err := engram.New(tier, append(opts, engram.WithClock(func() time.Time { return end }))...)
		if err != nil {
			return nil, err
		}
		if _, err := m.Episodic().LogBatch(ctx, logged(eps)); err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", c.SampleID, err)
		}
		for _, q := range c.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			ev := locomodata.NormalizeEvidence(q.Evidence, turns)
			if len(ev) == 0 {
				continue
			}
			res, err := m.Episodic().Search(ctx, engram.SearchOptions{Query: q.Question, Limit: maxK, Mode: searchMode})
			if err != nil {
				m.Close()
				return nil, fmt.Errorf("%s %q: %w", c.SampleID, q.Question, err)
			}
			ids := make([]string, len(res))
			for i, r := range res {
				ids[i] = r.ID
			}
			rep.add(q.Category, ev, ids)
		}
		if err := m.Close(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// logged is eps as engram logs them.
func logged(eps []locomodata.Episode) []engram.Episode {
	out := make([]engram.Episode, len(eps))
	for i, e := range eps {
		out[i] = engram.Episode{ID: e.ID, Content: e.Content, SessionID: e.SessionID, CreatedAt: e.CreatedAt}
	}
	return out
}

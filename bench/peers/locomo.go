package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/locomodata"
)

// The LoCoMo data set (Maharana et al., ACL 2024; CC BY-NC 4.0), its
// episodes and evidence are read as engram's own evaluation reads them
// (internal/locomodata): each conversation is one agent's memory, one
// episode per dialog turn with its session's ID, and each question of
// categories 1 to 4 is asked with Episodic().Search and a limit of 25.
// Recall@k is the share of a question's evidence turns found in the top
// k, averaged over questions.

// locomoLimit is the number of results the evaluation asks for.
const locomoLimit = 25

// question is one LoCoMo question with what it needs to be asked and
// scored.
type question struct {
	conv     int // index into the conversations' memories and indexes
	text     string
	evidence []string
	category int
}

// recallAt returns the mean over questions of the share of each one's
// evidence found in its top k results.
func recallAt(qs []question, ranked [][]string, k int) float64 {
	var sum float64
	for i, q := range qs {
		top := ranked[i][:min(k, len(ranked[i]))]
		hit := 0
		for _, e := range q.evidence {
			for _, id := range top {
				if id == e {
					hit++
					break
				}
			}
		}
		sum += float64(hit) / float64(len(q.evidence))
	}
	return sum / float64(len(qs))
}

// locomoResult is what the LoCoMo section reports.
type locomoResult struct {
	convs     int
	which     string // the conversations asked, as -convs says them
	questions int
	turns     int
	recall    map[string][3]float64 // contender → R@5, R@10, R@25
	timings   []timing
	reports   map[string]*locomodata.Report // contender → R@k and session-level recall by category
}

// runLoCoMo loads every conversation into an engram memory (Tier 1, one
// agent per conversation, on disk under dir) and into bleve indexes (one
// per conversation, as engram keeps one database per agent; one set
// scored by BM25, one by TF-IDF), then asks every question of each, reps
// times, interleaved.
func runLoCoMo(ctx context.Context, path, convs, dir string, reps int) (*locomoResult, error) {
	d, err := loadLoCoMo(path, convs)
	if err != nil {
		return nil, err
	}
	res := &locomoResult{recall: map[string][3]float64{}, which: cmp.Or(convs, "all")}
	l := &locomoSet{idxs: map[string][]bleve.Index{}, sessionOf: map[string]string{}}
	defer l.close()
	start := time.Now()
	for ci, c := range d {
		if err := l.load(ctx, ci, c, dir); err != nil {
			return nil, err
		}
	}
	res.turns, res.questions, res.convs = l.turns, len(l.qs), len(d)
	logf("locomo: %d conversations, %d turns, %d questions loaded in %s", len(d), res.turns, len(l.qs), time.Since(start).Round(time.Millisecond))

	ranked := map[string][][]string{}
	for _, name := range []string{"engram", "bleve BM25", "bleve BM25 (default order)", "bleve TF-IDF"} {
		ranked[name] = make([][]string, len(l.qs))
	}
	// Recall is read from the untimed first pass, as the evaluation asks
	// each question once; episodes record no accesses, so later passes
	// must rank the same, which is checked on the last.
	var first map[string][3]float64
	if res.timings, err = measure("locomo", reps, len(l.qs), l.contenders(ctx, ranked), func() error { first = recalls(l.qs, ranked); return nil }); err != nil {
		return nil, err
	}
	res.recall = first
	res.reports = l.reports(ranked)
	for name, last := range recalls(l.qs, ranked) {
		if last != first[name] {
			return nil, fmt.Errorf("locomo %s: recall changed between passes: %v then %v", name, first[name], last)
		}
	}
	return res, nil
}

// loadLoCoMo reads the data set at path and returns the conversations
// convs names (see locomodata.ParseConvs).
func loadLoCoMo(path, convs string) (locomodata.Dataset, error) {
	all, err := locomodata.Load(path)
	if err != nil {
		return nil, err
	}
	sel, err := locomodata.ParseConvs(convs, len(all))
	if err != nil {
		return nil, err
	}
	var d locomodata.Dataset
	for _, i := range sel {
		d = append(d, all[i])
	}
	return d, nil
}

// locomoSet is what runLoCoMo loaded: each conversation's engram memory
// and bleve indexes, and the questions to ask.
type locomoSet struct {
	mems      []*engram.Memory
	idxs      map[string][]bleve.Index // scoring model → one index per conversation
	qs        []question
	sessionOf map[string]string // conversation index and turn → session
	turns     int
}

// close closes the memories and the indexes.
func (l *locomoSet) close() {
	for _, m := range l.mems {
		m.Close()
	}
	for _, is := range l.idxs {
		for _, idx := range is {
			idx.Close()
		}
	}
}

// load loads the conversation c, the ci-th, into an engram memory and
// bleve indexes under dir, and adds its questions.
func (l *locomoSet) load(ctx context.Context, ci int, c locomodata.Conversation, dir string) error {
	sessions, err := c.Sessions()
	if err != nil {
		return err
	}
	eps := locomodata.Episodes(sessions)
	turns := make(map[string]bool, len(eps))
	ids := make([]string, len(eps))
	texts := make([]string, len(eps))
	for i, e := range eps {
		turns[e.ID] = true
		l.sessionOf[fmt.Sprint(ci, " ", e.ID)] = e.SessionID
		ids[i], texts[i] = e.ID, e.Content
	}
	l.turns += len(eps)
	// The clock stands a day after the last session, as if the agent
	// were asked the next day.
	end := sessions[len(sessions)-1].Date.Add(24 * time.Hour)
	m, err := engram.New(engram.Tier1, engram.WithDir(filepath.Join(dir, "engram")),
		engram.WithAgent(fmt.Sprintf("conv-%d", ci)), engram.WithClock(func() time.Time { return end }))
	if err != nil {
		return err
	}
	l.mems = append(l.mems, m)
	if _, err := m.Episodic().LogBatch(ctx, logged(eps)); err != nil {
		return fmt.Errorf("%s: %w", c.SampleID, err)
	}
	for _, scoring := range []string{index.BM25Scoring, index.TFIDFScoring} {
		idx, err := buildBleve(filepath.Join(dir, "bleve-"+scoring, fmt.Sprintf("conv-%d", ci)), scoring, ids, texts)
		if err != nil {
			return fmt.Errorf("%s: bleve: %w", c.SampleID, err)
		}
		l.idxs[scoring] = append(l.idxs[scoring], idx)
	}
	for _, q := range c.QA {
		if q.Category < 1 || q.Category > 4 {
			continue
		}
		ev := locomodata.NormalizeEvidence(q.Evidence, turns)
		if len(ev) == 0 {
			continue
		}
		l.qs = append(l.qs, question{conv: ci, text: q.Question, evidence: ev, category: q.Category})
	}
	return nil
}

// contenders are engram and bleve asking the questions, each keeping
// the IDs it ranks in ranked under its name.
func (l *locomoSet) contenders(ctx context.Context, ranked map[string][][]string) []contender {
	askBleve := func(name, scoring string, byID bool) contender {
		return contender{name: name, ask: func(i int) error {
			q := l.qs[i]
			ids, err := bleveSearch(l.idxs[scoring][q.conv], q.text, locomoLimit, byID)
			ranked[name][i] = ids
			return err
		}}
	}
	return []contender{
		{name: "engram", ask: func(i int) error {
			q := l.qs[i]
			rs, err := l.mems[q.conv].Episodic().Search(ctx, engram.SearchOptions{Query: q.text, Limit: locomoLimit})
			if err != nil {
				return err
			}
			ids := make([]string, len(rs))
			for j, r := range rs {
				ids[j] = r.ID
			}
			ranked["engram"][i] = ids
			return nil
		}},
		askBleve("bleve BM25", index.BM25Scoring, true),
		// bleve's default order: equal scores in its internal document
		// order, which is fixed for a built index but not from one build
		// to the next; the sort by ID costs bleve 25-30%, so its speed is
		// compared in the order its users get.
		askBleve("bleve BM25 (default order)", index.BM25Scoring, false),
		askBleve("bleve TF-IDF", index.TFIDFScoring, true),
	}
}

// recalls returns each contender's R@5, R@10 and R@25 of what it ranked.
func recalls(qs []question, ranked map[string][][]string) map[string][3]float64 {
	out := map[string][3]float64{}
	for name, r := range ranked {
		out[name] = [3]float64{recallAt(qs, r, 5), recallAt(qs, r, 10), recallAt(qs, r, 25)}
	}
	return out
}

// reports returns each contender's report (R@k and session-level recall
// by category) of what it ranked.
func (l *locomoSet) reports(ranked map[string][][]string) map[string]*locomodata.Report {
	out := map[string]*locomodata.Report{}
	for name, r := range ranked {
		rep := locomodata.NewReport(name)
		for i, q := range l.qs {
			rep.Add(q.category, q.evidence, r[i], func(turn string) string { return l.sessionOf[fmt.Sprint(q.conv, " ", turn)] })
		}
		out[name] = rep
	}
	return out
}

// logged is eps as engram logs them.
func logged(eps []locomodata.Episode) []engram.Episode {
	out := make([]engram.Episode, len(eps))
	for i, e := range eps {
		out[i] = engram.Episode{ID: e.ID, Content: e.Content, SessionID: e.SessionID, CreatedAt: e.CreatedAt}
	}
	return out
}

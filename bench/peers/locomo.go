package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/engram-go/engram"
)

// The LoCoMo data set (Maharana et al., ACL 2024; CC BY-NC 4.0) is read
// from the shared data directory and never copied into the repository.
//
// Loading, the episode text, the evidence and recall are those of
// engram's own evaluation, internal/eval/locomo (a main package, so they
// are copied here; keep the two the same): each conversation is one
// agent's memory, one episode per dialog turn with its session's ID, and
// each question of categories 1 to 4 is asked with Episodic().Search and
// a limit of 25. Recall@k is the share of a question's evidence turns
// found in the top k, averaged over questions.

type dataset []conversation

type conversation struct {
	SampleID string          `json:"sample_id"`
	Conv     json.RawMessage `json:"conversation"`
	QA       []qa            `json:"qa"`
}

type qa struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

type turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

// session is one dated session of a conversation.
type session struct {
	n     int
	date  time.Time
	label string // the date as the data set writes it
	turns []turn
}

func loadLoCoMo(path string) (dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d dataset
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(d) == 0 {
		return nil, fmt.Errorf("%s: no conversations", path)
	}
	return d, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

func (c conversation) sessions() ([]session, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(c.Conv, &raw); err != nil {
		return nil, err
	}
	var out []session
	for k, v := range raw {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		s := session{n: n}
		if err := json.Unmarshal(v, &s.turns); err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.SampleID, k, err)
		}
		var label string
		if err := json.Unmarshal(raw[k+"_date_time"], &label); err != nil {
			return nil, fmt.Errorf("%s %s_date_time: %w", c.SampleID, k, err)
		}
		t, err := time.Parse("3:04 pm on 2 January, 2006", label)
		if err != nil {
			return nil, fmt.Errorf("%s %s_date_time: %w", c.SampleID, k, err)
		}
		s.date, s.label = t, t.Format("2 January 2006")
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sessions", c.SampleID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n < out[j].n })
	return out, nil
}

// episodes turns a conversation into one episode per dialog turn.
func episodes(sessions []session) []engram.Episode {
	var out []engram.Episode
	for _, s := range sessions {
		for i, t := range s.turns {
			out = append(out, engram.Episode{
				ID:        t.DiaID,
				Content:   turnText(s, t),
				SessionID: fmt.Sprintf("session-%d", s.n),
				CreatedAt: s.date.Add(time.Duration(i) * time.Second),
			})
		}
	}
	return out
}

// turnText is what an episode says: the session's date, the speaker and
// the turn, then the words, then the caption of a shared photo.
func turnText(s session, t turn) string {
	text := fmt.Sprintf("[%s] %s (%s): %s", s.label, t.Speaker, t.DiaID, t.Text)
	if t.Caption != "" {
		text += " [shared a photo: " + t.Caption + "]"
	}
	return text
}

var evidenceID = regexp.MustCompile(`^D:?(\d+):(\d+)$`)

// normalizeEvidence splits evidence strings on ';', ',' and spaces, reads
// "D:11:26" as "D11:26", drops leading zeros and keeps only turns of the
// conversation.
func normalizeEvidence(ev []string, turns map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range ev {
		for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
			m := evidenceID.FindStringSubmatch(f)
			if m == nil {
				continue
			}
			s, _ := strconv.Atoi(m[1])
			t, _ := strconv.Atoi(m[2])
			id := fmt.Sprintf("D%d:%d", s, t)
			if turns[id] && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// locomoLimit is the number of results the evaluation asks for.
const locomoLimit = 25

// question is one LoCoMo question with what it needs to be asked and
// scored.
type question struct {
	conv     int // index into the conversations' memories and indexes
	text     string
	evidence []string
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
	questions int
	turns     int
	recall    map[string][3]float64 // contender → R@5, R@10, R@25
	timings   []timing
}

// runLoCoMo loads every conversation into an engram memory (Tier 1, one
// agent per conversation, on disk under dir) and into bleve indexes (one
// per conversation, as engram keeps one database per agent; one set
// scored by BM25, one by TF-IDF), then asks every question of each, reps
// times, interleaved.
func runLoCoMo(ctx context.Context, path, dir string, reps int) (*locomoResult, error) {
	d, err := loadLoCoMo(path)
	if err != nil {
		return nil, err
	}
	res := &locomoResult{recall: map[string][3]float64{}}
	var (
		mems []*engram.Memory
		idxs = map[string][]bleve.Index{} // scoring model → one index per conversation
		qs   []question
	)
	defer func() {
		for _, m := range mems {
			m.Close()
		}
		for _, is := range idxs {
			for _, idx := range is {
				idx.Close()
			}
		}
	}()
	start := time.Now()
	for ci, c := range d {
		sessions, err := c.sessions()
		if err != nil {
			return nil, err
		}
		eps := episodes(sessions)
		turns := make(map[string]bool, len(eps))
		ids := make([]string, len(eps))
		texts := make([]string, len(eps))
		for i, e := range eps {
			turns[e.ID] = true
			ids[i], texts[i] = e.ID, e.Content
		}
		res.turns += len(eps)
		// The clock stands a day after the last session, as if the agent
		// were asked the next day.
		end := sessions[len(sessions)-1].date.Add(24 * time.Hour)
		m, err := engram.New(engram.Tier1, engram.WithDir(filepath.Join(dir, "engram")),
			engram.WithAgent(fmt.Sprintf("conv-%d", ci)), engram.WithClock(func() time.Time { return end }))
		if err != nil {
			return nil, err
		}
		mems = append(mems, m)
		if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
			return nil, fmt.Errorf("%s: %w", c.SampleID, err)
		}
		for _, scoring := range []string{index.BM25Scoring, index.TFIDFScoring} {
			idx, err := buildBleve(filepath.Join(dir, "bleve-"+scoring, fmt.Sprintf("conv-%d", ci)), scoring, ids, texts)
			if err != nil {
				return nil, fmt.Errorf("%s: bleve: %w", c.SampleID, err)
			}
			idxs[scoring] = append(idxs[scoring], idx)
		}
		for _, q := range c.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			ev := normalizeEvidence(q.Evidence, turns)
			if len(ev) == 0 {
				continue
			}
			qs = append(qs, question{conv: ci, text: q.Question, evidence: ev})
		}
	}
	res.questions, res.convs = len(qs), len(d)
	logf("locomo: %d conversations, %d turns, %d questions loaded in %s", len(d), res.turns, len(qs), time.Since(start).Round(time.Millisecond))

	ranked := map[string][][]string{}
	for _, name := range []string{"engram", "bleve BM25", "bleve TF-IDF"} {
		ranked[name] = make([][]string, len(qs))
	}
	askBleve := func(name, scoring string) contender {
		return contender{name: name, ask: func(i int) error {
			q := qs[i]
			ids, err := bleveSearch(idxs[scoring][q.conv], q.text, locomoLimit, true)
			ranked[name][i] = ids
			return err
		}}
	}
	cs := []contender{
		{name: "engram", ask: func(i int) error {
			q := qs[i]
			rs, err := mems[q.conv].Episodic().Search(ctx, engram.SearchOptions{Query: q.text, Limit: locomoLimit})
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
		askBleve("bleve BM25", index.BM25Scoring),
		askBleve("bleve TF-IDF", index.TFIDFScoring),
	}
	// Recall is read from the untimed first pass, as the evaluation asks
	// each question once; episodes record no accesses, so later passes
	// must rank the same, which is checked on the last.
	recalls := func() map[string][3]float64 {
		out := map[string][3]float64{}
		for name, r := range ranked {
			out[name] = [3]float64{recallAt(qs, r, 5), recallAt(qs, r, 10), recallAt(qs, r, 25)}
		}
		return out
	}
	var first map[string][3]float64
	if res.timings, err = measure("locomo", reps, len(qs), cs, func() error { first = recalls(); return nil }); err != nil {
		return nil, err
	}
	res.recall = first
	for name, last := range recalls() {
		if last != first[name] {
			return nil, fmt.Errorf("locomo %s: recall changed between passes: %v then %v", name, first[name], last)
		}
	}
	return res, nil
}

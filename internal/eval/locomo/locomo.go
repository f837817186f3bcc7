package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/engram-go/engram"
)

// The LoCoMo data set (Maharana et al., ACL 2024; CC BY-NC 4.0) is read
// from the shared data directory and never copied into the repository.

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

func load(path string) (dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d dataset
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
	sort.Slice(out, func(i, j int) bool { return out[i].n < out[j].n })
	return out, nil
}

// episodes turns a conversation into one episode per dialog turn. The text
// shows the session's date, the speaker, the turn and, for a shared photo,
// its caption.
func episodes(sessions []session) []engram.Episode {
	var out []engram.Episode
	for _, s := range sessions {
		for i, t := range s.turns {
			text := turnText(s, t)
			out = append(out, engram.Episode{
				ID:        t.DiaID,
				Content:   text,
				SessionID: fmt.Sprintf("session-%d", s.n),
				CreatedAt: s.date.Add(time.Duration(i) * time.Second),
			})
		}
	}
	return out
}

// turnText is what an episode says: the session's date, the speaker and
// the turn, then the words, then the caption of a shared photo.
var turnText = func(s session, t turn) string {
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
func run(ctx context.Context, d dataset, cfg engram.Config, tier engram.Tier) (*report, error) {
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
		sessions, err := c.sessions()
		if err != nil {
			return nil, err
		}
		eps := episodes(sessions)
		turns := make(map[string]bool, len(eps))
		for _, e := range eps {
			turns[e.ID] = true
		}
		// The clock stands a day after the last session, as if the agent
		// were asked the next day.
		end := sessions[len(sessions)-1].date.Add(24 * time.Hour)
		m, err := engram.New(tier, append(opts, engram.WithClock(func() time.Time { return end }))...)
		if err != nil {
			return nil, err
		}
		if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", c.SampleID, err)
		}
		for _, q := range c.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			ev := normalizeEvidence(q.Evidence, turns)
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

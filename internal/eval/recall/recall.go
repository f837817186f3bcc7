package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/engram-go/engram"
)

// dataset is testdata/recall/assistant.json: what a personal assistant
// remembers of its users, one agent each, and the questions they ask it.
type dataset struct {
	Users []user `json:"users"`
}

// user is one user's memories and questions.
type user struct {
	Agent      string      `json:"agent"`
	Facts      []fact      `json:"facts"`
	Sessions   []chat      `json:"sessions"`
	Procedures []procedure `json:"procedures"`
	Snapshots  []snapshot  `json:"snapshots"`
	Questions  []question  `json:"questions"`
}

// fact is a semantic memory.
type fact struct {
	ID         string    `json:"id"`
	Time       time.Time `json:"time"`
	Importance float64   `json:"importance"`
	Tags       []string  `json:"tags"`
	Content    string    `json:"content"`
}

// chat is a chat session: one episode per turn, each prefixed by its role.
type chat struct {
	ID       string    `json:"id"`
	Episodes []episode `json:"episodes"`
}

type episode struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Content string    `json:"content"`
}

type procedure struct {
	ID          string    `json:"id"`
	Time        time.Time `json:"time"`
	SuccessRate float64   `json:"success_rate"`
	Tags        []string  `json:"tags"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Pattern     string    `json:"pattern"`
}

// snapshot is a session snapshot; its ID is the snapshot's own, stored as
// engram.SessionSnapshot.ID.
type snapshot struct {
	ID           string           `json:"id"`
	SessionID    string           `json:"session_id"`
	StartedAt    time.Time        `json:"started_at"`
	EndedAt      time.Time        `json:"ended_at"`
	Summary      string           `json:"summary"`
	KeyDecisions []string         `json:"key_decisions"`
	Messages     []engram.Message `json:"messages"`
}

// question is asked of its user's memory; any of Answers answers it.
type question struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Answers  []string `json:"answers"`
}

// kind is the kind of a memory, and of the questions it answers.
type kind string

const (
	kindFact      kind = "fact"
	kindEpisode   kind = "episode"
	kindProcedure kind = "procedure"
	kindSnapshot  kind = "snapshot"
)

// kinds lists the kinds in the order reports show them.
var kinds = []kind{kindFact, kindEpisode, kindProcedure, kindSnapshot}

// load reads and validates a dataset. Unknown fields are errors, so that a
// misspelt one is not silently left out.
func load(path string) (dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return dataset{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d dataset
	if err := dec.Decode(&d); err != nil {
		return dataset{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := d.validate(); err != nil {
		return dataset{}, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// memories returns the kind of each of the user's memories, by ID.
func (u user) memories() map[string]kind {
	out := map[string]kind{}
	for _, f := range u.Facts {
		out[f.ID] = kindFact
	}
	for _, s := range u.Sessions {
		for _, e := range s.Episodes {
			out[e.ID] = kindEpisode
		}
	}
	for _, p := range u.Procedures {
		out[p.ID] = kindProcedure
	}
	for _, s := range u.Snapshots {
		out[s.ID] = kindSnapshot
	}
	return out
}

// texts returns the text of each of the user's memories, by ID, as a
// person reading them would see it. The verbose report shows the expected
// answers with it; a measure of a block of text (is the answer in it?)
// can look for it.
func (u user) texts() map[string]string {
	out := map[string]string{}
	for _, f := range u.Facts {
		out[f.ID] = f.Content
	}
	for _, s := range u.Sessions {
		for _, e := range s.Episodes {
			out[e.ID] = e.Content
		}
	}
	for _, p := range u.Procedures {
		out[p.ID] = p.Name + ": " + p.Description
	}
	for _, s := range u.Snapshots {
		out[s.ID] = strings.Join(append([]string{s.Summary}, s.KeyDecisions...), " ")
	}
	return out
}

// kindOf is the kind of a question: the kind of its first answer.
func (u user) kindOf(q question) kind { return u.memories()[q.Answers[0]] }

// validate checks what the harness relies on: every ID is unique in the
// whole dataset, every memory has text and a time, the turns of a chat
// come in time order, and every question has answers, each one of its own
// user's memories.
func (d dataset) validate() error {
	if len(d.Users) == 0 {
		return errors.New("no users")
	}
	c := &checker{seen: map[string]bool{}}
	for _, u := range d.Users {
		c.memories(u)
		c.questions(u)
	}
	return errors.Join(c.errs...)
}

// checker collects what validate finds wrong.
type checker struct {
	seen map[string]bool
	errs []error
}

// id checks that an ID is one word and unique in the dataset.
func (c *checker) id(where, id string) {
	switch {
	case strings.TrimSpace(id) == "" || strings.ContainsAny(id, " \t\r\n"):
		c.errs = append(c.errs, fmt.Errorf("%s: bad ID %q", where, id))
	case c.seen[id]:
		c.errs = append(c.errs, fmt.Errorf("%s: ID %q is not unique", where, id))
	}
	c.seen[id] = true
}

// check notes an error unless ok.
func (c *checker) check(ok bool, format string, args ...any) {
	if !ok {
		c.errs = append(c.errs, fmt.Errorf(format, args...))
	}
}

// memories checks the user's ID and memories.
func (c *checker) memories(u user) {
	c.id("user", u.Agent)
	for _, f := range u.Facts {
		c.id(u.Agent+" fact", f.ID)
		c.check(f.Content != "" && !f.Time.IsZero(), "%s: no content or time", f.ID)
		c.check(f.Importance > 0 && f.Importance <= 1, "%s: importance %v is not in (0, 1]", f.ID, f.Importance)
	}
	for _, s := range u.Sessions {
		c.id(u.Agent+" session", s.ID)
		for i, e := range s.Episodes {
			c.id(s.ID+" episode", e.ID)
			c.check(e.Content != "" && !e.Time.IsZero(), "%s: no content or time", e.ID)
			c.check(i == 0 || e.Time.After(s.Episodes[i-1].Time), "%s: not after the turn before it", e.ID)
			c.check(strings.HasPrefix(e.Content, "user: ") || strings.HasPrefix(e.Content, "assistant: "),
				"%s: does not start with its role", e.ID)
		}
	}
	for _, p := range u.Procedures {
		c.id(u.Agent+" procedure", p.ID)
		c.check(p.Name != "" && p.Description != "" && p.Pattern != "" && !p.Time.IsZero(), "%s: no name, description, pattern or time", p.ID)
		c.check(p.SuccessRate > 0 && p.SuccessRate <= 1, "%s: success rate %v is not in (0, 1]", p.ID, p.SuccessRate)
	}
	for _, s := range u.Snapshots {
		c.id(u.Agent+" snapshot", s.ID)
		c.check(s.SessionID != "" && s.Summary != "" && len(s.KeyDecisions) > 0, "%s: no session, summary or decisions", s.ID)
		c.check(!s.StartedAt.IsZero() && s.EndedAt.After(s.StartedAt), "%s: does not end after it starts", s.ID)
	}
}

// questions checks the user's questions: each has text and answers, each
// answer one of the user's memories, listed once.
func (c *checker) questions(u user) {
	mem := u.memories()
	for _, q := range u.Questions {
		c.id(u.Agent+" question", q.ID)
		c.check(strings.TrimSpace(q.Question) != "", "%s: no question", q.ID)
		c.check(len(q.Answers) > 0, "%s: no answers", q.ID)
		for i, a := range q.Answers {
			c.check(mem[a] != "", "%s: answer %q is not one of %s's memories", q.ID, a, u.Agent)
			c.check(!slices.Contains(q.Answers[:i], a), "%s: answer %q is listed twice", q.ID, a)
		}
	}
}

// latest returns the time of the dataset's last memory.
func (d dataset) latest() time.Time {
	var t time.Time
	later := func(u time.Time) {
		if u.After(t) {
			t = u
		}
	}
	for _, u := range d.Users {
		for _, f := range u.Facts {
			later(f.Time)
		}
		for _, s := range u.Sessions {
			for _, e := range s.Episodes {
				later(e.Time)
			}
		}
		for _, p := range u.Procedures {
			later(p.Time)
		}
		for _, s := range u.Snapshots {
			later(s.EndedAt)
		}
	}
	return t
}

// clock is the memories' clock. It stands at each memory's time while the
// memory is stored, as if the assistant had learned it then (engram stamps
// a fact's and a procedure's update time, from which recency counts, with
// the clock), and at the asking time while questions are asked.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// store writes a user's memories into m, each with the clock at its time.
func store(ctx context.Context, m *engram.Memory, u user, c *clock) error {
	for _, f := range u.Facts {
		c.set(f.Time)
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{
			ID: f.ID, Content: f.Content, Importance: f.Importance, Tags: f.Tags, Source: "user", CreatedAt: f.Time,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", f.ID, err)
		}
	}
	for _, s := range u.Sessions {
		eps := make([]engram.Episode, len(s.Episodes))
		for i, e := range s.Episodes {
			eps[i] = engram.Episode{ID: e.ID, Content: e.Content, SessionID: s.ID, CreatedAt: e.Time}
		}
		c.set(s.Episodes[len(s.Episodes)-1].Time)
		if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
			return fmt.Errorf("%s: %w", s.ID, err)
		}
	}
	for _, p := range u.Procedures {
		c.set(p.Time)
		_, err := m.Procedural().Store(ctx, engram.Procedure{
			ID: p.ID, Name: p.Name, Description: p.Description, Pattern: p.Pattern,
			SuccessRate: p.SuccessRate, Tags: p.Tags, CreatedAt: p.Time,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", p.ID, err)
		}
	}
	for _, s := range u.Snapshots {
		c.set(s.EndedAt)
		_, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{
			ID: s.ID, SessionID: s.SessionID, Summary: s.Summary, KeyDecisions: s.KeyDecisions,
			Messages: s.Messages, StartedAt: s.StartedAt, EndedAt: s.EndedAt, CreatedAt: s.EndedAt,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.ID, err)
		}
	}
	return nil
}

// hit is a memory a retriever found: its ID and, for the verbose report,
// why it ranked where it did.
type hit struct {
	ID  string
	Why string
}

// retriever answers a question from a user's memory with the memories it
// found, best first. Measuring another way of recalling (a function that
// returns a block of text for the prompt, say) takes a retriever that
// returns the memories it chose, in order, and an entry in retrievers.
type retriever func(ctx context.Context, m *engram.Memory, question string) ([]hit, error)

// retrievers are the ways of answering the harness can measure, by name.
var retrievers = map[string]retriever{
	"search":  search,
	"recall":  recall,
	"context": contextBlock,
}

// search asks [engram.Memory.Search] for its 10 best results. Each says
// why it ranked there: its score, the parts of the score, the episode it
// is the context of, and its snippet, with the words that matched the
// question in bold.
func search(ctx context.Context, m *engram.Memory, q string) ([]hit, error) {
	res, err := m.Search(ctx, engram.SearchOptions{Query: q, Limit: 10})
	if err != nil {
		return nil, err
	}
	out := make([]hit, len(res))
	for i, r := range res {
		why := fmt.Sprintf("%.3f %-10s text=%.2f importance=%.2f recency=%.2f", r.Score, r.Type, r.Parts.Text, r.Parts.Importance, r.Parts.Recency)
		if r.ContextOf != "" {
			why += " context-of=" + r.ContextOf
		}
		out[i] = hit{ID: r.ID, Why: why + "  " + clip(r.Snippet, 100)}
	}
	return out, nil
}

// recall asks [engram.Memory.Recall], which scores each kind's best
// candidates with its gate and admits the best into the working set: the
// hits are every candidate it scored, best gate first, each saying its
// gate, whether it was admitted, and the parts of its gate.
func recall(ctx context.Context, m *engram.Memory, q string) ([]hit, error) {
	r, err := m.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	var all []engram.Recalled
	for _, list := range r.ByKind {
		all = append(all, list...)
	}
	slices.SortStableFunc(all, func(a, b engram.Recalled) int {
		return cmp.Or(cmp.Compare(b.Gate.Gate, a.Gate.Gate), cmp.Compare(b.Score, a.Score), cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
	})
	out := make([]hit, len(all))
	for i, c := range all {
		why := fmt.Sprintf("gate=%.3f %-10s relevance=%.2f expected=%.2f admitted=%v", c.Gate.Gate, c.Type, c.Gate.Relevance, c.Gate.ExpectedValue, c.Admitted)
		out[i] = hit{ID: c.ID, Why: why + "  " + clip(c.Snippet, 90)}
	}
	return out, nil
}

// contextBlock asks [engram.Memory.Context] for a block of 2,000 tokens:
// the hits are the memories it shows, those recalled for the question
// first (in the block's last section, best first), then the others in the
// order of the block. answer@all says whether the answer is in the block
// at all.
func contextBlock(ctx context.Context, m *engram.Memory, q string) ([]hit, error) {
	b, err := m.Context(ctx, engram.ContextOptions{Query: q, MaxTokens: 2000})
	if err != nil {
		return nil, err
	}
	var out []hit
	secs := b.Sections
	if n := len(secs); n > 0 && strings.HasPrefix(secs[n-1].Title, "Relevant") {
		secs = append([]engram.ContextSection{secs[n-1]}, secs[:n-1]...)
	}
	for _, s := range secs {
		for _, id := range s.IDs {
			out = append(out, hit{ID: id, Why: "in section " + strconv.Quote(s.Title)})
		}
	}
	return out, nil
}

// config is the configuration every user's memory is opened with.
var config = engram.DefaultConfig()

// accessDelay is how long engram keeps the access counts of searches
// before writing them: a semantic memory's last access counts for its
// recency, so a search that wrote them would change the ranking of the
// questions after it. A run that asks one user's questions in less time
// than this writes none (the 4,096 entries that also make engram write
// are far more than a run's hits).
const accessDelay = 30 * time.Second

// run stores every user's memories in its own agent of one database file
// in dir, with the clock standing at each memory's time, then asks each
// user's questions of that user's memory with the clock a day after the
// last memory of the dataset, and reports how often an answer ranks among
// the first. A result that is not one of the user's own memories is an
// error: the agents share the file, and must not see each other's.
// verbose, when not nil, gets each question, its answers and the first
// three results.
func run(ctx context.Context, d dataset, dir, name string, ask retriever, verbose io.Writer) (*report, error) {
	c := &clock{}
	path := filepath.Join(dir, "recall.db")
	owner := map[string]string{} // memory ID → agent
	for _, u := range d.Users {
		for id := range u.memories() {
			owner[id] = u.Agent
		}
	}
	mems := make([]*engram.Memory, len(d.Users))
	defer func() {
		for _, m := range mems {
			if m != nil {
				m.Close()
			}
		}
	}()
	for i, u := range d.Users {
		m, err := engram.New(engram.Tier1, engram.WithPath(path), engram.WithAgent(u.Agent), engram.WithClock(c.now), engram.WithConfig(config))
		if err != nil {
			return nil, err
		}
		mems[i] = m
		if err := store(ctx, m, u, c); err != nil {
			return nil, fmt.Errorf("%s: %w", u.Agent, err)
		}
	}
	c.set(d.latest().Add(24 * time.Hour))

	rep := newReport(name)
	for i, u := range d.Users {
		mem, texts := u.memories(), u.texts()
		start := time.Now()
		for _, q := range u.Questions {
			hits, err := ask(ctx, mems[i], q.Question)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", q.ID, q.Question, err)
			}
			for _, h := range hits {
				if owner[h.ID] != u.Agent {
					return nil, fmt.Errorf("%s: %s's memory answered with %q, which is not one of its memories (owner %q)",
						q.ID, u.Agent, h.ID, owner[h.ID])
				}
			}
			ids := make([]string, len(hits))
			for j, h := range hits {
				ids[j] = h.ID
			}
			k := mem[q.Answers[0]] // the question's kind (see kindOf)
			var first kind
			if len(ids) > 0 {
				first = mem[ids[0]]
			}
			rep.add(k, q.Answers, ids, first)
			if verbose != nil {
				printQuestion(verbose, q, k, texts, hits)
			}
		}
		if took := time.Since(start); took >= accessDelay {
			return nil, fmt.Errorf("%s's questions took %v: engram may have written access counts meanwhile, which changes recency, so the figures would not be comparable", u.Agent, took)
		}
	}
	for _, m := range mems {
		if err := m.Close(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// printQuestion writes a question, its answers and the first three hits,
// an answer marked with "*", then where the first answer is when it is not
// among them.
func printQuestion(w io.Writer, q question, k kind, texts map[string]string, hits []hit) {
	fmt.Fprintf(w, "%s (%s) %s\n", q.ID, k, q.Question)
	for _, a := range q.Answers {
		fmt.Fprintf(w, "   want  %-24s %s\n", a, clip(texts[a], 90))
	}
	for j, h := range hits[:min(3, len(hits))] {
		mark := " "
		if slices.Contains(q.Answers, h.ID) {
			mark = "*"
		}
		fmt.Fprintf(w, "  %s%d. %-24s %s\n", mark, j+1, h.ID, h.Why)
	}
	switch at := slices.IndexFunc(hits, func(h hit) bool { return slices.Contains(q.Answers, h.ID) }); {
	case len(hits) == 0:
		fmt.Fprintln(w, "   (nothing found)")
	case at < 0:
		fmt.Fprintf(w, "   (no answer among the %d found)\n", len(hits))
	case at >= 3:
		fmt.Fprintf(w, "   (first answer at %d: %s)\n", at+1, hits[at].ID)
	}
	fmt.Fprintln(w)
}

// clip shortens s to at most n runes, quoted.
func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// ks are the ranks answers are counted at.
var ks = []int{1, 3, 10, all}

// all stands for every hit: answer@all says whether any hit answers (for
// Context, whether the answer is in the block).
const all = math.MaxInt

// report counts, per kind of question, the questions with an answer among
// the first k hits, and the kind of the first hit when it is no answer.
type report struct {
	name      string
	questions map[kind]int
	answered  map[kind][]int        // at each of ks
	wrongTop  map[kind]map[kind]int // question kind → first hit's kind ("" when nothing was found)
}

func newReport(name string) *report {
	return &report{name: name, questions: map[kind]int{}, answered: map[kind][]int{}, wrongTop: map[kind]map[kind]int{}}
}

// add counts a question of kind k with the given answers, the IDs a
// retriever ranked and the kind of the first of them.
func (r *report) add(k kind, answers, ranked []string, first kind) {
	if r.answered[k] == nil {
		r.answered[k] = make([]int, len(ks))
		r.wrongTop[k] = map[kind]int{}
	}
	r.questions[k]++
	for i, n := range ks {
		if slices.ContainsFunc(ranked[:min(n, len(ranked))], func(id string) bool { return slices.Contains(answers, id) }) {
			r.answered[k][i]++
		}
	}
	if len(ranked) == 0 || !slices.Contains(answers, ranked[0]) {
		r.wrongTop[k][first]++
	}
}

// overall returns the number of questions and the share answered at each
// of ks.
func (r *report) overall() (int, []float64) {
	n := 0
	sum := make([]float64, len(ks))
	for k, c := range r.questions {
		n += c
		for i := range ks {
			sum[i] += float64(r.answered[k][i])
		}
	}
	for i := range sum {
		sum[i] /= float64(max(n, 1))
	}
	return n, sum
}

// share returns the share of questions of kind k answered at each of ks.
func (r *report) share(k kind) []float64 {
	out := make([]float64, len(ks))
	for i := range ks {
		out[i] = float64(r.answered[k][i]) / float64(max(r.questions[k], 1))
	}
	return out
}

// cut names one of ks.
func cut(n int) string {
	if n == all {
		return "all"
	}
	return strconv.Itoa(n)
}

func (r *report) String() string {
	var b strings.Builder
	for _, k := range kinds {
		if r.questions[k] == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-9s questions=%d", k, r.questions[k])
		for i, n := range ks {
			fmt.Fprintf(&b, " answer@%s=%.3f", cut(n), r.share(k)[i])
		}
		b.WriteString("  first result when wrong:")
		for _, w := range append(slices.Clone(kinds), "") {
			if c := r.wrongTop[k][w]; c > 0 {
				name := string(w)
				if w == "" {
					name = "nothing"
				}
				fmt.Fprintf(&b, " %s=%d", name, c)
			}
		}
		b.WriteByte('\n')
	}
	n, sh := r.overall()
	fmt.Fprintf(&b, "recall %s questions=%d", r.name, n)
	for i, k := range ks {
		fmt.Fprintf(&b, " answer@%s=%.3f", cut(k), sh[i])
	}
	return b.String()
}

package engram_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/testutil"
)

var sumStart = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// sumWorld records what a test stored, to compute a summary without
// engram: each memory's kind, ID, creation time and indexed texts.
type sumWorld struct {
	mems []sumMem
}

type sumMem struct {
	kind    engram.MemoryType
	id      string
	created time.Time
	texts   []string
}

func (w *sumWorld) add(kind engram.MemoryType, id string, created time.Time, texts ...string) {
	w.mems = append(w.mems, sumMem{kind, id, created, texts})
}

// expected computes the parts of a summary that follow from the texts
// and times alone: counts, newest memories and keywords.
func (w *sumWorld) expected() ([]engram.KindSummary, []engram.Keyword) {
	var ks []engram.KindSummary
	for _, k := range engram.MemoryTypes() {
		if k == engram.TypeWorking {
			continue // not stored
		}
		s := engram.KindSummary{Type: k}
		for _, m := range w.mems {
			if m.kind != k {
				continue
			}
			s.Count++
			if m.created.After(s.LastCreatedAt) || m.created.Equal(s.LastCreatedAt) && m.id > s.LastID {
				s.LastID, s.LastCreatedAt = m.id, m.created
			}
		}
		ks = append(ks, s)
	}
	docs := map[string]int{}
	for _, m := range w.mems {
		seen := map[string]bool{}
		for _, t := range m.texts {
			for _, tok := range query.Tokens(t) {
				st := query.Stem(tok)
				if seen[st] || query.IsStopStem(st) || strings.Trim(st, "0123456789") == "" {
					continue
				}
				seen[st] = true
				docs[st]++
			}
		}
	}
	var kw []engram.Keyword
	for st, n := range docs {
		kw = append(kw, engram.Keyword{Stem: st, Memories: n})
	}
	slices.SortFunc(kw, func(a, b engram.Keyword) int {
		return cmp.Or(cmp.Compare(b.Memories, a.Memories), cmp.Compare(a.Stem, b.Stem))
	})
	if len(kw) > engram.SummaryKeywords {
		kw = kw[:engram.SummaryKeywords]
	}
	return ks, kw
}

var sumWords = strings.Fields("deploy pipeline database backup nightly kubernetes cluster migration schema rollback release canary metrics alert latency budget invoice customer ticket")

// sumSeed stores memories of every kind for m, recording them in w.
func sumSeed(t *testing.T, m *engram.Memory, w *sumWorld, clock *testutil.Clock) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 5))
	text := func(n int) string {
		var ws []string
		for range n {
			ws = append(ws, sumWords[rng.IntN(len(sumWords))])
		}
		return "the " + strings.Join(ws, " ") + fmt.Sprintf(" step %d", rng.IntN(100))
	}
	for i := range 30 {
		tags := []string{sumWords[i%len(sumWords)]}
		e := engram.SemanticEntry{Content: text(5), Importance: float64(i%11) / 10, Tags: tags,
			CreatedAt: sumStart.Add(-time.Duration(i) * 12 * time.Hour)}
		id, err := m.Semantic().Store(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		w.add(engram.TypeSemantic, id, e.CreatedAt, e.Content, fmt.Sprintf("%q", tags))
	}
	for i := range 12 {
		ep := engram.Episode{Content: text(4), Type: engram.EventToolCall, CreatedAt: sumStart.Add(-time.Duration(i) * time.Hour)}
		id, err := m.Episodic().Log(ctx, ep)
		if err != nil {
			t.Fatal(err)
		}
		w.add(engram.TypeEpisodic, id, ep.CreatedAt, ep.Content)
	}
	for i := range 3 {
		p := engram.Procedure{Name: fmt.Sprintf("deploy %s", sumWords[i]), Description: text(3), Pattern: "build; test; ship", SuccessRate: 0.5, Tags: []string{"ops"}}
		id, err := m.Procedural().Store(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Procedural().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		w.add(engram.TypeProcedural, id, got.CreatedAt, p.Name, p.Description, p.Pattern, `["ops"]`)
		clock.Advance(time.Second)
	}
	snap := engram.SessionSnapshot{SessionID: "s1", Summary: "talked about the canary release", KeyDecisions: []string{"ship the canary"},
		Messages: []engram.Message{{Role: "user", Content: "is the canary healthy"}}}
	id, err := m.Episodic().SaveSnapshot(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	w.add(engram.TypeSnapshot, id, clock.Now(), snap.Summary, "ship the canary", "is the canary healthy")
	for _, f := range []engram.Fact{
		{ID: "fact-a", Subject: "Ada", Predicate: "works at", Object: "Initech"},
		{ID: "fact-b", Subject: "the canary", Predicate: "runs in", Object: "cluster blue"},
		{ID: "fact-c", Subject: "Ada", Predicate: "likes", Object: "kubernetes"},
	} {
		as, err := m.Facts().Assert(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		w.add(engram.TypeFact, as.Fact.ID, clock.Now(), f.Subject, f.Predicate, f.Object)
	}
}

// TestSummaryCounts checks a summary against one computed from what the
// test stored: counts, newest memories, high importance, recently
// accessed (accesses pending and written) and keywords.
func TestSummaryCounts(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(sumStart)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	var w sumWorld
	sumSeed(t, m, &w, clock)

	s, err := m.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds, keywords := w.expected()
	if !reflect.DeepEqual(s.Kinds, kinds) {
		t.Errorf("Kinds = %+v\nwant %+v", s.Kinds, kinds)
	}
	if !reflect.DeepEqual(s.Keywords, keywords) {
		t.Errorf("Keywords = %+v\nwant %+v", s.Keywords, keywords)
	}
	if len(s.Keywords) != engram.SummaryKeywords {
		t.Errorf("%d keywords, want %d", len(s.Keywords), engram.SummaryKeywords)
	}
	entries, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	high, recent := 0, map[string]bool{}
	cutoff := clock.Now().Add(-engram.SummaryRecentWindow)
	for _, e := range entries {
		if e.Importance >= m.Config().Semantic.ImportanceThreshold {
			high++
		}
		if e.LastAccessedAt.After(cutoff) {
			recent[e.ID] = true
		}
	}
	if s.AgentID != "default" || s.HighImportance != high || s.RecentlyAccessed != len(recent) || s.RecentWindow != engram.SummaryRecentWindow {
		t.Errorf("summary %s: high %d, recent %d (window %v), want default: %d, %d", s.AgentID, s.HighImportance, s.RecentlyAccessed, s.RecentWindow, high, len(recent))
	}
	if high == 0 || len(recent) == 0 || len(recent) == len(entries) {
		t.Fatalf("the seed should make some entries important and some recent: %d, %d of %d", high, len(recent), len(entries))
	}

	// A search notes accesses to the entries it finds; the summary counts
	// them before they are written, and after.
	res, err := m.Semantic().Search(ctx, engram.SearchOptions{Query: "rollback invoice", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		recent[r.ID] = true
	}
	s, err = m.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.RecentlyAccessed != len(recent) {
		t.Errorf("after a search: recently accessed %d, want %d", s.RecentlyAccessed, len(recent))
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s2, err := m.Summary(ctx); err != nil || s2.RecentlyAccessed != len(recent) {
		t.Errorf("after Flush: recently accessed %d, %v, want %d", s2.RecentlyAccessed, err, len(recent))
	}

	// Time passes: the entries leave the window.
	clock.Advance(engram.SummaryRecentWindow + time.Minute)
	if s, err := m.Summary(ctx); err != nil || s.RecentlyAccessed != 0 {
		t.Errorf("a week later: recently accessed %d, %v, want 0", s.RecentlyAccessed, err)
	}

	// A returned summary is the caller's.
	s.Kinds[0].Count = -1
	s.Keywords[0].Stem = "changed"
	if again, _ := m.Summary(ctx); again.Kinds[0].Count == -1 || again.Keywords[0].Stem == "changed" {
		t.Error("changing a returned summary changed the next one")
	}
}

// TestSummaryInvalidation changes the memory in every way a summary
// counts, through this Memory and another one on the same file, and
// compares the summary after each change with one a new handle computes.
func TestSummaryInvalidation(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(sumStart)
	path := newDB(t)
	m := openOn(t, path, "agent", engram.Tier1, engram.WithClock(clock.Now))
	other := openOn(t, path, "agent", engram.Tier1, engram.WithClock(clock.Now))
	var w sumWorld
	sumSeed(t, m, &w, clock)
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := func() engram.Summary {
		t.Helper()
		f, err := tryOpenOn(t, path, "agent", engram.Tier1, engram.WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s, err := f.Summary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	prev, err := m.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := m.Summary(ctx); !reflect.DeepEqual(again, prev) {
		t.Fatalf("a second summary differs: %+v\n%+v", again, prev)
	}
	if f := fresh(); !reflect.DeepEqual(f, prev) {
		t.Fatalf("summary %+v\nwant %+v", prev, f)
	}
	var sem string
	for _, step := range []struct {
		name    string
		write   func() error
		changes bool // the step changes the summary
	}{
		{"Semantic.Store", func() error {
			var err error
			sem, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "zeppelin zeppelin", Importance: 0.2})
			return err
		}, true},
		{"Semantic.Update importance", func() error {
			v := 0.95
			_, err := m.Semantic().Update(ctx, sem, engram.SemanticPatch{Importance: &v})
			return err
		}, true},
		{"another handle's Semantic.Update importance", func() error {
			v := 0.1
			_, err := other.Semantic().Update(ctx, sem, engram.SemanticPatch{Importance: &v})
			return err
		}, true},
		{"another handle's Semantic.Store", func() error {
			_, err := other.Semantic().Store(ctx, engram.SemanticEntry{Content: "zeppelin hangar", Importance: 0.9})
			return err
		}, true},
		{"Semantic.RecordAccess", func() error {
			clock.Advance(30 * 24 * time.Hour)
			if _, err := m.Summary(ctx); err != nil { // everything has left the window
				return err
			}
			return m.Semantic().RecordAccess(ctx, sem)
		}, true},
		{"Semantic.Delete", func() error { return m.Semantic().Delete(ctx, sem) }, true},
		{"Episodic.Log", func() error {
			_, err := m.Episodic().Log(ctx, engram.Episode{Content: "zeppelin landed", Type: engram.EventToolCall})
			return err
		}, true},
		{"Procedural.Store", func() error {
			_, err := m.Procedural().Store(ctx, engram.Procedure{Name: "moor the zeppelin", Description: "zeppelin mooring", SuccessRate: 0.5})
			return err
		}, true},
		{"Snapshot", func() error {
			return m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "s2", Summary: "zeppelin talk"})
		}, true},
		{"Facts.Assert", func() error {
			_, err := m.Facts().Assert(ctx, engram.Fact{Subject: "the zeppelin", Predicate: "is in", Object: "the hangar"})
			return err
		}, true},
	} {
		if err := step.write(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got, err := m.Summary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := fresh(); !reflect.DeepEqual(got, want) {
			t.Errorf("after %s: summary %+v\nwant %+v", step.name, got, want)
		}
		if step.changes && reflect.DeepEqual(got, prev) {
			t.Errorf("%s did not change the summary: the step tests nothing", step.name)
		}
		prev = got
	}
}

// TestSummarySharedHashCollision puts two words with the same stem hash
// in one full-text index, one in each agent's memory: each agent's
// keywords hold its own word and never the other's.
func TestSummarySharedHashCollision(t *testing.T) {
	x, y := collidingStems(t)
	ctx := context.Background()
	path := newDB(t)
	a := openOn(t, path, "a", engram.Tier1)
	b := openOn(t, path, "b", engram.Tier1)
	for i := range 3 {
		if _, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("%s zulu %d", x, i), Importance: 0.5}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("%s yankee %d", y, i), Importance: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	// a holds most of the file: b's summary reads b's rows through the
	// agent's index, a's reads the whole table.
	for i := range 40 {
		if _, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("filler %d", i), Importance: 0.9}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		m          *engram.Memory
		own, other string
		entries    int
	}{{a, x, y, 43}, {b, y, x, 3}} {
		s, err := c.m.Summary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kinds[0].Count != c.entries || s.HighImportance != c.entries-3 || s.RecentlyAccessed != c.entries {
			t.Errorf("agent %s: %+v, want %d entries, %d important", c.m.AgentID(), s, c.entries, c.entries-3)
		}
		var stems []string
		for _, k := range s.Keywords {
			stems = append(stems, k.Stem)
			if k.Stem == c.own && k.Memories != 3 {
				t.Errorf("agent %s: %q in %d memories, want 3", c.m.AgentID(), k.Stem, k.Memories)
			}
		}
		if !slices.Contains(stems, c.own) || slices.Contains(stems, c.other) {
			t.Errorf("agent %s's keywords %q: want %q, never %q", c.m.AgentID(), stems, c.own, c.other)
		}
	}
}

// collidingStems finds two lowercase words, each its own Porter stem and
// no stopword, with the same bm25.Hash (a birthday search over 32 bits:
// about 100K words).
func collidingStems(t *testing.T) (string, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 11))
	seen := map[uint32]string{}
	buf := make([]byte, 7)
	for range 2_000_000 {
		for i := range buf {
			buf[i] = "bcdfghjklmnpqrstvwxz"[rng.IntN(20)]
		}
		w := string(buf)
		if query.Stem(w) != w || query.IsStopword(w) {
			continue
		}
		h := bm25.Hash(w)
		if o, ok := seen[h]; ok && o != w {
			return o, w
		}
		seen[h] = w
	}
	t.Fatal("no colliding stems found")
	return "", ""
}

// TestSummaryInMemory runs Summary on an in-memory database, where every
// read shares the writer's connection.
func TestSummaryInMemory(t *testing.T) {
	sqliteOnly(t, "SQLite's database in memory (engram.InMemory)")
	ctx := context.Background()
	m, err := engram.New(engram.Tier1, engram.InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Episodes alone: keywords, no semantic counts.
	if _, err := m.Episodic().Log(ctx, engram.Episode{Content: "zeppelin zeppelin", Type: engram.EventToolCall}); err != nil {
		t.Fatal(err)
	}
	s, err := m.Summary(ctx)
	if err != nil || s.Kinds[1].Count != 1 || s.HighImportance != 0 || !reflect.DeepEqual(s.Keywords, []engram.Keyword{{Stem: "zeppelin", Memories: 1}}) {
		t.Errorf("summary %+v, %v", s, err)
	}
	if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "only in memory zeppelin", Importance: 0.9}); err != nil {
		t.Fatal(err)
	}
	s, err = m.Summary(ctx)
	want := []engram.Keyword{{Stem: "zeppelin", Memories: 2}, {Stem: "memori", Memories: 1}}
	if err != nil || s.Kinds[0].Count != 1 || s.HighImportance != 1 || s.RecentlyAccessed != 1 || !reflect.DeepEqual(s.Keywords, want) {
		t.Errorf("summary %+v, %v", s, err)
	}
	m.Close()
	if _, err := m.Summary(ctx); err != engram.ErrClosed {
		t.Errorf("Summary after Close = %v, want ErrClosed", err)
	}
}

// TestSummaryConcurrentWriters calls Summary from several goroutines
// while others write: every summary's count is one a writer could have
// left (between what was acknowledged before the call and after it), and
// once the writers stop the summary is the one a new handle computes.
func TestSummaryConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := newDB(t)
	m := openOn(t, path, "agent", engram.Tier1)
	var stored atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("writer %d stores note %d", w, i), Importance: 0.8}); err != nil {
					errs <- err
					return
				}
				stored.Add(1)
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				lo := stored.Load()
				s, err := m.Summary(ctx)
				if err != nil {
					errs <- err
					return
				}
				hi := stored.Load()
				if n := int64(s.Kinds[0].Count); n < lo || n > hi+4 || int64(s.HighImportance) != n {
					errs <- fmt.Errorf("a summary counts %d entries (%d important), %d to %d were stored", n, s.HighImportance, lo, hi)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := m.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tryOpenOn(t, path, "agent", engram.Tier1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := f.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || got.Kinds[0].Count != 160 {
		t.Errorf("summary after the writers %+v\nwant %+v (160 entries)", got, want)
	}
}

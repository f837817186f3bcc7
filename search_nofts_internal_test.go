package engram

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// withFullText makes the Memory search with FTS5 (on) or without it,
// whatever the suite's mode (see fullTextDefault).
func withFullText(on bool) Option {
	return func(s *settings) {
		s.fullText = -1
		if on {
			s.fullText = 1
		}
	}
}

// skipWithoutFTS skips a test of what only a Memory that searches with
// FTS5 does, when the suite runs without it (ENGRAM_TEST_NOFTS=1).
func skipWithoutFTS(t *testing.T, why string) {
	t.Helper()
	if !fullTextDefault {
		t.Skip("without FTS5: " + why)
	}
}

// noFTSPair opens two Memories of one agent on one file with the same
// clock and configuration: fts searches with FTS5, as SQLite does by
// default, nofts without it, as a store without FTS5 will.
func noFTSPair(t *testing.T, tier Tier, cfg Config, now time.Time, opts ...Option) (fts, nofts *Memory) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	base := append([]Option{WithPath(path), WithConfig(cfg), WithClock(func() time.Time { return now })}, opts...)
	fts, err := New(tier, append(base, withFullText(true))...)
	if err != nil {
		t.Fatal(err)
	}
	nofts, err = New(tier, append(base, withFullText(false))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nofts.Close()
		fts.Close()
	})
	return fts, nofts
}

// sameWithoutFTS runs the search on both Memories and fails the test
// unless both fail alike (ErrInvalidQuery, or a *DatabaseError) or both
// rank the same first Limit candidates in the same order with the same
// scores and parts, to the last bit, from the same terms.
func sameWithoutFTS(t *testing.T, fts, nofts *Memory, opts SearchOptions) (results int) {
	t.Helper()
	ctx := context.Background()
	wopts, gopts := opts, opts
	var want, got ranking
	werr := fts.validateSearch(&wopts)
	if werr == nil {
		want, werr = fts.find(ctx, wopts, wopts.Limit)
	}
	gerr := nofts.validateSearch(&gopts)
	if gerr == nil {
		got, gerr = nofts.find(ctx, gopts, gopts.Limit)
	}
	if werr != nil || gerr != nil {
		var wd, gd *DatabaseError
		if errors.Is(werr, ErrInvalidQuery) != errors.Is(gerr, ErrInvalidQuery) || errors.As(werr, &wd) != errors.As(gerr, &gd) ||
			(werr == nil) != (gerr == nil) {
			t.Fatalf("%+v: without FTS5 %v, with it %v", opts, gerr, werr)
		}
		return 0
	}
	if w, g := want.search.shownTerms(), got.search.shownTerms(); !slices.Equal(w, g) {
		t.Fatalf("%+v: terms %q without FTS5, %q with it", opts, g, w)
	}
	// The index leaves out what could not be among the first Limit.
	w, g := want.ranked[:min(wopts.Limit, len(want.ranked))], got.ranked[:min(wopts.Limit, len(got.ranked))]
	if len(w) != len(g) {
		t.Fatalf("%+v: %d ranked without FTS5, %d with it", opts, len(g), len(w))
	}
	for i := range w {
		if w[i].Type != g[i].Type || w[i].ID != g[i].ID || w[i].Score != g[i].Score || w[i].Parts != g[i].Parts ||
			w[i].ContextOf != g[i].ContextOf || w[i].DialogueWith != g[i].DialogueWith {
			t.Fatalf("%+v: result %d is %s %s %v %+v via %q without FTS5, want %s %s %v %+v via %q", opts, i,
				g[i].Type, g[i].ID, g[i].Score, g[i].Parts, g[i].ContextOf, w[i].Type, w[i].ID, w[i].Score, w[i].Parts, w[i].ContextOf)
		}
	}
	return len(w)
}

// noFTSCorpus fills m's agent with memories of every kind: semantic
// entries with tags, users, sessions and metadata, episodes in sessions,
// procedures, facts that hold, ended or are still to come, snapshots and
// document chunks, created over the last months before now.
func noFTSCorpus(t *testing.T, m *Memory, now time.Time) {
	t.Helper()
	ctx := context.Background()
	words := strings.Fields(`kayak garage river tent stove lantern map compass boots rope trail summit lake cabin fire
		deploy pipeline rollback canary migrate schema index vacuum backup restore token secret deploying deployment`)
	common := []string{"the", "and", "of"}
	rng := rand.New(rand.NewPCG(32, 17))
	text := func(n int) string {
		w := make([]string, n)
		for j := range w {
			if rng.IntN(3) == 0 {
				w[j] = common[rng.IntN(len(common))]
			} else {
				w[j] = words[rng.IntN(len(words))]
			}
		}
		return strings.Join(w, " ")
	}
	ago := func() time.Time { return now.Add(-time.Duration(rng.IntN(2000)) * time.Hour) }
	tags := []string{"ops", "trip", "kayak", "home"}
	var entries []SemanticEntry
	var eps []Episode
	for i := range 400 {
		e := SemanticEntry{Content: text(3 + rng.IntN(9)), Importance: float64(rng.IntN(101)) / 100, CreatedAt: ago(),
			Tags: []string{tags[rng.IntN(len(tags))]}}
		if i%3 == 0 {
			e.UserID, e.SessionID = fmt.Sprint("u", rng.IntN(3)), fmt.Sprint("s", rng.IntN(6))
			e.Metadata = map[string]any{"team": []string{"a", "b"}[rng.IntN(2)], "n": float64(i)}
		}
		entries = append(entries, e)
		ep := Episode{Content: asking(rng, text(2+rng.IntN(10))), SessionID: fmt.Sprint("s", rng.IntN(12)), CreatedAt: ago()}
		if i%4 == 0 {
			ep.UserID = fmt.Sprint("u", rng.IntN(3))
		}
		eps = append(eps, ep)
		if i%10 == 0 {
			if _, err := m.Procedural().Store(ctx, Procedure{Name: fmt.Sprint("p", i), Description: text(6), Pattern: text(2),
				SuccessRate: rng.Float64(), Tags: []string{tags[rng.IntN(len(tags))]}}); err != nil {
				t.Fatal(err)
			}
			f := Fact{Subject: words[rng.IntN(len(words))], Predicate: "uses", Object: text(2)}
			switch i % 30 {
			case 10:
				f.ValidFrom, f.ValidTo = now.Add(-100*time.Hour), now.Add(-time.Hour) // ended
			case 20:
				f.ValidFrom = now.Add(time.Hour) // still to come
			}
			if _, err := m.Facts().Assert(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := m.Snapshot(ctx, SessionSnapshot{SessionID: fmt.Sprint("s", i), Summary: text(12), KeyDecisions: []string{text(4)},
			Messages: []Message{{Role: "user", Content: text(8)}}}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	for i := range 3 {
		md := fmt.Sprintf("# Guide %d\n\n%s\n\n## Deploy\n\n%s\n\n## Trip\n\n%s\n", i, text(20), text(25), text(15))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("g%d.md", i)), []byte(md), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Ingest(ctx, dir, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
}

// noFTSQueries are the plain queries of the comparison: rare and common
// words, one with more terms than a search keeps, one matching nothing.
var noFTSQueries = []string{
	"deploy river", "the cabin stove", "kayak", "rollback canary deploy pipeline", "deploying deployment",
	"lantern map compass boots rope trail summit lake cabin fire deploy pipeline rollback canary migrate schema index vacuum backup restore token secret kayak garage river tent stove and more words beyond",
	"zzz nothing here",
}

// noFTSAdvanced are the Advanced expressions of the comparison: every
// form of FTS5's syntax, and malformed ones.
var noFTSAdvanced = []string{
	"deploy AND river", "deploy OR kayak", "deploy NOT river", "kayak river NOT stove", `"river cabin"`, `"the deploy"`,
	`NEAR(deploy river)`, `NEAR(deploy river, 1)`, `NEAR("the cabin" stove, 3)`, `dep*`, `kay* OR riv*`, `"cabin ri"*`, `^the`, `^"the cabin"`,
	`river + cabin`, `"."`, `deploy "."`, `deploy AND "."`, `x*`, `(deploy OR kayak) AND NOT cabin`,
	`content : deploy`, `{content tags} : ops`, `tags : ops`, `-tags : kayak`, `subject : kayak`, `name : p1*`, `content : (river OR stove)`,
	// Malformed: ErrInvalidQuery on both.
	`deploy AND`, `NOT deploy`, `"unterminated`, `nosuch : deploy`, `NEAR(deploy river, x)`, `(deploy`, `deploy!`,
}

// A search without FTS5 finds what FTS5 finds, to the last bit, for every
// kind of memory, every filter (types, tags, time, user, session,
// metadata), every form of Advanced expression and its errors, under
// small posting budgets that make windows and the AND plan, whatever
// IndexMax says; and it never falls back to FTS5: the Memory without it
// prepares no statement that names a full-text index or MATCH.
func TestSearchWithoutFTSAgrees(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	cfg := DefaultConfig()
	cfg.Search.PostingBudget = 30 // common words exceed it: windows and the AND plan
	cfg.Search.Candidates = 12
	cfg.Search.IndexMax = 100 // smaller than the agent: FTS5 answers the fts side
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, nofts := noFTSPair(t, Tier1, cfg, now)
	noFTSCorpus(t, fts, now)
	if err := sqliteDB(t, nofts).ForgetStatements(); err != nil {
		t.Fatal(err)
	}
	since, until := now.Add(-900*time.Hour), now.Add(-100*time.Hour)
	variants := []SearchOptions{
		{}, {Limit: 1}, {Limit: 40}, {Threshold: 0.5},
		{Types: []MemoryType{TypeSemantic}}, {Types: []MemoryType{TypeEpisodic}}, {Types: []MemoryType{TypeProcedural}},
		{Types: []MemoryType{TypeFact}}, {Types: []MemoryType{TypeSnapshot}}, {Types: []MemoryType{TypeDocument}},
		{Tags: []string{"ops"}}, {Tags: []string{"trip", "kayak"}, Limit: 30},
		{Since: since}, {Until: until}, {Since: since, Until: until, Types: []MemoryType{TypeEpisodic}},
		{Filter: &Filter{UserID: "u1"}}, {Filter: &Filter{SessionID: "s2"}}, {Filter: &Filter{UserID: "u0", SessionID: "s1"}},
		{Filter: &Filter{Metadata: MetaEq("team", "a")}}, {Filter: &Filter{Metadata: MetaLt("n", 200.0)}, Limit: 30},
		{Filter: &Filter{Tags: []string{"home"}, Types: []MemoryType{TypeSemantic, TypeProcedural}}},
		{Filter: &Filter{Since: since, Metadata: MetaExists("team")}, Tags: []string{"ops", "home"}},
	}
	found := 0
	for _, q := range noFTSQueries {
		for _, v := range variants {
			v.Query = q
			found += sameWithoutFTS(t, fts, nofts, v)
		}
	}
	for _, q := range noFTSAdvanced {
		for _, v := range variants {
			v.Query, v.Advanced = q, true
			found += sameWithoutFTS(t, fts, nofts, v)
		}
	}
	if found == 0 {
		t.Fatal("no search found anything")
	}
	// Changes through the other connection: the index catches up, or
	// is built again in the search that needs it.
	ctx := context.Background()
	id, err := fts.Semantic().Store(ctx, SemanticEntry{Content: "a new kayak by the river cabin", Tags: []string{"trip"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range noFTSQueries[:3] {
		sameWithoutFTS(t, fts, nofts, SearchOptions{Query: q, Tags: []string{"trip"}})
	}
	if err := fts.Semantic().Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	for _, q := range noFTSQueries[:3] {
		sameWithoutFTS(t, fts, nofts, SearchOptions{Query: q, Since: since})
		sameWithoutFTS(t, fts, nofts, SearchOptions{Query: q, Advanced: true})
	}
	// The summary's keywords: the index's vocabulary with FTS5, the
	// texts without.
	want, err := fts.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nofts.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Keywords) == 0 || !slices.Equal(want.Keywords, got.Keywords) {
		t.Fatalf("keywords without FTS5 %v, with it %v", got.Keywords, want.Keywords)
	}
	noFTSStatements(t, nofts)
}

// noFTSStatements fails the test if m prepared a statement that names a
// full-text index, its vocabulary or MATCH since its statements were
// last forgotten.
func noFTSStatements(t *testing.T, m *Memory) {
	t.Helper()
	writes, reads := sqliteDB(t, m).Prepared()
	if len(writes)+len(reads) == 0 {
		t.Fatal("no statement recorded")
	}
	for _, st := range append(writes, reads...) {
		if strings.Contains(st, "_fts") || strings.Contains(st, "_vocab") || strings.Contains(strings.ToUpper(st), "MATCH") {
			t.Errorf("without FTS5, a statement names a full-text index: %s", st)
		}
	}
}

// Hybrid and vector searches without FTS5 find by text what FTS5 finds,
// memories still waiting for their vectors among them.
func TestSearchWithoutFTSAgreesHybrid(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	cfg := DefaultConfig()
	cfg.Search.PostingBudget = 30
	emb, err := NewHashingEmbedder(64)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fts, nofts := noFTSPair(t, Tier2, cfg, now, WithEmbedder(emb))
	noFTSCorpus(t, fts, now)
	if err := sqliteDB(t, nofts).ForgetStatements(); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, q := range noFTSQueries {
		for _, v := range []SearchOptions{{}, {Mode: SearchHybrid, Tags: []string{"ops"}}, {Mode: SearchVector}, {Mode: SearchText}, {Mode: SearchHybrid, Types: []MemoryType{TypeFact}}} {
			v.Query = q
			found += sameWithoutFTS(t, fts, nofts, v)
		}
	}
	for _, q := range noFTSAdvanced[:10] {
		found += sameWithoutFTS(t, fts, nofts, SearchOptions{Query: q, Advanced: true, Mode: SearchHybrid})
	}
	if found == 0 {
		t.Fatal("no search found anything")
	}
	noFTSStatements(t, nofts)
}

// Auto-linking without FTS5 makes the links FTS5 makes: a large agent's
// stores, whose links FTS5 finds while the stem index builds in the
// background, are linked from the stem index, built at once.
func TestAutoLinkWithoutFTSAgrees(t *testing.T) {
	release := holdBuilds(t) // with FTS5, the index stays unbuilt: FTS5 links
	defer release()
	texts := linkCorpus(5, stemSyncMax+100)
	later := linkCorpus(6, 40)
	links := func(on bool) []string {
		path := filepath.Join(t.TempDir(), "memory.db")
		// The agent holds more entries than the stem index is built
		// for at once before its first link.
		cfg := DefaultConfig()
		cfg.Zettelkasten.Enabled = false
		m, err := New(Tier1, WithPath(path), WithConfig(cfg), withFullText(on))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		entries := make([]SemanticEntry, len(texts))
		for i, c := range texts {
			entries[i] = SemanticEntry{ID: fmt.Sprintf("e%05d", i), Content: c}
		}
		if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if m, err = New(Tier1, WithPath(path), withFullText(on)); err != nil {
			t.Fatal(err)
		}
		if err := sqliteDB(t, m).ForgetStatements(); err != nil {
			t.Fatal(err)
		}
		for i, c := range later {
			// Near-duplicates of stored entries, and new texts.
			if i%2 == 0 {
				c = texts[i*7] + " " + c
			}
			if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: fmt.Sprintf("l%05d", i), Content: c}); err != nil {
				t.Fatal(err)
			}
		}
		m.linkDeferred() // what Close does: with FTS5, links what waited for the index
		if !on {
			noFTSStatements(t, m)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		m, err = New(Tier1, WithPath(path), withFullText(on))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		var out []string
		err = m.read(ctx, "test", func(q store.Tx) error {
			rows, err := q.Query(`SELECT source_id, target_id, link_type, strength FROM zettel_links ORDER BY 1, 2, 3`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var s, tg, typ string
				var strength float64
				if err := rows.Scan(&s, &tg, &typ, &strength); err != nil {
					return err
				}
				out = append(out, fmt.Sprintf("%s %s %s %v", s, tg, typ, strength))
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got := links(true), links(false)
	if len(want) == 0 {
		t.Fatal("no links made")
	}
	if !slices.Equal(want, got) {
		t.Fatalf("without FTS5 %d links, with it %d; first difference: %v", len(got), len(want), firstLinkDiff(got, want))
	}
}

// firstLinkDiff returns the first place a and b differ.
func firstLinkDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%d: %q, want %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d, %d", len(a), len(b))
}

package engram_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
)

// TestEnginesAgree checks that SQLite and PostgreSQL give the same
// answers on the same data (issue 32): a varied corpus of three agents is
// written on SQLite with a fixed clock, each agent is exported (with its
// history and, in Tier 2, its vectors) and the export imported into a
// fresh SQLite store and into a fresh PostgreSQL one, so that the IDs
// match; then every read of agreeReads runs on both, in the same order
// (some reads write: Recall fills the working set, searches count
// retrievals), and each answer must be the same: the same IDs in the same
// order, every field equal, floating-point fields (scores and their
// parts, importances, strengths) within 1e-9. The largest difference seen
// is logged.
//
// The reads cover every read of the conformance suite
// (internal/enginetest) and the rest of the public API's: Memory.Search
// (plain queries, Advanced expressions and malformed ones, every filter:
// Types, Tags, Since/Until, Limit, Threshold, Filter's user, session and
// metadata), Find and the Tier 2 modes (text, vector, hybrid),
// Semantic/Episodic/Procedural/Working.Search, Working.Items and Get,
// Recall and RecallWith, Context with a token budget and a filter, List
// with its cursors, Get, GetChunk and ChunksOf, Semantic.Get and List,
// Episodic.Get, Recent, Range, Today, ByTask, Snapshots and
// LatestSnapshot, Procedural.Get, GetByName, ListActive and FindByTags,
// Facts.Get, Current, AsOf, KnownAt, History, Neighbours, Paths, Reachable
// and Graph, Links.For and Traverse, Summary (its keywords), Stats,
// History and Changes, Rules.List and Match, CheckIntegrity, Export and
// ExportMarkdown, and the Store's Agents, Has and Lookup. It is skipped,
// saying why, where PostgreSQL is not installed.
func TestEnginesAgree(t *testing.T) {
	for _, tier := range []engram.Tier{engram.Tier1, engram.Tier2} {
		t.Run(tier.String(), func(t *testing.T) {
			dsn := pgDatabase(t) // skips without PostgreSQL
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			opts := []engram.Option{engram.WithClock(func() time.Time { return now })}
			if tier == engram.Tier2 {
				h, err := engram.NewHashingEmbedder(384)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, engram.WithEmbedder(h))
			}
			ctx := context.Background()
			dir := t.TempDir()
			open := func(where engram.Option) *engram.Store {
				t.Helper()
				st, err := engram.Open(tier, append([]engram.Option{where}, opts...)...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if err := st.Close(); err != nil {
						t.Error(err)
					}
				})
				return st
			}
			src := open(engram.WithPath(filepath.Join(dir, "source.db")))
			lite := open(engram.WithPath(filepath.Join(dir, "copy.db")))
			pg := open(engram.WithPostgres(dsn))
			agents := []string{"ada", "bob", "cy"}
			for i, agent := range agents {
				m, err := src.Agent(agent)
				if err != nil {
					t.Fatal(err)
				}
				agreeCorpus(t, m, now, uint64(i+1))
				if tier == engram.Tier2 {
					if err := m.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
				var file bytes.Buffer
				if err := m.Export(ctx, &file, engram.ExportOptions{Vectors: true, History: true}); err != nil {
					t.Fatal(err)
				}
				for name, st := range map[string]*engram.Store{"sqlite": lite, "postgres": pg} {
					to, err := st.Agent(agent)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := to.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{}); err != nil {
						t.Fatalf("%s: importing %s: %v", name, agent, err)
					}
					if tier == engram.Tier2 {
						if err := to.Flush(ctx); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			var d agreeDiff
			for _, agent := range agents {
				a, err := lite.Agent(agent)
				if err != nil {
					t.Fatal(err)
				}
				b, err := pg.Agent(agent)
				if err != nil {
					t.Fatal(err)
				}
				// The reads, then writes that leave both engines alike (their
				// reports compared too), then the reads again.
				reads := agreeReads(now, tier)
				phases := []struct {
					name string
					list []agreeRead
				}{{"", reads}, {"write ", agreeWrites}, {"after the writes, ", reads}}
				for _, phase := range phases {
					for _, r := range phase.list {
						if phase.name != "" && r.name == "Changes newest" {
							// Its Limit may cut a run of entries that one
							// statement recorded, in an order of each
							// engine's (see agreeHistoryOrder): the
							// engines may keep different ones.
							continue
						}
						want, werr := r.read(ctx, a)
						got, gerr := r.read(ctx, b)
						if phase.name != "" {
							want, got = agreeHistoryOrder(want), agreeHistoryOrder(got)
						}
						name := agent + ": " + phase.name + r.name
						if agreeErrClass(werr) != agreeErrClass(gerr) {
							t.Errorf("%s: SQLite's error %v, PostgreSQL's %v", name, werr, gerr)
							continue
						}
						if werr == nil {
							d.compare(t, name, reflect.ValueOf(want), reflect.ValueOf(got))
						}
					}
				}
			}
			for _, r := range agreeStoreReads {
				want, werr := r.read(ctx, lite)
				got, gerr := r.read(ctx, pg)
				if agreeErrClass(werr) != agreeErrClass(gerr) {
					t.Errorf("%s: SQLite's error %v, PostgreSQL's %v", r.name, werr, gerr)
					continue
				}
				d.compare(t, r.name, reflect.ValueOf(want), reflect.ValueOf(got))
			}
			t.Logf("%d answers compared, %d floats; the largest difference: %g (%s)", d.answers, d.floats, d.max, d.maxAt)
		})
	}
}

// agreeCorpus fills m's agent, with the fixed clock now and a random
// source seeded by seed, with memories of every kind: semantic entries
// with tags, importance, users, sessions and metadata (some updated, one
// archived), episodes in sessions that alternate a user's turns and the
// assistant's, procedures with outcomes, snapshots, facts over entities
// (some ended, one retracted, aliases), documents by Ingest, and links of
// several types.
func agreeCorpus(t *testing.T, m *engram.Memory, now time.Time, seed uint64) {
	t.Helper()
	ctx := context.Background()
	words := strings.Fields(`kayak garage river tent stove lantern map compass boots rope trail summit lake cabin fire
		deploy pipeline rollback canary migrate schema index vacuum backup restore token secret deploying deployment
		invoice billing outage coffee tea Paris London Acme`)
	common := []string{"the", "and", "of", "a"}
	rng := rand.New(rand.NewPCG(seed, 32))
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
	ago := func() time.Time { return now.Add(-time.Duration(1+rng.IntN(2000)) * time.Hour) }
	tags := []string{"ops", "trip", "kayak", "home"}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	var entries []engram.SemanticEntry
	for i := range 80 {
		e := engram.SemanticEntry{ID: fmt.Sprintf("s%02d", i), Content: text(3 + rng.IntN(9)), Importance: float64(rng.IntN(101)) / 100,
			CreatedAt: ago(), Tags: []string{tags[rng.IntN(len(tags))]}, Source: []string{"agent", "user"}[i%2]}
		if i%3 == 0 {
			e.UserID, e.SessionID = fmt.Sprint("u", rng.IntN(3)), fmt.Sprint("c", rng.IntN(4))
			e.Metadata = map[string]any{"team": []string{"a", "b"}[rng.IntN(2)], "n": float64(i)}
		}
		if i%7 == 0 {
			e.Tags = append(e.Tags, "pinned")
		}
		entries = append(entries, e)
	}
	// IDs that only byte order sorts (case, accents) at one time, and
	// texts beyond ASCII: the engines' collations must agree.
	tie := now.Add(-3 * time.Hour)
	for i, id := range []string{"Zoë", "zoe", "Émile", "emile", "ab", "Ab", "a_b", "a%b"} {
		entries = append(entries, engram.SemanticEntry{ID: id, Content: []string{"Zoë's café naïve kayak", "ZOË CAFÉ river",
			"Émile über straße deploy", "emile uber strasse deploy"}[i%4], CreatedAt: tie, Importance: 0.5, Tags: []string{"ünï", "home"}[i%2 : i%2+1]})
	}
	_, err := m.Semantic().StoreBatch(ctx, entries)
	check(err)
	for i := 0; i < 80; i += 9 {
		imp := float64(rng.IntN(101)) / 100
		content := text(6)
		_, err := m.Semantic().Update(ctx, fmt.Sprintf("s%02d", i), engram.SemanticPatch{Importance: &imp, Content: &content})
		check(err)
	}
	check(m.Semantic().RecordAccess(ctx, "s01", "s02", "s05"))
	// Archived rows whose numbers SQLite's JSON and PostgreSQL's write
	// differently (0.33333333333333331 and 0.3333333333333333, 1.0 and 1).
	third, one := 1.0/3, 1.0
	_, err = m.Semantic().Update(ctx, "s03", engram.SemanticPatch{Importance: &third})
	check(err)
	_, err = m.Semantic().Update(ctx, "s04", engram.SemanticPatch{Importance: &one})
	check(err)
	check(m.Archive(ctx, "s03", "superseded"))
	check(m.Archive(ctx, "s04", "merged"))

	// Sessions of dialogue: a user's turn, then the assistant's, a
	// minute apart, some with the same words.
	var eps []engram.Episode
	for s := range 5 {
		start := now.Add(-time.Duration(24*(5-s)) * time.Hour)
		for turn := range 10 {
			who := []string{"user", "assistant"}[turn%2]
			ep := engram.Episode{ID: fmt.Sprintf("e%d-%02d", s, turn), Content: who + ": " + text(4+rng.IntN(8)),
				SessionID: fmt.Sprint("c", s), CreatedAt: start.Add(time.Duration(turn) * time.Minute)}
			switch turn % 5 {
			case 1:
				ep.Type, ep.TaskID = engram.EventToolCall, fmt.Sprint("task-", s%2)
			case 3:
				ep.Type, ep.Cost, ep.Duration = engram.EventDecisionMade, float64(turn)/3, time.Duration(turn)*time.Second
			}
			if turn%2 == 0 {
				ep.UserID = fmt.Sprint("u", s%3)
			}
			if turn == 4 {
				ep.Metadata = map[string]string{"mood": "calm"}
			}
			eps = append(eps, ep)
		}
	}
	// Episodes of today, at the clock's hour.
	eps = append(eps, engram.Episode{ID: "today", Content: "user: the kayak trail today", SessionID: "c9", CreatedAt: now.Add(-time.Hour)})
	_, err = m.Episodic().LogBatch(ctx, eps)
	check(err)

	for i := range 8 {
		id, err := m.Procedural().Store(ctx, engram.Procedure{ID: fmt.Sprint("p", i), Name: fmt.Sprint("proc-", i), Description: text(6),
			Pattern: text(3), SuccessRate: float64(rng.IntN(101)) / 100, Tags: []string{tags[rng.IntN(len(tags))]}, CreatedAt: ago(),
			Disabled: i == 5})
		check(err)
		if i%2 == 0 {
			_, err = m.Procedural().RecordOutcome(ctx, id, i%4 == 0)
			check(err)
		}
	}

	for s := range 3 {
		_, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: fmt.Sprint("n", s), SessionID: fmt.Sprint("c", s), Summary: text(12),
			KeyDecisions: []string{text(4)}, TaskIDs: []string{fmt.Sprint("task-", s%2)},
			Messages:  []engram.Message{{Role: "user", Content: text(8)}, {Role: "assistant", Content: text(6)}},
			StartedAt: now.Add(-time.Duration(24*(5-s)) * time.Hour), EndedAt: now.Add(-time.Duration(24*(5-s)-1) * time.Hour),
			TotalCost: 0.25 * float64(s), TotalTokens: 100 * s, CreatedAt: now.Add(-time.Duration(24*(5-s)-1) * time.Hour)})
		check(err)
	}

	people := []string{"Ada", "Bob", "Cy", "Dee", "Émile", "émile"}
	places := []string{"Acme", "Paris", "London", "Globex"}
	check(m.Rules().Add(ctx, engram.ExtractionRule{Name: "likes", Pattern: `(?i)I like (\w+)`, Type: engram.TypeSemantic, Importance: 0.6,
		Tags: []string{"taste"}, Active: true}))
	check(m.Rules().Add(ctx, engram.ExtractionRule{Name: "lives", Pattern: `(?i)I live in (\w+)`, Type: engram.TypeFact,
		Subject: "user", Predicate: "lives in", Object: "$1"}))
	for i := range 16 {
		f := engram.Fact{ID: fmt.Sprint("f", i), Subject: people[i%len(people)], Predicate: []string{"works at", "lives in", "knows", "likes"}[i%4],
			Object: places[rng.IntN(len(places))], ValidFrom: ago(), Strength: float64(50+rng.IntN(51)) / 100,
			Sources: []string{fmt.Sprintf("s%02d", i)}, MemoryID: fmt.Sprintf("s%02d", i+20)}
		if f.Predicate == "knows" {
			f.Object = people[(i+1)%len(people)]
		}
		if i%5 == 4 {
			f.ValidTo = now.Add(-time.Hour)
		}
		if i == 7 {
			f.Metadata = map[string]string{"via": "chat"}
		}
		_, err := m.Facts().Assert(ctx, f)
		check(err)
	}
	_, err = m.Facts().Retract(ctx, "f2", now.Add(-2*time.Hour))
	check(err)
	check(m.Facts().Alias(ctx, "Ada", "Ada Lovelace"))
	check(m.Facts().Alias(ctx, "Acme", "ACME Corp"))

	docs := filepath.Join(t.TempDir(), "docs")
	check(os.Mkdir(docs, 0o700))
	for i := range 3 {
		md := fmt.Sprintf("# Guide %d\n\n%s\n\n## Deploy\n\n%s\n\n## Trip\n\n%s\n", i, text(20), text(25), text(15))
		check(os.WriteFile(filepath.Join(docs, fmt.Sprintf("g%d.md", i)), []byte(md), 0o600))
	}
	_, err = m.Ingest(ctx, docs, engram.IngestOptions{})
	check(err)

	for i, l := range []engram.Link{
		{SourceID: "s10", TargetID: "s11", Type: engram.LinkSupports, Strength: 0.8},
		{SourceID: "s11", TargetID: "s12", Type: engram.LinkElaborates},
		{SourceID: "s12", TargetID: "e1-03", Type: engram.LinkCausal, Strength: 0.4},
		{SourceID: "e1-03", TargetID: "p2", Type: engram.LinkSequential},
		{SourceID: "s10", TargetID: "s20", Type: engram.LinkContradicts, Strength: 0.3},
		{SourceID: "s20", TargetID: "s21", Type: engram.LinkSimilar, Strength: 0.9},
		{SourceID: "p2", TargetID: "s10", Type: engram.LinkSupports},
	} {
		l.CreatedAt = now.Add(-time.Duration(i) * time.Hour)
		check(m.Links().Add(ctx, l))
	}
}

// agreeRead is one read of an agent's memory that TestEnginesAgree runs
// on both engines.
type agreeRead struct {
	name string
	read func(ctx context.Context, m *engram.Memory) (any, error)
}

// agreeSearches are the plain queries of the comparison: rare and common
// words, names, a question, words nobody wrote.
var agreeSearches = []string{
	"kayak", "café Zoë", "ÉMILE straße", "deploy river", "the cabin stove", "rollback canary deploy pipeline", "deploying deployment",
	"Who works at Acme?", "billing outage invoice", "coffee tea", "Paris London", "zzz nothing here", "?!",
}

// agreeAdvanced are the Advanced expressions of the comparison, malformed
// ones among them (the same error on both).
var agreeAdvanced = []string{
	"deploy AND river", "deploy OR kayak", "deploy NOT river", `"river cabin"`, `NEAR(deploy river, 2)`, `dep*`,
	`(deploy OR kayak) AND NOT cabin`, `content : deploy`, `tags : ops`, `^the`, `deploy AND`, `"unterminated`, `nosuch : deploy`,
}

// agreeReads are the reads of one agent's memory that TestEnginesAgree
// compares, with the fixed clock now, in tier.
func agreeReads(now time.Time, tier engram.Tier) []agreeRead {
	var reads []agreeRead
	add := func(name string, read func(ctx context.Context, m *engram.Memory) (any, error)) {
		reads = append(reads, agreeRead{name, read})
	}
	search := func(name string, opts engram.SearchOptions) {
		add("Search "+name, func(ctx context.Context, m *engram.Memory) (any, error) { return m.Search(ctx, opts) })
	}
	week := now.Add(-7 * 24 * time.Hour)
	for _, q := range agreeSearches {
		search(fmt.Sprintf("%q", q), engram.SearchOptions{Query: q})
		search(fmt.Sprintf("%q limit 50", q), engram.SearchOptions{Query: q, Limit: 50})
	}
	for _, q := range agreeAdvanced {
		search(fmt.Sprintf("advanced %q", q), engram.SearchOptions{Query: q, Advanced: true, Limit: 30})
	}
	q := "kayak deploy river cabin Acme"
	for _, k := range []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeSnapshot,
		engram.TypeFact, engram.TypeDocument, engram.TypeWorking} {
		search("of "+string(k), engram.SearchOptions{Query: q, Types: []engram.MemoryType{k}, Limit: 40})
	}
	search("tags", engram.SearchOptions{Query: q, Tags: []string{"ops", "pinned"}, Limit: 40})
	search("since", engram.SearchOptions{Query: q, Since: week, Limit: 40})
	search("since until", engram.SearchOptions{Query: q, Since: now.Add(-60 * 24 * time.Hour), Until: week, Limit: 40})
	search("user", engram.SearchOptions{Query: q, Filter: &engram.Filter{UserID: "u1"}, Limit: 40})
	search("session", engram.SearchOptions{Query: q, Filter: &engram.Filter{SessionID: "c2"}, Limit: 40})
	search("user and session", engram.SearchOptions{Query: q, Filter: &engram.Filter{UserID: "u0", SessionID: "c0"}, Limit: 40})
	search("metadata", engram.SearchOptions{Query: q, Filter: &engram.Filter{Metadata: engram.MetaEq("team", "a")}, Limit: 40})
	search("threshold", engram.SearchOptions{Query: q, Threshold: 0.4, Limit: 40})
	search("invalid kind", engram.SearchOptions{Query: q, Types: []engram.MemoryType{"dreams"}})
	modes := []engram.SearchMode{engram.SearchText}
	if tier == engram.Tier2 {
		modes = append(modes, engram.SearchVector, engram.SearchHybrid, engram.SearchDefault)
	}
	for _, mode := range modes {
		for _, q := range []string{"kayak river", "Who works at Acme?", "deploy pipeline rollback"} {
			opts := engram.SearchOptions{Query: q, Mode: mode, Limit: 25}
			add(fmt.Sprintf("Find %s %q", mode, q), func(ctx context.Context, m *engram.Memory) (any, error) { return m.Find(ctx, opts) })
			fopts := opts
			fopts.Filter, fopts.Since = &engram.Filter{UserID: "u2"}, now.Add(-40*24*time.Hour)
			add(fmt.Sprintf("Find %s %q filtered", mode, q), func(ctx context.Context, m *engram.Memory) (any, error) { return m.Find(ctx, fopts) })
		}
	}
	if tier == engram.Tier1 {
		search("vector in Tier 1", engram.SearchOptions{Query: q, Mode: engram.SearchVector})
	}
	add("Semantic.Search", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Semantic().Search(ctx, engram.SearchOptions{Query: "kayak deploy", Limit: 20})
	})
	add("Episodic.Search", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Episodic().Search(ctx, engram.SearchOptions{Query: "river cabin tea", Limit: 20})
	})
	add("Procedural.Search", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Procedural().Search(ctx, engram.SearchOptions{Query: "deploy", Limit: 20})
	})
	add("Recall", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Recall(ctx, "What happened on the kayak trail?")
	})
	add("RecallWith filter", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.RecallWith(ctx, engram.RecallOptions{Query: "deploy rollback", Filter: &engram.Filter{UserID: "u1"}})
	})
	add("Working.Search", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Working().Search(ctx, engram.SearchOptions{Query: "kayak deploy"})
	})
	add("Working.Items and Get", func(ctx context.Context, m *engram.Memory) (any, error) {
		items, err := m.Working().Items()
		if err != nil || len(items) == 0 {
			return items, err
		}
		first, err := m.Working().Get(items[0].ID)
		return []any{items, first}, err
	})
	add("Rules.List", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Rules().List(ctx) })
	add("Rules.Match", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Rules().Match(ctx, []engram.Message{{Role: "user", Content: "I like tea and I live in Paris"}})
	})
	add("Context", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Context(ctx, engram.ContextOptions{Query: "kayak river", MaxTokens: 400})
	})
	add("Context small", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Context(ctx, engram.ContextOptions{Query: "deploy", MaxTokens: 60})
	})
	add("Context filtered", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Context(ctx, engram.ContextOptions{Query: "deploy cabin", MaxTokens: 300, Filter: &engram.Filter{SessionID: "c1"}})
	})
	for name, mq := range map[string]engram.MemoryQuery{
		"all":       {Limit: 25},
		"semantic":  {Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 30},
		"tags":      {Tags: []string{"trip", "pinned"}, Limit: 10},
		"window":    {Since: now.Add(-30 * 24 * time.Hour), Until: week, Limit: 20},
		"user":      {Filter: &engram.Filter{UserID: "u2"}, Limit: 7},
		"session":   {Filter: &engram.Filter{SessionID: "c3"}, Limit: 4},
		"metadata":  {Filter: &engram.Filter{Metadata: engram.MetaEq("team", "b")}},
		"documents": {Types: []engram.MemoryType{engram.TypeDocument, engram.TypeFact, engram.TypeSnapshot}, Limit: 9},
		"unicode":   {Tags: []string{"ünï"}, Limit: 2},
	} {
		add("List "+name, func(ctx context.Context, m *engram.Memory) (any, error) {
			mq := mq // each engine pages from the start
			var pages []engram.MemoryPage
			for len(pages) < 100 {
				page, err := m.List(ctx, mq)
				if err != nil {
					return nil, err
				}
				pages = append(pages, page)
				if page.Next == "" {
					break
				}
				mq.Cursor = page.Next
			}
			return pages, nil
		})
	}
	for _, id := range []string{"s00", "s03", "s09", "e2-03", "p1", "n1", "f3", "nosuch"} {
		add("Get "+id, func(ctx context.Context, m *engram.Memory) (any, error) { return m.Get(ctx, id) })
		add("History "+id, func(ctx context.Context, m *engram.Memory) (any, error) { return m.History(ctx, id) })
	}
	add("Semantic.Get", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Semantic().Get(ctx, "s18") })
	add("Semantic.List", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Semantic().List(ctx, engram.ListOptions{Limit: 30, Offset: 5})
	})
	add("Semantic.List user", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Semantic().List(ctx, engram.ListOptions{Filter: &engram.Filter{UserID: "u1"}})
	})
	add("Episodic.Get", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Episodic().Get(ctx, "e4-01") })
	add("Episodic.Recent", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Episodic().Recent(ctx, 12) })
	add("Episodic.Range", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Episodic().Range(ctx, now.Add(-80*time.Hour), now.Add(-40*time.Hour))
	})
	add("Episodic.Today", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Episodic().Today(ctx) })
	add("Episodic.ByTask", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Episodic().ByTask(ctx, "task-1") })
	add("Episodic.Snapshots", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Episodic().Snapshots(ctx, "c1") })
	add("Episodic.LatestSnapshot", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Episodic().LatestSnapshot(ctx, "c2")
	})
	add("Procedural.Get", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Procedural().Get(ctx, "p4") })
	add("Procedural.GetByName", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Procedural().GetByName(ctx, "proc-6")
	})
	add("Procedural.ListActive", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Procedural().ListActive(ctx, 20) })
	add("Procedural.FindByTags", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Procedural().FindByTags(ctx, []string{"ops", "trip"}, 20)
	})
	add("ChunksOf", func(ctx context.Context, m *engram.Memory) (any, error) {
		chunks, err := m.List(ctx, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeDocument}, Limit: 1})
		if err != nil || len(chunks.Records) == 0 {
			return nil, fmt.Errorf("no document chunk: %v", err)
		}
		c := chunks.Records[0].Document
		one, err := m.GetChunk(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		all, err := m.ChunksOf(ctx, c.Source)
		return []any{one, all}, err
	})
	fq := engram.FactQuery{Entity: "Ada"}
	add("Facts.Get", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Facts().Get(ctx, "f5") })
	add("Facts.Current", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Facts().Current(ctx, fq) })
	add("Facts.Current all", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().Current(ctx, engram.FactQuery{})
	})
	add("Facts.Current alias", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().Current(ctx, engram.FactQuery{Entity: "ACME Corp", Predicate: "works at"})
	})
	add("Facts.AsOf", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().AsOf(ctx, now.Add(-500*time.Hour), engram.FactQuery{})
	})
	add("Facts.KnownAt", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().KnownAt(ctx, now.Add(-30*time.Minute), fq)
	})
	add("Facts.History", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().History(ctx, "Bob", "lives in")
	})
	add("Facts.Neighbours", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Facts().Neighbours(ctx, fq) })
	add("Facts.Paths", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().Paths(ctx, "Ada", "Paris", 4)
	})
	add("Facts.Reachable", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Facts().Reachable(ctx, "Bob", 3) })
	add("Facts.Current accents", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().Current(ctx, engram.FactQuery{Entity: "ÉMILE"})
	})
	add("Facts.Graph", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().Graph(ctx, engram.GraphOptions{Center: "Ada", Depth: 2})
	})
	add("Facts.Graph history", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Facts().Graph(ctx, engram.GraphOptions{History: true})
	})
	add("Links.For", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Links().For(ctx, "s11") })
	add("Links.Traverse", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Links().Traverse(ctx, "s10", 3) })
	add("Summary", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Summary(ctx) })
	add("Stats", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Stats(ctx) })
	add("Changes", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Changes(ctx, engram.ChangeQuery{Limit: 1000})
	})
	add("Changes newest", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Changes(ctx, engram.ChangeQuery{Newest: true, Limit: 20})
	})
	add("CheckIntegrity", func(ctx context.Context, m *engram.Memory) (any, error) { return nil, m.CheckIntegrity(ctx) })
	add("ExportMarkdown", func(ctx context.Context, m *engram.Memory) (any, error) { return m.ExportMarkdown(ctx) })
	add("Export", func(ctx context.Context, m *engram.Memory) (any, error) {
		var b bytes.Buffer
		err := m.Export(ctx, &b, engram.ExportOptions{Vectors: true, History: true})
		return strings.Split(b.String(), "\n"), err // a difference names its line
	})
	return reads
}

// agreeHistoryOrder returns a read's answer with what the engines may
// write differently in the history of a write to many rows left out:
// the entries' Seq (PostgreSQL's sequence leaves gaps where SQLite's
// rowids do not), and the order of the entries one statement recorded
// (the order it visited its rows: SQLite's is the rowid's, PostgreSQL's
// the heap's). A run of entries (or of an export's history lines) of the
// same operation, actor, reason and time is sorted by kind and ID; runs
// keep their order. Other answers are returned as they are.
func agreeHistoryOrder(v any) any {
	switch x := v.(type) {
	case []engram.HistoryEntry:
		out := slices.Clone(x)
		for i := range out {
			out[i].Seq = 0
		}
		sortRuns(out, func(a, b engram.HistoryEntry) bool {
			return a.Op == b.Op && a.Actor == b.Actor && a.Reason == b.Reason && a.At.Equal(b.At)
		}, func(a, b engram.HistoryEntry) int {
			return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID), bytes.Compare(a.Before, b.Before), bytes.Compare(a.After, b.After))
		})
		return out
	case []string: // an export's lines
		type line struct {
			text string
			hist bool
			row  struct {
				Op, Actor, Reason string
				At                int64
			}
		}
		lines := make([]line, len(x))
		for i, l := range x {
			lines[i].text = l
			var rec struct {
				Type string `json:"type"`
				Row  struct {
					Op     string `json:"op"`
					Actor  string `json:"actor"`
					Reason string `json:"reason"`
					At     int64  `json:"at"`
				} `json:"row"`
			}
			if json.Unmarshal([]byte(l), &rec) == nil && rec.Type == "history" {
				lines[i].hist = true
				lines[i].row.Op, lines[i].row.Actor, lines[i].row.Reason, lines[i].row.At = rec.Row.Op, rec.Row.Actor, rec.Row.Reason, rec.Row.At
			}
		}
		sortRuns(lines, func(a, b line) bool { return a.hist && b.hist && a.row == b.row }, func(a, b line) int { return strings.Compare(a.text, b.text) })
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = l.text
		}
		return out
	}
	return v
}

// sortRuns sorts by cmp each run of consecutive elements of s that same
// says are alike.
func sortRuns[T any](s []T, same func(a, b T) bool, cmp func(a, b T) int) {
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && same(s[i], s[j]) {
			j++
		}
		slices.SortStableFunc(s[i:j], cmp)
		i = j
	}
}

// agreeWrites are writes that TestEnginesAgree makes on both engines
// between two rounds of reads: each must leave both alike (none makes an
// ID of its own, which would differ), and report the same.
var agreeWrites = []agreeRead{
	{"Decay", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Decay(ctx) }},
	{"Restore", func(ctx context.Context, m *engram.Memory) (any, error) { return nil, m.Restore(ctx, "s03") }},
	{"Forget", func(ctx context.Context, m *engram.Memory) (any, error) { return nil, m.Forget(ctx, "s05") }},
	{"ForgetUser", func(ctx context.Context, m *engram.Memory) (any, error) { return m.ForgetUser(ctx, "u2") }},
	{"ForgetMatching", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.ForgetMatching(ctx, engram.Filter{SessionID: "c3"})
	}},
	{"Links.Remove", func(ctx context.Context, m *engram.Memory) (any, error) {
		return nil, m.Links().Remove(ctx, "s10", "s11", engram.LinkSupports)
	}},
	{"Procedural.Delete", func(ctx context.Context, m *engram.Memory) (any, error) { return nil, m.Procedural().Delete(ctx, "p7") }},
	{"Procedural.RecordOutcome", func(ctx context.Context, m *engram.Memory) (any, error) {
		return m.Procedural().RecordOutcome(ctx, "p1", true)
	}},
	{"Semantic.Update", func(ctx context.Context, m *engram.Memory) (any, error) {
		content, tags := "the kayak club moved to the lake cabin", []string{"trip", "pinned"}
		return m.Semantic().Update(ctx, "s12", engram.SemanticPatch{Content: &content, Tags: &tags})
	}},
	{"Episodic.Prune", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Episodic().Prune(ctx, 3) }},
	{"Compact", func(ctx context.Context, m *engram.Memory) (any, error) { return m.Compact(ctx) }},
}

// agreeStoreReads are the reads of a whole Store that TestEnginesAgree
// compares.
var agreeStoreReads = []struct {
	name string
	read func(ctx context.Context, st *engram.Store) (any, error)
}{
	{"Agents", func(ctx context.Context, st *engram.Store) (any, error) { return st.Agents(ctx) }},
	{"Has", func(ctx context.Context, st *engram.Store) (any, error) {
		a, err := st.Has(ctx, "bob")
		if err != nil {
			return nil, err
		}
		b, err := st.Has(ctx, "nobody")
		return []bool{a, b}, err
	}},
	{"Lookup", func(ctx context.Context, st *engram.Store) (any, error) {
		m, err := st.Lookup(ctx, "cy")
		if err != nil {
			return nil, err
		}
		return m.AgentID(), nil
	}},
}

// agreeErrClass is what must be alike of two engines' errors: none, or
// the sentinel or type it matches. The texts may differ: SQLite's driver
// wraps an FTS5 query's error in its own words.
func agreeErrClass(err error) string {
	var dbErr *engram.DatabaseError
	for _, s := range []error{engram.ErrInvalidQuery, engram.ErrTierUnsupported, engram.ErrNotFound, engram.ErrInvalid} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	switch {
	case err == nil:
		return "no error"
	case errors.As(err, &dbErr):
		return "a *DatabaseError"
	}
	return "another error"
}

// agreeDiff compares two answers field by field and keeps the largest
// difference of the floating-point numbers in them.
type agreeDiff struct {
	answers, floats int
	max             float64
	maxAt           string
}

// agreeTolerance is how far two floating-point numbers of an answer may
// differ.
const agreeTolerance = 1e-9

// compare fails t at the first difference between want (SQLite's answer)
// and got (PostgreSQL's), naming the read and the path to the field.
func (d *agreeDiff) compare(t *testing.T, name string, want, got reflect.Value) {
	t.Helper()
	d.answers++
	if at, why := d.walk(name, want, got); at != "" {
		t.Errorf("%s: at %s: %s", name, at, why)
	}
}

var timeType = reflect.TypeFor[time.Time]()

// walk returns where want and got first differ, and how ("" when they
// agree). Unexported fields are not compared.
func (d *agreeDiff) walk(name string, want, got reflect.Value) (at, why string) {
	if want.IsValid() != got.IsValid() {
		return ".", fmt.Sprintf("SQLite %v, PostgreSQL %v", want, got)
	}
	if !want.IsValid() {
		return "", ""
	}
	if want.Type() != got.Type() {
		return ".", fmt.Sprintf("SQLite's %s, PostgreSQL's %s", want.Type(), got.Type())
	}
	if want.Type() == timeType {
		w, g := want.Interface().(time.Time), got.Interface().(time.Time)
		if !w.Equal(g) {
			return ".", fmt.Sprintf("SQLite %v, PostgreSQL %v", w, g)
		}
		return "", ""
	}
	switch want.Kind() {
	case reflect.Float32, reflect.Float64:
		w, g := want.Float(), got.Float()
		diff := math.Abs(w - g)
		if w == g {
			diff = 0
		}
		d.floats++
		if diff > d.max || math.IsNaN(diff) {
			d.max, d.maxAt = diff, name
		}
		if !(diff <= agreeTolerance) {
			return ".", fmt.Sprintf("SQLite %v, PostgreSQL %v (%g apart)", w, g, diff)
		}
	case reflect.Pointer, reflect.Interface:
		if want.IsNil() != got.IsNil() {
			return ".", fmt.Sprintf("SQLite %v, PostgreSQL %v", want, got)
		}
		if !want.IsNil() {
			return d.walk(name, want.Elem(), got.Elem())
		}
	case reflect.Struct:
		for i := range want.NumField() {
			f := want.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if at, why := d.walk(name, want.Field(i), got.Field(i)); at != "" {
				return "." + f.Name + strings.TrimPrefix(at, "."), why
			}
		}
	case reflect.Slice, reflect.Array:
		if want.Kind() == reflect.Slice && want.IsNil() != got.IsNil() && (want.Len() != 0 || got.Len() != 0) {
			return ".", fmt.Sprintf("SQLite %v, PostgreSQL %v", want, got)
		}
		n := min(want.Len(), got.Len())
		for i := range n {
			if at, why := d.walk(name, want.Index(i), got.Index(i)); at != "" {
				return fmt.Sprintf("[%d]%s", i, strings.TrimPrefix(at, ".")), why
			}
		}
		if want.Len() != got.Len() {
			return ".", fmt.Sprintf("SQLite's %d elements, PostgreSQL's %d", want.Len(), got.Len())
		}
	case reflect.Map:
		if want.Len() != got.Len() {
			return ".", fmt.Sprintf("SQLite %v, PostgreSQL %v", want, got)
		}
		for _, k := range want.MapKeys() {
			g := got.MapIndex(k)
			if !g.IsValid() {
				return fmt.Sprintf("[%v]", k), "missing on PostgreSQL"
			}
			if at, why := d.walk(name, want.MapIndex(k), g); at != "" {
				return fmt.Sprintf("[%v]%s", k, strings.TrimPrefix(at, ".")), why
			}
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		// Not data.
	default:
		if want.Interface() != got.Interface() {
			return ".", fmt.Sprintf("SQLite %#v, PostgreSQL %#v", want.Interface(), got.Interface())
		}
	}
	return "", ""
}

package engram_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func triples(list []engram.Fact) []string {
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.String()
	}
	return out
}

func TestAssertMergesSupersedesInserts(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	facts := m.Facts()

	a, err := facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "timezone", Object: "Europe/London", Sources: []string{"user"}})
	require.NoError(t, err)
	assert.Equal(t, engram.FactInserted, a.Action)
	london := a.Fact

	clock.Advance(24 * time.Hour)
	a, err = facts.Assert(ctx, engram.Fact{Subject: " ada ", Predicate: "Time zone", Object: "europe/london", Sources: []string{"chat"}})
	require.NoError(t, err)
	assert.Equal(t, engram.FactMerged, a.Action, "the same fact, without case or spacing differences and by a synonym")
	assert.Equal(t, london.ID, a.Fact.ID)
	assert.Equal(t, 2.0, a.Fact.Strength)
	assert.Equal(t, []string{"user", "chat"}, a.Fact.Sources)

	clock.Advance(24 * time.Hour)
	moved := clock.Now()
	a, err = facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "timezone", Object: "America/New_York"})
	require.NoError(t, err)
	assert.Equal(t, engram.FactSuperseded, a.Action)
	require.Len(t, a.Superseded, 1)
	assert.Equal(t, london.ID, a.Superseded[0].ID)
	assert.Equal(t, moved, a.Superseded[0].ValidTo, "the old fact ends where the new one starts")
	assert.Equal(t, moved, a.Superseded[0].ExpiredAt, "and is retired, not deleted")

	// A predicate of many values keeps them all.
	for _, food := range []string{"pizza", "sushi", "Pizza"} {
		_, err := facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "likes", Object: food})
		require.NoError(t, err)
	}
	cur, err := facts.Current(ctx, engram.FactQuery{Entity: "ADA"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada likes pizza", "Ada likes sushi", "Ada timezone America/New_York"}, triples(cur))

	old, err := facts.AsOf(ctx, date(2026, 1, 2), engram.FactQuery{Entity: "Ada", Predicate: "timezone"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada timezone Europe/London"}, triples(old))

	hist, err := facts.History(ctx, "Ada", "timezone")
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada timezone Europe/London", "Ada timezone America/New_York"}, triples(hist))

	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, st.Facts)

	res, err := m.Search(ctx, engram.SearchOptions{Query: "Which timezone is Ada in?"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, engram.TypeFact, res[0].Type)
	assert.Equal(t, "Ada timezone America/New_York", res[0].Content, "search finds the fact that holds, not the one that ended")
	for _, r := range res {
		assert.NotContains(t, r.Content, "Europe/London")
	}
}

func TestAssertBackdatedSlotsIntoTimeline(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	facts := m.Facts()
	assert := func(obj string, from time.Time) engram.Assertion {
		t.Helper()
		a, err := facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: obj, ValidFrom: from})
		require.NoError(t, err)
		return a
	}
	assert("London", date(2020, 1, 1))
	a := assert("Paris", date(2019, 1, 1)) // before London: ends where London starts
	require.Equal(t, engram.FactInserted, a.Action)
	require.Equal(t, date(2020, 1, 1), a.Fact.ValidTo)
	a = assert("Berlin", date(2022, 1, 1))
	require.Equal(t, engram.FactSuperseded, a.Action)
	a = assert("Rome", date(2021, 1, 1)) // between London and Berlin
	require.Equal(t, engram.FactSuperseded, a.Action)
	require.Equal(t, date(2022, 1, 1), a.Fact.ValidTo)
	a = assert("Berlin", date(2021, 6, 1)) // Berlin began earlier than thought
	require.Equal(t, engram.FactSuperseded, a.Action)
	require.Equal(t, date(2021, 6, 1), a.Fact.ValidFrom)

	want := map[time.Time]string{
		date(2018, 6, 1): "",
		date(2019, 6, 1): "Paris",
		date(2020, 6, 1): "London",
		date(2021, 3, 1): "Rome",
		date(2021, 7, 1): "Berlin",
		date(2025, 1, 1): "Berlin",
	}
	for at, city := range want {
		got, err := facts.AsOf(ctx, at, engram.FactQuery{Entity: "ada", Predicate: "resides in"})
		require.NoError(t, err)
		if city == "" {
			require.Empty(t, got, "%v", at)
			continue
		}
		require.Len(t, got, 1, "%v: %v", at, triples(got))
		require.Equal(t, city, got[0].Object, "%v", at)
	}
	testutil.CheckAndClose(t, m)
}

func TestFactsBadInputWritesNothing(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	facts := m.Facts()
	long := strings.Repeat("x", 2000)
	for name, f := range map[string]engram.Fact{
		"empty subject":      {Predicate: "likes", Object: "tea"},
		"empty predicate":    {Subject: "Ada", Object: "tea"},
		"empty object":       {Subject: "Ada", Predicate: "likes", Object: "  "},
		"long object":        {Subject: "Ada", Predicate: "likes", Object: long},
		"invalid UTF-8":      {Subject: "Ada\xff", Predicate: "likes", Object: "tea"},
		"two lines":          {Subject: "Ada", Predicate: "likes", Object: "tea\ncoffee"},
		"wordless predicate": {Subject: "Ada", Predicate: "→", Object: "tea"},
		"ValidTo first":      {Subject: "Ada", Predicate: "likes", Object: "tea", ValidFrom: date(2020, 1, 1), ValidTo: date(2019, 1, 1)},
		"NaN strength":       {Subject: "Ada", Predicate: "likes", Object: "tea", Strength: nan()},
		"negative strength":  {Subject: "Ada", Predicate: "likes", Object: "tea", Strength: -1},
	} {
		_, err := facts.Assert(ctx, f)
		assert.ErrorIs(t, err, engram.ErrInvalid, name)
	}
	_, err := facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "likes", Object: "tea", MemoryID: "01NOPE"})
	assert.ErrorIs(t, err, engram.ErrNotFound, "a MemoryID that is none of the agent's memories")
	_, err = facts.AssertAll(ctx, []engram.Fact{{Subject: "Ada", Predicate: "likes", Object: "tea"}, {Subject: "Ada"}})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Facts, "nothing was written")

	_, err = facts.Retract(ctx, "01NOPE", time.Time{})
	assert.ErrorIs(t, err, engram.ErrNotFound)
	_, err = facts.Current(ctx, engram.FactQuery{Direction: "sideways"})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	testutil.CheckAndClose(t, m)
}

func TestRetractAliasDeleteAndEvidence(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	facts := m.Facts()

	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada said she works at Initech."})
	require.NoError(t, err)
	a, err := facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "is employed by", Object: "Initech", MemoryID: id})
	require.NoError(t, err)
	assert.Equal(t, []string{id}, a.Fact.Sources)
	links, err := m.Links().For(ctx, id)
	require.NoError(t, err)
	require.Len(t, links, 1, "the memory a fact came from links to it")
	assert.Equal(t, engram.TypeFact, links[0].TargetType)
	assert.Equal(t, a.Fact.ID, links[0].TargetID)

	require.NoError(t, facts.Alias(ctx, "Ada Lovelace", "ada"))
	got, err := facts.Current(ctx, engram.FactQuery{Entity: "ada lovelace", Predicate: "works at"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada is employed by Initech"}, triples(got), "an alias names the same entity")

	clock.Advance(time.Hour)
	ended, err := facts.Retract(ctx, a.Fact.ID, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, clock.Now(), ended.ValidTo)
	_, err = facts.Retract(ctx, a.Fact.ID, time.Time{})
	assert.ErrorIs(t, err, engram.ErrInvalid, "a fact ends once")
	got, err = facts.Current(ctx, engram.FactQuery{})
	require.NoError(t, err)
	assert.Empty(t, got)

	require.NoError(t, facts.Delete(ctx, a.Fact.ID))
	links, err = m.Links().For(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, links, "a deleted fact takes its links")
	assert.True(t, errors.Is(facts.Delete(ctx, a.Fact.ID), engram.ErrNotFound))
	testutil.CheckAndClose(t, m)
}

func TestMarkdownListsFactsThatHold(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	cfg := engram.DefaultConfig()
	cfg.Semantic.MaxMarkdownLines = 13
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now), engram.WithConfig(cfg))
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy runs from CI only.", Importance: 0.9})
	require.NoError(t, err)
	_, err = m.Facts().AssertAll(ctx, []engram.Fact{
		{Subject: "Ada", Predicate: "lives in", Object: "London", ValidFrom: date(2020, 1, 1)},
		{Subject: "Ada", Predicate: "lives in", Object: "Paris", ValidFrom: date(2025, 6, 1)},
		{Subject: "Ada", Predicate: "likes", Object: "tea | coffee", Strength: 2},
		{Subject: "Bob", Predicate: "likes", Object: "chess"},
	})
	require.NoError(t, err)
	res, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	want := `# Memory of agent "default"

<!-- engram memory.md v1: generated from the database; edits to its entries are read back. All 1 entry. All 3 facts that hold. -->

- (0.90) The deploy runs from CI only. <!-- id:<id> -->

## Facts

- Ada | likes | tea \| coffee (since 2026-01-01, strength 2) <!-- fact:<id> -->
- Ada | lives in | Paris (since 2025-06-01) <!-- fact:<id> -->
- Bob | likes | chess (since 2026-01-01) <!-- fact:<id> -->
`
	assert.Equal(t, want, ulidRE.ReplaceAllString(res.SemanticContext, "<id>"))

	// Three more facts than the lines hold: the strongest stay.
	_, err = m.Facts().AssertAll(ctx, []engram.Fact{
		{Subject: "Cy", Predicate: "likes", Object: "jazz"},
		{Subject: "Di", Predicate: "likes", Object: "golf"},
		{Subject: "Ed", Predicate: "likes", Object: "rain"},
	})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	res, err = m.Bootstrap(ctx)
	require.NoError(t, err)
	text := ulidRE.ReplaceAllString(res.SemanticContext, "<id>")
	assert.Contains(t, text, "All 1 entry. The 5 strongest of 6 facts that hold.")
	assert.Contains(t, text, "Ada | likes | tea")
	assert.Len(t, strings.Split(strings.TrimSuffix(text, "\n"), "\n"), 13)
}

func TestRecallAndContextFindFacts(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	_, err := m.Facts().AssertAll(ctx, []engram.Fact{
		{Subject: "Ada", Predicate: "timezone", Object: "Europe/London", ValidFrom: date(2024, 1, 1)},
		{Subject: "Ada", Predicate: "timezone", Object: "America/New_York", ValidFrom: date(2025, 1, 1)},
		{Subject: "Ada", Predicate: "likes", Object: "green tea"},
	})
	require.NoError(t, err)
	rec, err := m.Recall(ctx, "What timezone is Ada in?")
	require.NoError(t, err)
	require.NotEmpty(t, rec.ByKind[engram.TypeFact])
	assert.Equal(t, "Ada timezone America/New_York", rec.ByKind[engram.TypeFact][0].Content)
	for _, r := range rec.ByKind[engram.TypeFact] {
		assert.NotContains(t, r.Content, "London", "a fact that ended is not recalled")
	}

	block, err := m.Context(ctx, engram.ContextOptions{Query: "green tea"})
	require.NoError(t, err)
	assert.Contains(t, block.Text, "## Facts\n")
	assert.Contains(t, block.Text, "- Ada timezone America/New_York (since 2025-01-01)")
	assert.NotContains(t, block.Text, "Europe/London")
	var types []engram.MemoryType
	for _, s := range block.Sections {
		types = append(types, s.Type)
	}
	assert.Contains(t, types, engram.TypeFact)
	testutil.CheckAndClose(t, m)
}

// meaningEmbedder embeds some texts as others, as a model that knows
// they mean the same would.
type meaningEmbedder struct {
	*engram.HashingEmbedder
	same map[string]string
}

func (e meaningEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	as := make([]string, len(texts))
	for i, t := range texts {
		as[i] = t
		if s, ok := e.same[t]; ok {
			as[i] = s
		}
	}
	return e.HashingEmbedder.Embed(ctx, as)
}

func TestTier2MatchesPredicatesByEmbedding(t *testing.T) {
	h, err := engram.NewHashingEmbedder(64)
	require.NoError(t, err)
	e := meaningEmbedder{HashingEmbedder: h, same: map[string]string{"is co-founder of": "cofounded", "started": "cofounded"}}
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	ctx := context.Background()
	facts := m.Facts()
	_, err = facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "cofounded", Object: "Initech"})
	require.NoError(t, err)
	a, err := facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "is co-founder of", Object: "initech"})
	require.NoError(t, err)
	assert.Equal(t, engram.FactMerged, a.Action, "the embedder says the predicates mean the same")
	a, err = facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "visited", Object: "Initech"})
	require.NoError(t, err)
	assert.Equal(t, engram.FactInserted, a.Action, "a predicate far from the known ones stays apart")
	a, err = facts.Assert(ctx, engram.Fact{Subject: "Bob", Predicate: "started", Object: "Initech"})
	require.NoError(t, err)
	assert.Equal(t, engram.FactInserted, a.Action, "only the subject's own predicates are matched")

	cfg := engram.DefaultConfig()
	cfg.Facts.PredicateSimilarity = 0
	off := newMemory(t, engram.Tier2, engram.WithEmbedder(e), engram.WithConfig(cfg))
	_, err = off.Facts().Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "cofounded", Object: "Initech"})
	require.NoError(t, err)
	a, err = off.Facts().Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "is co-founder of", Object: "Initech"})
	require.NoError(t, err)
	assert.Equal(t, engram.FactInserted, a.Action, "matching by embedding turned off")
	testutil.CheckAndClose(t, m)
}

func TestConcurrentAssertionsKeepOneValue(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	cities := []string{"London", "Paris", "Rome", "Berlin", "Oslo"}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			var err error
			for i := range 25 {
				city := cities[(g+i)%len(cities)]
				from := date(2020, 1, 1).AddDate(0, 0, (g*37+i*11)%900)
				if _, err = m.Facts().Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: city, ValidFrom: from}); err != nil {
					break
				}
				if _, err = m.Facts().Current(ctx, engram.FactQuery{Entity: "Ada"}); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
	hist, err := m.Facts().History(ctx, "Ada", "lives in")
	require.NoError(t, err)
	require.NotEmpty(t, hist)
	// The slot's timeline never holds two values at once, and ends open.
	var open int
	for i, f := range hist {
		if f.ValidTo.IsZero() {
			open++
			continue
		}
		if i+1 < len(hist) && f.ValidTo.After(f.ValidFrom) {
			assert.False(t, f.ValidTo.After(hist[i+1].ValidFrom), "%v overlaps %v", f, hist[i+1])
		}
	}
	assert.Equal(t, 1, open, "one value holds now")
	testutil.CheckAndClose(t, m)
}

func TestHistoryIsInTimeOrderWhateverTheWords(t *testing.T) {
	clock := testutil.NewClock(date(2026, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	facts := m.Facts()
	for _, f := range []engram.Fact{
		{Subject: "Ada Lovelace", Predicate: "moved to", Object: "Paris", ValidFrom: date(2020, 1, 1)},
		{Subject: "Ada Lovelace", Predicate: "lives in", Object: "London", ValidFrom: date(2021, 1, 1)},
		{Subject: "Ada", Predicate: "resides in", Object: "Rome", ValidFrom: date(2022, 1, 1)},
	} {
		if f.Subject == "Ada" {
			require.NoError(t, facts.Alias(ctx, "Ada Lovelace", "Ada"))
		}
		_, err := facts.Assert(ctx, f)
		require.NoError(t, err)
	}
	hist, err := facts.History(ctx, "ada", "lives in")
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada Lovelace moved to Paris", "Ada Lovelace lives in London", "Ada resides in Rome"}, triples(hist),
		"a slot's history is in the order its facts started, whatever names and synonyms they were asserted with")
	testutil.CheckAndClose(t, m)
}

func TestAssertBoundedInterruptsAndResumes(t *testing.T) {
	clock := testutil.NewClock(date(2025, 4, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	facts := m.Facts()
	seattle, err := facts.Assert(ctx, engram.Fact{Subject: "Maya", Predicate: "lives in", Object: "Seattle", Sources: []string{"chat"}})
	require.NoError(t, err)
	clock.Set(date(2025, 8, 1))
	a, err := facts.Assert(ctx, engram.Fact{Subject: "Maya", Predicate: "lives in", Object: "Vancouver", ValidFrom: date(2025, 6, 1), ValidTo: date(2025, 7, 15)})
	require.NoError(t, err)
	assert.Equal(t, engram.FactSuperseded, a.Action)
	require.Len(t, a.Superseded, 1)
	assert.Equal(t, seattle.Fact.ID, a.Superseded[0].ID)
	assert.Equal(t, date(2025, 7, 15), a.Fact.ValidTo)

	for at, want := range map[time.Time]string{
		date(2025, 5, 1): "Seattle", date(2025, 6, 15): "Vancouver", date(2025, 7, 20): "Seattle", clock.Now(): "Seattle",
	} {
		got, err := facts.AsOf(ctx, at, engram.FactQuery{Entity: "Maya", Predicate: "lives in"})
		require.NoError(t, err)
		assert.Equal(t, []string{"Maya lives in " + want}, triples(got), "%v: a stretch with an end interrupts a home, it does not end it", at)
	}
	hist, err := facts.History(ctx, "Maya", "lives in")
	require.NoError(t, err)
	require.Len(t, hist, 3)
	rest := hist[2]
	assert.Equal(t, date(2025, 7, 15), rest.ValidFrom)
	assert.True(t, rest.ValidTo.IsZero())
	assert.True(t, rest.ExpiredAt.IsZero())
	assert.Equal(t, []string{"chat"}, rest.Sources)
	assert.Equal(t, clock.Now(), rest.RecordedAt)

	// What the agent believed on July 20 was the first Seattle fact.
	known, err := facts.KnownAt(ctx, date(2025, 7, 20), engram.FactQuery{Entity: "Maya"})
	require.NoError(t, err)
	require.Len(t, known, 1)
	assert.Equal(t, seattle.Fact.ID, known[0].ID)

	// A fact that had an end resumes until it.
	_, err = facts.Assert(ctx, engram.Fact{Subject: "Maya", Predicate: "works at", Object: "Globex", ValidFrom: date(2024, 1, 1), ValidTo: date(2025, 1, 1)})
	require.NoError(t, err)
	_, err = facts.Assert(ctx, engram.Fact{Subject: "Maya", Predicate: "works at", Object: "Hooli", ValidFrom: date(2024, 3, 1), ValidTo: date(2024, 4, 1)})
	require.NoError(t, err)
	hist, err = facts.History(ctx, "Maya", "works at")
	require.NoError(t, err)
	require.Len(t, hist, 3)
	assert.Equal(t, "Globex", hist[2].Object)
	assert.Equal(t, date(2024, 4, 1), hist[2].ValidFrom)
	assert.Equal(t, date(2025, 1, 1), hist[2].ValidTo)
	assert.Equal(t, clock.Now(), hist[2].ExpiredAt, "retired at once: its end has passed")
	testutil.CheckAndClose(t, m)
}

package engram_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

var day0 = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

func compactionMemory(t *testing.T, edit func(*engram.Config)) (*engram.Memory, *testutil.Clock) {
	t.Helper()
	return compactionMemoryAt(t, engram.Tier1, edit)
}

// compactionMemoryAt is compactionMemory at a tier; Tier 2 embeds with
// the hashing embedder.
func compactionMemoryAt(t *testing.T, tier engram.Tier, edit func(*engram.Config)) (*engram.Memory, *testutil.Clock) {
	t.Helper()
	cfg := engram.DefaultConfig()
	cfg.NeverDecayTags = []string{"keep"}
	if edit != nil {
		edit(&cfg)
	}
	clock := testutil.NewClock(day0)
	opts := []engram.Option{engram.WithConfig(cfg), engram.WithClock(clock.Now)}
	if tier == engram.Tier2 {
		opts = append(opts, engram.WithEmbedder(newTestEmbedder(t, 64)))
	}
	return newMemory(t, tier, opts...), clock
}

func storeSemantic(t *testing.T, m *engram.Memory, e engram.SemanticEntry) string {
	t.Helper()
	id, err := m.Semantic().Store(context.Background(), e)
	require.NoError(t, err)
	return id
}

func TestCompactCountArchivesLowestValue(t *testing.T) {
	m, clock := compactionMemory(t, func(c *engram.Config) { c.Compaction.MaxEntries = 3 })
	ctx := context.Background()
	var ids []string
	for i, imp := range []float64{0.1, 0.2, 0.3, 0.4, 0.5} {
		clock.Advance(time.Minute)
		ids = append(ids, storeSemantic(t, m, engram.SemanticEntry{
			Content: fmt.Sprintf("fact number %d about topic %c", i, 'a'+i), Importance: imp, Verified: i == 0,
		}))
	}
	rep, err := m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	assert.Equal(t, []engram.CompactionAction{
		{Kind: engram.ActionArchive, Step: "count", Type: engram.TypeSemantic, ID: ids[1]},
		{Kind: engram.ActionArchive, Step: "count", Type: engram.TypeSemantic, ID: ids[2]},
	}, rep.Actions, "the lowest-value entries leave; the verified 0.1 stays")
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Semantic)
	assert.Equal(t, 2, st.Archived)
	_, err = m.Semantic().Get(ctx, ids[1])
	assert.ErrorIs(t, err, engram.ErrNotFound)

	rep, err = m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	assert.Empty(t, rep.Actions, "at the limit: nothing to do")
}

func TestCompactSemanticMergesNearDuplicates(t *testing.T) {
	m, clock := compactionMemory(t, func(c *engram.Config) { c.Zettelkasten.Enabled = false })
	ctx := context.Background()
	a := storeSemantic(t, m, engram.SemanticEntry{Content: "The payments service retries declined cards three times", Importance: 0.5, Tags: []string{"payments"}})
	require.NoError(t, m.Semantic().RecordAccess(ctx, a))
	require.NoError(t, m.Semantic().RecordAccess(ctx, a))
	clock.Advance(time.Hour)
	b := storeSemantic(t, m, engram.SemanticEntry{Content: "The payments service retries declined cards three times.", Importance: 0.8, Tags: []string{"billing"}})
	require.NoError(t, m.Semantic().RecordAccess(ctx, b))
	other := storeSemantic(t, m, engram.SemanticEntry{Content: "Office hours are nine to five", Importance: 0.3})
	keep := storeSemantic(t, m, engram.SemanticEntry{Content: "Office hours are nine to five!", Importance: 0.2, Tags: []string{"keep"}})

	rep, err := m.Compact(ctx, engram.CompactSemantic)
	require.NoError(t, err)
	assert.Equal(t, []engram.CompactionAction{
		{Kind: engram.ActionMerge, Step: "semantic", Type: engram.TypeSemantic, ID: a, Into: b},
		{Kind: engram.ActionMerge, Step: "semantic", Type: engram.TypeSemantic, ID: other, Into: keep},
	}, rep.Actions, "the higher importance survives, unless the other is protected")

	got, err := m.Semantic().Get(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, 0.8, got.Importance)
	assert.Equal(t, []string{"billing", "payments"}, got.Tags)
	assert.Equal(t, 3, got.AccessCount, "summed")
	assert.Equal(t, []string{a}, got.MergedFrom)
	got, err = m.Semantic().Get(ctx, keep)
	require.NoError(t, err)
	assert.Equal(t, 0.3, got.Importance, "the survivor keeps the higher importance")

	require.NoError(t, m.Restore(ctx, a))
	restored, err := m.Semantic().Get(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, "The payments service retries declined cards three times", restored.Content)
	assert.Equal(t, 2, restored.AccessCount, "restored as it was")
	assert.ErrorIs(t, m.Restore(ctx, a), engram.ErrNotFound, "the archive entry is gone")
}

func TestCompactTimeRollsDaysIntoDigests(t *testing.T) {
	m, clock := compactionMemory(t, func(c *engram.Config) { c.Episodic.RetainDays = 2 })
	ctx := context.Background()
	log := func(typ engram.EventType, task, text string) string {
		clock.Advance(time.Minute)
		id, err := m.Episodic().Log(ctx, engram.Episode{Type: typ, TaskID: task, Content: text})
		require.NoError(t, err)
		return id
	}
	d1 := []string{
		log(engram.EventTaskStarted, "t1", "started the migration"),
		log(engram.EventDecisionMade, "", "use blue-green deploys"),
		log(engram.EventTaskCompleted, "t1", "migration finished"),
	}
	clock.Advance(24 * time.Hour)
	d2 := []string{log(engram.EventErrorEncountered, "", "disk full on db-2")}
	clock.Set(day0.Add(4 * 24 * time.Hour))
	recent := log(engram.EventObservation, "", "today's news")

	rep, err := m.Compact(ctx, engram.CompactTime)
	require.NoError(t, err)
	require.Len(t, rep.Actions, 6)
	digest1, digest2 := rep.Actions[0], rep.Actions[4]
	assert.Equal(t, engram.CompactionAction{Kind: engram.ActionDigest, Step: "time", Type: engram.TypeEpisodic, ID: digest1.ID, Detail: "2026-01-05"}, digest1)
	assert.Equal(t, engram.CompactionAction{Kind: engram.ActionDigest, Step: "time", Type: engram.TypeEpisodic, ID: digest2.ID, Detail: "2026-01-06"}, digest2)
	for i, id := range d1 {
		assert.Equal(t, engram.CompactionAction{Kind: engram.ActionArchive, Step: "time", Type: engram.TypeEpisodic, ID: id, Into: digest1.ID}, rep.Actions[1+i])
	}
	assert.Equal(t, engram.CompactionAction{Kind: engram.ActionArchive, Step: "time", Type: engram.TypeEpisodic, ID: d2[0], Into: digest2.ID}, rep.Actions[5])

	dg, err := m.Episodic().Get(ctx, digest1.ID)
	require.NoError(t, err)
	assert.Equal(t, engram.EventDigest, dg.Type)
	assert.Equal(t, "Digest of 2026-01-05: 3 events (1 decision-made, 1 task-completed, 1 task-started). "+
		"Decisions: use blue-green deploys; Completed: t1: migration finished; Events: t1: started the migration;", dg.Content)
	assert.Equal(t, time.Date(2026, 1, 5, 23, 59, 59, 999e6, time.UTC), dg.CreatedAt)
	_, err = m.Episodic().Get(ctx, recent)
	require.NoError(t, err, "within RetainDays")
	res, err := m.Search(ctx, engram.SearchOptions{Query: "blue-green deploys"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, digest1.ID, res[0].ID, "the day stays findable")

	clock.Advance(time.Hour)
	log(engram.EventObservation, "", "backdated" /* created now, not old */)
	rep, err = m.Compact(ctx, engram.CompactTime)
	require.NoError(t, err)
	assert.Empty(t, rep.Actions, "at most once per Interval")
}

func TestDecayComputesResonanceAndArchives(t *testing.T) {
	m, clock := compactionMemory(t, nil)
	ctx := context.Background()
	fading := storeSemantic(t, m, engram.SemanticEntry{Content: "an old rumour", Importance: 0.2})
	verified := storeSemantic(t, m, engram.SemanticEntry{Content: "an old verified fact", Importance: 0.2, Verified: true})
	kept := storeSemantic(t, m, engram.SemanticEntry{Content: "an old thing to keep", Importance: 0.2, Tags: []string{"keep"}})
	important := storeSemantic(t, m, engram.SemanticEntry{Content: "an old important fact", Importance: 0.6})
	clock.Advance(100 * 24 * time.Hour)
	fresh := storeSemantic(t, m, engram.SemanticEntry{Content: "a new note", Importance: 0.2})

	rep, err := m.Decay(ctx)
	require.NoError(t, err)
	assert.Equal(t, []engram.CompactionAction{{Kind: engram.ActionArchive, Step: "decay", Type: engram.TypeSemantic, ID: fading}}, rep.Actions)
	assert.Equal(t, 5, rep.Decayed)
	for _, id := range []string{verified, kept, important, fresh} {
		_, err := m.Semantic().Get(ctx, id)
		assert.NoError(t, err, id)
	}
	got, err := m.Semantic().Get(ctx, important)
	require.NoError(t, err)
	assert.InDelta(t, math.Exp(-0.02*100)*(0.3+0.3*0.6), got.Resonance, 1e-9)
	got, err = m.Semantic().Get(ctx, fresh)
	require.NoError(t, err)
	assert.InDelta(t, 0.3+0.3*0.2, got.Resonance, 1e-9)
}

func TestRestoreBringsBackLinksAndSearch(t *testing.T) {
	m, _ := compactionMemory(t, func(c *engram.Config) { c.Compaction.MaxEntries = 1 })
	ctx := context.Background()
	a := storeSemantic(t, m, engram.SemanticEntry{Content: "the zeppelin hangar is in Friedrichshafen", Importance: 0.1})
	b := storeSemantic(t, m, engram.SemanticEntry{Content: "airships need helium", Importance: 0.9})
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: a, TargetID: b, SourceType: engram.TypeSemantic,
		TargetType: engram.TypeSemantic, Type: engram.LinkElaborates, Strength: 0.7}))
	rep, err := m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Count(engram.ActionArchive))
	res, err := m.Search(ctx, engram.SearchOptions{Query: "zeppelin"})
	require.NoError(t, err)
	assert.Empty(t, res)
	links, err := m.Links().For(ctx, b)
	require.NoError(t, err)
	assert.Empty(t, links)

	require.NoError(t, m.Restore(ctx, a))
	res, err = m.Search(ctx, engram.SearchOptions{Query: "zeppelin"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, a, res[0].ID)
	links, err = m.Links().For(ctx, b)
	require.NoError(t, err)
	require.Len(t, links, 1)
	assert.Equal(t, engram.LinkElaborates, links[0].Type)

	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{ID: "taken", Content: "x", Importance: 0.5})
	require.NoError(t, err)
	assert.ErrorIs(t, m.Restore(ctx, "no-such"), engram.ErrNotFound)
	assert.ErrorIs(t, m.Restore(ctx, "bad id!"), engram.ErrInvalid)
	_, err = m.Compact(ctx, "sideways")
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = m.PurgeArchive(ctx, -time.Second)
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

// TestSixtyDaysOfAnAgentsLife runs compaction every evening over sixty
// simulated days and checks every report against the database.
func TestSixtyDaysOfAnAgentsLife(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	for _, tier := range []engram.Tier{engram.Tier1, engram.Tier2} {
		t.Run(tier.String(), func(t *testing.T) { sixtyDays(t, tier) })
	}
}

func sixtyDays(t *testing.T, tier engram.Tier) {
	const limit = 80
	m, clock := compactionMemoryAt(t, tier, func(c *engram.Config) {
		c.Compaction.MaxEntries = limit
		c.Episodic.RetainDays = 7
	})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(60, 60))
	words := []string{"deploy", "billing", "latency", "invoice", "cluster", "backup", "schema", "retry", "token", "queue", "cache", "alert"}
	sentence := func() string {
		s := ""
		for i := range 6 {
			if i > 0 {
				s += " "
			}
			s += words[rng.IntN(len(words))]
		}
		return s
	}
	var protected []string
	present := map[string]bool{} // semantic IDs believed present
	var everArchived []string
	steps := map[string]int{}
	for d := range 60 {
		clock.Set(day0.Add(time.Duration(d) * 24 * time.Hour))
		for i := range 8 {
			clock.Advance(10 * time.Minute)
			typ := []engram.EventType{engram.EventObservation, engram.EventDecisionMade, engram.EventTaskCompleted, engram.EventToolCall}[i%4]
			_, err := m.Episodic().Log(ctx, engram.Episode{Type: typ, Content: sentence()})
			require.NoError(t, err)
		}
		for i := range 3 {
			e := engram.SemanticEntry{Content: sentence(), Importance: float64(rng.IntN(10)) / 10}
			if i == 0 && d%10 == 0 {
				e.Verified, e.Importance = true, 0
			}
			if i == 1 && d%7 == 0 {
				e.Tags, e.Importance = []string{"keep"}, 0
			}
			id := storeSemantic(t, m, e)
			present[id] = true
			if e.Verified || len(e.Tags) > 0 {
				protected = append(protected, id)
			}
		}
		clock.Set(day0.Add(time.Duration(d)*24*time.Hour + 14*time.Hour))
		before, err := m.Stats(ctx)
		require.NoError(t, err)
		rep, err := m.Compact(ctx)
		require.NoError(t, err)
		after, err := m.Stats(ctx)
		require.NoError(t, err)

		leaving := rep.Count(engram.ActionArchive) + rep.Count(engram.ActionMerge)
		assert.Equal(t, before.Archived+leaving, after.Archived, "day %d: every archived memory is in the report", d)
		var semLeft, epLeft int
		for _, a := range rep.Actions {
			steps[a.Step+"/"+string(a.Kind)]++
			switch a.Kind {
			case engram.ActionArchive, engram.ActionMerge:
				if a.Type == engram.TypeSemantic {
					semLeft++
					_, err := m.Semantic().Get(ctx, a.ID)
					assert.ErrorIs(t, err, engram.ErrNotFound, "day %d: %s left", d, a.ID)
					delete(present, a.ID)
					everArchived = append(everArchived, a.ID)
				} else {
					epLeft++
					_, err := m.Episodic().Get(ctx, a.ID)
					assert.ErrorIs(t, err, engram.ErrNotFound)
				}
				if a.Kind == engram.ActionMerge {
					s, err := m.Semantic().Get(ctx, a.Into)
					require.NoError(t, err)
					assert.Contains(t, s.MergedFrom, a.ID)
				}
			case engram.ActionDigest:
				ep, err := m.Episodic().Get(ctx, a.ID)
				require.NoError(t, err)
				assert.Equal(t, engram.EventDigest, ep.Type)
			}
		}
		digests := rep.Count(engram.ActionDigest)
		assert.Equal(t, before.Semantic-semLeft, after.Semantic, "day %d", d)
		assert.Equal(t, before.Episodes-epLeft+digests, after.Episodes, "day %d", d)
		assert.LessOrEqual(t, after.Semantic, limit, "day %d", d)
		assert.LessOrEqual(t, after.Episodes, limit+digests, "day %d", d)
	}
	for _, step := range []string{"count/archive", "time/digest", "time/archive", "semantic/merge"} {
		assert.Positive(t, steps[step], "the simulation exercises %s: %v", step, steps)
	}
	for _, id := range protected {
		_, err := m.Semantic().Get(ctx, id)
		assert.NoError(t, err, "verified and never-decay memories survive")
	}
	old, err := m.Episodic().Range(ctx, time.Time{}, day0.Add(50*24*time.Hour))
	require.NoError(t, err)
	for _, ep := range old {
		assert.Equal(t, engram.EventDigest, ep.Type, "only digests are older than RetainDays")
	}

	// Restore one archived entry, then purge the rest for good.
	require.NotEmpty(t, everArchived)
	back := everArchived[len(everArchived)-1]
	require.NoError(t, m.Restore(ctx, back))
	got, err := m.Semantic().Get(ctx, back)
	require.NoError(t, err)
	res, err := m.Semantic().Search(ctx, engram.SearchOptions{Query: got.Content, Limit: 1000})
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(res, func(r engram.Result) bool { return r.ID == back }), "search finds it again")
	if tier == engram.Tier2 {
		res, err := m.Semantic().Search(ctx, engram.SearchOptions{Query: got.Content, Mode: engram.SearchVector, Limit: 1000})
		require.NoError(t, err)
		assert.True(t, slices.ContainsFunc(res, func(r engram.Result) bool { return r.ID == back }), "re-embedded on restore")
		assert.Zero(t, pending(t, m), "digests and restores are embedded")
	}

	st, err := m.Stats(ctx)
	require.NoError(t, err)
	n, err := m.PurgeArchive(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, st.Archived, n)
	st, err = m.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Archived)
	gone := everArchived[0]
	assert.ErrorIs(t, m.Restore(ctx, gone), engram.ErrNotFound, "purged for good")
	_, err = m.Semantic().Get(ctx, gone)
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

func TestConsolidatePromotesAndLearnsRecurringEvents(t *testing.T) {
	m, clock := compactionMemory(t, nil)
	ctx := context.Background()
	hot := storeSemantic(t, m, engram.SemanticEntry{Content: "the on-call rota lives in PagerDuty", Importance: 0.5})
	capped := storeSemantic(t, m, engram.SemanticEntry{Content: "prod is in eu-west-1", Importance: 0.88})
	for range 11 {
		require.NoError(t, m.Semantic().RecordAccess(ctx, hot, capped))
	}
	var eps []string
	for d := range 3 {
		clock.Set(day0.Add(time.Duration(d) * 24 * time.Hour))
		id, err := m.Episodic().Log(ctx, engram.Episode{Content: "  Nightly backup failed on db-2 "})
		require.NoError(t, err)
		eps = append(eps, id)
		_, err = m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("one-off event %d", d)})
		require.NoError(t, err)
	}
	id, err := m.Episodic().Log(ctx, engram.Episode{Content: "nightly backup failed on DB-2"})
	require.NoError(t, err)
	eps = append(eps, id)

	rep, err := m.Consolidate(ctx)
	require.NoError(t, err)
	var promoted []string
	var fact engram.CompactionAction
	for _, a := range rep.Actions {
		switch a.Kind {
		case engram.ActionPromote:
			promoted = append(promoted, a.ID+": "+a.Detail)
		case engram.ActionRecur:
			fact = a
		}
	}
	assert.Equal(t, []string{hot + ": importance 0.50 → 0.60", capped + ": importance 0.88 → 0.90"}, promoted,
		"two steps for 11 retrievals, capped at PromoteMax")
	require.NotEmpty(t, fact.ID, "the event recurred on 3 days")
	assert.Equal(t, "4 episodes on 3 days", fact.Detail)
	got, err := m.Semantic().Get(ctx, fact.ID)
	require.NoError(t, err)
	assert.Equal(t, "Nightly backup failed on db-2", got.Content)
	assert.Equal(t, []string{"recurring"}, got.Tags)
	assert.Equal(t, "consolidation", got.Source)
	links, err := m.Links().For(ctx, fact.ID)
	require.NoError(t, err)
	var from []string
	for _, l := range links {
		if l.Type == engram.LinkSupports {
			from = append(from, l.SourceID)
		}
	}
	assert.ElementsMatch(t, eps, from)

	rep, err = m.Consolidate(ctx)
	require.NoError(t, err)
	assert.Zero(t, rep.Count(engram.ActionPromote)+rep.Count(engram.ActionRecur), "nothing new to promote or learn")
}

// TestConcurrentCompaction compacts, decays and consolidates while other
// goroutines store, search and extract; run it with -race.
func TestConcurrentCompaction(t *testing.T) {
	m, _ := compactionMemory(t, func(c *engram.Config) { c.Compaction.MaxEntries = 30 })
	ctx := context.Background()
	addRules(t, m, seedRules...)
	errs := make(chan error, 64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				text := fmt.Sprintf("writer %d note %d about deploys and billing", w, i%7)
				if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: text, Importance: 0.3}); err != nil {
					errs <- err
					return
				}
				if _, err := m.Episodic().Log(ctx, engram.Episode{Content: text}); err != nil {
					errs <- err
					return
				}
				if _, err := m.Search(ctx, engram.SearchOptions{Query: "deploys billing"}); err != nil {
					errs <- err
					return
				}
				if _, err := m.Extract(ctx, []engram.Message{{Role: "user", Content: fmt.Sprintf("I prefer option %d today", i%5)}}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	archived := 0
	for i := 0; i < 20 || archived == 0 && i < 5000; i++ {
		var err error
		switch i % 3 {
		case 0:
			_, err = m.Compact(ctx, engram.CompactProgressive)
		case 1:
			_, err = m.Decay(ctx)
		default:
			_, err = m.Consolidate(ctx)
		}
		require.NoError(t, err)
		st, err := m.Stats(ctx)
		require.NoError(t, err)
		archived = st.Archived
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Positive(t, archived, "compaction ran while memory grew past its limit")
}

func TestOptimizeKeepsWhatSearchFinds(t *testing.T) {
	m, _ := compactionMemory(t, nil)
	ctx := context.Background()
	for i := range 12 { // one transaction, one FTS5 segment each
		storeSemantic(t, m, engram.SemanticEntry{Content: fmt.Sprintf("release train %d leaves on tuesday", i), Importance: 0.5})
		_, err := m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("shipped release %d", i)})
		require.NoError(t, err)
	}
	before, err := m.Search(ctx, engram.SearchOptions{Query: "release tuesday", Limit: 30})
	require.NoError(t, err)
	require.NoError(t, m.Optimize(ctx))
	after, err := m.Search(ctx, engram.SearchOptions{Query: "release tuesday", Limit: 30})
	require.NoError(t, err)
	assert.Equal(t, searchIDs(before), searchIDs(after))
	require.NoError(t, m.CheckIntegrity(ctx))
}

func TestArchiveByHandAndRestore(t *testing.T) {
	m, _ := compactionMemory(t, nil)
	ctx := context.Background()
	a := storeSemantic(t, m, engram.SemanticEntry{Content: "the zeppelin hangar is in Friedrichshafen", Importance: 0.9, Verified: true})
	b := storeSemantic(t, m, engram.SemanticEntry{Content: "airships need helium", Importance: 0.9})
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: a, TargetID: b, SourceType: engram.TypeSemantic,
		TargetType: engram.TypeSemantic, Type: engram.LinkElaborates, Strength: 0.7}))

	require.NoError(t, m.Archive(engram.ContextWithActor(ctx, "console"), a, "wrong hangar"), "a verified entry too: a person decides")
	_, err := m.Get(ctx, a)
	assert.ErrorIs(t, err, engram.ErrNotFound)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "zeppelin"})
	require.NoError(t, err)
	assert.Empty(t, res)
	h, err := m.History(ctx, a)
	require.NoError(t, err)
	last := h[len(h)-1]
	assert.Equal(t, engram.OpArchive, last.Op)
	assert.Equal(t, "console", last.Actor)
	assert.Equal(t, "wrong hangar", last.Reason)
	assert.ErrorIs(t, m.Archive(ctx, a, ""), engram.ErrNotFound, "archived already")

	require.NoError(t, m.Restore(ctx, a))
	got, err := m.Semantic().Get(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, "the zeppelin hangar is in Friedrichshafen", got.Content)
	links, err := m.Links().For(ctx, b)
	require.NoError(t, err)
	require.Len(t, links, 1, "the link came back with it")

	f, err := m.Facts().Assert(ctx, engram.Fact{Subject: "hangar", Predicate: "located_in", Object: "Friedrichshafen"})
	require.NoError(t, err)
	assert.ErrorIs(t, m.Archive(ctx, f.Fact.ID, ""), engram.ErrInvalid, "facts are retracted, not archived")
	assert.ErrorIs(t, m.Archive(ctx, "no-such", ""), engram.ErrNotFound)
	assert.ErrorIs(t, m.Archive(ctx, "bad id!", ""), engram.ErrInvalid)
	assert.ErrorIs(t, m.Archive(ctx, b, "two\x00parts"), engram.ErrInvalid)
}

// TestOptimizeWritesTheFilePacked: after Optimize the file has no free
// page (the full-text merge and a forget leave some) and the index of
// importance, which inserts in random order of importance split into
// half-empty pages, is packed; what a search finds and History read the
// same.
func TestOptimizeWritesTheFilePacked(t *testing.T) {
	sqliteOnly(t, "VACUUM and dbstat are SQLite's")
	ctx := context.Background()
	dir := t.TempDir()
	m, err := engram.New(engram.Tier1, engram.WithDir(dir))
	require.NoError(t, err)
	defer m.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var ids []string
	for b := range 6 { // one transaction, one FTS5 segment each
		batch := make([]engram.SemanticEntry, 400)
		for i := range batch {
			batch[i] = engram.SemanticEntry{Content: fmt.Sprintf("note %d of batch %d on the release train", i, b), Importance: float64(rng.IntN(101)) / 100}
		}
		got, err := m.Semantic().StoreBatch(ctx, batch)
		require.NoError(t, err)
		ids = append(ids, got...)
	}
	for _, id := range ids[:300] {
		require.NoError(t, m.Forget(ctx, id))
	}
	search := func() []string {
		res, err := m.Search(ctx, engram.SearchOptions{Query: "release train batch", Limit: 50})
		require.NoError(t, err)
		return searchIDs(res)
	}
	before := search()
	hist, err := m.History(ctx, ids[1000])
	require.NoError(t, err)
	require.NoError(t, m.Optimize(ctx))
	assert.Equal(t, before, search())
	after, err := m.History(ctx, ids[1000])
	require.NoError(t, err)
	assert.Equal(t, hist, after)
	require.NoError(t, m.CheckIntegrity(ctx))
	require.NoError(t, m.Close())

	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, engram.DefaultAgent, "memory.db")+"?mode=ro")
	require.NoError(t, err)
	defer raw.Close()
	var free, size, unused int64
	require.NoError(t, raw.QueryRow(`PRAGMA freelist_count`).Scan(&free))
	assert.Zero(t, free, "free pages after Optimize")
	require.NoError(t, raw.QueryRow(`SELECT sum(pgsize), sum(unused) FROM dbstat WHERE name = 'semantic_by_rank'`).Scan(&size, &unused))
	assert.Less(t, unused*10, size, "semantic_by_rank: %d of its %d bytes unused", unused, size)
}

// On a file other agents share, Optimize merges but does not write the
// file anew (which holds up every agent's writes for as long as it
// takes): the free pages stay.
func TestOptimizeLeavesASharedFileUnpacked(t *testing.T) {
	sqliteOnly(t, "VACUUM and freelist_count are SQLite's")
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	st, err := engram.Open(engram.Tier1, engram.WithPath(path))
	require.NoError(t, err)
	defer st.Close()
	var m *engram.Memory
	for _, agent := range []string{"a", "b"} {
		m, err = st.Agent(agent)
		require.NoError(t, err)
		batch := make([]engram.SemanticEntry, 400)
		for i := range batch {
			batch[i] = engram.SemanticEntry{Content: fmt.Sprintf("note %d of %s on the release train", i, agent)}
		}
		ids, err := m.Semantic().StoreBatch(ctx, batch)
		require.NoError(t, err)
		for _, id := range ids[:300] {
			require.NoError(t, m.Forget(ctx, id))
		}
	}
	require.NoError(t, m.Optimize(ctx))
	require.NoError(t, st.Close())
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer raw.Close()
	var free int64
	require.NoError(t, raw.QueryRow(`PRAGMA freelist_count`).Scan(&free))
	assert.Positive(t, free, "free pages after Optimize of one agent of a shared file")
}

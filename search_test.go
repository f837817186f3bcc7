package engram_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

func searchIDs(rs []engram.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// searchFixture stores a few memories of every kind.
func searchFixture(t *testing.T, opts ...engram.Option) (*engram.Memory, *testutil.Clock) {
	t.Helper()
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, append([]engram.Option{engram.WithClock(clock.Now)}, opts...)...)
	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "deploy-rule", Content: "Deploys go through CI only; never deploy from a laptop.", Importance: 0.9, Tags: []string{"ops"}},
		{ID: "db-port", Content: "Postgres listens on port 6432 behind pgbouncer.", Importance: 0.6, Tags: []string{"db"}},
		{ID: "lunch", Content: "Lunch is at noon on Fridays.", Importance: 0.1},
		{ID: "quote", Content: `The user said "it's fine" about the AND/OR NOT NEAR operators: col:value -x ^y z*`, Importance: 0.5},
	} {
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
		clock.Advance(time.Hour)
	}
	eps := []engram.Episode{
		{ID: "e1", Content: "Ada asked whether we should deploy on Friday", SessionID: "s1"},
		{ID: "e2", Content: "I said we decided to wait until Monday", SessionID: "s1"},
		{ID: "e3", Content: "The deploy on Monday went fine", SessionID: "s2", Type: engram.EventTaskCompleted},
	}
	for _, e := range eps {
		_, err := m.Episodic().Log(ctx, e)
		require.NoError(t, err)
		clock.Advance(time.Minute)
	}
	_, err := m.Procedural().Store(ctx, engram.Procedure{ID: "p1", Name: "flagged deploy", Description: "deploy behind a feature flag", Tags: []string{"ops"}, SuccessRate: 0.8})
	require.NoError(t, err)
	_, err = m.Working().Add(engram.WorkingItem{ID: "w1", Content: "Deploy freeze starts Thursday", Importance: 0.7})
	require.NoError(t, err)
	return m, clock
}

func TestSearchNeverFailsOnUserText(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	for _, q := range []string{
		"What did we decide about the deploy?",
		`"it's fine"`, "it's", `unbalanced "quote`, `"""`,
		"AND", "OR", "NOT", "NEAR", "a AND OR NOT b", "NEAR(deploy laptop, 2)",
		"deploy*", "^deploy", "col:value", "-deploy", "deploy - laptop", "(deploy", "deploy)",
		"🚀 deploy 🔥", "🚀", "?!.,;", "日本語のテキスト", "naïve café",
		"postgres:6432", "C++ / C#", "x\ty\nz",
	} {
		res, err := m.Search(ctx, engram.SearchOptions{Query: q})
		require.NoError(t, err, "query %q", q)
		for _, r := range res {
			assert.GreaterOrEqual(t, r.Score, 0.0, q)
			assert.LessOrEqual(t, r.Score, 1.0, q)
		}
	}
	res, err := m.Search(ctx, engram.SearchOptions{Query: "🚀?!"})
	require.NoError(t, err)
	assert.Empty(t, res, "a query without words finds nothing")
}

func TestSearchFindsAcrossTypesAndExplains(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	res, err := m.Search(ctx, engram.SearchOptions{Query: "What did we decide about the deploy?", Limit: 20})
	require.NoError(t, err)
	types := map[engram.MemoryType]bool{}
	for i, r := range res {
		types[r.Type] = true
		if i > 0 {
			assert.GreaterOrEqual(t, res[i-1].Score, r.Score, "sorted by score")
		}
		assert.NotEmpty(t, r.Snippet)
		// The default weights: text 0.8, its session 0.7 × 0.8,
		// importance and recency 0.1.
		blend := (0.8*r.Parts.Text + 0.56*r.Parts.Session + 0.1*r.Parts.Importance + 0.1*r.Parts.Recency) / 1.56
		assert.InDelta(t, r.Parts.Question*r.Parts.Spread*blend, r.Score, 1e-9, "score is the blend of its parts")
		assert.Zero(t, r.Parts.Vector, "no vector part in Tier 1")
	}
	assert.True(t, types[engram.TypeSemantic] && types[engram.TypeEpisodic] && types[engram.TypeProcedural] && types[engram.TypeWorking],
		"all four kinds found: %v", types)
	maxText := 0.0
	for _, r := range res {
		maxText = max(maxText, r.Parts.Text)
	}
	assert.Equal(t, 1.0, maxText, "the best text match has Text 1")

	res, err = m.Search(ctx, engram.SearchOptions{Query: "postgres port"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, "db-port", res[0].ID)
	assert.Contains(t, res[0].Snippet, "**Postgres**")
}

func TestSearchFilters(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	q := "deploy"

	res, err := m.Search(ctx, engram.SearchOptions{Query: q, Types: []engram.MemoryType{engram.TypeEpisodic}})
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, engram.TypeEpisodic, r.Type)
	}
	assert.NotEmpty(t, res)

	res, err = m.Search(ctx, engram.SearchOptions{Query: q, Tags: []string{"ops"}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"deploy-rule", "p1"}, searchIDs(res), "only memories tagged ops")

	res, err = m.Search(ctx, engram.SearchOptions{Query: q, Since: t0.Add(4 * time.Hour), Types: []engram.MemoryType{engram.TypeEpisodic, engram.TypeSemantic}})
	require.NoError(t, err)
	for _, r := range res {
		assert.False(t, r.CreatedAt.Before(t0.Add(4*time.Hour)), r.ID)
	}
	res, err = m.Search(ctx, engram.SearchOptions{Query: q, Until: t0.Add(time.Hour), Types: []engram.MemoryType{engram.TypeSemantic}})
	require.NoError(t, err)
	assert.Equal(t, []string{"deploy-rule"}, searchIDs(res))

	res, err = m.Search(ctx, engram.SearchOptions{Query: q, Limit: 2})
	require.NoError(t, err)
	assert.Len(t, res, 2)

	all, err := m.Search(ctx, engram.SearchOptions{Query: q, Limit: 50})
	require.NoError(t, err)
	high, err := m.Search(ctx, engram.SearchOptions{Query: q, Limit: 50, Threshold: 0.6})
	require.NoError(t, err)
	assert.Less(t, len(high), len(all))
	for _, r := range high {
		assert.GreaterOrEqual(t, r.Score, 0.6)
	}

	for name, opts := range map[string]engram.SearchOptions{
		"empty query":     {Query: " "},
		"bad type":        {Query: q, Types: []engram.MemoryType{"dreams"}},
		"limit":           {Query: q, Limit: -1},
		"threshold":       {Query: q, Threshold: 1.5},
		"until not after": {Query: q, Since: t0, Until: t0},
		"bad tag":         {Query: q, Tags: []string{""}},
	} {
		_, err := m.Search(ctx, opts)
		assert.ErrorIs(t, err, engram.ErrInvalid, name)
	}
}

func TestSearchAdvancedMode(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	res, err := m.Search(ctx, engram.SearchOptions{Query: `deploy NOT laptop`, Advanced: true, Types: []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic}})
	require.NoError(t, err)
	assert.NotContains(t, searchIDs(res), "deploy-rule")
	assert.NotEmpty(t, res)
	for _, bad := range []string{`"unbalanced`, `deploy AND`, `NEAR(`, `(((`} {
		_, err := m.Search(ctx, engram.SearchOptions{Query: bad, Advanced: true})
		assert.ErrorIs(t, err, engram.ErrInvalidQuery, bad)
	}
}

// An Advanced expression's prefixes score like words: a memory holding
// two words that start with the prefix ranks above one holding one, and
// each has a text score a Threshold can keep.
func TestSearchAdvancedPrefixesScore(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "two", Content: "kubectl talks to the kubernetes API"},
		{ID: "one", Content: "the kubernetes cluster is down"},
		{ID: "none", Content: "the coffee machine is down"},
	} {
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	f, err := m.Find(ctx, engram.SearchOptions{Query: "kube*", Advanced: true, Threshold: 0.3})
	require.NoError(t, err)
	assert.Equal(t, []string{"kube*"}, f.Terms)
	require.Equal(t, []string{"two", "one"}, searchIDs(f.Results))
	assert.InDelta(t, 1, f.Results[0].Parts.Text, 1e-12)
	assert.Greater(t, f.Results[1].Parts.Text, 0.5)
	assert.Less(t, f.Results[1].Parts.Text, 1.0)
	res, err := m.Search(ctx, engram.SearchOptions{Query: `kube* AND down`, Advanced: true})
	require.NoError(t, err)
	require.Equal(t, []string{"one"}, searchIDs(res))
	assert.InDelta(t, 1, res[0].Parts.Text, 1e-12)
}

// TestSearchSeesNewMemoriesAtOnce guards against cached document counts
// hiding a memory stored after an earlier search.
func TestSearchSeesNewMemoriesAtOnce(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kubernetes"})
	require.NoError(t, err)
	require.Empty(t, res)
	_, err = m.Episodic().Log(ctx, engram.Episode{ID: "k8s", Content: "Migrated the cluster to kubernetes"})
	require.NoError(t, err)
	_, err = m.Semantic().Store(ctx, engram.SemanticEntry{ID: "k8s-fact", Content: "Production runs on kubernetes", Importance: 0.5})
	require.NoError(t, err)
	res, err = m.Search(ctx, engram.SearchOptions{Query: "kubernetes"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"k8s", "k8s-fact"}, searchIDs(res))
}

func TestSearchCountsSemanticAccess(t *testing.T) {
	m, clock := searchFixture(t)
	ctx := context.Background()
	clock.Advance(time.Hour)
	res, err := m.Semantic().Search(ctx, engram.SearchOptions{Query: "postgres"})
	require.NoError(t, err)
	require.Equal(t, []string{"db-port"}, searchIDs(res))
	e, err := m.Semantic().Get(ctx, "db-port")
	require.NoError(t, err)
	assert.Equal(t, 1, e.AccessCount)
	assert.True(t, e.LastAccessedAt.Equal(clock.Now()))
}

func TestSearchAdvancedErrorOnEmptyMemory(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	_, err := m.Search(context.Background(), engram.SearchOptions{Query: `"unbalanced AND`, Advanced: true})
	assert.ErrorIs(t, err, engram.ErrInvalidQuery)
}

// Searches' accesses are written in batches; Close writes what is left.
func TestSearchAccessesSurviveClose(t *testing.T) {
	path := newDB(t)
	m := openOn(t, path, "default", engram.Tier1)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "kiwi", Content: "kiwis are green inside", Importance: 0.5})
	require.NoError(t, err)
	for range 3 {
		res, err := m.Search(ctx, engram.SearchOptions{Query: "green kiwis"})
		require.NoError(t, err)
		require.Len(t, res, 1)
	}
	require.NoError(t, m.Close())
	again := openOn(t, path, "default", engram.Tier1)
	e, err := again.Semantic().Get(ctx, "kiwi")
	require.NoError(t, err)
	assert.Equal(t, 3, e.AccessCount)
}

// A search that fills a batch of accesses writes it in the background;
// concurrent searches and a Get afterwards see every access counted.
func TestSearchAccessBatchesInTheBackground(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	const n = 300 // more than one batch of 256
	entries := make([]engram.SemanticEntry, n)
	for i := range entries {
		entries[i] = engram.SemanticEntry{ID: fmt.Sprintf("e%03d", i), Content: fmt.Sprintf("orchard note %d", i), Importance: 0.5}
	}
	_, err := m.Semantic().StoreBatch(ctx, entries)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range 5 {
				res, err := m.Search(ctx, engram.SearchOptions{Query: "orchard note", Limit: 1000})
				assert.NoError(t, err)
				assert.Len(t, res, n, "worker %d", w)
			}
		})
	}
	wg.Wait()
	for _, id := range []string{"e000", "e150", "e299"} {
		e, err := m.Semantic().Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, 20, e.AccessCount, id)
	}
}

func TestSearchTypedStoresAndWorking(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	res, err := m.Working().Search(ctx, engram.SearchOptions{Query: "when does the deploy freeze start?"})
	require.NoError(t, err)
	require.Equal(t, []string{"w1"}, searchIDs(res))
	assert.Equal(t, engram.TypeWorking, res[0].Type)

	res, err = m.Procedural().Search(ctx, engram.SearchOptions{Query: "feature flag"})
	require.NoError(t, err)
	require.Equal(t, []string{"p1"}, searchIDs(res))
	// A new procedure's resonance is what decay gives it at age 0, unused:
	// 0.3 + 0.3 × its success rate.
	assert.InDelta(t, 0.8*(0.3+0.3*0.8), res[0].Parts.Importance, 1e-9, "a procedure's importance part is its success rate times its resonance")

	res, err = m.Episodic().Search(ctx, engram.SearchOptions{Query: "Friday"})
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, engram.TypeEpisodic, r.Type)
	}
}

func TestSearchBringsSessionContext(t *testing.T) {
	m, _ := searchFixture(t)
	ctx := context.Background()
	// e2 ("we decided to wait until Monday") answers e1, which holds the
	// question's words.
	res, err := m.Episodic().Search(ctx, engram.SearchOptions{Query: "Should Ada deploy on Friday?"})
	require.NoError(t, err)
	byID := map[string]engram.Result{}
	for _, r := range res {
		byID[r.ID] = r
	}
	require.Contains(t, byID, "e1")
	require.Contains(t, byID, "e2", "the next turn of the session comes as context")
	assert.Equal(t, "e1", byID["e2"].ContextOf)
	assert.InDelta(t, 0.7*byID["e1"].Parts.Text, byID["e2"].Parts.Text, 1e-9)
	assert.Empty(t, byID["e3"].ContextOf, "e3 matches by itself; another session is never context")

	cfg := engram.DefaultConfig()
	cfg.Search.ContextWeight = 0
	m2, _ := searchFixture(t, engram.WithConfig(cfg))
	res, err = m2.Episodic().Search(ctx, engram.SearchOptions{Query: "Should Ada deploy on Friday?"})
	require.NoError(t, err)
	for _, r := range res {
		assert.Empty(t, r.ContextOf)
	}
}

func TestSearchIsolation(t *testing.T) {
	path := newDB(t)
	alice := openOn(t, path, "alice", engram.Tier1)
	bob := openOn(t, path, "bob", engram.Tier1)
	ctx := context.Background()
	seed(t, alice, "alice")
	seed(t, bob, "bob")
	_, err := bob.Working().Add(engram.WorkingItem{Content: "bob fact in working memory", Importance: 0.5})
	require.NoError(t, err)
	for _, m := range []*engram.Memory{alice, bob} {
		res, err := m.Search(ctx, engram.SearchOptions{Query: "alice bob fact event session shared", Limit: 100})
		require.NoError(t, err)
		require.NotEmpty(t, res)
		for _, r := range res {
			other := map[string]string{"alice": "bob", "bob": "alice"}[m.AgentID()]
			assert.NotContains(t, r.Content, other, "%s found %s's memory %s", m.AgentID(), other, r.ID)
		}
	}
}

// TestSearchPostingBudget covers a query whose every term is common: with
// a budget of 2, the documents holding both terms are scored, then only
// the newest 2 holding the rarer one.
func TestSearchPostingBudget(t *testing.T) {
	cfg := engram.DefaultConfig()
	cfg.Search.PostingBudget = 2
	cfg.Zettelkasten.Enabled = false
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	path := newDB(t)
	m := openOn(t, path, "default", engram.Tier1, engram.WithConfig(cfg), engram.WithClock(clock.Now))
	ctx := context.Background()
	store := func(id, text string) {
		clock.Advance(time.Minute)
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: text, Importance: 0.5})
		require.NoError(t, err)
	}
	store("both", "kiwi mango smoothie")
	for _, id := range []string{"k1", "k2", "k3", "k4"} {
		store(id, "kiwi salad "+id)
	}
	for _, id := range []string{"m1", "m2", "m3"} {
		store(id, "mango chutney "+id)
	}
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kiwi and mango?"})
	require.NoError(t, err)
	ids := searchIDs(res)
	require.NotEmpty(t, ids)
	assert.Equal(t, "both", ids[0], "holding both terms ranks first")
	assert.ElementsMatch(t, []string{"both", "m2", "m3"}, ids, "m1 is outside the newest two; kiwi alone is commoner")
	res, err = m.Search(ctx, engram.SearchOptions{Query: "kiwi, mango or papaya"})
	require.NoError(t, err)
	assert.ElementsMatch(t, ids, searchIDs(res), "a word no memory holds changes nothing")

	cfg.Search.PostingBudget = 100
	wide := openOn(t, path, "default", engram.Tier1, engram.WithConfig(cfg))
	res, err = wide.Search(ctx, engram.SearchOptions{Query: "kiwi and mango?"})
	require.NoError(t, err)
	assert.Len(t, res, 8, "within the budget every match is scored")
}

// TestSearchSpellsWordsAsTheIndex searches for words whose letters Go's
// Unicode tables and SQLite's unicode61 tokenizer used to fold differently:
// the query must be tokenized exactly as the index is.
func TestSearchSpellsWordsAsTheIndex(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "copenhagen", Content: "The team meets in København every spring."},
		{ID: "lodz", Content: "The warehouse is in Łódź, near the station."},
		{ID: "decomposed", Content: "Ada's favourite cafe\u0301 serves re\u0301sume\u0301 breakfasts."},
		{ID: "other", Content: "Nothing about places or breakfasts here."},
	} {
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	for q, want := range map[string]string{
		"København":        "copenhagen",
		"københavn":        "copenhagen",
		"Łódź":             "lodz",
		"łodz":             "lodz",
		"café":             "decomposed",
		"résumé":           "decomposed",
		"cafe\u0301":       "decomposed",
		"Résumé breakfast": "decomposed",
	} {
		res, err := m.Search(ctx, engram.SearchOptions{Query: q})
		require.NoError(t, err, q)
		if assert.NotEmpty(t, res, "%q finds nothing", q) {
			assert.Equal(t, want, res[0].ID, "%q", q)
			assert.Positive(t, res[0].Parts.Text, "%q", q)
		}
	}
}

// A question and its answer that both hold the query's words rise
// together: each is scored with the other (DialogueWeight), the question
// above a turn of another session that matches better by itself, and the
// explanation says by how much and through which turn.
func TestSearchScoresATurnWithTheTurnBesideIt(t *testing.T) {
	ctx := context.Background()
	open := func(weight float64) *engram.Memory {
		cfg := engram.DefaultConfig()
		cfg.Search.DialogueWeight = weight
		// The turn beside alone: no session part, spread or question.
		cfg.Search.SessionWeight, cfg.Search.SessionSpread, cfg.Search.QuestionPenalty, cfg.Search.AnswerWeight = 0, 0, 0, 0
		return sessionMemory(t, cfg, []engram.Episode{
			{ID: "ask", Content: "which board games do you play with friends", SessionID: "s1"},
			{ID: "answer", Content: "chess and board games, with friends", SessionID: "s1"},
			{ID: "after", Content: "sounds lovely", SessionID: "s1"},
			{ID: "other", Content: "we play board games with friends", SessionID: "s2"},
			{ID: "other-after", Content: "nice", SessionID: "s2"},
		})
	}
	q := engram.SearchOptions{Query: "What board games does she play with friends?"}

	res, err := open(0).Episodic().Search(ctx, q)
	require.NoError(t, err)
	require.NotEmpty(t, res)
	require.Equal(t, []string{"other", "ask"}, searchIDs(res[:2]), "by itself the short turn of s2 matches best")
	for _, r := range res {
		assert.Empty(t, r.DialogueWith)
		assert.Zero(t, r.Parts.Dialogue)
	}

	res, err = open(0.3).Episodic().Search(ctx, q)
	require.NoError(t, err)
	byID := map[string]engram.Result{}
	for _, r := range res {
		byID[r.ID] = r
	}
	require.GreaterOrEqual(t, len(res), 3)
	assert.Equal(t, []string{"ask", "other", "answer"}, searchIDs(res[:3]), "the question, scored with its answer, comes first")
	ask, answer := byID["ask"], byID["answer"]
	assert.Equal(t, "answer", ask.DialogueWith)
	assert.Equal(t, "ask", answer.DialogueWith)
	assert.Empty(t, ask.ContextOf)
	assert.Empty(t, answer.ContextOf)
	// Each adds 0.3 of the other's own score: Text less Dialogue.
	assert.InDelta(t, 0.3*(answer.Parts.Text-answer.Parts.Dialogue), ask.Parts.Dialogue, 1e-9)
	assert.InDelta(t, 0.3*(ask.Parts.Text-ask.Parts.Dialogue), answer.Parts.Dialogue, 1e-9)
	assert.Zero(t, byID["other"].Parts.Dialogue, "no match beside it")
	assert.Empty(t, byID["other"].DialogueWith)
	if after, ok := byID["after"]; ok {
		assert.Equal(t, "answer", after.ContextOf, "context, as before")
		assert.Zero(t, after.Parts.Dialogue)
	}

	cfg := engram.DefaultConfig()
	cfg.Search.DialogueWeight = 1.5
	_, err = engram.New(engram.Tier1, engram.InMemory(), engram.WithConfig(cfg))
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

// sessionMemory is a Tier 1 memory with cfg holding eps, logged a
// minute apart in order.
func sessionMemory(t *testing.T, cfg engram.Config, eps []engram.Episode) *engram.Memory {
	t.Helper()
	clock := testutil.NewClock(t0)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now), engram.WithConfig(cfg))
	for _, e := range eps {
		_, err := m.Episodic().Log(context.Background(), e)
		require.NoError(t, err)
		clock.Advance(time.Minute)
	}
	return m
}

// resultsByID returns the results by ID, and each one's place.
func resultsByID(rs []engram.Result) (map[string]engram.Result, map[string]int) {
	byID, at := map[string]engram.Result{}, map[string]int{}
	for i, r := range rs {
		byID[r.ID], at[r.ID] = r, i
	}
	return byID, at
}

// A turn of the session the question is about ranks above a turn that
// holds as many of its words elsewhere (SessionWeight), and the
// explanation says how much of the question each session holds; a
// greeting that only names the user adds little to its session.
func TestSearchScoresTheSessionOfATurn(t *testing.T) {
	ctx := context.Background()
	eps := []engram.Episode{
		{ID: "a1", Content: "the trip to Lisbon is booked", SessionID: "travel"},
		{ID: "a2", Content: "we fly out in May", SessionID: "travel"},
		{ID: "a3", Content: "the hotel has a rooftop pool", SessionID: "travel"},
		{ID: "b1", Content: "hi Ada, how can I help", SessionID: "greetings"},
		{ID: "b2", Content: "the hotel has a noisy bar", SessionID: "greetings"},
		{ID: "b3", Content: "thanks Ada, take care", SessionID: "greetings"},
	}
	q := engram.SearchOptions{Query: "Which hotel did Ada book for the Lisbon trip?"}
	cfg := engram.DefaultConfig()
	cfg.Search.ContextWeight, cfg.Search.SessionSpread = 0, 0 // the matches alone

	cfg.Search.SessionWeight = 0
	res, err := sessionMemory(t, cfg, eps).Episodic().Search(ctx, q)
	require.NoError(t, err)
	byID, at := resultsByID(res)
	require.Contains(t, byID, "a3")
	require.Contains(t, byID, "b2")
	assert.InDelta(t, byID["a3"].Parts.Text, byID["b2"].Parts.Text, 1e-9, "the two hotel turns match alike by themselves")
	assert.Less(t, at["b2"], at["a3"], "without the session part, the tie goes by ID")

	res, err = sessionMemory(t, engram.DefaultConfig(), eps).Episodic().Search(ctx, q)
	require.NoError(t, err)
	byID, at = resultsByID(res)
	assert.Less(t, at["a3"], at["b2"], "the hotel of the trip's session first")
	travel, greetings := byID["a3"].Parts.Session, byID["b2"].Parts.Session
	assert.Greater(t, travel, greetings)
	assert.Equal(t, travel, byID["a1"].Parts.Session, "a session's turns share its part")
	assert.Equal(t, greetings, byID["b1"].Parts.Session)
	assert.Greater(t, greetings, 0.0)
	assert.Less(t, travel, 1.0)

	cfg = engram.DefaultConfig()
	for name, set := range map[string]func(*engram.SearchConfig){
		"negative weight":  func(sc *engram.SearchConfig) { sc.SessionWeight = -0.1 },
		"spread of 1":      func(sc *engram.SearchConfig) { sc.SessionSpread = 1 },
		"negative spread":  func(sc *engram.SearchConfig) { sc.SessionSpread = -0.01 },
		"penalty above 1":  func(sc *engram.SearchConfig) { sc.QuestionPenalty = 1.5 },
		"answer above 1":   func(sc *engram.SearchConfig) { sc.AnswerWeight = 1.01 },
		"weight not a num": func(sc *engram.SearchConfig) { sc.SessionWeight = math.NaN() },
	} {
		bad := cfg
		set(&bad.Search)
		_, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithConfig(bad))
		assert.ErrorIs(t, err, engram.ErrInvalid, name)
	}
}

// A memory outside any session is a session of one: holding every term
// of the question, its session part is what a session holding each once
// has, 1/(1 + BM25K1).
func TestSearchScoresAMemoryOutsideASessionAlone(t *testing.T) {
	ctx := context.Background()
	m := sessionMemory(t, engram.DefaultConfig(), []engram.Episode{{Content: "the kayak is in the garage", SessionID: "s1"}})
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The kayak lives in the garage.", Importance: 0.5})
	require.NoError(t, err)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak garage"})
	require.NoError(t, err)
	require.Len(t, res, 2)
	for _, r := range res {
		assert.InDelta(t, 1/(1+engram.DefaultConfig().Search.BM25K1), r.Parts.Session, 1e-9, "%s", r.Type)
	}
}

// One session does not fill the results (SessionSpread): each result
// after the first of its session loses a share of its score per result of
// its session above it, and the explanation says by what factor.
func TestSearchSpreadsTheResultsOverSessions(t *testing.T) {
	ctx := context.Background()
	var eps []engram.Episode
	for i := range 5 {
		eps = append(eps, engram.Episode{ID: fmt.Sprint("long-", i), Content: "the deploy failed again, the deploy", SessionID: "long"})
	}
	eps = append(eps, engram.Episode{ID: "other", Content: "the deploy failed", SessionID: "other"})
	q := engram.SearchOptions{Query: "deploy failed"}
	cfg := engram.DefaultConfig()
	cfg.Search.ContextWeight, cfg.Search.SessionWeight = 0, 0

	cfg.Search.SessionSpread = 0
	res, err := sessionMemory(t, cfg, eps).Episodic().Search(ctx, q)
	require.NoError(t, err)
	require.Len(t, res, 6)
	assert.Equal(t, "other", res[5].ID, "by itself the other session's turn matches least")

	cfg.Search.SessionSpread = 0.1
	res, err = sessionMemory(t, cfg, eps).Episodic().Search(ctx, q)
	require.NoError(t, err)
	require.Len(t, res, 6)
	_, at := resultsByID(res)
	assert.Less(t, at["other"], 5, "the other session's turn rises above the long one's last")
	k := 0
	for i, r := range res {
		if i > 0 {
			assert.GreaterOrEqual(t, res[i-1].Score, r.Score, "best first")
		}
		if r.ID == "other" {
			assert.Equal(t, 1.0, r.Parts.Spread)
			continue
		}
		assert.InDelta(t, math.Pow(0.9, float64(k)), r.Parts.Spread, 1e-12, "%s, the %d-th of its session", r.ID, k)
		k++
	}
}

// A turn that asks a question is lowered (QuestionPenalty), and the turn
// after it, its answer, comes as context with the question's whole text
// relevance (AnswerWeight) though it shares no word with the query.
func TestSearchLowersAQuestionAndRaisesItsAnswer(t *testing.T) {
	ctx := context.Background()
	eps := []engram.Episode{
		{ID: "q", Content: "where did you hide the spare key?", SessionID: "s1"},
		{ID: "a", Content: "under the flowerpot by the door", SessionID: "s1"},
		{ID: "later", Content: "thanks!", SessionID: "s1"},
	}
	q := engram.SearchOptions{Query: "Where is the spare key?"}
	cfg := engram.DefaultConfig()

	res, err := sessionMemory(t, cfg, eps).Episodic().Search(ctx, q)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(res), 2)
	byID, at := resultsByID(res)
	assert.Equal(t, []string{"a", "q"}, searchIDs(res[:2]), "the answer above its question")
	assert.Equal(t, "q", byID["a"].ContextOf)
	assert.InDelta(t, 1-cfg.Search.QuestionPenalty, byID["q"].Parts.Question, 1e-12)
	assert.Equal(t, 1.0, byID["a"].Parts.Question)
	assert.InDelta(t, byID["q"].Parts.Text, byID["a"].Parts.Text, 0.002, "the answer has its question's text relevance, or a hair under it")
	if _, ok := byID["later"]; ok {
		assert.Greater(t, at["later"], at["q"])
	}

	cfg.Search.QuestionPenalty, cfg.Search.AnswerWeight = 0, 0
	res, err = sessionMemory(t, cfg, eps).Episodic().Search(ctx, q)
	require.NoError(t, err)
	byID, _ = resultsByID(res)
	assert.Equal(t, "q", res[0].ID, "without them the question comes first")
	assert.Equal(t, 1.0, byID["q"].Parts.Question)
	assert.InDelta(t, cfg.Search.ContextWeight*byID["q"].Parts.Text, byID["a"].Parts.Text, 1e-9, "and its answer has ContextWeight's share")
}

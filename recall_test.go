package engram_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

var recallStart = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// seedAda stores the mixed memory: three facts about Ada and a
// chat session in which one turn greets her by name.
func seedAda(t *testing.T, m *engram.Memory) {
	t.Helper()
	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "live", Content: "Ada lives in London"},
		{ID: "work", Content: "Ada works on payments"},
		{ID: "short", Content: "Ada prefers short answers"},
	} {
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	for i, c := range []string{
		"user: morning",
		"assistant: hi Ada, how can I help",
		"user: can you move my 3pm to Thursday",
		"assistant: done, it is on Thursday at 3pm",
		"user: thanks, and book the usual table for lunch",
		"assistant: booked for 12:30",
	} {
		_, err := m.Episodic().Log(ctx, engram.Episode{ID: "chat-" + string(rune('a'+i)), Content: c, SessionID: "s1",
			CreatedAt: recallStart.Add(time.Duration(i) * time.Minute)})
		require.NoError(t, err)
	}
}

// The example: asked where Ada lives, search answers with the fact,
// not with the chat turn that greets her nor its neighbours, which share
// no word with the question: each kind's text is scored with the
// statistics of the agent's whole memory, and a neighbour that came along
// as context never outranks a direct match for the same words.
func TestSearchRanksTheFactAboveSmallTalk(t *testing.T) {
	clock := testutil.NewClock(recallStart)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	seedAda(t, m)
	clock.Advance(time.Hour)
	res, err := m.Search(context.Background(), engram.SearchOptions{Query: "Where does Ada live?"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, "live", res[0].ID, "the fact comes first: %v", searchIDs(res))
	fact := res[0]
	for _, r := range res[1:] {
		if r.ContextOf != "" {
			assert.Less(t, r.Parts.Text, fact.Parts.Text, "%s came along as context of %s", r.ID, r.ContextOf)
		}
	}
}

// Snapshots are searched by their summary, their decisions and their
// messages; a snapshot trimmed away (MaxSnapshotsPerSession) leaves the
// index with it.
func TestSnapshotsAreSearchable(t *testing.T) {
	cfg := engram.DefaultConfig()
	cfg.Episodic.MaxSnapshotsPerSession = 1
	clock := testutil.NewClock(recallStart)
	m := newMemory(t, engram.Tier1, engram.WithConfig(cfg), engram.WithClock(clock.Now))
	ctx := context.Background()
	_, err := m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "snap-1", SessionID: "s1",
		Summary: "Planned the offsite in Lisbon", KeyDecisions: []string{"book the riverside hotel"},
		Messages: []engram.Message{{Role: "user", Content: "the budget is forty thousand euros"}}})
	require.NoError(t, err)
	for q, want := range map[string]string{
		"offsite lisbon":       "snap-1", // summary
		"which hotel":          "snap-1", // decisions
		"budget forty":         "snap-1", // messages
		"what about the zebra": "",
	} {
		res, err := m.Search(ctx, engram.SearchOptions{Query: q})
		require.NoError(t, err)
		if want == "" {
			assert.Empty(t, res, q)
			continue
		}
		require.NotEmpty(t, res, q)
		assert.Equal(t, engram.TypeSnapshot, res[0].Type, q)
		assert.Equal(t, want, res[0].ID, q)
		assert.Contains(t, res[0].Content, "Planned the offsite in Lisbon")
	}
	res, err := m.Search(ctx, engram.SearchOptions{Query: "hotel", Types: []engram.MemoryType{engram.TypeSnapshot}})
	require.NoError(t, err)
	assert.Equal(t, []string{"snap-1"}, searchIDs(res))
	// A newer snapshot of the session pushes the old one out, index and
	// all.
	clock.Advance(time.Hour)
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "snap-2", SessionID: "s1", Summary: "Moved the offsite to Porto"})
	require.NoError(t, err)
	res, err = m.Search(ctx, engram.SearchOptions{Query: "riverside hotel lisbon"})
	require.NoError(t, err)
	assert.Empty(t, res, "the trimmed snapshot is gone from the index")
	res, err = m.Search(ctx, engram.SearchOptions{Query: "offsite"})
	require.NoError(t, err)
	assert.Equal(t, []string{"snap-2"}, searchIDs(res))
}

// A query with more terms than the cap keeps its rarest, not its first:
// a question made of 40 common words and one rare one still finds the
// memory holding the rare word.
func TestLongQueryKeepsItsRarestTerms(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	var common []string
	for i := range 40 {
		common = append(common, "common"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	var batch []engram.SemanticEntry
	for i := range 60 {
		batch = append(batch, engram.SemanticEntry{Content: strings.Join(common, " ") + " filler " + string(rune('a'+i%26))})
	}
	batch = append(batch, engram.SemanticEntry{ID: "rare", Content: "the zephyrine valve is stuck"})
	_, err := m.Semantic().StoreBatch(ctx, batch)
	require.NoError(t, err)
	f, err := m.Find(ctx, engram.SearchOptions{Query: strings.Join(common, " ") + " zephyrine"})
	require.NoError(t, err)
	assert.Contains(t, f.Terms, "zephyrine", "the rare term is kept")
	assert.LessOrEqual(t, len(f.Terms), 32)
	require.NotEmpty(t, f.Results)
	assert.Equal(t, "rare", f.Results[0].ID)
}

// textScores searches for query and returns each result's Text score.
func textScores(t *testing.T, m *engram.Memory, opts engram.SearchOptions) map[string]float64 {
	t.Helper()
	res, err := m.Search(context.Background(), opts)
	require.NoError(t, err)
	out := map[string]float64{}
	for _, r := range res {
		out[r.ID] = r.Parts.Text
	}
	return out
}

// The statistics a search scores with are the agent's memory as it is, not
// what an earlier search cached: after episodes made "deploy" common, the
// Memory that searched before scores exactly as one opened afresh.
func TestSearchScoresWithCurrentStatistics(t *testing.T) {
	path := newDB(t)
	m := openOn(t, path, "a", engram.Tier1)
	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "deploy", Content: "deploy on Fridays is forbidden"},
		{ID: "release", Content: "the release train leaves on Mondays"},
	} {
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	_, err := m.Episodic().Log(ctx, engram.Episode{Content: "user: the first deploy went fine", SessionID: "s"})
	require.NoError(t, err)
	opts := engram.SearchOptions{Query: "deploy release"}
	before := textScores(t, m, opts)
	for i := range 40 {
		_, err := m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("user: deploy number %d went fine", i), SessionID: "s"})
		require.NoError(t, err)
	}
	after := textScores(t, m, opts)
	fresh := textScores(t, openOn(t, path, "a", engram.Tier1), opts)
	assert.Equal(t, fresh, after)
	assert.Less(t, after["deploy"], before["deploy"], "deploy is common now: %v, before %v", after, before)
}

// Restricting a search to some kinds, or to tags, changes which memories
// it returns, not how they score against each other: the statistics are
// the agent's whole memory's, whatever the filters.
func TestSearchFiltersDoNotChangeStatistics(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "deploy", Content: "deploy on Fridays is forbidden", Tags: []string{"ops"}},
		{ID: "release", Content: "the release train leaves on Mondays", Tags: []string{"ops"}},
	} {
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	for i := range 20 {
		_, err := m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("user: deploy number %d went fine", i), SessionID: "s"})
		require.NoError(t, err)
	}
	ratio := func(s map[string]float64) float64 {
		require.Contains(t, s, "deploy")
		require.Contains(t, s, "release")
		return s["deploy"] / s["release"]
	}
	all := ratio(textScores(t, m, engram.SearchOptions{Query: "deploy release", Limit: 100}))
	assert.Less(t, all, 0.9, "deploy is the common word")
	kinds := ratio(textScores(t, m, engram.SearchOptions{Query: "deploy release", Types: []engram.MemoryType{engram.TypeSemantic}}))
	tags := ratio(textScores(t, m, engram.SearchOptions{Query: "deploy release", Tags: []string{"ops"}}))
	assert.InDelta(t, all, kinds, 1e-12)
	assert.InDelta(t, all, tags, 1e-12)
}

// sigmoid is the gate's function, written out for the test.
func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// The gate of Recall, against values computed by hand from the issue's
// formula: x = 1.0·relevance + 0.4·expectedValue + 0.05·0.3 − 0.02·noise,
// expectedValue = min(1, log(1+retrievals)/log 11 + log(strength)/log 11).
func TestRecallGateFormula(t *testing.T) {
	clock := testutil.NewClock(recallStart)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "kayak", Content: "the kayak is stored in the garage"})
	require.NoError(t, err)
	for retrievals := range 3 {
		r, err := m.Recall(ctx, "where is the kayak?")
		require.NoError(t, err)
		require.Len(t, r.Admitted, 1)
		g := r.Admitted[0].Gate
		ev := math.Log(1+float64(retrievals)) / math.Log(11)
		x := 1.0*1.0 + 0.4*ev + 0.05*0.3
		assert.Equal(t, retrievals, g.Retrievals)
		assert.InDelta(t, 1.0, g.Relevance, 1e-12, "the best match's relevance")
		assert.InDelta(t, 1.0, g.Strength, 1e-12)
		assert.InDelta(t, ev, g.ExpectedValue, 1e-12)
		assert.InDelta(t, 0.3, g.Control, 1e-12)
		assert.Zero(t, g.Noise, "noise is off by default")
		assert.InDelta(t, x, g.X, 1e-12)
		assert.InDelta(t, sigmoid(x), g.Gate, 1e-12)
	}
	e, err := m.Semantic().Get(ctx, "kayak")
	require.NoError(t, err)
	assert.Equal(t, 3, e.Retrievals, "each Recall counted one retrieval")

	// Strength counts the evidence: a procedure used 5 times with a
	// success rate of 0.4 has strength 1 + 5·0.4 = 3, and log 3/log 11 of
	// expected value.
	_, err = m.Procedural().Store(ctx, engram.Procedure{ID: "paddle", Name: "paddle the canoe", Description: "kneel and switch sides",
		UseCount: 5, SuccessRate: 0.4})
	require.NoError(t, err)
	r, err := m.Recall(ctx, "canoe")
	require.NoError(t, err)
	require.Len(t, r.ByKind[engram.TypeProcedural], 1)
	g := r.ByKind[engram.TypeProcedural][0].Gate
	assert.InDelta(t, 3.0, g.Strength, 1e-12)
	assert.InDelta(t, math.Log(3)/math.Log(11), g.ExpectedValue, 1e-12)
	assert.InDelta(t, sigmoid(1+0.4*math.Log(3)/math.Log(11)+0.015), g.Gate, 1e-12)

	// The same with noise, seeded: two Memories with the same seed draw
	// the same noise, which moves x by −0.02·noise.
	cfg := engram.DefaultConfig()
	cfg.Recall.Noise, cfg.Recall.NoiseSeed = true, 42
	var gates [2]engram.GateParts
	for i := range gates {
		n := newMemory(t, engram.Tier1, engram.WithConfig(cfg), engram.WithClock(clock.Now))
		_, err := n.Semantic().Store(ctx, engram.SemanticEntry{Content: "the kayak is stored in the garage"})
		require.NoError(t, err)
		r, err := n.Recall(ctx, "kayak")
		require.NoError(t, err)
		require.Len(t, r.Admitted, 1)
		gates[i] = r.Admitted[0].Gate
	}
	assert.Equal(t, gates[0], gates[1], "seeded noise is reproducible")
	assert.NotZero(t, gates[0].Noise)
	assert.InDelta(t, 1.0+0.015-0.02*gates[0].Noise, gates[0].X, 1e-12)
}

// Recall admits at most the cap, best gate first, and only above the
// threshold; what it admits enters the working set, the best added last;
// and every kind's retrieval count goes up, read back before and after it
// is written.
func TestRecallCapThresholdAndRetrievals(t *testing.T) {
	clock := testutil.NewClock(recallStart)
	db := newDB(t)
	open := func(cfg engram.Config) *engram.Memory {
		return openOn(t, db, engram.DefaultAgent, engram.Tier1, engram.WithConfig(cfg), engram.WithClock(clock.Now))
	}
	cfg := engram.DefaultConfig()
	m := open(cfg)
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "fact", Content: "the kayak lives in the garage", Importance: 0.9})
	require.NoError(t, err)
	_, err = m.Episodic().Log(ctx, engram.Episode{ID: "episode", Content: "took the kayak out on the lake"})
	require.NoError(t, err)
	_, err = m.Procedural().Store(ctx, engram.Procedure{ID: "procedure", Name: "launch the kayak", Description: "carry the kayak to the water", SuccessRate: 0.8})
	require.NoError(t, err)
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "snapshot", SessionID: "s1", Summary: "Planned a kayak trip"})
	require.NoError(t, err)
	_, err = m.Working().Add(engram.WorkingItem{ID: "note", Content: "buy sunscreen", Importance: 0.2})
	require.NoError(t, err)

	r, err := m.Recall(ctx, "kayak")
	require.NoError(t, err)
	require.Len(t, r.Admitted, 4, "every kind's match enters (the cap is the working capacity, 7)")
	for i := 1; i < len(r.Admitted); i++ {
		assert.GreaterOrEqual(t, r.Admitted[i-1].Gate.Gate, r.Admitted[i].Gate.Gate, "best gate first")
	}
	for _, typ := range []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeSnapshot} {
		require.Len(t, r.ByKind[typ], 1, typ)
		assert.True(t, r.ByKind[typ][0].Admitted, typ)
	}
	require.Len(t, r.Working, 5)
	assert.Equal(t, engram.RecalledID(r.Admitted[0].Type, r.Admitted[0].ID), r.Working[0].ID, "the best is added last, so it is the newest")
	for _, it := range r.Working[:4] {
		assert.NotEmpty(t, it.Recalled, it.ID)
		assert.Equal(t, "recall", it.Source)
	}

	retrievals := func(m *engram.Memory) map[string]int {
		e, err := m.Semantic().Get(ctx, "fact")
		require.NoError(t, err)
		ep, err := m.Episodic().Get(ctx, "episode")
		require.NoError(t, err)
		p, err := m.Procedural().Get(ctx, "procedure")
		require.NoError(t, err)
		s, err := m.Episodic().LatestSnapshot(ctx, "s1")
		require.NoError(t, err)
		return map[string]int{"fact": e.Retrievals, "episode": ep.Retrievals, "procedure": p.Retrievals, "snapshot": s.Retrievals}
	}
	want := map[string]int{"fact": 1, "episode": 1, "procedure": 1, "snapshot": 1}
	assert.Equal(t, want, retrievals(m), "read before they are written")
	// A search of the working set finds the stored memory, not its copy.
	res, err := m.Search(ctx, engram.SearchOptions{Query: "kayak"})
	require.NoError(t, err)
	for _, x := range res {
		assert.NotEqual(t, engram.TypeWorking, x.Type)
	}
	// Flush keeps recalled items where they are.
	require.NoError(t, m.Flush(ctx))
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Semantic, "Flush stored no recalled item again")
	require.NoError(t, m.Close())
	m = open(cfg)
	assert.Equal(t, want, retrievals(m), "written by Flush")

	// The cap, then the threshold.
	require.NoError(t, m.Close())
	cfg.Recall.Cap = 2
	m = open(cfg)
	r, err = m.Recall(ctx, "kayak")
	require.NoError(t, err)
	assert.Len(t, r.Admitted, 2)
	require.NoError(t, m.Close())
	cfg.Recall.Cap, cfg.Recall.Threshold = 0, 0.95
	m = open(cfg)
	r, err = m.Recall(ctx, "kayak")
	require.NoError(t, err)
	assert.Empty(t, r.Admitted, "no gate passes 0.95")
	assert.Len(t, r.ByKind, 4, "the candidates are still scored")
	assert.Empty(t, r.Working, "nothing entered the working set of a new Memory")
	require.NoError(t, m.CheckIntegrity(ctx))
	require.NoError(t, m.Close())
}

func TestRecallRejectsBadInput(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	for _, q := range []string{"", "  ", "bad \xff utf-8", "nul\x00"} {
		_, err := m.Recall(context.Background(), q)
		assert.ErrorIs(t, err, engram.ErrInvalid, "%q", q)
	}
	assert.Zero(t, m.Working().Len())
}

// Memories of different kinds may share an ID: recalled, each keeps its
// own working item, and the agent's own item of that ID stays as it was.
// A memory whose text is over the working set's limit (a long snapshot)
// enters cut to the limit rather than failing the Recall half-way.
func TestRecallKeepsKindsApartAndCutsLongText(t *testing.T) {
	cfg := engram.DefaultConfig()
	cfg.Limits.MaxContentBytes = 4096
	m := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "kayak", Content: "the kayak lives in the garage"})
	require.NoError(t, err)
	_, err = m.Procedural().Store(ctx, engram.Procedure{ID: "kayak", Name: "launch the kayak", Description: "carry the kayak to the water"})
	require.NoError(t, err)
	var decisions []string
	for i := range 80 {
		decisions = append(decisions, fmt.Sprintf("decision %d: %s", i, strings.Repeat("paddle ", 12)))
	}
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "trip", SessionID: "s1", Summary: "Planned a kayak trip", KeyDecisions: decisions})
	require.NoError(t, err)
	_, err = m.Working().Add(engram.WorkingItem{ID: "kayak", Content: "my own note on the kayak", Importance: 0.2})
	require.NoError(t, err)

	r, err := m.Recall(ctx, "kayak")
	require.NoError(t, err)
	require.Len(t, r.Admitted, 3)
	byID := map[string]engram.WorkingItem{}
	for _, it := range r.Working {
		byID[it.ID] = it
	}
	require.Len(t, byID, 4, "%v", r.Working)
	assert.Equal(t, "my own note on the kayak", byID["kayak"].Content)
	assert.Equal(t, engram.TypeSemantic, byID[engram.RecalledID(engram.TypeSemantic, "kayak")].Recalled)
	assert.Equal(t, engram.TypeProcedural, byID[engram.RecalledID(engram.TypeProcedural, "kayak")].Recalled)
	long := byID[engram.RecalledID(engram.TypeSnapshot, "trip")]
	assert.LessOrEqual(t, len(long.Content), 4096)
	assert.True(t, strings.HasSuffix(long.Content, "…"), "cut, and says so: %d bytes", len(long.Content))
}

// countWords is an exact tokenizer for the test: one token per word.
func countWords(s string) int { return len(strings.Fields(s)) }

// Context stays within its budget from 50 to 50,000 tokens, is the same
// bytes across calls on the same memory, puts what does not depend on the
// query first (the same prefix for two queries), shows no IDs, and changes
// nothing.
func TestContextBudgetAndStability(t *testing.T) {
	clock := testutil.NewClock(recallStart)
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	var facts []engram.SemanticEntry
	for i := range 300 {
		e := engram.SemanticEntry{Content: strings.Repeat("fact about the garden ", 1+i%5) + string(rune('a'+i%26)),
			Importance: float64(2+i%8) / 10, Tags: []string{"home"}}
		if i%30 == 0 { // a few facts about the kayak, of little importance
			e.ID, e.Content, e.Importance = fmt.Sprintf("kayak-%d", i), "the kayak paddle is in the shed", 0.1
		}
		facts = append(facts, e)
	}
	_, err := m.Semantic().StoreBatch(ctx, facts)
	require.NoError(t, err)
	for i := range 50 {
		c := "talked about the garden, part " + string(rune('a'+i%26))
		id := ""
		if i == 3 {
			c, id = "planned the kayak trip for the 9th", "trip"
		}
		_, err := m.Episodic().Log(ctx, engram.Episode{ID: id, Content: c, SessionID: "s1", CreatedAt: recallStart.Add(time.Duration(i) * time.Minute)})
		require.NoError(t, err)
	}
	_, err = m.Procedural().Store(ctx, engram.Procedure{ID: "launch", Name: "launch the kayak", Description: "carry it to the water", SuccessRate: 0.9})
	require.NoError(t, err)
	clock.Advance(time.Hour)
	before, err := m.Stats(ctx)
	require.NoError(t, err)

	for _, budget := range []int{50, 100, 500, 2000, 10_000, 50_000} {
		for _, tok := range []func(string) int{nil, countWords} {
			opts := engram.ContextOptions{Query: "when is the kayak trip?", MaxTokens: budget, Tokens: tok}
			a, err := m.Context(ctx, opts)
			require.NoError(t, err)
			b, err := m.Context(ctx, opts)
			require.NoError(t, err)
			count := engram.EstimateTokens
			if tok != nil {
				count = tok
			}
			assert.LessOrEqual(t, count(a.Text), budget, "budget %d", budget)
			assert.Equal(t, count(a.Text), a.Tokens)
			assert.Equal(t, a.Text, b.Text, "the same bytes twice (budget %d)", budget)
			assert.NotContains(t, a.Text, "<!--")
			assert.NotContains(t, a.Text, "id:")
			other, err := m.Context(ctx, engram.ContextOptions{Query: "garden", MaxTokens: budget, Tokens: tok})
			require.NoError(t, err)
			assert.Equal(t, a.Text[:a.Stable], other.Text[:other.Stable], "the stable part does not depend on the query")
			if budget >= 500 {
				assert.Greater(t, a.Stable, 0)
				assert.Contains(t, a.Text, "## What I know")
			}
		}
	}
	full, err := m.Context(ctx, engram.ContextOptions{Query: "kayak trip", MaxTokens: 2000})
	require.NoError(t, err)
	var titles []string
	for _, s := range full.Sections {
		titles = append(titles, s.Title)
	}
	assert.Equal(t, []string{"What I know", "How I work", "Recently", `Relevant to "kayak trip"`}, titles)
	assert.Greater(t, full.Sections[0].Omitted, 0, "300 facts do not fit in 40% of 2000 tokens")
	after, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.Zero(t, m.Working().Len(), "Context leaves the working set alone")
	// Nor are the memories it showed counted as used or retrieved (the
	// counts not written yet are read too).
	e, err := m.Semantic().Get(ctx, "kayak-0")
	require.NoError(t, err)
	assert.Zero(t, e.AccessCount)
	assert.Zero(t, e.Retrievals)
	ep, err := m.Episodic().Get(ctx, "trip")
	require.NoError(t, err)
	assert.Zero(t, ep.Retrievals)
	p, err := m.Procedural().Get(ctx, "launch")
	require.NoError(t, err)
	assert.Zero(t, p.Retrievals)
	assert.Contains(t, full.Text, "kayak trip for the 9th", "the memories checked were in the block")
	assert.Contains(t, full.Text, "launch the kayak")
}

// Sections says what the text holds even when the whole text counts more
// tokens than its lines (a tokenizer that is not additive), and lines are
// dropped to fit: the titles and lines in the text are the sections'.
func TestContextSectionsMatchTheText(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	for i := range 30 {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("fact %d about the kayak", i)})
		require.NoError(t, err)
		_, err = m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("user: talked about the kayak, part %d", i), SessionID: "s"})
		require.NoError(t, err)
	}
	squared := func(s string) int { n := strings.Count(s, "\n"); return n * n } // 1 a line, L² a text of L lines
	for _, budget := range []int{9, 30, 100, 400} {
		b, err := m.Context(ctx, engram.ContextOptions{Query: "kayak", MaxTokens: budget, Tokens: squared})
		require.NoError(t, err)
		assert.LessOrEqual(t, squared(b.Text), budget)
		var titles []string
		var items []int
		for _, line := range strings.Split(b.Text, "\n") {
			switch {
			case strings.HasPrefix(line, "## "):
				titles, items = append(titles, strings.TrimPrefix(line, "## ")), append(items, 0)
			case strings.HasPrefix(line, "- "):
				items[len(items)-1]++
			}
		}
		var wantTitles []string
		var wantItems []int
		for _, s := range b.Sections {
			wantTitles, wantItems = append(wantTitles, s.Title), append(wantItems, len(s.IDs))
			assert.Positive(t, len(s.IDs), "a section shows something")
		}
		assert.Equal(t, wantTitles, titles, "budget %d", budget)
		assert.Equal(t, wantItems, items, "budget %d", budget)
	}
}

func TestContextRejectsBadInput(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	for _, opts := range []engram.ContextOptions{{MaxTokens: -1}, {MaxTokens: 1_000_001}, {Query: "bad \xff"}} {
		_, err := m.Context(ctx, opts)
		assert.ErrorIs(t, err, engram.ErrInvalid, "%+v", opts)
	}
	b, err := m.Context(ctx, engram.ContextOptions{})
	require.NoError(t, err)
	assert.Equal(t, "# Memory of default\n", b.Text, "an empty memory")
}

// Threshold means the same in every mode: the best match has relevance 1
// whatever the mode, so a search's best result passes a threshold that
// its relevance part reaches in every mode.
func TestThresholdMeansTheSameInEveryMode(t *testing.T) {
	h, err := engram.NewHashingEmbedder(64)
	require.NoError(t, err)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(h))
	ctx := context.Background()
	for _, c := range []string{"the deploy runs from the blue pipeline", "lunch is at noon", "the pipeline needs a review"} {
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: c})
		require.NoError(t, err)
	}
	for _, mode := range []engram.SearchMode{engram.SearchText, engram.SearchVector, engram.SearchHybrid} {
		res, err := m.Search(ctx, engram.SearchOptions{Query: "blue pipeline deploy", Mode: mode, Threshold: 0.75})
		require.NoError(t, err)
		require.NotEmpty(t, res, mode)
		assert.Contains(t, res[0].Content, "blue pipeline", mode)
		for _, r := range res {
			assert.GreaterOrEqual(t, r.Score, 0.75, mode)
		}
	}
}

// While memories wait for their vectors, vector and hybrid searches still
// find them by text, and say how many are waiting.
func TestPendingMemoriesAreFoundByText(t *testing.T) {
	e := newTestEmbedder(t, 64)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	ctx := context.Background()
	e.set(true, 0)
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "waiting", Content: "the staging database runs PostgreSQL 16"})
	require.NoError(t, err)
	e.set(false, 0)
	for _, mode := range []engram.SearchMode{engram.SearchVector, engram.SearchHybrid} {
		f, err := m.Find(ctx, engram.SearchOptions{Query: "staging database", Mode: mode})
		require.NoError(t, err)
		assert.Equal(t, 1, f.Pending, mode)
		assert.Equal(t, mode, f.Mode)
		require.NotEmpty(t, f.Results, mode)
		assert.Equal(t, "waiting", f.Results[0].ID, mode)
	}
	require.NoError(t, m.Flush(ctx))
	f, err := m.Find(ctx, engram.SearchOptions{Query: "staging database", Mode: engram.SearchVector})
	require.NoError(t, err)
	assert.Zero(t, f.Pending)
	require.NotEmpty(t, f.Results)
	assert.Positive(t, f.Results[0].Parts.Vector)
}

// The rejection of bad input never leaves anything behind.
func TestFindRejectsBadInput(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	_, err := m.Find(context.Background(), engram.SearchOptions{Query: "x", Mode: engram.SearchVector})
	assert.True(t, errors.Is(err, engram.ErrTierUnsupported))
	_, err = m.Find(context.Background(), engram.SearchOptions{Query: ""})
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

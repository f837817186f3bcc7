package engram_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

var stressFor = flag.Duration("stress", 3*time.Second, "how long TestConcurrentReadersAndWriters runs")

// TestConcurrentReadersAndWriters runs 8 writing and 8 reading goroutines
// against one database file for -stress (3s by default), through two
// Memory handles (two agents) so that writers also meet each other across
// connections. Run it under -race. Every call must succeed ("database is
// locked" included), and afterwards the counts must be exact and the
// integrity checks (run by testutil at cleanup) clean.
func TestConcurrentReadersAndWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	path := newDB(t)
	// alpha links only explicitly, so its link count is exact; beta also
	// auto-links every semantic entry it stores.
	agents := []*stressAgent{
		{m: openOn(t, path, "alpha", engram.Tier1, noAutoLink())},
		{m: openOn(t, path, "beta", engram.Tier1), autoLinks: true},
	}
	ctx := context.Background()
	for _, a := range agents {
		id, err := a.m.Procedural().Store(ctx, engram.Procedure{Name: "work", SuccessRate: 0.5, Tags: []string{"w"}})
		require.NoError(t, err)
		a.proc = id
	}

	deadline := time.Now().Add(*stressFor)
	var wg sync.WaitGroup
	var failures atomic.Int64
	var firstErr sync.Once
	fail := func(who string, err error) {
		failures.Add(1)
		firstErr.Do(func() { t.Errorf("%s: %v", who, err) })
	}

	for w := range 8 {
		wg.Go(func() {
			a := agents[w%2]
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			var prev string
			for i := 0; time.Now().Before(deadline); i++ {
				id, who, err := a.write(ctx, rng, w, i, prev)
				if err != nil {
					fail(who, err)
					return
				}
				prev = id
			}
		})
	}

	var reads atomic.Int64
	for r := range 8 {
		wg.Go(func() {
			a := agents[r%2]
			for i := 0; time.Now().Before(deadline); i++ {
				if err := a.read(ctx, r, i%10); err != nil {
					fail(fmt.Sprintf("reader %d op %d", r, i%10), err)
					return
				}
				reads.Add(1)
			}
		})
	}
	wg.Wait()
	require.Zero(t, failures.Load(), "calls failed")

	flushed := 0
	for _, a := range agents {
		flushed += a.check(t, ctx)
	}
	t.Logf("%v: %d semantic, %d episodes, %d reads, %d flushed working items",
		*stressFor, agents[0].tally.semantic.Load()+agents[1].tally.semantic.Load(),
		agents[0].tally.episodes.Load()+agents[1].tally.episodes.Load(), reads.Load(), flushed)
}

// stressAgent is one agent of TestConcurrentReadersAndWriters: its
// Memory handle and what its writers did.
type stressAgent struct {
	m         *engram.Memory
	autoLinks bool     // m auto-links the semantic entries it stores
	proc      string   // the procedure whose outcomes the writers record
	known     sync.Map // set of semantic IDs stored so far
	tally     struct {
		semantic, episodes, snapshots, links, outcomes atomic.Int64
	}
}

// write makes round i of writer w: a semantic entry, an episode, a
// sequential link from prev (the entry of the round before) to the new
// entry, then what writeEvery adds. It counts every write that succeeded
// and returns the new entry's ID, or the call that failed and its error.
func (a *stressAgent) write(ctx context.Context, rng *rand.Rand, w, i int, prev string) (id, who string, err error) {
	id, err = a.m.Semantic().Store(ctx, engram.SemanticEntry{
		Content:    fmt.Sprintf("writer %d fact %d about deploys and databases", w, i),
		Importance: rng.Float64(),
		Tags:       []string{"w", fmt.Sprint(w)},
	})
	if err != nil {
		return "", "Store", err
	}
	a.tally.semantic.Add(1)
	a.known.Store(id, true)
	if _, err := a.m.Episodic().Log(ctx, engram.Episode{Content: fmt.Sprintf("writer %d did %d", w, i), TaskID: fmt.Sprintf("t%d", w)}); err != nil {
		return "", "Log", err
	}
	a.tally.episodes.Add(1)
	if prev != "" {
		if err := a.m.Links().Add(ctx, engram.Link{SourceID: prev, TargetID: id, Type: engram.LinkSequential}); err != nil {
			return "", "Links.Add", err
		}
		a.tally.links.Add(1)
	}
	who, err = a.writeEvery(ctx, rng, w, i)
	return id, who, err
}

// writeEvery makes the writes of round i of writer w that come every ten
// rounds: an outcome of the agent's procedure, a batch of two entries, a
// session snapshot, or a working item flushed. It counts every write that
// succeeded and returns the call that failed and its error.
func (a *stressAgent) writeEvery(ctx context.Context, rng *rand.Rand, w, i int) (who string, err error) {
	switch i % 10 {
	case 3:
		if _, err := a.m.Procedural().RecordOutcome(ctx, a.proc, rng.IntN(2) == 0); err != nil {
			return "RecordOutcome", err
		}
		a.tally.outcomes.Add(1)
	case 6:
		batch := []engram.SemanticEntry{{Content: "batch a", Importance: 0.2}, {Content: "batch b", Importance: 0.3}}
		got, err := a.m.Semantic().StoreBatch(ctx, batch)
		if err != nil {
			return "StoreBatch", err
		}
		a.tally.semantic.Add(int64(len(got)))
		for _, id := range got {
			a.known.Store(id, true)
		}
	case 8:
		if err := a.m.Snapshot(ctx, engram.SessionSnapshot{SessionID: fmt.Sprintf("w%d-%d", w, i), Summary: "s"}); err != nil {
			return "Snapshot", err
		}
		a.tally.snapshots.Add(1)
	case 9:
		if _, err := a.m.Working().Add(engram.WorkingItem{Content: fmt.Sprintf("thought %d/%d", w, i), Importance: rng.Float64()}); err != nil {
			return "Working.Add", err
		}
		if err := a.m.Flush(ctx); err != nil {
			return "Flush", err
		}
	}
	return "", nil
}

// read makes read op (0 to 9) of reader r and returns its error.
func (a *stressAgent) read(ctx context.Context, r, op int) error {
	var err error
	switch op {
	case 0:
		_, err = a.m.Bootstrap(ctx)
	case 1:
		_, err = a.m.Semantic().List(ctx, engram.ListOptions{Limit: 20})
	case 2:
		_, err = a.m.Episodic().Recent(ctx, 20)
	case 3:
		_, err = a.m.Procedural().FindByTags(ctx, []string{"w"}, 5)
	case 4:
		a.known.Range(func(k, _ any) bool {
			_, err = a.m.Semantic().Get(ctx, k.(string))
			return false
		})
	case 5:
		a.known.Range(func(k, _ any) bool {
			_, err = a.m.Links().Traverse(ctx, k.(string), 3)
			return false
		})
	case 6:
		_, err = a.m.Stats(ctx)
	case 7:
		_, err = a.m.Working().Find("thought")
	case 8:
		// Full-text reads while the other handle writes the
		// same index.
		_, err = a.m.Search(ctx, engram.SearchOptions{Query: "what about deploys and databases?", Limit: 5})
	case 9:
		_, err = a.m.Search(ctx, engram.SearchOptions{Query: fmt.Sprintf("writer %d fact", r), Types: []engram.MemoryType{engram.TypeEpisodic, engram.TypeSemantic}})
	}
	return err
}

// check checks, once the writers are done, that the agent's Stats count
// exactly what its writers stored (semantic entries, episodes, snapshots,
// links, outcomes), the semantic entries Flush kept from working memory
// counted apart. It returns how many Flush kept.
func (a *stressAgent) check(t *testing.T, ctx context.Context) int {
	t.Helper()
	m, tl := a.m, &a.tally
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	// Flush may keep working items above the importance threshold in
	// semantic memory; count those separately.
	list, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 10000})
	require.NoError(t, err)
	kept := 0
	for _, e := range list {
		if _, ok := a.known.Load(e.ID); !ok {
			kept++
		}
	}
	assert.Equal(t, int(tl.semantic.Load())+kept, st.Semantic, "semantic count of %s", m.AgentID())
	assert.Equal(t, int(tl.episodes.Load()), st.Episodes, "episodes of %s", m.AgentID())
	assert.Equal(t, int(tl.snapshots.Load()), st.Snapshots, "snapshots of %s", m.AgentID())
	if !a.autoLinks {
		assert.Equal(t, int(tl.links.Load()), st.Links, "links of %s", m.AgentID())
	} else {
		a.checkAutoLinks(t, ctx, list, st.Links)
	}
	p, err := m.Procedural().Get(ctx, a.proc)
	require.NoError(t, err)
	assert.Equal(t, int(tl.outcomes.Load()), p.UseCount, "outcomes of %s", m.AgentID())
	return kept
}

// checkAutoLinks checks, for an agent that auto-links, that the
// sequential links from the entries of list are the ones its writers added
// and that every other of its links (total in all) is an auto-link.
func (a *stressAgent) checkAutoLinks(t *testing.T, ctx context.Context, list []engram.SemanticEntry, total int) {
	t.Helper()
	m := a.m
	sequential, similar := 0, 0
	for _, e := range list {
		links, err := m.Links().For(ctx, e.ID)
		require.NoError(t, err)
		for _, l := range links {
			switch {
			case l.SourceID != e.ID:
			case l.Type == engram.LinkSequential:
				sequential++
			case l.Type == engram.LinkSimilar:
				similar++
			}
		}
	}
	assert.Equal(t, int(a.tally.links.Load()), sequential, "explicit links of %s", m.AgentID())
	assert.Equal(t, total, sequential+similar, "every other link of %s is an auto-link", m.AgentID())
}

// TestConcurrentTier2 runs writers (stores, deletes, updates) and
// searchers (hybrid and vector) against two Tier 2 handles of one agent on
// one file, so that each handle's index must follow the other's writes,
// for a second; under -race in CI. Every call must succeed, and every
// vector search result must be a memory that exists.
func TestConcurrentTier2(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	ctx := context.Background()
	path := newDB(t)
	handles := []*engram.Memory{
		openOn(t, path, "agent", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64))),
		openOn(t, path, "agent", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 64))),
	}
	words := []string{"deploy", "coffee", "printer", "budget", "release", "garden", "invoice", "kafka"}
	stop := time.Now().Add(time.Second)
	var stored atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			m := handles[w%2]
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			var mine []string
			for i := 0; time.Now().Before(stop); i++ {
				text := fmt.Sprintf("%s note %d from writer %d", words[rng.IntN(len(words))], i, w)
				switch {
				case len(mine) > 5 && rng.IntN(4) == 0:
					j := rng.IntN(len(mine))
					assert.NoError(t, m.Semantic().Delete(ctx, mine[j]))
					mine = append(mine[:j], mine[j+1:]...)
				case len(mine) > 0 && rng.IntN(4) == 0:
					_, err := m.Semantic().Update(ctx, mine[rng.IntN(len(mine))], engram.SemanticPatch{Content: &text})
					assert.NoError(t, err)
				case rng.IntN(3) == 0:
					_, err := m.Episodic().Log(ctx, engram.Episode{Content: text})
					assert.NoError(t, err)
				default:
					id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: text, Importance: 0.5})
					if assert.NoError(t, err) {
						mine = append(mine, id)
						stored.Add(1)
					}
				}
			}
		})
	}
	for r := range 4 {
		wg.Go(func() {
			m := handles[r%2]
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			for time.Now().Before(stop) {
				mode := engram.SearchHybrid
				if rng.IntN(2) == 0 {
					mode = engram.SearchVector
				}
				res, err := m.Search(ctx, engram.SearchOptions{Query: words[rng.IntN(len(words))] + " note", Mode: mode})
				if !assert.NoError(t, err) {
					return
				}
				for _, x := range res {
					assert.NotEmpty(t, x.Content, "a result is a memory that exists")
				}
			}
		})
	}
	wg.Wait()
	assert.Positive(t, stored.Load())
	for _, m := range handles {
		require.NoError(t, m.Flush(ctx))
		assert.Zero(t, pending(t, m))
	}
}

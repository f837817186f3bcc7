package engram_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// openStore opens a Tier 1 store with opts and closes it after the test.
func openStore(t testing.TB, opts ...engram.Option) *engram.Store {
	t.Helper()
	st, err := engram.Open(engram.Tier1, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, st.Close()) })
	return st
}

// openStoreIn opens a Tier 1 store in a layout ("dir": a base
// directory, "file": a shared file, "memory") under a new temporary
// directory, which it returns too.
func openStoreIn(t *testing.T, layout string, opts ...engram.Option) (*engram.Store, string) {
	t.Helper()
	base := t.TempDir()
	where := map[string]engram.Option{
		"dir":    engram.WithDir(base),
		"file":   engram.WithPath(filepath.Join(base, "memory.db")),
		"memory": engram.InMemory(),
	}[layout]
	return openStore(t, append([]engram.Option{where}, opts...)...), base
}

func TestStoreHandsOutOneMemoryPerAgent(t *testing.T) {
	sqliteOnly(t, "each of SQLite's layouts of a Store: a base directory, a shared file, memory")
	ctx := context.Background()
	for _, layout := range []string{"dir", "file", "memory"} {
		t.Run(layout, func(t *testing.T) {
			st, _ := openStoreIn(t, layout)
			ada, err := st.Agent("ada@example.com")
			require.NoError(t, err)
			again, err := st.Agent("ada@example.com")
			require.NoError(t, err)
			assert.Same(t, ada, again, "one Memory per agent")
			bob, err := st.Agent("Bob")
			require.NoError(t, err)
			assert.NotSame(t, ada, bob)

			id, err := ada.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada deploys on Fridays"})
			require.NoError(t, err)
			_, err = bob.Semantic().Get(ctx, id)
			assert.ErrorIs(t, err, engram.ErrNotFound, "bob cannot read ada's entry by ID")
			found, err := bob.Search(ctx, engram.SearchOptions{Query: "deploys Fridays"})
			require.NoError(t, err)
			assert.Empty(t, found)

			agents, err := st.Agents(ctx)
			require.NoError(t, err)
			if layout == "dir" {
				assert.Equal(t, []string{"Bob", "ada@example.com"}, agents, "a directory per agent opened")
			} else {
				assert.Equal(t, []string{"ada@example.com"}, agents, "the agents with rows")
			}

			// Close releases the agent; the store stays open, and the
			// next Agent call opens a new Memory on what was stored.
			require.NoError(t, ada.Close())
			_, err = ada.Semantic().Get(ctx, id)
			assert.ErrorIs(t, err, engram.ErrClosed)
			ada2, err := st.Agent("ada@example.com")
			require.NoError(t, err)
			assert.NotSame(t, ada, ada2)
			e, err := ada2.Semantic().Get(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, "Ada deploys on Fridays", e.Content)
			require.NoError(t, ada2.CheckIntegrity(ctx))

			require.NoError(t, st.Close())
			require.NoError(t, st.Close(), "Close is idempotent")
			_, err = ada2.Semantic().Get(ctx, id)
			assert.ErrorIs(t, err, engram.ErrClosed, "the store's Close closes its agents")
			_, err = bob.Stats(ctx)
			assert.ErrorIs(t, err, engram.ErrClosed)
			_, err = st.Agent("carol")
			assert.ErrorIs(t, err, engram.ErrClosed)
			_, err = st.Agents(ctx)
			assert.ErrorIs(t, err, engram.ErrClosed)
		})
	}
}

func TestOpenRejectsBadOptionsBeforeTouchingDisk(t *testing.T) {
	sqliteOnly(t, "Open's locations (WithDir, WithPath, InMemory) touch no disk when refused")
	base := t.TempDir()
	for name, opts := range map[string][]engram.Option{
		"an agent":      {engram.WithDir(base), engram.WithAgent("ada")},
		"markdown path": {engram.WithPath(filepath.Join(base, "m.db")), engram.WithMarkdownPath(filepath.Join(base, "m.md"))},
		"path and dir":  {engram.WithDir(base), engram.WithPath(filepath.Join(base, "m.db"))},
		"bad config":    {engram.WithDir(base), engram.WithConfig(engram.Config{})},
		"no embedder":   {engram.WithDir(base)},
	} {
		t.Run(name, func(t *testing.T) {
			tier := engram.Tier1
			if name == "no embedder" {
				tier = engram.Tier2
			}
			st, err := engram.Open(tier, opts...)
			assert.ErrorIs(t, err, engram.ErrInvalid)
			assert.Nil(t, st)
		})
	}
	st := openStore(t, engram.WithDir(base))
	for _, id := range []string{"", "../x", "a/b", ".hidden", "a:b"} {
		m, err := st.Agent(id)
		assert.ErrorIs(t, err, engram.ErrInvalid, "%q", id)
		assert.Nil(t, m)
	}
	entries, err := os.ReadDir(base)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing made for a refused option or agent")
}

// fdCount counts the process's open file descriptors (Linux).
func fdCount(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors here: %v", err)
	}
	return len(entries)
}

var storeAgents = flag.Int("store.agents", 100,
	"how many agents TestStoreThousandAgents opens (CI: 1000)")

// TestStoreThousandAgents opens -store.agents agents in one process, 100
// by default and 1,000 in CI (.ci/run; go test -run
// TestStoreThousandAgents -store.agents=1000 . takes about a minute), in
// a shared file and under a base directory (where the store keeps 8 files
// open, so that 100 agents already park and wake every file many times):
// each stores and searches, the open file descriptors stay within what
// the store's connections need, every agent finds its own entry and
// nothing of the others, and closing the store gives every descriptor
// back.
func TestStoreThousandAgents(t *testing.T) {
	sqliteOnly(t, "the file descriptors of a Store over a base directory")
	if runtime.GOOS != "linux" {
		t.Skip("counts file descriptors in /proc")
	}
	ctx := context.Background()
	const openFiles = 8
	agents := *storeAgents
	require.Greater(t, agents, 2*openFiles, "-store.agents: fewer agents than twice the open files would not park")
	// Go's poller keeps two descriptors of its own (epoll's and an
	// eventfd), opened with the first file the os package opens, which is
	// the store's when this test runs alone: open one before counting.
	warm, err := os.CreateTemp(t.TempDir(), "warm")
	require.NoError(t, err)
	require.NoError(t, warm.Close())
	cfg := engram.DefaultConfig()
	cfg.Storage.OpenFiles = openFiles
	// A connection holds the database's and the log's descriptors; the
	// shared memory index is one per file.
	perFile := (1+cfg.Storage.ReadConns)*2 + 1
	for _, layout := range []string{"file", "dir"} {
		t.Run(layout, func(t *testing.T) {
			where, files := engram.WithPath(filepath.Join(t.TempDir(), "memory.db")), 1
			if layout == "dir" {
				where, files = engram.WithDir(t.TempDir()), openFiles
			}
			before := fdCount(t)
			st, err := engram.Open(engram.Tier1, where, engram.WithConfig(cfg))
			require.NoError(t, err)
			most := 0
			for i := range agents {
				m, err := st.Agent(fmt.Sprintf("agent-%04d", i))
				require.NoError(t, err)
				_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("shared words and the secret token%04d", i)})
				require.NoError(t, err)
				most = max(most, fdCount(t))
			}
			for i := range agents {
				m, err := st.Agent(fmt.Sprintf("agent-%04d", i))
				require.NoError(t, err)
				found, err := m.Search(ctx, engram.SearchOptions{Query: "shared words secret"})
				require.NoError(t, err)
				require.Len(t, found, 1, "agent %d finds its own entry and no other", i)
				require.Contains(t, found[0].Content, fmt.Sprintf("token%04d", i))
				other, err := m.Search(ctx, engram.SearchOptions{Query: fmt.Sprintf("token%04d", (i+1)%agents)})
				require.NoError(t, err)
				require.Empty(t, other, "agent %d finds nothing of its neighbour's", i)
				most = max(most, fdCount(t))
			}
			t.Logf("%s: %d descriptors before, at most %d with %d agents open", layout, before, most, agents)
			assert.LessOrEqual(t, most-before, files*perFile, "descriptors beyond what %d open files need", files)
			list, err := st.Agents(ctx)
			require.NoError(t, err)
			assert.Len(t, list, agents)
			require.NoError(t, st.Close())
			assert.Equal(t, before, fdCount(t), "Close gives every descriptor back")
		})
	}
}

// TestStoreConcurrentAgentsParkAndWake runs agents over a base directory
// where only two files may be open, from many goroutines: files are
// parked and woken under their feet, and every acknowledged write is
// there after, in its own agent only, with auto-links, history and the
// integrity check intact.
func TestStoreConcurrentAgentsParkAndWake(t *testing.T) {
	sqliteOnly(t, "a Store over a base directory parks and wakes agents' files")
	ctx := context.Background()
	cfg := engram.DefaultConfig()
	cfg.Storage.OpenFiles = 2
	cfg.Storage.ReadConns = 2
	st := openStore(t, engram.WithDir(t.TempDir()), engram.WithConfig(cfg))
	const agents, writers, rounds = 6, 4, 12
	var mu sync.Mutex
	written := map[string][]string{} // agent → IDs acknowledged
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				agent := fmt.Sprintf("agent-%d", (w+r)%agents)
				m, err := st.Agent(agent)
				if !assert.NoError(t, err) {
					return
				}
				id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("The deploy pipeline of %s runs step %d of writer %d", agent, r, w)})
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				written[agent] = append(written[agent], id)
				mu.Unlock()
				_, err = m.Search(ctx, engram.SearchOptions{Query: "deploy pipeline"})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	for agent, ids := range written {
		m, err := st.Agent(agent)
		require.NoError(t, err)
		list, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000})
		require.NoError(t, err)
		var got []string
		for _, e := range list {
			got = append(got, e.ID)
			assert.Contains(t, e.Content, "of "+agent+" ")
		}
		assert.ElementsMatch(t, ids, got, agent)
		// The entries say nearly the same: auto-linking found them,
		// through the index kept across parks and wakes.
		links, err := m.Links().For(ctx, ids[len(ids)-1])
		require.NoError(t, err)
		assert.NotEmpty(t, links, "%s's last entry is linked to the others", agent)
		h, err := m.History(ctx, ids[0])
		require.NoError(t, err)
		require.NotEmpty(t, h)
		assert.Equal(t, engram.OpCreate, h[0].Op)
		require.NoError(t, m.CheckIntegrity(ctx))
	}
}

// TestStoreForgetAgent forgets an agent handed out by a store: in a
// shared file the others stay and the store goes on; under a base
// directory its directory goes.
func TestStoreForgetAgent(t *testing.T) {
	sqliteOnly(t, "each of SQLite's layouts of a Store: a base directory, a shared file, memory")
	ctx := context.Background()
	for _, layout := range []string{"dir", "file"} {
		t.Run(layout, func(t *testing.T) {
			st, base := openStoreIn(t, layout)
			ada, err := st.Agent("ada")
			require.NoError(t, err)
			bob, err := st.Agent("bob")
			require.NoError(t, err)
			for _, m := range []*engram.Memory{ada, bob} {
				_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "a note of " + m.AgentID()})
				require.NoError(t, err)
			}
			require.NoError(t, ada.ForgetAgent(ctx))
			agents, err := st.Agents(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"bob"}, agents)
			if layout == "dir" {
				_, err := os.Stat(filepath.Join(base, "ada"))
				assert.ErrorIs(t, err, os.ErrNotExist, "the agent's directory is gone")
			}
			again, err := st.Agent("ada")
			require.NoError(t, err)
			st1, err := again.Stats(ctx)
			require.NoError(t, err)
			assert.Zero(t, st1.Semantic, "a forgotten agent starts empty")
			st2, err := bob.Stats(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, st2.Semantic)
			require.NoError(t, bob.CheckIntegrity(ctx))
		})
	}
}

// TestStoreLookupCreatesNothing: Has and Lookup find the agents with
// memory (and Lookup the open ones), and for any other answer false and
// ErrNotFound without creating a file, a directory or a row.
func TestStoreLookupCreatesNothing(t *testing.T) {
	sqliteOnly(t, "each of SQLite's layouts of a Store: a base directory, a shared file, memory")
	ctx := context.Background()
	for _, layout := range []string{"dir", "file"} {
		t.Run(layout, func(t *testing.T) {
			st, base := openStoreIn(t, layout)
			ada, err := st.Agent("ada")
			require.NoError(t, err)
			_, err = ada.Semantic().Store(ctx, engram.SemanticEntry{Content: "a note"})
			require.NoError(t, err)
			before, err := os.ReadDir(base)
			require.NoError(t, err)

			for id, want := range map[string]bool{"ada": true, "nobody": false} {
				has, err := st.Has(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, want, has, id)
			}
			_, err = st.Has(ctx, "a/b")
			assert.ErrorIs(t, err, engram.ErrInvalid)
			m, err := st.Lookup(ctx, "nobody")
			assert.ErrorIs(t, err, engram.ErrNotFound)
			assert.Nil(t, m)
			after, err := os.ReadDir(base)
			require.NoError(t, err)
			assert.Equal(t, len(before), len(after), "no file or directory made")
			agents, err := st.Agents(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"ada"}, agents)

			got, err := st.Lookup(ctx, "ada")
			require.NoError(t, err)
			assert.Same(t, ada, got)
			require.NoError(t, ada.Close())
			got, err = st.Lookup(ctx, "ada")
			require.NoError(t, err, "an agent with memory, not open")
			assert.Equal(t, "ada", got.AgentID())

			_, err = st.Lookup(ctx, "../etc")
			assert.ErrorIs(t, err, engram.ErrInvalid)
		})
	}
}

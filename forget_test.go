package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
	"github.com/engram-go/engram/internal/testutil"
)

// fillAgent gives m a memory of every kind holding secret, an archived
// one, links, facts with an alias and a superseded value, a rule and a
// snapshot, and returns the IDs of the memories.
//
// m must be opened with oneEntry, which makes compaction keep one entry.
func fillAgent(t *testing.T, m *engram.Memory, secret string) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	add := func(id string, err error) {
		t.Helper()
		require.NoError(t, err)
		ids = append(ids, id)
	}
	add(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The vault code is " + secret, Importance: 0.9, Tags: []string{"vault"}}))
	add(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "A passing remark about " + secret + " and lunch", Importance: 0.05}))
	add(m.Episodic().Log(ctx, engram.Episode{Content: "Opened the vault with " + secret}))
	add(m.Procedural().Store(ctx, engram.Procedure{Name: "open-" + secret, Description: "How to open the " + secret + " vault", SuccessRate: 0.5}))
	require.NoError(t, m.Links().Add(ctx, engram.Link{SourceID: ids[0], TargetID: ids[2], Type: engram.LinkCausal}))
	_, err := m.Facts().Assert(ctx, engram.Fact{Subject: "Vault", Predicate: "status", Object: "locked by " + secret})
	require.NoError(t, err)
	a, err := m.Facts().Assert(ctx, engram.Fact{Subject: "Vault", Predicate: "status", Object: "open " + secret})
	require.NoError(t, err)
	ids = append(ids, a.Fact.ID)
	require.NoError(t, m.Facts().Alias(ctx, "Vault", secret+" box"))
	require.NoError(t, m.Rules().Add(ctx, engram.ExtractionRule{Name: "rule-" + secret, Pattern: secret + ` \w+`, Type: engram.TypeSemantic, Importance: 0.5, Active: true}))
	_, err = m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s1", Summary: "Talked about " + secret,
		Messages: []engram.Message{{Role: "user", Content: "what is " + secret}}})
	require.NoError(t, err)
	// The remark of importance 0.05 leaves for the archive.
	_, err = m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	_, err = m.Semantic().Get(ctx, ids[1])
	require.ErrorIs(t, err, engram.ErrNotFound, "archived")
	return ids
}

// oneEntry is the configuration fillAgent needs.
func oneEntry() engram.Option {
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 1
	return engram.WithConfig(cfg)
}

// fileHolds reports whether the database files at path (the database and
// its write-ahead log) hold any of the byte strings.
func fileHolds(t *testing.T, path string, needles ...string) []string {
	t.Helper()
	var found []string
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		for _, n := range needles {
			if bytes.Contains(b, []byte(n)) {
				found = append(found, n+" in memory.db"+suffix)
			}
		}
	}
	return found
}

// agentTraces scans every table of the file at path with an agent_id
// column, and meta's keys, for the agent, on a connection of its own.
func agentTraces(t *testing.T, path, agent string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite%'`)
	require.NoError(t, err)
	var tables []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		tables = append(tables, n)
	}
	require.NoError(t, rows.Err())
	var found []string
	for _, table := range tables {
		cols, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		require.NoError(t, err)
		var hasAgent bool
		for cols.Next() {
			var c string
			require.NoError(t, cols.Scan(&c))
			hasAgent = hasAgent || c == "agent_id"
		}
		require.NoError(t, cols.Err())
		if !hasAgent {
			continue
		}
		var n int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM "`+table+`" WHERE agent_id = ?`, agent).Scan(&n))
		if n > 0 {
			found = append(found, table)
		}
	}
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM meta WHERE key LIKE '%' || ?`, ":"+agent).Scan(&n))
	if n > 0 {
		found = append(found, "meta")
	}
	return found
}

func TestForgetAgentLeavesNoTrace(t *testing.T) {
	needs(t, enginetest.CapFile, enginetest.CapSecureDelete) // looks for the agent's rows and text in the file
	path := newDB(t)
	emb := newTestEmbedder(t, 32)
	const agent, secret = "forgotten-agent-q7", "quokkazanzibar"
	ada, err := tryOpenOn(t, path, agent, engram.Tier2, engram.WithEmbedder(emb), oneEntry())
	require.NoError(t, err)
	bob := openOn(t, path, "bob", engram.Tier2, engram.WithEmbedder(emb))
	ctx := context.Background()
	fillAgent(t, ada, secret)
	bobID, err := bob.Semantic().Store(ctx, engram.SemanticEntry{Content: "Bob keeps the spare key", Importance: 0.5})
	require.NoError(t, err)
	require.NoError(t, ada.Flush(ctx)) // embeds what waits

	agents, err := engram.ListAgents(ctx, engram.WithPath(path.file(t)))
	require.NoError(t, err)
	assert.Equal(t, []string{"bob", agent}, agents)

	require.NoError(t, ada.ForgetAgent(ctx))
	assert.ErrorIs(t, ada.ForgetAgent(ctx), engram.ErrClosed, "forgetting closes")
	_, err = ada.Semantic().Get(ctx, bobID)
	assert.ErrorIs(t, err, engram.ErrClosed)

	assert.Empty(t, agentTraces(t, path.file(t), agent), "no table holds a row of the agent")
	agents, err = engram.ListAgents(ctx, engram.WithPath(path.file(t)))
	require.NoError(t, err)
	assert.Equal(t, []string{"bob"}, agents)

	// Bob is whole, and after a checkpoint the text is in no file.
	got, err := bob.Semantic().Get(ctx, bobID)
	require.NoError(t, err)
	assert.Equal(t, "Bob keeps the spare key", got.Content)
	res, err := bob.Search(ctx, engram.SearchOptions{Query: "spare key"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	res, err = bob.Search(ctx, engram.SearchOptions{Query: secret})
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, bobID, r.ID, "only bob's own")
	}
	require.NoError(t, bob.CheckIntegrity(ctx))
	testutil.CheckAndClose(t, bob)
	assert.Empty(t, fileHolds(t, path.file(t), secret, agent, "x"+hex.EncodeToString([]byte(agent))))
}

func TestForgetAgentRemovesItsDirectory(t *testing.T) {
	sqliteOnly(t, "the directory layout: ListAgents of directories and files")
	base := t.TempDir()
	ctx := context.Background()
	for _, a := range []string{"ada", "bob"} {
		m, err := engram.New(engram.Tier1, engram.WithDir(base), engram.WithAgent(a))
		require.NoError(t, err)
		_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: a + " was here", Importance: 0.9})
		require.NoError(t, err)
		require.NoError(t, m.Flush(ctx)) // memory.md too
		require.NoError(t, m.Close())
	}
	require.NoError(t, os.MkdirAll(filepath.Join(base, "not-an-agent"), 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "Bad Name", "x"), 0o700))
	agents, err := engram.ListAgents(ctx, engram.WithDir(base))
	require.NoError(t, err)
	assert.Equal(t, []string{"ada", "bob"}, agents, "directories without a database are no agents")

	m, err := engram.New(engram.Tier1, engram.WithDir(base), engram.WithAgent("ada"))
	require.NoError(t, err)
	require.NoError(t, m.ForgetAgent(ctx))
	_, err = os.Stat(filepath.Join(base, "ada"))
	assert.True(t, os.IsNotExist(err), "the agent's directory is gone: %v", err)
	agents, err = engram.ListAgents(ctx, engram.WithDir(base))
	require.NoError(t, err)
	assert.Equal(t, []string{"bob"}, agents)

	_, err = engram.ListAgents(ctx, engram.InMemory())
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = engram.ListAgents(ctx, engram.WithPath(filepath.Join(base, "missing.db")))
	assert.ErrorIs(t, err, engram.ErrNotFound)
	notEngram := filepath.Join(base, "other.db")
	db, err := sql.Open("sqlite", notEngram)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE t (agent_id TEXT)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = engram.ListAgents(ctx, engram.WithPath(notEngram))
	assert.ErrorIs(t, err, engram.ErrNotEngram)
	agents, err = engram.ListAgents(ctx, engram.WithDir(filepath.Join(base, "nowhere")))
	require.NoError(t, err)
	assert.Empty(t, agents)
}

func TestForgetOneMemoryEverywhere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	md := filepath.Join(dir, "memory.md")
	const secret = "wombatpaprika"
	m := openOn(t, fileDB(t, path), "ada", engram.Tier2, engram.WithEmbedder(newTestEmbedder(t, 32)), withMarkdownPath(t, md), oneEntry())
	ctx := context.Background()
	ids := fillAgent(t, m, secret)
	require.NoError(t, m.Flush(ctx))
	keep, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Unrelated and kept", Importance: 0.5})
	require.NoError(t, err)
	before, err := m.Stats(ctx)
	require.NoError(t, err)

	for _, id := range ids { // live, archived, an episode, a procedure, a fact
		require.NoError(t, m.Forget(ctx, id), id)
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		require.Len(t, h, 1, "only that it was forgotten")
		assert.Equal(t, engram.OpForget, h[0].Op)
		assert.Nil(t, h[0].Before)
		assert.Nil(t, h[0].After)
		assert.ErrorIs(t, m.Restore(ctx, id), engram.ErrNotFound)
	}
	assert.ErrorIs(t, m.Forget(ctx, "no-such-id"), engram.ErrNotFound)
	assert.ErrorIs(t, m.Forget(ctx, ""), engram.ErrInvalid)

	after, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, before.Semantic-1, after.Semantic)
	assert.Equal(t, 0, after.Archived)
	assert.Equal(t, 0, after.Links)
	_, err = m.Semantic().Get(ctx, keep)
	require.NoError(t, err)
	res, err := m.Search(ctx, engram.SearchOptions{Query: "vault code " + secret})
	require.NoError(t, err)
	for _, r := range res {
		assert.NotContains(t, r.Content, secret+" vault")
		assert.False(t, strings.HasPrefix(r.Content, "The vault code"), r.Content)
	}
	mdText, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.NotContains(t, string(mdText), "The vault code is")
	require.NoError(t, m.CheckIntegrity(ctx))

	// A text only one memory holds is in no file once it is forgotten,
	// though it was indexed, embedded, updated (history kept both
	// versions) and projected to memory.md.
	const alone = "zebracrumpet"
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The locker combination is " + alone, Importance: 0.9})
	require.NoError(t, err)
	changed := "The locker combination is " + alone + " now"
	_, err = m.Semantic().Update(ctx, id, engram.SemanticPatch{Content: &changed})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	require.NotEmpty(t, fileHolds(t, path, alone), "the test looks where the text is")
	require.NoError(t, m.Forget(ctx, id))
	assert.Empty(t, fileHolds(t, path, alone))
	mdText, err = os.ReadFile(md)
	require.NoError(t, err)
	assert.NotContains(t, string(mdText), alone)
	require.NoError(t, m.CheckIntegrity(ctx))
}

func TestForgetAgentInASharedFile(t *testing.T) {
	needs(t, enginetest.CapFile) // looks for the agent's rows in the file
	path := newDB(t)
	ctx := context.Background()
	bob := openOn(t, path, "bob", engram.Tier1) // open, but nothing written yet
	ada, err := tryOpenOn(t, path, "ada", engram.Tier1)
	require.NoError(t, err)
	_, err = ada.Semantic().Store(ctx, engram.SemanticEntry{Content: "ada's note", Importance: 0.5})
	require.NoError(t, err)

	// A failed ForgetAgent erases nothing and leaves the Memory open.
	err = ada.ForgetAgent(engram.ContextWithActor(ctx, "two\nlines"))
	require.ErrorIs(t, err, engram.ErrInvalid)
	second, err := tryOpenOn(t, path, "ada", engram.Tier1)
	require.NoError(t, err)
	_, err = second.Search(ctx, engram.SearchOptions{Query: "note"}) // notes an access
	require.NoError(t, err)
	require.ErrorIs(t, ada.ForgetAgent(ctx), engram.ErrInvalid, "another Memory of the agent is open")
	require.NoError(t, second.Close())
	st, err := ada.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Semantic, "nothing was erased")

	require.NoError(t, ada.ForgetAgent(ctx))
	// The file stays for bob, who writes after ada is gone.
	id, err := bob.Semantic().Store(ctx, engram.SemanticEntry{Content: "bob's note", Importance: 0.5})
	require.NoError(t, err)
	require.NoError(t, bob.Close())
	again := openOn(t, path, "bob", engram.Tier1)
	_, err = again.Semantic().Get(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, agentTraces(t, path.file(t), "ada"))
}

func TestForgetDropsTheRecalledCopy(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The kayak is stored in the blue shed", Importance: 0.9})
	require.NoError(t, err)
	_, err = m.Recall(ctx, "where is the kayak stored")
	require.NoError(t, err)
	_, err = m.Working().Get(engram.RecalledID(engram.TypeSemantic, id))
	require.NoError(t, err, "Recall put it in the working set")
	require.NoError(t, m.Forget(ctx, id))
	_, err = m.Working().Get(engram.RecalledID(engram.TypeSemantic, id))
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

// TestForgetTwice forgets a memory, then again: the second time finds
// nothing (ErrNotFound), and the entry that says it was forgotten stays.
func TestForgetTwice(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The spare key is under the third flowerpot", Importance: 0.6})
	require.NoError(t, err)
	require.NoError(t, m.Forget(ctx, id))
	assert.ErrorIs(t, m.Forget(ctx, id), engram.ErrNotFound)
	h, err := m.History(ctx, id)
	require.NoError(t, err)
	require.Len(t, h, 1)
	assert.Equal(t, engram.OpForget, h[0].Op)
}

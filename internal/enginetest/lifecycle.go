package enginetest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// lifecycleTests follow memories through their lives: links between
// them, the history of their changes and its feed, the archive, forgetting
// (a memory, a user, an agent), export and import, and the walls between
// agents.
var lifecycleTests = []test{
	{"Links", testLinks},
	{"AutoLink", testAutoLink},
	{"History", testHistory},
	{"Changes", testChanges},
	{"ArchiveRestore", testArchiveRestore},
	{"Forget", testForget},
	{"ForgetUserAndMatching", testForgetUserAndMatching},
	{"ForgetAgent", testForgetAgent},
	{"ExportImport", testExportImport},
	{"ImportConflicts", testImportConflicts},
	{"Isolation", testIsolation},
	{"StoreAgents", testStoreAgents},
}

// linkKeys are links as "source>type>target", in order.
func linkKeys(ls []engram.Link) []string {
	var keys []string
	for _, l := range ls {
		keys = append(keys, l.SourceID+">"+string(l.Type)+">"+l.TargetID)
	}
	return keys
}

func testLinks(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	links := o.m.Links()

	require.NoError(t, links.Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal, Strength: 0.5}))
	require.NoError(t, links.Add(ctx, engram.Link{SourceID: "e1", TargetID: "p1", Type: engram.LinkSequential}))
	require.NoError(t, links.Add(ctx, engram.Link{SourceID: "p1", TargetID: "f1", Type: engram.LinkSupports, Strength: 0.2}))

	got, err := links.For(ctx, "e1")
	require.NoError(t, err)
	assert.Equal(t, []string{"e1>sequential>p1", "s1>causal>e1"}, linkKeys(got), "strongest first")
	assert.Equal(t, engram.TypeSemantic, got[1].SourceType)
	assert.Equal(t, engram.TypeEpisodic, got[1].TargetType)
	assert.Equal(t, 0.5, got[1].Strength)

	// Adding a link that exists updates its strength.
	require.NoError(t, links.Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal, Strength: 0.9}))
	got, err = links.For(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, 0.9, got[0].Strength)

	// Traverse walks both ways, nearest first, each once.
	reached, err := links.Traverse(ctx, "e1", 1)
	require.NoError(t, err)
	assert.ElementsMatch(t, []engram.LinkedMemory{{ID: "s1", Type: engram.TypeSemantic, Depth: 1}, {ID: "p1", Type: engram.TypeProcedural, Depth: 1}}, reached)
	reached, err = links.Traverse(ctx, "s1", 3)
	require.NoError(t, err)
	assert.Equal(t, []engram.LinkedMemory{{ID: "e1", Type: engram.TypeEpisodic, Depth: 1}, {ID: "p1", Type: engram.TypeProcedural, Depth: 2},
		{ID: "f1", Type: engram.TypeFact, Depth: 3}}, reached)
	// A cycle ends nothing.
	require.NoError(t, links.Add(ctx, engram.Link{SourceID: "f1", TargetID: "s1", Type: engram.LinkElaborates}))
	reached, err = links.Traverse(ctx, "s1", 8)
	require.NoError(t, err)
	assert.Len(t, reached, 3)
	assert.Equal(t, 4, stats(t, o.m).Links)

	// Bad input changes nothing.
	for name, l := range map[string]engram.Link{
		"type":     {SourceID: "s1", TargetID: "e2", Type: "likes"},
		"strength": {SourceID: "s1", TargetID: "e2", Type: engram.LinkSimilar, Strength: 1.5},
		"self":     {SourceID: "s1", TargetID: "s1", Type: engram.LinkSimilar},
	} {
		assert.ErrorIs(t, links.Add(ctx, l), engram.ErrInvalid, name)
	}
	assert.ErrorIs(t, links.Add(ctx, engram.Link{SourceID: "s1", TargetID: "nope", Type: engram.LinkSimilar}), engram.ErrNotFound)
	_, err = links.Traverse(ctx, "s1", 0)
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = links.Traverse(ctx, "nope", 1)
	assert.ErrorIs(t, err, engram.ErrNotFound)
	assert.Equal(t, 4, stats(t, o.m).Links)

	require.NoError(t, links.Remove(ctx, "f1", "s1", engram.LinkElaborates))
	assert.ErrorIs(t, links.Remove(ctx, "f1", "s1", engram.LinkElaborates), engram.ErrNotFound)

	// Links go with either end.
	require.NoError(t, o.m.Episodic().Delete(ctx, "e1"))
	got, err = links.For(ctx, "s1")
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = links.For(ctx, "p1")
	require.NoError(t, err)
	assert.Equal(t, []string{"p1>supports>f1"}, linkKeys(got))
	assert.Equal(t, 1, stats(t, o.m).Links)
}

func testAutoLink(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	s := o.m.Semantic()
	_, err := s.Store(ctx, engram.SemanticEntry{ID: "a", Content: "Deploys run from CI only"})
	require.NoError(t, err)
	_, err = s.Store(ctx, engram.SemanticEntry{ID: "b", Content: "Lunch is at noon on Fridays"})
	require.NoError(t, err)
	_, err = s.Store(ctx, engram.SemanticEntry{ID: "c", Content: "Deploys run from CI only."})
	require.NoError(t, err)

	got, err := o.m.Links().For(ctx, "c")
	require.NoError(t, err)
	require.Equal(t, []string{"c>similar>a"}, linkKeys(got), "a near-duplicate is linked as it is stored")
	assert.InDelta(t, 1.0, got[0].Strength, 1e-9)
	again, err := o.m.Links().AutoLink(ctx, "c")
	require.NoError(t, err)
	assert.Equal(t, []string{"c>similar>a"}, linkKeys(again))
	_, err = o.m.Links().AutoLink(ctx, "nope")
	assert.ErrorIs(t, err, engram.ErrNotFound)
}

// ops are the operations of history entries, in order.
func ops(hs []engram.HistoryEntry) []engram.HistoryOp {
	var out []engram.HistoryOp
	for _, h := range hs {
		out = append(out, h.Op)
	}
	return out
}

func testHistory(t *testing.T, e Engine) {
	o := memory(t, e)
	ctx := engram.ContextWithReason(engram.ContextWithActor(context.Background(), "alice"), "onboarding")
	s := o.m.Semantic()

	_, err := s.Store(ctx, engram.SemanticEntry{ID: "h1", Content: "Ada prefers short answers", Importance: 0.5})
	require.NoError(t, err)
	_, err = s.Update(context.Background(), "h1", engram.SemanticPatch{Importance: new(0.9)})
	require.NoError(t, err)
	require.NoError(t, s.Delete(engram.ContextWithActor(context.Background(), "bob"), "h1"))

	hist, err := o.m.History(context.Background(), "h1")
	require.NoError(t, err)
	require.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpUpdate, engram.OpDelete}, ops(hist))
	assert.Equal(t, "alice", hist[0].Actor)
	assert.Equal(t, "onboarding", hist[0].Reason)
	assert.Equal(t, "ada", hist[1].Actor, "without an actor, the agent")
	assert.Equal(t, "bob", hist[2].Actor)
	for _, h := range hist {
		assert.Equal(t, engram.TypeSemantic, h.Type)
		assert.Equal(t, "h1", h.ID)
		assert.True(t, h.At.Equal(o.c.Now()))
	}
	assert.Less(t, hist[0].Seq, hist[1].Seq)
	assert.Less(t, hist[1].Seq, hist[2].Seq)
	assert.Nil(t, hist[0].Before)
	assert.Contains(t, string(hist[0].After), "Ada prefers short answers")
	assert.Contains(t, string(hist[1].Before), "0.5")
	assert.Contains(t, string(hist[1].After), "0.9")
	assert.Nil(t, hist[2].After)

	// Facts have history too: an insert, then a supersede.
	_, err = o.m.Facts().Assert(ctx, engram.Fact{ID: "h2", Subject: "Ada", Predicate: "lives in", Object: "Oslo", ValidFrom: date(2020, 1, 1)})
	require.NoError(t, err)
	_, err = o.m.Facts().Assert(ctx, engram.Fact{ID: "h3", Subject: "Ada", Predicate: "lives in", Object: "Rome", ValidFrom: date(2022, 1, 1)})
	require.NoError(t, err)
	hist, err = o.m.History(ctx, "h2")
	require.NoError(t, err)
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpSupersede}, ops(hist))
	assert.Equal(t, engram.TypeFact, hist[0].Type)

	// An ID never seen has none; a malformed one is invalid; a reason of
	// two lines too.
	hist, err = o.m.History(ctx, "none")
	require.NoError(t, err)
	assert.Empty(t, hist)
	_, err = o.m.History(ctx, "a b")
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = o.m.Changes(ctx, engram.ChangeQuery{Actor: "a\nb"})
	assert.ErrorIs(t, err, engram.ErrInvalid)

	// Without history, nothing more is recorded.
	cfg := engram.DefaultConfig()
	cfg.History.Enabled = false
	quiet := memory(t, e, engram.WithConfig(cfg))
	_, err = quiet.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "q1", Content: "unrecorded"})
	require.NoError(t, err)
	hist, err = quiet.m.History(ctx, "q1")
	require.NoError(t, err)
	assert.Empty(t, hist)
}

func testChanges(t *testing.T, e Engine) {
	o := memory(t, e)
	alice := engram.ContextWithActor(context.Background(), "alice")
	ctx := context.Background()
	s := o.m.Semantic()
	_, err := s.Store(alice, engram.SemanticEntry{ID: "c1", Content: "one"})
	require.NoError(t, err)
	_, err = s.Store(ctx, engram.SemanticEntry{ID: "c2", Content: "two"})
	require.NoError(t, err)
	o.c.Set(o.c.Now().Add(1e9))
	_, err = o.m.Episodic().Log(alice, engram.Episode{ID: "c3", Content: "three"})
	require.NoError(t, err)
	_, err = s.Update(ctx, "c1", engram.SemanticPatch{Tags: &[]string{"x"}})
	require.NoError(t, err)
	require.NoError(t, s.Delete(alice, "c2"))

	key := func(hs []engram.HistoryEntry) []string {
		var out []string
		for _, h := range hs {
			out = append(out, string(h.Op)+" "+h.ID)
		}
		return out
	}
	all, err := o.m.Changes(ctx, engram.ChangeQuery{})
	require.NoError(t, err)
	assert.Equal(t, []string{"create c1", "create c2", "create c3", "update c1", "delete c2"}, key(all))

	// Pages of two, oldest first, by the last entry's time and Seq.
	var paged []string
	cq := engram.ChangeQuery{Limit: 2}
	for range 10 {
		page, err := o.m.Changes(ctx, cq)
		require.NoError(t, err)
		paged = append(paged, key(page)...)
		if len(page) < 2 {
			break
		}
		last := page[len(page)-1]
		cq.Since, cq.AfterSeq = last.At, last.Seq
	}
	assert.Equal(t, key(all), paged)

	newest, err := o.m.Changes(ctx, engram.ChangeQuery{Newest: true, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"delete c2", "update c1"}, key(newest))
	byAlice, err := o.m.Changes(ctx, engram.ChangeQuery{Actor: "alice"})
	require.NoError(t, err)
	assert.Equal(t, []string{"create c1", "create c3", "delete c2"}, key(byAlice))
	later, err := o.m.Changes(ctx, engram.ChangeQuery{Since: o.c.Now()})
	require.NoError(t, err)
	assert.Equal(t, []string{"create c3", "update c1", "delete c2"}, key(later))

	for name, cq := range map[string]engram.ChangeQuery{
		"AfterSeq":        {AfterSeq: -1},
		"Newest AfterSeq": {Newest: true, AfterSeq: 1},
		"Limit":           {Limit: 10001},
		"BeforeSeq":       {BeforeSeq: 1},
	} {
		_, err := o.m.Changes(ctx, cq)
		assert.ErrorIs(t, err, engram.ErrInvalid, name)
	}
}

func testArchiveRestore(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	require.NoError(t, o.m.Links().Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal}))

	require.NoError(t, o.m.Archive(engram.ContextWithActor(ctx, "alice"), "s1", "stale"))
	_, err := o.m.Get(ctx, "s1")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	res, err := o.m.Search(ctx, engram.SearchOptions{Query: "maintains"})
	require.NoError(t, err)
	assert.Empty(t, res)
	assert.Equal(t, [][]string{{"s2"}}, listAll(t, o.m, engram.MemoryQuery{Types: []engram.MemoryType{engram.TypeSemantic}}))
	links, err := o.m.Links().For(ctx, "e1")
	require.NoError(t, err)
	assert.Empty(t, links)
	st := stats(t, o.m)
	assert.Equal(t, 1, st.Semantic)
	assert.Equal(t, 1, st.Archived)
	hist, err := o.m.History(ctx, "s1")
	require.NoError(t, err)
	last := hist[len(hist)-1]
	assert.Equal(t, engram.OpArchive, last.Op)
	assert.Equal(t, "stale", last.Reason)
	assert.Equal(t, "alice", last.Actor)

	assert.ErrorIs(t, o.m.Archive(ctx, "s1", "again"), engram.ErrNotFound)
	assert.ErrorIs(t, o.m.Archive(ctx, "f1", "a fact"), engram.ErrInvalid)
	assert.ErrorIs(t, o.m.Archive(ctx, "nope", "x"), engram.ErrNotFound)

	require.NoError(t, o.m.Restore(ctx, "s1"))
	got, err := o.m.Semantic().Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "Ada maintains the billing service", got.Content)
	assert.Equal(t, []string{"team"}, got.Tags)
	assert.Equal(t, "ada", got.UserID)
	res, err = o.m.Search(ctx, engram.SearchOptions{Query: "maintains"})
	require.NoError(t, err)
	assert.Equal(t, []string{"s1"}, resultIDs(res))
	links, err = o.m.Links().For(ctx, "e1")
	require.NoError(t, err)
	assert.Equal(t, []string{"s1>causal>e1"}, linkKeys(links), "the link comes back with it")
	assert.ErrorIs(t, o.m.Restore(ctx, "s1"), engram.ErrNotFound)
	hist, err = o.m.History(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, engram.OpRestore, hist[len(hist)-1].Op)

	// An ID stored again since it was archived is not restored over.
	require.NoError(t, o.m.Archive(ctx, "e2", "old"))
	_, err = o.m.Episodic().Log(ctx, engram.Episode{ID: "e2", Content: "a new episode of the same ID"})
	require.NoError(t, err)
	assert.ErrorIs(t, o.m.Restore(ctx, "e2"), engram.ErrExists)
}

func testForget(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	_, err := o.m.Facts().Assert(ctx, engram.Fact{ID: "f2", Subject: "Ada", Predicate: "owns", Object: "billing", MemoryID: "s1"})
	require.NoError(t, err)
	_, err = o.m.Recall(ctx, "Who maintains the billing service?")
	require.NoError(t, err)
	_, err = o.m.Working().Get(engram.RecalledID(engram.TypeSemantic, "s1"))
	require.NoError(t, err, "recalled into the working set")

	require.NoError(t, o.m.Forget(ctx, "s1"))
	_, err = o.m.Get(ctx, "s1")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	res, err := o.m.Search(ctx, engram.SearchOptions{Query: "maintains"})
	require.NoError(t, err)
	assert.Empty(t, res)
	_, err = o.m.Working().Get(engram.RecalledID(engram.TypeSemantic, "s1"))
	assert.ErrorIs(t, err, engram.ErrNotFound, "the working set's copy goes too")
	links, err := o.m.Links().For(ctx, "f2")
	require.NoError(t, err)
	assert.Empty(t, links)
	hist, err := o.m.History(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, hist, 1, "one entry says it was forgotten")
	assert.Equal(t, engram.OpForget, hist[0].Op)
	assert.Nil(t, hist[0].Before)
	assert.Nil(t, hist[0].After)
	var export bytes.Buffer
	require.NoError(t, o.m.Export(ctx, &export, engram.ExportOptions{History: true}))
	assert.NotContains(t, export.String(), "maintains", "nothing of its text is left")
	assert.ErrorIs(t, o.m.Forget(ctx, "s1"), engram.ErrNotFound)
	assert.ErrorIs(t, o.m.Restore(ctx, "s1"), engram.ErrNotFound)

	// An archived memory is forgotten too; a fact is, by ID.
	require.NoError(t, o.m.Archive(ctx, "e1", "old"))
	require.NoError(t, o.m.Forget(ctx, "e1"))
	assert.ErrorIs(t, o.m.Restore(ctx, "e1"), engram.ErrNotFound)
	require.NoError(t, o.m.Forget(ctx, "f1"))
	_, err = o.m.Facts().Get(ctx, "f1")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	assert.ErrorIs(t, o.m.Forget(ctx, "nope"), engram.ErrNotFound)
	assert.ErrorIs(t, o.m.Forget(ctx, ""), engram.ErrInvalid)

	st := stats(t, o.m)
	assert.Equal(t, engram.Stats{Semantic: 1, Episodes: 1, Snapshots: 1, Procedures: 1, Facts: 1, Working: st.Working}, st)
}

func testForgetUserAndMatching(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)

	n, err := o.m.ForgetUser(ctx, "bob")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	res, err := o.m.Search(ctx, engram.SearchOptions{Query: "tea invoices"})
	require.NoError(t, err)
	assert.Empty(t, res)
	assert.Equal(t, [][]string{nil}, listAll(t, o.m, engram.MemoryQuery{Filter: &engram.Filter{UserID: "bob"}}))
	for _, id := range []string{"s2", "e2"} {
		hist, err := o.m.History(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, []engram.HistoryOp{engram.OpForget}, ops(hist), id)
	}
	n, err = o.m.ForgetUser(ctx, "bob")
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	_, err = o.m.ForgetUser(ctx, "a\nb")
	assert.ErrorIs(t, err, engram.ErrInvalid)

	n, err = o.m.ForgetMatching(ctx, engram.Filter{SessionID: "chat-1"})
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the episode and the snapshot of the session")
	_, err = o.m.ForgetMatching(ctx, engram.Filter{})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, [][]string{{"f1", "p1", "s1"}}, listAll(t, o.m, engram.MemoryQuery{}))
}

func testForgetAgent(t *testing.T, e Engine) {
	ctx := context.Background()
	st, _ := store(t, e)
	ada := agent(t, st, "ada")
	bob := agent(t, st, "bob")
	seedKinds(t, ada)
	seedKinds(t, bob)

	require.NoError(t, ada.ForgetAgent(ctx))
	_, err := ada.Get(ctx, "s1")
	assert.ErrorIs(t, err, engram.ErrClosed, "ForgetAgent closes the memory")
	has, err := st.Has(ctx, "ada")
	require.NoError(t, err)
	assert.False(t, has)
	ids, err := st.Agents(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"bob"}, ids)
	_, err = st.Lookup(ctx, "ada")
	assert.ErrorIs(t, err, engram.ErrNotFound)

	// Bob's memory is whole.
	assert.Equal(t, [][]string{{"f1", "e2", "s2", "n1", "p1", "e1", "s1"}}, listAll(t, bob, engram.MemoryQuery{}))
	// Ada starts again from nothing.
	again := agent(t, st, "ada")
	assert.Equal(t, engram.Stats{}, stats(t, again))
	hist, err := again.History(ctx, "s1")
	require.NoError(t, err)
	assert.Empty(t, hist)
}

// exportOf exports m with opts, failing t on an error.
func exportOf(t *testing.T, m *engram.Memory, opts engram.ExportOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, m.Export(context.Background(), &b, opts))
	return b.Bytes()
}

func testExportImport(t *testing.T, e Engine) {
	ctx := context.Background()
	a := memory(t, e)
	seedKinds(t, a.m)
	require.NoError(t, a.m.Links().Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal, Strength: 0.5}))
	require.NoError(t, a.m.Facts().Alias(ctx, "Ada", "Ada Lovelace"))
	require.NoError(t, a.m.Archive(ctx, "p1", "unused"))
	_, err := a.m.Semantic().Update(ctx, "s2", engram.SemanticPatch{Importance: new(0.9)})
	require.NoError(t, err)
	file := exportOf(t, a.m, engram.ExportOptions{History: true})

	b := memoryOf(t, e, "copy", engram.Tier1)
	rep, err := b.m.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, "ada", rep.Agent)
	assert.Equal(t, map[string]int{"semantic": 2, "episodic": 2, "fact": 1, "snapshot": 1, "archive": 1, "link": 1, "alias": 1,
		"history": 9}, nonzero(rep.Added), "7 creations, an archive and an update")

	// The copy holds what the original holds, and reads the same.
	assert.Equal(t, listAll(t, a.m, engram.MemoryQuery{}), listAll(t, b.m, engram.MemoryQuery{}))
	for _, id := range []string{"s1", "s2", "e1", "e2", "f1", "n1"} {
		want, err := a.m.Get(ctx, id)
		require.NoError(t, err)
		got, err := b.m.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got, id)
		wh, err := a.m.History(ctx, id)
		require.NoError(t, err)
		gh, err := b.m.History(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, ops(wh), ops(gh), "history of %s", id)
	}
	for _, id := range []string{"s1", "e1"} {
		wl, err := a.m.Links().For(ctx, id)
		require.NoError(t, err)
		gl, err := b.m.Links().For(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, wl, gl, id)
	}
	cur, err := b.m.Facts().Current(ctx, engram.FactQuery{Entity: "ada lovelace"})
	require.NoError(t, err)
	assert.Equal(t, []string{"f1"}, factIDs(cur), "the alias came too")
	wantRes, err := a.m.Search(ctx, engram.SearchOptions{Query: "billing Bob"})
	require.NoError(t, err)
	gotRes, err := b.m.Search(ctx, engram.SearchOptions{Query: "billing Bob"})
	require.NoError(t, err)
	assert.Equal(t, resultIDs(wantRes), resultIDs(gotRes))
	require.NoError(t, b.m.Restore(ctx, "p1"), "the archive came too")
	assert.Equal(t, stats(t, a.m).Semantic, stats(t, b.m).Semantic)

	// The copy exports what the original did, but for the agent it names.
	again := exportOf(t, b.m, engram.ExportOptions{})
	assert.Equal(t, len(bytes.Split(exportOf(t, a.m, engram.ExportOptions{}), []byte("\n"))), len(bytes.Split(again, []byte("\n"))))

	// One user's export holds that user's memories alone.
	bobs := exportOf(t, a.m, engram.ExportOptions{Filter: &engram.Filter{UserID: "bob"}})
	c := memoryOf(t, e, "bob", engram.Tier1)
	_, err = c.m.Import(ctx, bytes.NewReader(bobs), engram.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"e2", "s2"}}, listAll(t, c.m, engram.MemoryQuery{}))
}

// nonzero returns the counts of m that are not 0.
func nonzero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func testImportConflicts(t *testing.T, e Engine) {
	ctx := context.Background()
	a := memory(t, e)
	seedKinds(t, a.m)
	file := exportOf(t, a.m, engram.ExportOptions{})

	b := memoryOf(t, e, "copy", engram.Tier1)
	_, err := b.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "s1", Content: "the copy's own entry"})
	require.NoError(t, err)
	before := stats(t, b.m)

	// ConflictFail refuses the whole file, naming the line.
	_, err = b.m.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.ErrorIs(t, err, engram.ErrExists)
	var ie *engram.ImportError
	require.True(t, errors.As(err, &ie), "%T is an *ImportError", err)
	assert.Greater(t, ie.Line, 1)
	assert.Equal(t, before, stats(t, b.m), "nothing was imported")

	// A malformed file is refused, naming the line.
	bad := strings.Replace(string(file), `"s2"`, `"s 2"`, 1)
	_, err = b.m.Import(ctx, strings.NewReader(bad), engram.ImportOptions{Conflict: engram.ConflictSkip})
	require.ErrorIs(t, err, engram.ErrInvalid)
	require.True(t, errors.As(err, &ie))
	_, err = b.m.Import(ctx, strings.NewReader("not json\n"), engram.ImportOptions{})
	require.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, before, stats(t, b.m))

	// ConflictSkip keeps the copy's own; ConflictReplace takes the file's.
	rep, err := b.m.Import(ctx, bytes.NewReader(file), engram.ImportOptions{Conflict: engram.ConflictSkip})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Skipped["semantic"])
	got, err := b.m.Semantic().Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "the copy's own entry", got.Content)
	rep, err = b.m.Import(ctx, bytes.NewReader(file), engram.ImportOptions{Conflict: engram.ConflictReplace})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Replaced["semantic"])
	got, err = b.m.Semantic().Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "Ada maintains the billing service", got.Content)
	res, err := b.m.Search(ctx, engram.SearchOptions{Query: "own entry"})
	require.NoError(t, err)
	assert.Empty(t, res, "the replaced text is out of the index")
}

// isolationCalls are the reads and writes one agent might make of
// another's memories by ID, each of which must find nothing.
func isolationCalls(m *engram.Memory) map[string]func(ctx context.Context) error {
	get := func(f func(context.Context) (any, error)) func(context.Context) error {
		return func(ctx context.Context) error { _, err := f(ctx); return err }
	}
	return map[string]func(ctx context.Context) error{
		"Get":                  get(func(ctx context.Context) (any, error) { return m.Get(ctx, "s1") }),
		"Semantic.Get":         get(func(ctx context.Context) (any, error) { return m.Semantic().Get(ctx, "s1") }),
		"Episodic.Get":         get(func(ctx context.Context) (any, error) { return m.Episodic().Get(ctx, "e1") }),
		"Procedural.Get":       get(func(ctx context.Context) (any, error) { return m.Procedural().Get(ctx, "p1") }),
		"Procedural.GetByName": get(func(ctx context.Context) (any, error) { return m.Procedural().GetByName(ctx, "incident") }),
		"Facts.Get":            get(func(ctx context.Context) (any, error) { return m.Facts().Get(ctx, "f1") }),
		"Facts.Neighbours": get(func(ctx context.Context) (any, error) {
			return m.Facts().Neighbours(ctx, engram.FactQuery{Entity: "Acme"})
		}),
		"Links.Traverse":          get(func(ctx context.Context) (any, error) { return m.Links().Traverse(ctx, "s1", 2) }),
		"Episodic.LatestSnapshot": get(func(ctx context.Context) (any, error) { return m.Episodic().LatestSnapshot(ctx, "chat-1") }),
		"Semantic.Update": get(func(ctx context.Context) (any, error) {
			return m.Semantic().Update(ctx, "s1", engram.SemanticPatch{Importance: new(0.1)})
		}),
		"Semantic.Delete": func(ctx context.Context) error { return m.Semantic().Delete(ctx, "s1") },
		"Episodic.Delete": func(ctx context.Context) error { return m.Episodic().Delete(ctx, "e1") },
		"Facts.Retract":   get(func(ctx context.Context) (any, error) { return m.Facts().Retract(ctx, "f1", time.Time{}) }),
		"Archive":         func(ctx context.Context) error { return m.Archive(ctx, "s1", "x") },
		"Forget":          func(ctx context.Context) error { return m.Forget(ctx, "e1") },
		"RecordAccess":    func(ctx context.Context) error { return m.Semantic().RecordAccess(ctx, "s1") },
		"Links.Add": func(ctx context.Context) error {
			return m.Links().Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal})
		},
		"Links.Remove": func(ctx context.Context) error { return m.Links().Remove(ctx, "s1", "e1", engram.LinkCausal) },
		"Restore":      func(ctx context.Context) error { return m.Restore(ctx, "e2") },
		"Procedural.Update": get(func(ctx context.Context) (any, error) {
			return m.Procedural().Update(ctx, "p1", engram.ProcedurePatch{Disabled: new(true)})
		}),
	}
}

func testIsolation(t *testing.T, e Engine) {
	ctx := context.Background()
	st, _ := store(t, e)
	ada := agent(t, st, "ada")
	bob := agent(t, st, "bob")
	seedKinds(t, ada)
	require.NoError(t, ada.Links().Add(ctx, engram.Link{SourceID: "s1", TargetID: "e1", Type: engram.LinkCausal}))
	require.NoError(t, ada.Archive(ctx, "e2", "archived"))
	adaBefore := exportOf(t, ada, engram.ExportOptions{History: true})

	for name, call := range isolationCalls(bob) {
		assert.ErrorIs(t, call(ctx), engram.ErrNotFound, "bob's %s of ada's memory", name)
	}
	// Reads that list find nothing of ada's.
	res, err := bob.Search(ctx, engram.SearchOptions{Query: "billing Ada Bob tea Acme"})
	require.NoError(t, err)
	assert.Empty(t, res)
	assert.Equal(t, [][]string{nil}, listAll(t, bob, engram.MemoryQuery{}))
	cur, err := bob.Facts().Current(ctx, engram.FactQuery{})
	require.NoError(t, err)
	assert.Empty(t, cur)
	links, err := bob.Links().For(ctx, "s1")
	require.NoError(t, err)
	assert.Empty(t, links)
	hist, err := bob.History(ctx, "s1")
	require.NoError(t, err)
	assert.Empty(t, hist)
	changes, err := bob.Changes(ctx, engram.ChangeQuery{})
	require.NoError(t, err)
	assert.Empty(t, changes)
	r, err := bob.Recall(ctx, "billing")
	require.NoError(t, err)
	assert.Empty(t, r.Admitted)
	block, err := bob.Context(ctx, engram.ContextOptions{Query: "billing"})
	require.NoError(t, err)
	assert.NotContains(t, block.Text, "billing")
	assert.Equal(t, engram.Stats{}, stats(t, bob))
	n, err := bob.ForgetUser(ctx, "ada")
	require.NoError(t, err)
	assert.Zero(t, n)
	n, err = bob.ForgetMatching(ctx, engram.Filter{SessionID: "chat-1"})
	require.NoError(t, err)
	assert.Zero(t, n)
	bobExport := exportOf(t, bob, engram.ExportOptions{History: true})
	for _, word := range []string{"billing", "s1", "Acme"} {
		assert.NotContains(t, string(bobExport), word)
	}

	// Bob's IDs are his own: he may use ada's.
	_, err = bob.Semantic().Store(ctx, engram.SemanticEntry{ID: "s1", Content: "bob's own first entry"})
	require.NoError(t, err)
	_, err = bob.Facts().Assert(ctx, engram.Fact{ID: "f1", Subject: "Bob", Predicate: "works at", Object: "Initech"})
	require.NoError(t, err)

	// Ada's memory is as it was.
	assert.Equal(t, string(adaBefore), string(exportOf(t, ada, engram.ExportOptions{History: true})))
	got, err := ada.Semantic().Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "Ada maintains the billing service", got.Content)
}

func testStoreAgents(t *testing.T, e Engine) {
	ctx := context.Background()
	st, _ := store(t, e)
	ids, err := st.Agents(ctx)
	require.NoError(t, err)
	assert.Empty(t, ids)
	has, err := st.Has(ctx, "ada")
	require.NoError(t, err)
	assert.False(t, has)
	_, err = st.Lookup(ctx, "ada")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	ids, err = st.Agents(ctx)
	require.NoError(t, err)
	assert.Empty(t, ids, "Lookup creates nothing")

	for _, id := range []string{"carol", "ada", "bob"} {
		m := agent(t, st, id)
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: "a note of " + id})
		require.NoError(t, err)
	}
	ids, err = st.Agents(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"ada", "bob", "carol"}, ids)
	same, err := st.Agent("ada")
	require.NoError(t, err)
	found, err := st.Lookup(ctx, "ada")
	require.NoError(t, err)
	assert.Same(t, same, found)
	_, err = st.Agent("bad agent\n")
	assert.ErrorIs(t, err, engram.ErrInvalid)

	// Closing an agent's memory releases it; the store gives a new one.
	require.NoError(t, same.Close())
	reopened := agent(t, st, "ada")
	assert.NotSame(t, same, reopened)
	res, err := reopened.Search(ctx, engram.SearchOptions{Query: "note"})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "a note of ada", res[0].Content)

	require.NoError(t, st.Close())
	_, err = st.Agent("ada")
	assert.ErrorIs(t, err, engram.ErrClosed)
	_, err = reopened.Get(ctx, res[0].ID)
	assert.ErrorIs(t, err, engram.ErrClosed, "the store closes its agents")
}

package enginetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// kindTests store, read, update and delete each stored kind of memory,
// and check that bad input is refused with the right error and changes
// nothing.
var kindTests = []test{
	{"Semantic", testSemantic},
	{"SemanticInvalid", testSemanticInvalid},
	{"Episodic", testEpisodic},
	{"Procedural", testProcedural},
	{"Snapshots", testSnapshots},
	{"Batches", testBatches},
	{"AddAllAndGet", testAddAllAndGet},
	{"Closed", testClosed},
}

// stats returns m's counts, failing t on an error.
func stats(t *testing.T, m *engram.Memory) engram.Stats {
	t.Helper()
	s, err := m.Stats(context.Background())
	require.NoError(t, err)
	return s
}

func testSemantic(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	s := o.m.Semantic()

	id, err := s.Store(ctx, engram.SemanticEntry{
		ID: "s1", Content: "Ada prefers short answers", Importance: 0.8, Tags: []string{"style", "ada"},
		Source: "user", Verified: true, UserID: "ada", SessionID: "chat-1",
		Metadata: map[string]any{"lang": "en", "n": 2.0},
	})
	require.NoError(t, err)
	assert.Equal(t, "s1", id)

	got, err := s.Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "Ada prefers short answers", got.Content)
	assert.Equal(t, 0.8, got.Importance)
	assert.Equal(t, []string{"style", "ada"}, got.Tags)
	assert.Equal(t, "user", got.Source)
	assert.True(t, got.Verified)
	assert.Equal(t, "ada", got.UserID)
	assert.Equal(t, "chat-1", got.SessionID)
	assert.Equal(t, map[string]any{"lang": "en", "n": 2.0}, got.Metadata)
	assert.True(t, got.CreatedAt.Equal(o.c.Now()), "CreatedAt %v is the clock's %v", got.CreatedAt, o.c.Now())
	assert.NotEmpty(t, got.Summary)

	// A generated ID, and the default importance.
	id2, err := s.Store(ctx, engram.SemanticEntry{Content: "The build runs on Fridays"})
	require.NoError(t, err)
	require.NotEmpty(t, id2)
	got2, err := s.Get(ctx, id2)
	require.NoError(t, err)
	assert.Equal(t, engram.DefaultImportance, got2.Importance)

	// Update is a patch: what it leaves nil stays.
	o.c.Set(o.c.Now().Add(time.Hour))
	up, err := s.Update(ctx, "s1", engram.SemanticPatch{Importance: new(0.3), Tags: &[]string{"tone"}})
	require.NoError(t, err)
	assert.Equal(t, 0.3, up.Importance)
	assert.Equal(t, []string{"tone"}, up.Tags)
	assert.Equal(t, "Ada prefers short answers", up.Content)
	assert.True(t, up.UpdatedAt.Equal(o.c.Now()), "UpdatedAt %v is the clock's %v", up.UpdatedAt, o.c.Now())
	got, err = s.Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, up.Importance, got.Importance)
	assert.Equal(t, up.Tags, got.Tags)

	// List: most important first.
	list, err := s.List(ctx, engram.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{id2, "s1"}, entryIDs(list))

	// RecordAccess counts; an unknown ID changes nothing.
	require.NoError(t, s.RecordAccess(ctx, "s1"))
	require.ErrorIs(t, s.RecordAccess(ctx, "s1", "nope"), engram.ErrNotFound)
	got, err = s.Get(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, 1, got.AccessCount)

	// Store of an ID the agent has.
	_, err = s.Store(ctx, engram.SemanticEntry{ID: "s1", Content: "another"})
	require.ErrorIs(t, err, engram.ErrExists)

	require.NoError(t, s.Delete(ctx, "s1"))
	_, err = s.Get(ctx, "s1")
	require.ErrorIs(t, err, engram.ErrNotFound)
	require.ErrorIs(t, s.Delete(ctx, "s1"), engram.ErrNotFound)
	_, err = s.Update(ctx, "s1", engram.SemanticPatch{Importance: new(0.4)})
	require.ErrorIs(t, err, engram.ErrNotFound)
	assert.Equal(t, 1, stats(t, o.m).Semantic)
}

func entryIDs(es []engram.SemanticEntry) []string {
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}

func testSemanticInvalid(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	s := o.m.Semantic()
	_, err := s.Store(ctx, engram.SemanticEntry{ID: "keep", Content: "kept as it is", Importance: 0.6})
	require.NoError(t, err)
	before := stats(t, o.m)

	for name, entry := range map[string]engram.SemanticEntry{
		"empty content":   {Content: ""},
		"importance > 1":  {Content: "x", Importance: 1.5},
		"importance NaN":  {Content: "x", Importance: nan()},
		"ID with a space": {ID: "a b", Content: "x"},
		"bad user":        {Content: "x", UserID: "a\nb"},
		"bad metadata":    {Content: "x", Metadata: map[string]any{"a key": 1}},
	} {
		_, err := s.Store(ctx, entry)
		require.ErrorIs(t, err, engram.ErrInvalid, name)
		var ie *engram.InvalidError
		require.True(t, errors.As(err, &ie), "%s: %T is an *InvalidError", name, err)
	}
	_, err = s.Update(ctx, "keep", engram.SemanticPatch{Content: new(""), Importance: new(0.9)})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = s.Update(ctx, "keep", engram.SemanticPatch{Importance: new(-0.1)})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = s.Get(ctx, "")
	require.ErrorIs(t, err, engram.ErrInvalid)
	require.ErrorIs(t, s.Delete(ctx, ""), engram.ErrInvalid)

	// Nothing changed.
	assert.Equal(t, before, stats(t, o.m))
	got, err := s.Get(ctx, "keep")
	require.NoError(t, err)
	assert.Equal(t, "kept as it is", got.Content)
	assert.Equal(t, 0.6, got.Importance)
}

func testEpisodic(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	ep := o.m.Episodic()

	for i, x := range []engram.Episode{
		{ID: "e1", Content: "started the deploy", Type: engram.EventTaskStarted, TaskID: "t1", SessionID: "s", CreatedAt: at(1)},
		{ID: "e2", Content: "asked Bob about the schema", TaskID: "t2", CreatedAt: at(2), Metadata: map[string]string{"who": "bob"}},
		{ID: "e3", Content: "finished the deploy", Type: engram.EventTaskCompleted, TaskID: "t1", Cost: 1.5, Duration: time.Minute, CreatedAt: at(3), UserID: "ada"},
	} {
		id, err := ep.Log(ctx, x)
		require.NoError(t, err, i)
		assert.Equal(t, x.ID, id)
	}

	got, err := ep.Get(ctx, "e3")
	require.NoError(t, err)
	assert.Equal(t, "finished the deploy", got.Content)
	assert.Equal(t, engram.EventTaskCompleted, got.Type)
	assert.Equal(t, 1.5, got.Cost)
	assert.Equal(t, time.Minute, got.Duration)
	assert.Equal(t, "ada", got.UserID)
	assert.True(t, got.CreatedAt.Equal(at(3)))
	got, err = ep.Get(ctx, "e2")
	require.NoError(t, err)
	assert.Equal(t, engram.EventObservation, got.Type, "an empty Type is an observation")
	assert.Equal(t, map[string]string{"who": "bob"}, got.Metadata)

	byTask, err := ep.ByTask(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, []string{"e1", "e3"}, episodeIDs(byTask))
	recent, err := ep.Recent(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"e3", "e2"}, episodeIDs(recent))
	rng, err := ep.Range(ctx, at(2), at(3))
	require.NoError(t, err)
	assert.Equal(t, []string{"e2"}, episodeIDs(rng))

	// Bad input.
	_, err = ep.Log(ctx, engram.Episode{ID: "e1", Content: "again"})
	require.ErrorIs(t, err, engram.ErrExists)
	_, err = ep.Log(ctx, engram.Episode{Content: "x", Type: "no-such-type"})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = ep.Log(ctx, engram.Episode{Content: ""})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = ep.Recent(ctx, -1)
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = ep.Range(ctx, at(3), at(2))
	require.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, 3, stats(t, o.m).Episodes)

	require.NoError(t, ep.Delete(ctx, "e2"))
	_, err = ep.Get(ctx, "e2")
	require.ErrorIs(t, err, engram.ErrNotFound)
	require.ErrorIs(t, ep.Delete(ctx, "e2"), engram.ErrNotFound)

	// Prune deletes what is older than the days kept: the clock is a day
	// after base, so retaining 0 days prunes the rest.
	n, err := ep.Prune(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, err = ep.Prune(ctx, -1)
	require.ErrorIs(t, err, engram.ErrInvalid)
	assert.Equal(t, 0, stats(t, o.m).Episodes)
}

func episodeIDs(es []engram.Episode) []string {
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}

func testProcedural(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	p := o.m.Procedural()

	for _, x := range []engram.Procedure{
		{ID: "p1", Name: "deploy", Description: "ship a release", Pattern: "test; tag; push", SuccessRate: 0.5, Tags: []string{"ops"}},
		{ID: "p2", Name: "review", Description: "review a change", SuccessRate: 0.9, Tags: []string{"code"}},
		{ID: "p3", Name: "rollback", Description: "undo a release", SuccessRate: 0.7, Tags: []string{"ops"}, Disabled: true},
	} {
		_, err := p.Store(ctx, x)
		require.NoError(t, err)
	}
	got, err := p.Get(ctx, "p1")
	require.NoError(t, err)
	assert.Equal(t, "deploy", got.Name)
	assert.Equal(t, "test; tag; push", got.Pattern)
	byName, err := p.GetByName(ctx, "review")
	require.NoError(t, err)
	assert.Equal(t, "p2", byName.ID)
	_, err = p.GetByName(ctx, "nothing")
	require.ErrorIs(t, err, engram.ErrNotFound)

	active, err := p.ListActive(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p2", "p1"}, procedureIDs(active), "best success rate first, disabled left out")
	ops, err := p.FindByTags(ctx, []string{"ops"}, 10)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"p1", "p3"}, procedureIDs(ops))

	// RecordOutcome: a moving average with α = 0.1.
	after, err := p.RecordOutcome(ctx, "p1", true)
	require.NoError(t, err)
	assert.InDelta(t, 0.55, after.SuccessRate, 1e-9)
	assert.Equal(t, 1, after.UseCount)

	up, err := p.Update(ctx, "p3", engram.ProcedurePatch{Disabled: new(false), Description: new("undo the last release")})
	require.NoError(t, err)
	assert.False(t, up.Disabled)
	assert.Equal(t, "undo the last release", up.Description)
	assert.Equal(t, "rollback", up.Name)
	active, err = p.ListActive(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p2", "p3", "p1"}, procedureIDs(active))

	_, err = p.Store(ctx, engram.Procedure{Name: "deploy", Description: "a second deploy"})
	require.ErrorIs(t, err, engram.ErrExists, "a procedure's name is unique")
	_, err = p.Store(ctx, engram.Procedure{Name: "", Description: "nameless"})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = p.Store(ctx, engram.Procedure{Name: "odds", SuccessRate: 2})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = p.RecordOutcome(ctx, "nope", true)
	require.ErrorIs(t, err, engram.ErrNotFound)
	assert.Equal(t, 3, stats(t, o.m).Procedures)

	require.NoError(t, p.Delete(ctx, "p1"))
	_, err = p.Get(ctx, "p1")
	require.ErrorIs(t, err, engram.ErrNotFound)
	_, err = p.GetByName(ctx, "deploy")
	require.ErrorIs(t, err, engram.ErrNotFound)
	_, err = p.Store(ctx, engram.Procedure{ID: "p4", Name: "deploy", Description: "the name is free again"})
	require.NoError(t, err)
}

func procedureIDs(ps []engram.Procedure) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

func testSnapshots(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	ep := o.m.Episodic()

	_, err := ep.LatestSnapshot(ctx, "")
	require.ErrorIs(t, err, engram.ErrNotFound)
	for _, s := range []engram.SessionSnapshot{
		{ID: "n1", SessionID: "s1", Summary: "planned the migration", StartedAt: at(1), EndedAt: at(2),
			KeyDecisions: []string{"use WAL"}, Messages: []engram.Message{{Role: "user", Content: "plan it"}}},
		{ID: "n2", SessionID: "s1", Summary: "ran the migration", StartedAt: at(3), EndedAt: at(4), TotalTokens: 120},
		{ID: "n3", SessionID: "s2", Summary: "wrote the notes", StartedAt: at(5), EndedAt: at(6)},
	} {
		_, err := ep.SaveSnapshot(ctx, s)
		require.NoError(t, err)
	}
	latest, err := ep.LatestSnapshot(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, "n2", latest.ID)
	assert.Equal(t, 120, latest.TotalTokens)
	latest, err = ep.LatestSnapshot(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "n3", latest.ID)
	list, err := ep.Snapshots(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "n2", list[0].ID)
	assert.Equal(t, "n1", list[1].ID)
	assert.Equal(t, []string{"use WAL"}, list[1].KeyDecisions)
	assert.Equal(t, []engram.Message{{Role: "user", Content: "plan it"}}, list[1].Messages)

	_, err = ep.SaveSnapshot(ctx, engram.SessionSnapshot{Summary: "no session"})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = ep.SaveSnapshot(ctx, engram.SessionSnapshot{SessionID: "s3", StartedAt: at(2), EndedAt: at(1)})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = ep.SaveSnapshot(ctx, engram.SessionSnapshot{ID: "n1", SessionID: "s3"})
	require.ErrorIs(t, err, engram.ErrExists)
	assert.Equal(t, 3, stats(t, o.m).Snapshots)
}

func testBatches(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)

	ids, err := o.m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{
		{ID: "b1", Content: "first of the batch"}, {ID: "b2", Content: "second of the batch"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"b1", "b2"}, ids)

	// All or nothing: an invalid entry, or one of an ID the agent has,
	// stores none of the batch.
	_, err = o.m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{ID: "b3", Content: "fine"}, {Content: ""}})
	require.ErrorIs(t, err, engram.ErrInvalid)
	assert.Contains(t, err.Error(), "[1]", "the invalid entry is named by its index")
	_, err = o.m.Semantic().StoreBatch(ctx, []engram.SemanticEntry{{ID: "b3", Content: "fine"}, {ID: "b1", Content: "taken"}})
	require.ErrorIs(t, err, engram.ErrExists)
	_, err = o.m.Semantic().Get(ctx, "b3")
	require.ErrorIs(t, err, engram.ErrNotFound)

	ids, err = o.m.Episodic().LogBatch(ctx, []engram.Episode{{ID: "l1", Content: "one"}, {ID: "l2", Content: "two"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"l1", "l2"}, ids)
	_, err = o.m.Episodic().LogBatch(ctx, []engram.Episode{{ID: "l3", Content: "three"}, {ID: "l4", Type: "bad", Content: "four"}})
	require.ErrorIs(t, err, engram.ErrInvalid)

	s := stats(t, o.m)
	assert.Equal(t, 2, s.Semantic)
	assert.Equal(t, 2, s.Episodes)
}

func testAddAllAndGet(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)

	added, err := o.m.AddAll(ctx, []engram.Record{
		{Type: engram.TypeSemantic, Semantic: &engram.SemanticEntry{ID: "a1", Content: "Ada leads the payments team"}},
		{Type: engram.TypeEpisodic, Episode: &engram.Episode{ID: "a2", Content: "met Ada"}},
		{Type: engram.TypeProcedural, Procedure: &engram.Procedure{ID: "a3", Name: "greet", Description: "say hello"}},
		{Type: engram.TypeFact, Fact: &engram.Fact{ID: "a4", Subject: "Ada", Predicate: "works at", Object: "Acme", MemoryID: "a1"}},
	})
	require.NoError(t, err)
	require.Len(t, added, 4)
	for i, want := range []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeFact} {
		assert.Equal(t, want, added[i].Type)
	}
	require.NotNil(t, added[3].Assertion)
	assert.Equal(t, engram.FactInserted, added[3].Assertion.Action)

	_, err = o.m.Episodic().SaveSnapshot(ctx, engram.SessionSnapshot{ID: "a5", SessionID: "s1", Summary: "met Ada"})
	require.NoError(t, err)

	// Get answers for any kind.
	for id, want := range map[string]engram.MemoryType{"a1": engram.TypeSemantic, "a2": engram.TypeEpisodic,
		"a3": engram.TypeProcedural, "a4": engram.TypeFact, "a5": engram.TypeSnapshot} {
		r, err := o.m.Get(ctx, id)
		require.NoError(t, err, id)
		assert.Equal(t, want, r.Type, id)
		assert.Equal(t, id, r.ID())
	}
	_, err = o.m.Get(ctx, "a6")
	require.ErrorIs(t, err, engram.ErrNotFound)

	// The fact is linked from the memory it came from.
	links, err := o.m.Links().For(ctx, "a4")
	require.NoError(t, err)
	require.Len(t, links, 1)
	assert.Equal(t, engram.Link{SourceID: "a1", TargetID: "a4", Type: engram.LinkSupports, Strength: 1,
		SourceType: engram.TypeSemantic, TargetType: engram.TypeFact, CreatedAt: links[0].CreatedAt}, links[0])

	// All or nothing: a bad record in the middle stores none.
	before := stats(t, o.m)
	_, err = o.m.AddAll(ctx, []engram.Record{
		{Type: engram.TypeSemantic, Semantic: &engram.SemanticEntry{ID: "x1", Content: "fine"}},
		{Type: engram.TypeEpisodic, Semantic: &engram.SemanticEntry{ID: "x2", Content: "the wrong kind"}},
	})
	require.ErrorIs(t, err, engram.ErrInvalid)
	_, err = o.m.AddAll(ctx, []engram.Record{
		{Type: engram.TypeSemantic, Semantic: &engram.SemanticEntry{ID: "x1", Content: "fine"}},
		{Type: engram.TypeFact, Fact: &engram.Fact{Subject: "Ada", Predicate: "likes", Object: "tea", MemoryID: "missing"}},
	})
	require.ErrorIs(t, err, engram.ErrNotFound)
	assert.Equal(t, before, stats(t, o.m))
}

func testClosed(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	_, err := o.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "c1", Content: "before close"})
	require.NoError(t, err)
	require.NoError(t, o.m.Close())
	require.NoError(t, o.m.Close(), "Close is idempotent")

	_, err = o.m.Semantic().Get(ctx, "c1")
	assert.ErrorIs(t, err, engram.ErrClosed)
	_, err = o.m.Semantic().Store(ctx, engram.SemanticEntry{Content: "after close"})
	assert.ErrorIs(t, err, engram.ErrClosed)
	_, err = o.m.Search(ctx, engram.SearchOptions{Query: "close"})
	assert.ErrorIs(t, err, engram.ErrClosed)
	_, err = o.m.List(ctx, engram.MemoryQuery{})
	assert.ErrorIs(t, err, engram.ErrClosed)
	_, err = o.m.Facts().Assert(ctx, engram.Fact{Subject: "a", Predicate: "b", Object: "c"})
	assert.ErrorIs(t, err, engram.ErrClosed)
	assert.ErrorIs(t, o.m.CheckIntegrity(ctx), engram.ErrClosed)
}

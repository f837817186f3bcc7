package engram_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

var exStart = time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)

// exConfig makes compaction by count archive: each kind keeps 5 rows.
func exConfig() engram.Config {
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 5
	return cfg
}

// exSeed gives m a memory of every kind: semantic entries (auto-linked,
// updated, accessed), episodes, procedures, snapshots, facts (merged,
// superseded, retracted, aliased), links, rules, and an archive that
// holds entries with their links.
func exSeed(t testing.TB, m *engram.Memory, clock *testutil.Clock) {
	t.Helper()
	ctx := context.Background()
	step := func() { clock.Advance(time.Minute) }
	for i := range 8 {
		tags := []string{"ops"}
		if i%3 == 0 {
			tags = append(tags, "release", "never ever")
		}
		c := fmt.Sprintf("The deploy runs from the blue pipeline, step %d of the release \"quoted\" \u2028 ünïcode", i)
		if i%4 == 1 {
			c = fmt.Sprintf("The database backup runs nightly at %d:00\nand is kept for 30 days", i)
		}
		_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: fmt.Sprintf("sem-%02d", i), Content: c,
			Importance: 0.1 + float64(i)/10 + 1e-12, Tags: tags, Verified: i == 7, Source: "test"})
		require.NoError(t, err)
		step()
	}
	_, err := m.Semantic().Update(ctx, "sem-07", engram.SemanticPatch{Content: ptr("The deploy now runs from the green pipeline")})
	require.NoError(t, err)
	for i := range 6 {
		_, err := m.Episodic().Log(ctx, engram.Episode{ID: fmt.Sprintf("ep-%02d", i), Content: fmt.Sprintf("deployed build %d through the pipeline", i),
			TaskID: "task-1", SessionID: "session-1", Type: engram.EventToolCall, Cost: 0.25, Duration: time.Duration(i) * time.Second,
			Metadata: map[string]string{"tool": "ship", "n": fmt.Sprint(i)}})
		require.NoError(t, err)
		step()
	}
	_, err = m.Procedural().Store(ctx, engram.Procedure{ID: "proc-deploy", Name: "deploy", Description: "how to deploy the pipeline",
		Pattern: "build; test; ship", SuccessRate: 0.8, Tags: []string{"ops"}})
	require.NoError(t, err)
	_, err = m.Procedural().RecordOutcome(ctx, "proc-deploy", false)
	require.NoError(t, err)
	_, err = m.Procedural().Store(ctx, engram.Procedure{ID: "proc-backup", Name: "backup", Description: "restore a backup", Disabled: true})
	require.NoError(t, err)
	require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{ID: "snap-1", SessionID: "session-1", Summary: "talked about the deploy",
		Messages:     []engram.Message{{Role: "user", Content: "I prefer the blue pipeline"}, {Role: "assistant", Content: "noted", Time: exStart}},
		KeyDecisions: []string{"ship on fridays"}, TaskIDs: []string{"task-1"}, TotalCost: 1.5, TotalTokens: 1200}))
	step()
	require.NoError(t, m.Snapshot(ctx, engram.SessionSnapshot{ID: "snap-2", SessionID: "session-2"}))
	require.NoError(t, m.Rules().Add(ctx, engram.ExtractionRule{Name: "prefer", Pattern: `(prefer|like) (.+)`, Type: engram.TypeSemantic,
		Importance: 0.6, Tags: []string{"pref"}, Active: true}))
	require.NoError(t, m.Rules().Add(ctx, engram.ExtractionRule{Name: "employer", Pattern: `\bI work (?:at|for) (?P<object>[^,]+)`,
		Type: engram.TypeFact, Predicate: "works at"}))
	facts := m.Facts()
	day := 24 * time.Hour
	for _, f := range []engram.Fact{
		{ID: "fact-home", Subject: "User", Predicate: "lives in", Object: "Boston", ValidFrom: exStart.Add(-400 * day)},
		{Subject: "User", Predicate: "likes", Object: "coffee", Sources: []string{"chat"}, Metadata: map[string]string{"k": "v"}},
		{Subject: "user", Predicate: "likes", Object: "Coffee", Sources: []string{"mail"}}, // merged
		{Subject: "Ada Lovelace", Predicate: "works at", Object: "Initech", ValidFrom: exStart.Add(-100 * day)},
		{Subject: "User", Predicate: "lives in", Object: "Denver", ValidFrom: exStart.Add(-50 * day)}, // supersedes
		{Subject: "User", Predicate: "likes", Object: "tea", MemoryID: "sem-02"},
	} {
		_, err := facts.Assert(ctx, f)
		require.NoError(t, err)
		step()
	}
	require.NoError(t, facts.Alias(ctx, "Ada Lovelace", "Ada"))
	_, err = facts.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "works for", Object: "Globex", ValidFrom: exStart.Add(-20 * day)})
	require.NoError(t, err)
	for _, l := range []engram.Link{
		{SourceID: "sem-00", TargetID: "sem-04", Type: engram.LinkSupports, Strength: 0.75},
		{SourceID: "ep-01", TargetID: "sem-00", Type: engram.LinkCausal},
		{SourceID: "proc-deploy", TargetID: "fact-home", Type: engram.LinkElaborates},
		{SourceID: "sem-01", TargetID: "ep-02", Type: engram.LinkSequential},
	} {
		require.NoError(t, m.Links().Add(ctx, l))
	}
	// Searches note accesses, which an export writes first.
	_, err = m.Search(ctx, engram.SearchOptions{Query: "deploy pipeline"})
	require.NoError(t, err)
	clock.Advance(time.Hour)
	rep, err := m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	require.NotZero(t, rep.Count(engram.ActionArchive), "the seed archives")
	clock.Advance(time.Hour)
}

func exExport(t testing.TB, m *engram.Memory, opts engram.ExportOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, m.Export(context.Background(), &b, opts))
	return b.Bytes()
}

// exOpen opens a fresh memory of agent at a fixed clock, at Tier 2 when e
// is not nil.
func exOpen(t testing.TB, agent string, clock *testutil.Clock, e engram.Embedder) *engram.Memory {
	t.Helper()
	tier, opts := exOptions(clock, e)
	return newAgentMemory(t, agent, tier, opts...)
}

// exOpenOn opens agent's memory on db as exOpen does.
func exOpenOn(t testing.TB, db testDB, agent string, clock *testutil.Clock, e engram.Embedder) *engram.Memory {
	t.Helper()
	tier, opts := exOptions(clock, e)
	return openOn(t, db, agent, tier, opts...)
}

// exOptions are the tier and options of exOpen.
func exOptions(clock *testutil.Clock, e engram.Embedder) (engram.Tier, []engram.Option) {
	opts := []engram.Option{engram.WithClock(clock.Now), engram.WithConfig(exConfig())}
	if e != nil {
		return engram.Tier2, append(opts, engram.WithEmbedder(e))
	}
	return engram.Tier1, opts
}

// exRecordTypes counts a file's lines by type (and kind).
func exRecordTypes(t *testing.T, file []byte) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSuffix(file, []byte("\n")), []byte("\n")) {
		var rec struct{ Type, Kind string }
		require.NoError(t, json.Unmarshal(line, &rec), "%s", line)
		out[strings.TrimSuffix(rec.Type+"/"+rec.Kind, "/")]++
	}
	return out
}

// TestExportImportRoundTrip exports a memory holding every kind, imports
// it into an empty agent and exports that: the same bytes (the clocks
// agree, so the header's time too), at Tier 1 and at Tier 2 with vectors.
func TestExportImportRoundTrip(t *testing.T) {
	for _, tier2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "tier1", true: "tier2"}[tier2], func(t *testing.T) {
			ctx := context.Background()
			var e, e2 *testEmbedder
			var emb, emb2 engram.Embedder
			if tier2 {
				e, e2 = newTestEmbedder(t, 64), newTestEmbedder(t, 64)
				emb, emb2 = e, e2
			}
			clock := testutil.NewClock(exStart)
			src := exOpen(t, "default", clock, emb)
			exSeed(t, src, clock)
			opts := engram.ExportOptions{Vectors: tier2, History: true}
			file := exExport(t, src, opts)
			types := exRecordTypes(t, file)
			for _, want := range []string{"header", "memory/semantic", "memory/episodic", "memory/procedural", "memory/snapshot",
				"memory/fact", "archive/semantic", "archive/episodic", "link", "alias", "rule", "end",
				"history/semantic", "history/episodic", "history/fact"} {
				require.NotZero(t, types[want], "the file has no %s record: %v", want, types)
			}
			if tier2 {
				require.NotZero(t, types["vector/semantic"], "%v", types)
			}
			require.Equal(t, file, exExport(t, src, opts), "two exports of one memory differ")

			dst := exOpen(t, "default", testutil.NewClock(clock.Now()), emb2)
			rep, err := dst.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
			require.NoError(t, err)
			require.NoError(t, dst.CheckIntegrity(ctx))
			require.Equal(t, "default", rep.Agent)
			require.Equal(t, types["memory/semantic"], rep.Added["semantic"])
			require.Equal(t, types["link"], rep.Added["link"])
			require.Empty(t, rep.Skipped)
			if tier2 {
				require.Zero(t, e2.texts, "vectors of the same model are imported, not embedded")
			}
			again := exExport(t, dst, opts)
			require.Equal(t, string(file), string(again), "export → import → export changed the file")

			// What engram derives is made again: statistics, searches.
			s1, err := src.Stats(ctx)
			require.NoError(t, err)
			s2, err := dst.Stats(ctx)
			require.NoError(t, err)
			require.Equal(t, s1, s2)
			for _, q := range []string{"deploy pipeline", "backup nightly", "coffee", "fridays"} {
				r1, err := src.Search(ctx, engram.SearchOptions{Query: q, Limit: 50})
				require.NoError(t, err)
				r2, err := dst.Search(ctx, engram.SearchOptions{Query: q, Limit: 50})
				require.NoError(t, err)
				require.Equal(t, isoAnswer(r1, nil), isoAnswer(r2, nil), "search %q", q)
			}
			if tier2 {
				require.Zero(t, s2.PendingEmbeddings)
				r1, err := src.Search(ctx, engram.SearchOptions{Query: "green pipeline", Mode: engram.SearchVector, Limit: 5})
				require.NoError(t, err)
				r2, err := dst.Search(ctx, engram.SearchOptions{Query: "green pipeline", Mode: engram.SearchVector, Limit: 5})
				require.NoError(t, err)
				require.NotEmpty(t, r2)
				require.Equal(t, isoAnswer(r1, nil), isoAnswer(r2, nil), "the vector index follows the import")
			}
			facts, err := dst.Facts().Current(ctx, engram.FactQuery{Entity: "Ada"})
			require.NoError(t, err)
			require.NotEmpty(t, facts, "the alias came along")
			// The archive came along: Restore brings an entry back.
			require.NoError(t, dst.Restore(ctx, "sem-00"))
			require.NoError(t, dst.CheckIntegrity(ctx))
			// The stem index of auto-linking follows the import: a new
			// near-duplicate links to the imported entry.
			_, err = dst.Semantic().Store(ctx, engram.SemanticEntry{ID: "sem-new", Content: "The deploy now runs from the green pipeline!"})
			require.NoError(t, err)
			links, err := dst.Links().For(ctx, "sem-new")
			require.NoError(t, err)
			require.NotEmpty(t, links, "the imported entry is in the auto-link index")
		})
	}
}

// TestImportIsRecorded: an import of a file without history records what
// it writes as imports, with the call's actor and reason; with history,
// the file's history is the agent's.
func TestImportIsRecorded(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	src := exOpen(t, "default", clock, nil)
	exSeed(t, src, clock)
	live, err := src.Semantic().List(ctx, engram.ListOptions{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, live)
	id := live[0].ID
	srcHistory, err := src.History(ctx, id)
	require.NoError(t, err)
	require.NotEmpty(t, srcHistory)

	dst := exOpen(t, "default", testutil.NewClock(clock.Now()), nil)
	ictx := engram.ContextWithReason(engram.ContextWithActor(ctx, "migration-tool"), "moved from the old server")
	_, err = dst.Import(ictx, bytes.NewReader(exExport(t, src, engram.ExportOptions{})), engram.ImportOptions{})
	require.NoError(t, err)
	h, err := dst.History(ctx, id)
	require.NoError(t, err)
	require.Len(t, h, 1)
	require.Equal(t, engram.OpImport, h[0].Op)
	require.Equal(t, "migration-tool", h[0].Actor)
	require.Equal(t, "moved from the old server", h[0].Reason)
	require.NotNil(t, h[0].After)

	withHistory := exOpen(t, "default", testutil.NewClock(clock.Now()), nil)
	_, err = withHistory.Import(ctx, bytes.NewReader(exExport(t, src, engram.ExportOptions{History: true})), engram.ImportOptions{})
	require.NoError(t, err)
	h, err = withHistory.History(ctx, id)
	require.NoError(t, err)
	require.Equal(t, len(srcHistory), len(h))
	for i := range h {
		require.Equal(t, srcHistory[i].Op, h[i].Op)
		require.JSONEq(t, string(srcHistory[i].After), string(h[i].After))
	}
}

// TestImportIntoAnotherAgent imports an agent's export into another agent
// of the same file: the same memory under the other agent, and the first
// agent unchanged.
func TestImportIntoAnotherAgent(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	path := newDB(t)
	a := exOpenOn(t, path, "alpha", clock, nil)
	exSeed(t, a, clock)
	file := exExport(t, a, engram.ExportOptions{})
	b := exOpenOn(t, path, "bravo", clock, nil)
	rep, err := b.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, "alpha", rep.Agent)
	require.NoError(t, b.CheckIntegrity(ctx))
	require.Equal(t, string(file), string(exExport(t, a, engram.ExportOptions{})), "alpha changed")
	got := exExport(t, b, engram.ExportOptions{})
	require.Equal(t, strings.Replace(string(file), `"agent":"alpha"`, `"agent":"bravo"`, 1), string(got))
	// Changing bravo's copy leaves alpha's alone.
	require.NoError(t, b.Semantic().Delete(ctx, "sem-04"))
	_, err = a.Semantic().Get(ctx, "sem-04")
	require.NoError(t, err)
	// The same file into bravo again conflicts on every record.
	_, err = b.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.ErrorIs(t, err, engram.ErrExists)
	require.NotErrorIs(t, err, engram.ErrInvalid)
	var ie *engram.ImportError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, 2, ie.Line, "the first record conflicts")
}

// TestImportVectorsOfAnotherModel imports a Tier 2 file into a Memory
// whose embedder is another model: the vectors are left out and the
// memories wait for their own.
func TestImportVectorsOfAnotherModel(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	src := exOpen(t, "default", clock, newTestEmbedder(t, 64))
	exSeed(t, src, clock)
	file := exExport(t, src, engram.ExportOptions{Vectors: true})

	other := newTestEmbedder(t, 32)
	other.failing = true // the memories stay pending
	dst := exOpen(t, "default", testutil.NewClock(clock.Now()), other)
	rep, err := dst.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	require.NotZero(t, rep.Skipped["vector"])
	require.Zero(t, rep.Added["vector"])
	st, err := dst.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, st.Semantic+st.Episodes+st.Procedures, st.PendingEmbeddings, "every memory with a vector kind waits for its vector")
	require.NoError(t, dst.CheckIntegrity(ctx))

	other.mu.Lock()
	other.failing = false
	other.mu.Unlock()
	require.NoError(t, dst.Flush(ctx))
	st, err = dst.Stats(ctx)
	require.NoError(t, err)
	require.Zero(t, st.PendingEmbeddings, "Flush embeds them")
	res, err := dst.Search(ctx, engram.SearchOptions{Query: "green pipeline", Mode: engram.SearchVector, Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, res)

	// A Tier 1 memory takes the file too, without its vectors.
	t1 := exOpen(t, "default", testutil.NewClock(clock.Now()), nil)
	rep, err = t1.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, exRecordTypes(t, file)["vector/semantic"]+exRecordTypes(t, file)["vector/episodic"]+exRecordTypes(t, file)["vector/procedural"],
		rep.Skipped["vector"])
}

// TestImportConflicts is the conflict-policy table: a file holding a
// changed copy of some of the agent's rows and new ones.
func TestImportConflicts(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	src := exOpen(t, "default", clock, nil)
	exSeed(t, src, clock)
	base := exExport(t, src, engram.ExportOptions{})

	// The file: sem-07 with other content, a new entry, a rule of the
	// same name with another pattern, and a link that exists.
	lines := strings.Split(strings.TrimSuffix(string(base), "\n"), "\n")
	var file []string
	for _, l := range lines[1 : len(lines)-1] {
		if strings.Contains(l, `"id":"sem-07"`) && strings.HasPrefix(l, `{"type":"memory"`) {
			file = append(file, strings.Replace(l, "green pipeline", "purple pipeline", 1))
			file = append(file, strings.Replace(strings.Replace(l, "green pipeline", "red pipeline", 1), `"id":"sem-07"`, `"id":"sem-99"`, 1))
		}
		if strings.HasPrefix(l, `{"type":"rule"`) && strings.Contains(l, `"name":"prefer"`) {
			file = append(file, strings.Replace(l, `(prefer|like) (.+)`, `(love) (.+)`, 1))
		}
		if strings.HasPrefix(l, `{"type":"link"`) && strings.Contains(l, `"link_type":"elaborates"`) && strings.Contains(l, `"source_id":"proc-deploy"`) {
			file = append(file, strings.Replace(l, `"strength":1`, `"strength":0.5`, 1))
		}
	}
	require.Len(t, file, 4)
	whole := strings.Join(append(append([]string{lines[0]}, file...), fmt.Sprintf(`{"type":"end","records":%d}`, len(file))), "\n") + "\n"

	for _, c := range []struct {
		policy         engram.Conflict
		err            error
		content        string
		added, skipped map[string]int
		replaced       map[string]int
	}{
		{policy: engram.ConflictFail, err: engram.ErrExists},
		{policy: engram.ConflictSkip, content: "green", added: map[string]int{"semantic": 1}, skipped: map[string]int{"semantic": 1, "rule": 1, "link": 1}},
		{policy: engram.ConflictReplace, content: "purple", added: map[string]int{"semantic": 1}, replaced: map[string]int{"semantic": 1, "rule": 1, "link": 1}},
	} {
		t.Run(c.policy.String(), func(t *testing.T) {
			m := exOpen(t, "default", testutil.NewClock(clock.Now()), nil)
			_, err := m.Import(ctx, strings.NewReader(string(base)), engram.ImportOptions{})
			require.NoError(t, err)
			before := exExport(t, m, engram.ExportOptions{})
			rep, err := m.Import(ctx, strings.NewReader(whole), engram.ImportOptions{Conflict: c.policy})
			require.NoError(t, m.CheckIntegrity(ctx))
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				var ie *engram.ImportError
				require.ErrorAs(t, err, &ie)
				require.Equal(t, 2, ie.Line)
				require.Equal(t, string(before), string(exExport(t, m, engram.ExportOptions{})), "a refused import changed the memory")
				return
			}
			require.NoError(t, err)
			for _, mp := range []*map[string]int{&c.added, &c.skipped, &c.replaced} {
				if *mp == nil {
					*mp = map[string]int{}
				}
			}
			require.Equal(t, c.added, rep.Added)
			require.Equal(t, c.skipped, rep.Skipped)
			require.Equal(t, c.replaced, rep.Replaced)
			e, err := m.Semantic().Get(ctx, "sem-07")
			require.NoError(t, err)
			require.Contains(t, e.Content, c.content)
			res, err := m.Search(ctx, engram.SearchOptions{Query: c.content, Types: []engram.MemoryType{engram.TypeSemantic}})
			require.NoError(t, err)
			require.NotEmpty(t, res, "the full-text index follows a replaced entry")
			require.Equal(t, "sem-07", res[0].ID)
			links, err := m.Links().For(ctx, "sem-07")
			require.NoError(t, err)
			require.NotEmpty(t, links, "a replaced entry keeps its links")
			links, err = m.Links().For(ctx, "proc-deploy")
			require.NoError(t, err)
			require.Len(t, links, 1)
			require.Equal(t, map[bool]float64{false: 1, true: 0.5}[c.policy == engram.ConflictReplace], links[0].Strength)
			rules, err := m.Rules().List(ctx)
			require.NoError(t, err)
			matches, err := m.Rules().Match(ctx, []engram.Message{{Role: "user", Content: "I love green tea"}})
			require.NoError(t, err)
			require.Equal(t, c.policy == engram.ConflictReplace, len(matches) > 0, "rules: %v", rules)
		})
	}
}

// TestImportRefusesHostileFiles is the hostile-file table: each file is
// refused with its line, as ErrInvalid, and the memory is unchanged.
func TestImportRefusesHostileFiles(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	m := exOpen(t, "default", clock, nil)
	exSeed(t, m, clock)
	good := exExport(t, m, engram.ExportOptions{})
	lines := strings.Split(strings.TrimSuffix(string(good), "\n"), "\n")
	header := lines[0]
	// file makes a file of the header and records, with a right end.
	file := func(records ...string) string {
		return strings.Join(append(append([]string{header}, records...), fmt.Sprintf(`{"type":"end","records":%d}`, len(records))), "\n") + "\n"
	}
	sem := func(id, content string) string {
		return fmt.Sprintf(`{"type":"memory","kind":"semantic","row":{"id":%q,"content":%q,"summary":"s","importance":0.5,"verified":0,"tags":["x"],"source":"","created_at":1,"updated_at":1,"access_count":0,"last_accessed_at":1,"resonance":1,"merged_from":[],"promoted_at_count":0,"retrievals":0}}`, id, content)
	}
	ok := sem("fresh-1", "a fresh entry")
	hist := func(id, op, before, after, actor, reason string) string {
		return fmt.Sprintf(`{"type":"history","kind":"semantic","row":{"id":%q,"op":%q,"before":%s,"after":%s,"actor":%q,"reason":%q,"at":1}}`,
			id, op, before, after, actor, reason)
	}
	var archived string
	for _, l := range lines {
		if strings.HasPrefix(l, `{"type":"archive","kind":"semantic","row":{"id":"sem-00"`) {
			archived = l
		}
	}
	require.NotEmpty(t, archived)
	big := strings.Repeat("x", engram.DefaultConfig().Limits.MaxContentBytes+1)
	cases := []struct {
		name string
		file string
		line int
	}{
		{"empty", "", 1},
		{"bad JSON", header + "\n{\"type\":\"memory\",\n", 2},
		{"not JSON at all", "hello\n", 1},
		{"missing header", ok + "\n" + `{"type":"end","records":1}` + "\n", 1},
		{"unknown version", strings.Replace(file(ok), `"version":1`, `"version":2`, 1), 1},
		{"unknown format", strings.Replace(file(ok), `"format":"engram-export"`, `"format":"other"`, 1), 1},
		{"unknown header field", strings.Replace(file(ok), `"format"`, `"extra":1,"format"`, 1), 1},
		{"wrong type: importance a string", file(ok, strings.Replace(sem("fresh-2", "c"), `"importance":0.5`, `"importance":"high"`, 1)), 3},
		{"wrong type: tags a string", file(strings.Replace(sem("fresh-2", "c"), `"tags":["x"]`, `"tags":"x"`, 1)), 2},
		{"wrong type: created_at a float", file(strings.Replace(sem("fresh-2", "c"), `"created_at":1`, `"created_at":1.5`, 1)), 2},
		{"wrong type: verified true", file(strings.Replace(sem("fresh-2", "c"), `"verified":0`, `"verified":true`, 1)), 2},
		{"importance out of range", file(strings.Replace(sem("fresh-2", "c"), `"importance":0.5`, `"importance":1.5`, 1)), 2},
		{"unknown column", file(strings.Replace(sem("fresh-2", "c"), `"summary"`, `"agent_id":"other","summary"`, 1)), 2},
		{"missing column", file(strings.Replace(sem("fresh-2", "c"), `"content":"c",`, ``, 1)), 2},
		{"null in a NOT NULL column", file(strings.Replace(sem("fresh-2", "c"), `"content":"c"`, `"content":null`, 1)), 2},
		{"key twice in a row", file(strings.Replace(sem("fresh-2", "c"), `"summary":"s"`, `"summary":"s","summary":"t"`, 1)), 2},
		{"unknown record type", file(ok, `{"type":"gossip","row":{}}`), 3},
		{"unknown kind", file(strings.Replace(ok, `"kind":"semantic"`, `"kind":"dream"`, 1)), 2},
		{"duplicate IDs", file(ok, sem("fresh-2", "b"), sem("fresh-1", "c")), 4},
		{"link to nothing", file(ok, `{"type":"link","row":{"source_type":"semantic","source_id":"fresh-1","target_type":"semantic","target_id":"nowhere","link_type":"supports","strength":1,"created_at":1}}`), 3},
		{"bad link type", file(ok, `{"type":"link","row":{"source_type":"semantic","source_id":"fresh-1","target_type":"semantic","target_id":"sem-01","link_type":"loves","strength":1,"created_at":1}}`), 3},
		{"oversize content", file(ok, sem("fresh-2", big)), 3},
		{"invalid ID", file(sem("has space", "c")), 2},
		{"empty content", file(sem("fresh-2", "  ")), 2},
		{"NUL in content", file(strings.Replace(sem("fresh-2", "c"), `"content":"c"`, `"content":"a\u0000b"`, 1)), 2},
		{"bad rule pattern", file(`{"type":"rule","row":{"name":"r","pattern":"(unclosed","memory_type":"semantic","importance":0.5,"tags":[],"active":1,"created_at":1,"subject":"","predicate":"","object":""}}`), 2},
		{"vector of nothing", file(`{"type":"vector","kind":"semantic","row":{"id":"nobody","embedding":"AAAAAA=="}}`), 2},
		{"vector not base64", file(ok, `{"type":"vector","kind":"semantic","row":{"id":"fresh-1","embedding":"%%%"}}`), 3},
		{"archive row not an object", file(`{"type":"archive","kind":"semantic","row":{"id":"a1","row":[1],"links":[],"reason":"count","merged_into":"","archived_at":1}}`), 2},
		{"archive row of another id", file(strings.Replace(archived, `"row":{"id":"sem-00","row"`, `"row":{"id":"sem-x","row"`, 1)), 2},
		{"archive row with a bad importance", file(strings.Replace(archived, `"importance":0.10000000000100001`, `"importance":7`, 1)), 2},
		{"archive link of a bad type", file(strings.Replace(archived, `"link_type":"causal"`, `"link_type":"loves"`, 1)), 2},
		{"section out of order", file(`{"type":"link","row":{"source_type":"procedural","source_id":"proc-backup","target_type":"fact","target_id":"fact-home","link_type":"supports","strength":1,"created_at":1}}`, ok), 3},
		{"snapshot ends before it starts", file(`{"type":"memory","kind":"snapshot","row":{"id":"sn","session_id":"s","messages":[],"summary":"","key_decisions":[],"task_ids":[],"started_at":5,"ended_at":4,"total_cost":0,"total_tokens":0,"created_at":1,"retrievals":0}}`), 2},
		{"fact valid_to before valid_from", file(`{"type":"memory","kind":"fact","row":{"id":"f","subject":"a","predicate":"b","object":"c","subject_key":"a","predicate_key":"b","object_key":"c","valid_from":5,"valid_to":4,"created_at":1,"updated_at":1,"expired_at":null,"strength":1,"sources":[],"metadata":{},"retrievals":0}}`), 2},
		{"history of an unknown operation", file(ok, hist("fresh-1", "dream", "null", "{}", "a", "")), 3},
		{"history before not an object", file(ok, hist("fresh-1", "update", "[1]", "{}", "a", "")), 3},
		{"history actor of two lines", file(ok, hist("fresh-1", "update", "{}", "{}", "a\nb", "")), 3},
		{"history of an unknown kind", file(ok, strings.Replace(hist("fresh-1", "create", "null", "{}", "a", ""), `"kind":"semantic"`, `"kind":"dream"`, 1)), 3},
		{"history before memories", file(hist("fresh-1", "create", "null", "{}", "a", ""), ok), 3},
		{"data after the end", file(ok) + ok + "\n", 4},
		{"wrong record count", strings.Replace(file(ok), `"records":1`, `"records":2`, 1), 3},
		{"no end record", header + "\n" + ok + "\n", 3},
		{"truncated mid-line", file(ok)[:len(header)+1+len(ok)/2], 2},
		{"truncated whole file", file(ok, sem("fresh-2", "b"), sem("fresh-3", "c"))[:len(header)+2*len(ok)], 4},
		{"trailing data after a record", file(ok + ` {}`), 2},
		{"a whole conflicting file", string(good), 2},
	}
	before := exExport(t, m, engram.ExportOptions{History: true})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := m.Import(ctx, strings.NewReader(c.file), engram.ImportOptions{})
			require.Error(t, err)
			var ie *engram.ImportError
			require.ErrorAs(t, err, &ie, "%v", err)
			t.Log(err)
			require.Equal(t, c.line, ie.Line, "%v", err)
			if c.name != "a whole conflicting file" {
				require.ErrorIs(t, err, engram.ErrInvalid)
			}
			require.Zero(t, rep.Added)
			require.Equal(t, string(before), string(exExport(t, m, engram.ExportOptions{History: true})), "a refused import changed the memory")
		})
	}
	// The well-formed variant is imported: the table's files fail for
	// what they break, not for what they share.
	_, err := m.Import(ctx, strings.NewReader(file(ok, hist("fresh-1", "create", "null", "{}", "a", ""))), engram.ImportOptions{})
	require.NoError(t, err)
}

// TestImportRefusesAHugeLine refuses a file whose second line is 100 MB,
// generated as it is read: the reader never holds it.
func TestImportRefusesAHugeLine(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	m := exOpen(t, "default", clock, nil)
	exSeed(t, m, clock)
	before := exExport(t, m, engram.ExportOptions{})
	header := strings.SplitN(string(before), "\n", 2)[0] + "\n"
	const size = 100 << 20
	prefix := `{"type":"memory","kind":"semantic","row":{"id":"big","content":"`
	r := &hugeLine{head: header + prefix, n: size}
	_, err := m.Import(ctx, r, engram.ImportOptions{})
	var ie *engram.ImportError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, 2, ie.Line)
	require.ErrorIs(t, err, engram.ErrInvalid)
	require.Less(t, r.read, int64(size), "the reader stopped before the end of the line")
	require.Equal(t, string(before), string(exExport(t, m, engram.ExportOptions{})))
}

// hugeLine reads head, then n bytes of 'x' with no newline.
type hugeLine struct {
	head string
	n    int64
	read int64
}

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.head != "" {
		k := copy(p, h.head)
		h.head = h.head[k:]
		return k, nil
	}
	if h.read >= h.n {
		return 0, errors.New("EOF never comes")
	}
	k := min(int64(len(p)), h.n-h.read)
	for i := range k {
		p[i] = 'x'
	}
	h.read += k
	return int(k), nil
}

// TestImportReturnsTheReadersError returns a reader's failure as it is,
// not as the database's, and imports nothing.
func TestImportReturnsTheReadersError(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	m := exOpen(t, "default", clock, nil)
	exSeed(t, m, clock)
	file := exExport(t, m, engram.ExportOptions{})
	other := exOpen(t, "default", clock, nil)
	errDisk := errors.New("the disk is gone")
	_, err := other.Import(ctx, io.MultiReader(bytes.NewReader(file[:len(file)/2]), iotest.ErrReader(errDisk)), engram.ImportOptions{})
	require.ErrorIs(t, err, errDisk)
	var de *engram.DatabaseError
	require.False(t, errors.As(err, &de), "%v", err)
	st, err := other.Stats(ctx)
	require.NoError(t, err)
	require.Zero(t, st.Semantic)
}

// TestImportOptionsAreChecked refuses an unknown conflict policy.
func TestImportOptionsAreChecked(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	_, err := m.Import(context.Background(), strings.NewReader(""), engram.ImportOptions{Conflict: 7})
	require.ErrorIs(t, err, engram.ErrInvalid)
	require.NoError(t, m.Close())
	require.ErrorIs(t, m.Export(context.Background(), &bytes.Buffer{}, engram.ExportOptions{}), engram.ErrClosed)
	_, err = m.Import(context.Background(), strings.NewReader(""), engram.ImportOptions{})
	require.ErrorIs(t, err, engram.ErrClosed)
}

// TestExportConcurrentWrites exports while another goroutine stores: each
// export is one snapshot (a prefix of the stores, every entry whole, with
// its links), which imports into an empty agent and round-trips.
func TestExportConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	path := newDB(t)
	m := openOn(t, path, "writer", engram.Tier1)
	done := make(chan error, 1)
	go func() {
		for i := range 200 {
			if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: fmt.Sprintf("e-%03d", i),
				Content: fmt.Sprintf("entry %d about the deploy pipeline", i)}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; ; i++ {
		var b bytes.Buffer
		require.NoError(t, m.Export(ctx, &b, engram.ExportOptions{}))
		n := exRecordTypes(t, b.Bytes())["memory/semantic"]
		for j := range n {
			require.Contains(t, b.String(), fmt.Sprintf(`"id":"e-%03d"`, j), "an export is a prefix of the stores")
		}
		r := openOn(t, path, fmt.Sprintf("reader-%d", i), engram.Tier1)
		_, err := r.Import(ctx, bytes.NewReader(b.Bytes()), engram.ImportOptions{})
		require.NoError(t, err)
		var again bytes.Buffer
		require.NoError(t, r.Export(ctx, &again, engram.ExportOptions{}))
		require.Equal(t, strings.Replace(b.String(), `"agent":"writer"`, fmt.Sprintf(`"agent":"reader-%d"`, i), 1),
			withTimeOf(again.String(), b.String()))
		select {
		case err := <-done:
			require.NoError(t, err)
			t.Logf("%d exports, the last of %d entries", i+1, n)
			return
		default:
		}
	}
}

// withTimeOf returns got with its header's time replaced by want's: the
// two exports ran at different times.
func withTimeOf(got, want string) string {
	tg, tw := strings.Index(got, `"time":"`), strings.Index(want, `"time":"`)
	if tg < 0 || tw < 0 {
		return got
	}
	return got[:tg] + want[tw:tw+len(`"time":"2026-05-04T12:21:00.000Z"`)] + got[tg+len(`"time":"2026-05-04T12:21:00.000Z"`):]
}

// TestImportFollowsIndexes imports into a Tier 2 memory whose stem index
// (auto-linking) and vector index are built already: both follow the
// import's rows, and forget those of an import that was refused.
func TestImportFollowsIndexes(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	src := exOpen(t, "default", clock, newTestEmbedder(t, 64))
	exSeed(t, src, clock)
	file := exExport(t, src, engram.ExportOptions{Vectors: true})

	e := newTestEmbedder(t, 64)
	dst := exOpen(t, "default", testutil.NewClock(clock.Now()), e)
	// Build both indexes: a store links through the stem index, a
	// vector search loads the vector index.
	_, err := dst.Semantic().Store(ctx, engram.SemanticEntry{ID: "warm", Content: "an entry about nothing in particular"})
	require.NoError(t, err)
	_, err = dst.Search(ctx, engram.SearchOptions{Query: "nothing", Mode: engram.SearchVector})
	require.NoError(t, err)

	// A refused import first: its rows must not stay in the indexes.
	lines := strings.SplitAfter(string(file), "\n")
	bad := strings.Join(lines[:len(lines)-2], "") + `{"type":"vector","kind":"semantic","row":{"id":"nobody","embedding":"AAAAAA=="}}` + "\n" + lines[len(lines)-2]
	_, err = dst.Import(ctx, strings.NewReader(bad), engram.ImportOptions{})
	var ie *engram.ImportError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, len(lines)-1, ie.Line, "%v", err) // the vector of nobody, before the end
	_, err = dst.Semantic().Store(ctx, engram.SemanticEntry{ID: "probe-1", Content: "The deploy now runs from the green pipeline!"})
	require.NoError(t, err)
	links, err := dst.Links().For(ctx, "probe-1")
	require.NoError(t, err)
	require.Empty(t, links, "the stem index kept rows of a refused import")
	res, err := dst.Search(ctx, engram.SearchOptions{Query: "green pipeline", Mode: engram.SearchVector, Types: []engram.MemoryType{engram.TypeSemantic}})
	require.NoError(t, err)
	for _, r := range res {
		require.NotEqual(t, "sem-07", r.ID, "the vector index kept rows of a refused import")
	}
	require.NoError(t, dst.Semantic().Delete(ctx, "probe-1"))

	_, err = dst.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	require.NoError(t, dst.CheckIntegrity(ctx))
	_, err = dst.Semantic().Store(ctx, engram.SemanticEntry{ID: "probe-2", Content: "The deploy now runs from the green pipeline!"})
	require.NoError(t, err)
	links, err = dst.Links().For(ctx, "probe-2")
	require.NoError(t, err)
	require.NotEmpty(t, links, "the stem index follows the import")
	res, err = dst.Search(ctx, engram.SearchOptions{Query: "green pipeline", Mode: engram.SearchVector, Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 3})
	require.NoError(t, err)
	var ids []string
	for _, r := range res {
		ids = append(ids, r.ID)
	}
	require.Contains(t, ids, "sem-07", "the vector index follows the import")
}

// TestExportStreams exports 10,000 entries of 1 KiB (10 MiB of file) and
// checks the live heap, after a GC, at the start and near the end of the
// export: an export that held its rows would grow it by the file's size.
func TestExportStreams(t *testing.T) {
	ctx := context.Background()
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
	entries := make([]engram.SemanticEntry, 10000)
	for i := range entries {
		entries[i] = engram.SemanticEntry{Content: fmt.Sprintf("entry %d %s", i, strings.Repeat("word ", 200))}
	}
	_, err := m.Semantic().StoreBatch(ctx, entries)
	require.NoError(t, err)
	w := &heapWriter{every: 1 << 20}
	require.NoError(t, m.Export(ctx, w, engram.ExportOptions{}))
	require.Greater(t, w.n, int64(10<<20))
	require.GreaterOrEqual(t, len(w.live), 8)
	growth := int64(w.live[len(w.live)-1]) - int64(w.live[0])
	t.Logf("%d MiB written; live heap %v KiB, from the first sample to the last", w.n>>20, w.kib())
	require.Less(t, growth, int64(4<<20), "the live heap grew with the export: %v KiB", w.kib())
}

// heapWriter discards what it is given, and every `every` bytes records
// the live heap after a GC.
type heapWriter struct {
	every, n, next int64
	live           []uint64
}

func (h *heapWriter) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if h.n >= h.next {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.live = append(h.live, ms.HeapAlloc)
		h.next = h.n + h.every
	}
	return len(p), nil
}

func (h *heapWriter) kib() []uint64 {
	out := make([]uint64, len(h.live))
	for i, b := range h.live {
		out[i] = b >> 10
	}
	return out
}

// TestImportHistoryOfSkippedMemories: the history of a memory that
// ConflictSkip left out is left out too, so the agent's history of it ends
// on what it holds.
func TestImportHistoryOfSkippedMemories(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	src := exOpen(t, "default", clock, nil)
	id, err := src.Semantic().Store(ctx, engram.SemanticEntry{ID: "shared-id", Content: "theirs", Importance: 0.5})
	require.NoError(t, err)
	file := exExport(t, src, engram.ExportOptions{History: true})

	dst := exOpen(t, "default", testutil.NewClock(clock.Now()), nil)
	_, err = dst.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: "mine", Importance: 0.5})
	require.NoError(t, err)
	rep, err := dst.Import(ctx, bytes.NewReader(file), engram.ImportOptions{Conflict: engram.ConflictSkip})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Skipped["history"])
	h, err := dst.History(ctx, id)
	require.NoError(t, err)
	require.Len(t, h, 1)
	require.Contains(t, string(h[0].After), `"mine"`)

	rep, err = dst.Import(ctx, bytes.NewReader(file), engram.ImportOptions{Conflict: engram.ConflictReplace})
	require.NoError(t, err)
	h, err = dst.History(ctx, id)
	require.NoError(t, err)
	require.Len(t, h, 2, "its own history, then the file's")
	require.Contains(t, string(h[0].After), `"mine"`)
	require.Contains(t, string(h[1].After), `"theirs"`)
}

// An export reads history a batch at a time and writes each batch before
// it reads the next (writing one reads its memories' rows): on
// PostgreSQL, which runs no statement of a transaction while another's
// rows are open, history longer than a batch once failed to export.
func TestExportHistoryLongerThanABatch(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(exStart)
	src := exOpen(t, "default", clock, nil)
	entries := make([]engram.SemanticEntry, 300)
	for i := range entries {
		entries[i] = engram.SemanticEntry{Content: fmt.Sprintf("entry %d about the deploy", i), Importance: 0.5}
	}
	ids, err := src.Semantic().StoreBatch(ctx, entries)
	require.NoError(t, err)
	for i, id := range ids[:120] {
		clock.Advance(time.Second)
		changed := fmt.Sprintf("entry %d, changed", i)
		_, err := src.Semantic().Update(ctx, id, engram.SemanticPatch{Content: &changed})
		require.NoError(t, err)
	}
	opts := engram.ExportOptions{History: true}
	file := exExport(t, src, opts)
	require.Equal(t, 420, exRecordTypes(t, file)["history/semantic"], "every entry and change")

	dst := exOpen(t, "default", testutil.NewClock(clock.Now()), nil)
	_, err = dst.Import(ctx, bytes.NewReader(file), engram.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, string(file), string(exExport(t, dst, opts)), "export → import → export changed the file")
	for _, id := range []string{ids[0], ids[119], ids[299]} {
		want, err := src.History(ctx, id)
		require.NoError(t, err)
		got, err := dst.History(ctx, id)
		require.NoError(t, err)
		require.Equal(t, len(want), len(got), id)
	}
}

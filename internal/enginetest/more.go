package enginetest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// moreTests cover what engram derives and keeps besides the memories
// callers store one by one: ingested documents, extraction rules and what
// they extract, compaction into the archive, the summary, and vectors
// carried by an export.
var moreTests = []test{
	{"Documents", testDocuments},
	{"RulesAndExtract", testRulesAndExtract},
	{"Compact", testCompact},
	{"Summary", testSummary},
	{"ExportImportVectors", testExportImportVectors},
}

func testDocuments(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	dir := t.TempDir()
	doc := "# Deploy\n\nShip from CI only.\n\n## Rollback\n\nRevert the tag, then page the owner.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deploy.md"), []byte(doc), 0o600))

	rep, err := o.m.Ingest(ctx, dir, engram.IngestOptions{Name: "guide"})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Files)
	assert.Equal(t, 2, rep.Stored)
	assert.Empty(t, rep.Errors)
	chunks, err := o.m.ChunksOf(ctx, "guide/deploy.md")
	require.NoError(t, err)
	require.Len(t, chunks, 2)
	assert.Equal(t, "Deploy > Rollback", chunks[1].Heading)
	assert.Equal(t, 1, chunks[1].Index)
	got, err := o.m.GetChunk(ctx, chunks[1].ID)
	require.NoError(t, err)
	assert.Equal(t, chunks[1].Content, got.Content)

	res, err := o.m.Search(ctx, engram.SearchOptions{Query: "how do I roll back? revert the tag"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, chunks[1].ID, res[0].ID)
	assert.Equal(t, engram.TypeDocument, res[0].Type)
	assert.Equal(t, "guide/deploy.md > Deploy > Rollback", res[0].Source)
	assert.Equal(t, 2, stats(t, o.m).Documents)

	// Again, unchanged: nothing stored. Changed: the chunk is updated in
	// place, and a chunk that left the file is archived.
	rep, err = o.m.Ingest(ctx, dir, engram.IngestOptions{Name: "guide"})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Skipped)
	assert.Zero(t, rep.Stored)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deploy.md"), []byte("# Deploy\n\nShip from CI, always.\n"), 0o600))
	rep, err = o.m.Ingest(ctx, dir, engram.IngestOptions{Name: "guide"})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Updated)
	assert.Equal(t, 1, rep.Archived)
	_, err = o.m.GetChunk(ctx, chunks[1].ID)
	assert.ErrorIs(t, err, engram.ErrNotFound)
	require.NoError(t, o.m.Restore(ctx, chunks[1].ID))
	_, err = o.m.GetChunk(ctx, chunks[1].ID)
	assert.NoError(t, err)

	_, err = o.m.Ingest(ctx, dir, engram.IngestOptions{Name: "../up"})
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = o.m.ChunksOf(ctx, "")
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func testRulesAndExtract(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	rules := o.m.Rules()
	require.NoError(t, rules.Add(ctx, engram.ExtractionRule{Name: "employer", Pattern: `\bI work (?:at|for) (?P<object>[A-Z]\w+)`,
		Type: engram.TypeFact, Predicate: "works at", Active: true}))
	require.NoError(t, rules.Add(ctx, engram.ExtractionRule{Name: "likes", Pattern: `\bI like [a-z ]+`, Type: engram.TypeSemantic, Importance: 0.6, Active: true}))
	assert.ErrorIs(t, rules.Add(ctx, engram.ExtractionRule{Name: "likes", Pattern: `x`, Type: engram.TypeSemantic, Active: true}), engram.ErrExists)
	assert.ErrorIs(t, rules.Add(ctx, engram.ExtractionRule{Name: "broken", Pattern: `(`, Type: engram.TypeSemantic, Active: true}), engram.ErrInvalid)
	list, err := rules.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "employer", list[0].Name)
	assert.Equal(t, "likes", list[1].Name)

	res, err := o.m.Extract(ctx, []engram.Message{{Role: "user", Content: "I work at Initech. I like green tea"}})
	require.NoError(t, err)
	cur, err := o.m.Facts().Current(ctx, engram.FactQuery{Entity: "User"})
	require.NoError(t, err)
	require.Len(t, cur, 1)
	assert.Equal(t, "User works at Initech", cur[0].String())
	entries, err := o.m.Semantic().List(ctx, engram.ListOptions{})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "I like green tea", entries[0].Content)
	assert.Equal(t, 0.6, entries[0].Importance)
	assert.Empty(t, res.Rejected)

	require.NoError(t, rules.SetActive(ctx, "likes", false))
	_, err = o.m.Extract(ctx, []engram.Message{{Role: "user", Content: "I like black coffee"}})
	require.NoError(t, err)
	assert.Equal(t, 1, stats(t, o.m).Semantic, "an inactive rule extracts nothing")
	require.NoError(t, rules.Remove(ctx, "likes"))
	assert.ErrorIs(t, rules.Remove(ctx, "likes"), engram.ErrNotFound)
	assert.ErrorIs(t, rules.SetActive(ctx, "likes", true), engram.ErrNotFound)
}

func testCompact(t *testing.T, e Engine) {
	ctx := context.Background()
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 2
	o := memory(t, e, engram.WithConfig(cfg))
	for _, x := range []engram.SemanticEntry{
		{ID: "keep", Content: "Deploys run from CI only", Importance: 0.9},
		{ID: "also", Content: "Ada leads the payments team", Importance: 0.7},
		{ID: "drop", Content: "The coffee machine is broken", Importance: 0.1},
	} {
		_, err := o.m.Semantic().Store(ctx, x)
		require.NoError(t, err)
	}
	rep, err := o.m.Compact(ctx, engram.CompactCount)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Count(engram.ActionArchive))
	require.Len(t, rep.Actions, 1)
	assert.Equal(t, "drop", rep.Actions[0].ID)
	_, err = o.m.Semantic().Get(ctx, "drop")
	assert.ErrorIs(t, err, engram.ErrNotFound)
	s := stats(t, o.m)
	assert.Equal(t, 2, s.Semantic)
	assert.Equal(t, 1, s.Archived)
	hist, err := o.m.History(ctx, "drop")
	require.NoError(t, err)
	assert.Equal(t, []engram.HistoryOp{engram.OpCreate, engram.OpArchive}, ops(hist))
	assert.Equal(t, "count", hist[1].Reason)

	require.NoError(t, o.m.Restore(ctx, "drop"))
	_, err = o.m.Semantic().Get(ctx, "drop")
	assert.NoError(t, err)
	_, err = o.m.Compact(ctx, "sideways")
	assert.ErrorIs(t, err, engram.ErrInvalid)
}

func testSummary(t *testing.T, e Engine) {
	ctx := context.Background()
	o := memory(t, e)
	seedKinds(t, o.m)
	sum, err := o.m.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, "ada", sum.AgentID)
	counts := map[engram.MemoryType]int{}
	newest := map[engram.MemoryType]string{}
	for _, k := range sum.Kinds {
		counts[k.Type] = k.Count
		newest[k.Type] = k.LastID
	}
	wantCounts := map[engram.MemoryType]int{engram.TypeSemantic: 2, engram.TypeEpisodic: 2, engram.TypeProcedural: 1,
		engram.TypeSnapshot: 1, engram.TypeFact: 1}
	wantNewest := map[engram.MemoryType]string{engram.TypeSemantic: "s2", engram.TypeEpisodic: "e2", engram.TypeProcedural: "p1",
		engram.TypeSnapshot: "n1", engram.TypeFact: "f1"}
	for _, typ := range engram.MemoryTypes() { // every other stored kind: none
		if _, seeded := wantCounts[typ]; !seeded && typ != engram.TypeWorking {
			wantCounts[typ], wantNewest[typ] = 0, ""
		}
	}
	assert.Equal(t, wantCounts, counts)
	assert.Equal(t, wantNewest, newest)

	// A write shows in the next summary.
	_, err = o.m.Semantic().Store(ctx, engram.SemanticEntry{ID: "s3", Content: "a third entry", CreatedAt: at(9)})
	require.NoError(t, err)
	sum, err = o.m.Summary(ctx)
	require.NoError(t, err)
	for _, k := range sum.Kinds {
		if k.Type == engram.TypeSemantic {
			assert.Equal(t, 3, k.Count)
			assert.Equal(t, "s3", k.LastID)
		}
	}
}

func testExportImportVectors(t *testing.T, e Engine) {
	ctx := context.Background()
	a := tier2(t, e)
	seedKinds(t, a.m)
	var file bytes.Buffer
	require.NoError(t, a.m.Export(ctx, &file, engram.ExportOptions{Vectors: true}))

	b := tier2(t, e)
	rep, err := b.m.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{})
	require.NoError(t, err)
	vectors := rep.Added["vector"]
	assert.Equal(t, 5, vectors, "the semantic entries', the episodes' and the procedure's")
	assert.Zero(t, rep.Skipped["vector"])
	assert.Zero(t, stats(t, b.m).PendingEmbeddings, "the vectors came with the file")
	for _, q := range []string{"tea over coffee", "billing outage"} {
		want, err := a.m.Search(ctx, engram.SearchOptions{Query: q, Mode: engram.SearchVector})
		require.NoError(t, err)
		got, err := b.m.Search(ctx, engram.SearchOptions{Query: q, Mode: engram.SearchVector})
		require.NoError(t, err)
		assert.Equal(t, resultIDs(want), resultIDs(got), q)
	}

	// A Tier 1 memory takes the file without its vectors.
	c := memoryOf(t, e, "plain", engram.Tier1)
	rep, err = c.m.Import(ctx, bytes.NewReader(file.Bytes()), engram.ImportOptions{})
	require.NoError(t, err)
	assert.Zero(t, rep.Added["vector"])
	assert.Equal(t, vectors, rep.Skipped["vector"])
	assert.Equal(t, listAll(t, a.m, engram.MemoryQuery{}), listAll(t, c.m, engram.MemoryQuery{}))
}

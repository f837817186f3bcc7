package engram_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

const deployDoc = `---
title: Deploying
tags: [ops]
---
# Deploy

Deploys run from CI on every merge to main, after the integration suite passes.

## Rollback

Roll back by redeploying the previous release tag from the CI pipeline page.

## Canary

A canary takes five percent of traffic for thirty minutes before the rollout.
`

func TestIngestTree(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	root := filepath.Join(t.TempDir(), "docs")
	writeTree(t, root, map[string]string{
		"deploy.md":     deployDoc,
		"guide/copy.md": "# Copy\n\nDeploys run from CI on every merge to main, after the integration suite passes.\n",
		"guide/near.md": "# Near\n\nDeploys run from CI on every merge to main, after the integration suite passed!\n",
		"notes.txt":     "not markdown",
		".git/x.md":     "# hidden",
		"bin.md":        "# Binary\x00\x01",
		"latin1.md":     "# Caf\xe9\n",
	})
	outside := filepath.Join(t.TempDir(), "outside.md")
	require.NoError(t, os.WriteFile(outside, []byte("# Outside\n\nsecret\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link-out.md")))
	require.NoError(t, os.Symlink(filepath.Join(root, "deploy.md"), filepath.Join(root, "link-in.md")))

	var progress []string
	rep, err := m.Ingest(ctx, root, engram.IngestOptions{Progress: func(src string, r engram.IngestReport) { progress = append(progress, src) }})
	require.NoError(t, err)
	t.Logf("%+v", rep)
	assert.Equal(t, 4, rep.Files, "deploy, copy, near, link-in")
	assert.Equal(t, 3, rep.Stored)
	assert.Equal(t, 3+2, rep.Linked, "the copy, the near-duplicate and link-in's three chunks")
	assert.Equal(t, []string{"docs/bin.md", "docs/deploy.md", "docs/guide/copy.md", "docs/guide/near.md", "docs/latin1.md", "docs/link-in.md"}, progress)
	joined := strings.Join(rep.Errors, "\n")
	assert.Contains(t, joined, "docs/bin.md: a binary file")
	assert.Contains(t, joined, "docs/latin1.md: not valid UTF-8")
	assert.Contains(t, joined, "docs/link-out.md: a symbolic link leaving the tree")

	res, err := m.Search(ctx, engram.SearchOptions{Query: "canary traffic"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, engram.TypeDocument, res[0].Type)
	assert.Equal(t, "docs/deploy.md > Deploy > Canary", res[0].Source)
	block, err := m.Context(ctx, engram.ContextOptions{Query: "canary traffic", MaxTokens: 400})
	require.NoError(t, err)
	assert.Contains(t, block.Text, "docs/deploy.md > Deploy > Canary", "Context cites a document's place")
	c, err := m.GetChunk(ctx, res[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "Deploying", c.Title)
	assert.Equal(t, []string{"ops"}, c.Tags)

	again, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Zero(t, again.Stored+again.Updated+again.Linked+again.Archived, "an unchanged tree stores nothing: %+v", again)
	assert.Equal(t, rep.Chunks, again.Skipped)

	// A file that leaves, whose chunks other files hold: nothing leaves
	// the memory, the places go.
	require.NoError(t, os.Remove(filepath.Join(root, "link-in.md")))
	unlinked, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Zero(t, unlinked.Stored+unlinked.Updated+unlinked.Linked+unlinked.Archived, "%+v", unlinked)
	chunks, err := m.ChunksOf(ctx, "docs/link-in.md")
	require.NoError(t, err)
	assert.Empty(t, chunks)

	// A changed file: one chunk changes, one leaves.
	canary := res[0].ID
	writeTree(t, root, map[string]string{"deploy.md": strings.Replace(strings.Split(deployDoc, "## Canary")[0], "previous release tag", "last good tag", 1)})
	changed, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, changed.Updated, "%+v", changed)
	assert.Equal(t, 1, changed.Archived, "%+v", changed)
	assert.Equal(t, 3, changed.Skipped, "deploy.md's first chunk, and copy.md's and near.md's: %+v", changed)
	chunks, err = m.ChunksOf(ctx, "docs/deploy.md")
	require.NoError(t, err)
	require.Len(t, chunks, 2)
	assert.Contains(t, chunks[1].Content, "last good tag")
	assert.Equal(t, "Deploy > Rollback", chunks[1].Heading)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Documents)
	assert.Equal(t, 1, st.Archived)

	// A file that leaves the tree: its chunks leave, unless another file
	// holds them.
	require.NoError(t, os.Remove(filepath.Join(root, "deploy.md")))
	gone, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, gone.Archived, "%+v", gone)
	st, err = m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Documents, "the Deploy chunk, which copy.md and near.md hold")
	chunks, err = m.ChunksOf(ctx, "docs/guide/near.md")
	require.NoError(t, err)
	require.Len(t, chunks, 1)
	assert.Equal(t, "docs/guide/copy.md", chunks[0].Source)
	assert.Contains(t, chunks[0].Content, "Deploys run from CI")

	// Archived chunks are not found, and come back with Restore.
	found, err := m.Search(ctx, engram.SearchOptions{Query: "canary"})
	require.NoError(t, err)
	assert.Empty(t, found)
	require.NoError(t, m.Restore(ctx, canary))
	c, err = m.GetChunk(ctx, canary)
	require.NoError(t, err)
	assert.Equal(t, "Deploy > Canary", c.Heading)
}

// goroot returns the Go toolchain's root.
func goroot(t testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

var ingestReadmes = flag.Int("ingest.readmes", 40,
	"how many of the module cache's READMEs TestIngestRealMarkdown ingests, spread over them all; 0 for all (CI)")

// TestIngestRealMarkdown ingests markdown nobody here wrote, read where
// it lies and never copied into the repository: the Go toolchain's own
// (GOROOT) and the READMEs of the module cache, -ingest.readmes of them
// (40 by default, taken evenly from the sorted list; CI ingests all with
// go test -run TestIngestRealMarkdown -ingest.readmes=0 ., whose time
// grows with the module cache). Every file is read or reported, every
// chunk is searchable, and ingesting it all again stores nothing.
func TestIngestRealMarkdown(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	if testing.Short() {
		t.Skip("reads the toolchain's and the module cache's markdown")
	}
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	root := goroot(t)
	first, err := m.Ingest(ctx, root, engram.IngestOptions{Name: "goroot"})
	require.NoError(t, err)
	t.Logf("GOROOT: %d files, %d chunks: %d stored, %d linked (duplicates), %d errors %v",
		first.Files, first.Chunks, first.Stored, first.Linked, len(first.Errors), first.Errors)
	require.NotZero(t, first.Files)
	assert.Equal(t, first.Chunks, first.Stored+first.Linked+chunkErrors(first))

	// The module cache's READMEs, each file ingested by its own path.
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	cache := strings.TrimSpace(string(out))
	var readmes []string
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "cache" && filepath.Dir(p) == cache {
			return filepath.SkipDir // downloads, not sources
		}
		if !d.IsDir() && strings.HasPrefix(strings.ToUpper(d.Name()), "README") && strings.HasSuffix(strings.ToLower(d.Name()), ".md") {
			readmes = append(readmes, p)
		}
		return nil
	})
	if n := *ingestReadmes; n > 0 && n < len(readmes) {
		sample := make([]string, n)
		for i := range sample {
			sample[i] = readmes[i*len(readmes)/n]
		}
		readmes = sample
	}
	ingestAll := func() engram.IngestReport {
		var total engram.IngestReport
		for _, p := range readmes {
			rel, err := filepath.Rel(cache, p)
			require.NoError(t, err)
			r, err := m.Ingest(ctx, p, engram.IngestOptions{Name: "modcache/" + filepath.ToSlash(rel)})
			require.NoError(t, err)
			total.Files += r.Files
			total.Chunks += r.Chunks
			total.Stored += r.Stored
			total.Updated += r.Updated
			total.Linked += r.Linked
			total.Skipped += r.Skipped
			total.Archived += r.Archived
			total.Errors = append(total.Errors, r.Errors...)
		}
		return total
	}
	mods := ingestAll()
	t.Logf("module cache: %d READMEs, %d chunks: %d stored, %d linked, %d errors %v",
		mods.Files, mods.Chunks, mods.Stored, mods.Linked, len(mods.Errors), mods.Errors)

	again, err := m.Ingest(ctx, root, engram.IngestOptions{Name: "goroot"})
	require.NoError(t, err)
	modsAgain := ingestAll()
	t.Logf("again: GOROOT %+v; module cache %d skipped", again, modsAgain.Skipped)
	for _, r := range []engram.IngestReport{again, modsAgain} {
		assert.Zero(t, r.Stored+r.Updated+r.Linked+r.Archived, "ingesting it all again stores nothing: %+v", r)
	}
	assert.Equal(t, first.Chunks-chunkErrors(first), again.Skipped)

	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, first.Stored+mods.Stored, st.Documents)
	// Every stored chunk is found by its own words, with its place.
	res, err := m.Search(ctx, engram.SearchOptions{Query: "gofmt", Types: []engram.MemoryType{engram.TypeDocument}})
	require.NoError(t, err)
	for _, r := range res {
		assert.NotEmpty(t, r.Source)
	}
	require.NoError(t, m.CheckIntegrity(ctx))
}

// chunkErrors counts the report's errors about single chunks.
func chunkErrors(r engram.IngestReport) int {
	n := 0
	for _, e := range r.Errors {
		if i := strings.Index(e, "]: "); i > 0 && strings.Contains(e[:i], "[") {
			n++
		}
	}
	return n
}

// TestConcurrentIngestAndMarkdown runs ingestion, memory.md imports,
// flushes and searches at once: no error, no race, and the memory is
// whole afterwards.
func TestConcurrentIngestAndMarkdown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	md := filepath.Join(dir, "memory.md")
	m := openOn(t, fileDB(t, filepath.Join(dir, "m.db")), "c", engram.Tier1, withMarkdownPath(t, md))
	root := filepath.Join(dir, "docs")
	writeTree(t, root, map[string]string{"deploy.md": deployDoc, "b.md": "# B\n\nAnother document about backups.\n"})
	_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: "e1", Content: "The deploy runs from CI", Importance: 0.8})
	require.NoError(t, err)
	require.NoError(t, m.Flush(ctx))
	errs := make(chan error, 64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				var err error
				switch g {
				case 0:
					_, err = m.Ingest(ctx, root, engram.IngestOptions{})
				case 1:
					_, err = m.ImportMarkdown(ctx)
				case 2:
					m.Working().Add(engram.WorkingItem{Content: fmt.Sprintf("working item %d", i), Importance: 0.9})
					err = m.Flush(ctx)
				case 3:
					_, err = m.Search(ctx, engram.SearchOptions{Query: "deploy rollback"})
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, st.Documents)
	rep, err := m.ImportMarkdown(ctx)
	require.NoError(t, err)
	assert.False(t, rep.Changed, "%+v", rep)
}

// At Tier 2 chunks have vectors from the start, vector search finds and
// cites them, and ingesting again stores nothing.
func TestIngestTier2(t *testing.T) {
	ctx := context.Background()
	e, err := engram.NewHashingEmbedder(64)
	require.NoError(t, err)
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(e))
	root := filepath.Join(t.TempDir(), "docs")
	writeTree(t, root, map[string]string{"deploy.md": deployDoc,
		"again.md": "# Again\n\nDeploys run from CI on every merge to main, after the integration suite passes!!\n"})
	rep, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Stored, "%+v", rep)
	assert.Equal(t, 1, rep.Linked, "%+v", rep)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.PendingEmbeddings, "chunks are embedded as they are stored")
	res, err := m.Search(ctx, engram.SearchOptions{Query: "canary traffic rollout", Mode: engram.SearchVector, Types: []engram.MemoryType{engram.TypeDocument}})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, "docs/deploy.md > Deploy > Canary", res[0].Source)
	again, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Zero(t, again.Stored+again.Updated+again.Linked+again.Archived, "%+v", again)
}

// topicEmbedder gives every text that mentions a topic word the same
// vector, as a model gives paraphrases close ones.
type topicEmbedder struct{}

func (topicEmbedder) Dimensions() int { return 4 }
func (topicEmbedder) Model() string   { return "topics" }
func (topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		switch {
		case strings.Contains(t, "kayak"):
			out[i] = []float32{1, 0, 0, 0}
		case strings.Contains(t, "tent"):
			out[i] = []float32{0, 1, 0, 0}
		default:
			out[i] = []float32{0, 0, 0.6, 0.8}
		}
	}
	return out, nil
}

// At Tier 2 a chunk whose embedding is more than 0.9 alike a stored one's
// is a near-duplicate, however different its words.
func TestIngestTier2NearDuplicateByEmbedding(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier2, engram.WithEmbedder(topicEmbedder{}))
	root := filepath.Join(t.TempDir(), "docs")
	writeTree(t, root, map[string]string{
		"a.md": "# Boats\n\nThe kayak lives in the garage, beside the paddles.\n",
		"b.md": "# Storage\n\nWe keep our kayak hanging from the shed roof all winter.\n",
		"c.md": "# Camping\n\nThe tent is packed in the attic.\n",
	})
	rep, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Stored, "%+v", rep)
	assert.Equal(t, 1, rep.Linked, "%+v", rep)
	chunks, err := m.ChunksOf(ctx, "docs/b.md")
	require.NoError(t, err)
	require.Len(t, chunks, 1)
	assert.Equal(t, "docs/a.md", chunks[0].Source)
	assert.Equal(t, []engram.DocumentSource{{Source: "docs/b.md", Heading: "Storage", Index: 0}}, chunks[0].Also)
	again, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Zero(t, again.Stored+again.Updated+again.Linked+again.Archived, "%+v", again)
}

// With Extract, each stored chunk runs through extraction: here a fact
// rule makes a fact of a sentence in a document.
func TestIngestExtract(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	require.NoError(t, m.Rules().Add(ctx, engram.ExtractionRule{Name: "runs-on", Pattern: `(?P<subject>\w+) runs on (?P<object>\w+)`,
		Type: engram.TypeFact, Predicate: "runs on", Active: true}))
	root := filepath.Join(t.TempDir(), "docs")
	writeTree(t, root, map[string]string{"infra.md": "# Infra\n\nThe billing service is old. Billing runs on Postgres.\n"})
	rep, err := m.Ingest(ctx, root, engram.IngestOptions{Extract: true})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Extracted, "%+v", rep)
	facts, err := m.Facts().Current(ctx, engram.FactQuery{Entity: "Billing"})
	require.NoError(t, err)
	require.Len(t, facts, 1)
	assert.Equal(t, "Postgres", facts[0].Object)
	again, err := m.Ingest(ctx, root, engram.IngestOptions{Extract: true})
	require.NoError(t, err)
	assert.Zero(t, again.Extracted, "an unchanged chunk is not extracted again")
}

// History records ingestion with reason ingest: a chunk's creation, its
// change in place and its archiving.
func TestIngestHistory(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	root := filepath.Join(t.TempDir(), "docs")
	writeTree(t, root, map[string]string{"deploy.md": deployDoc})
	_, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	chunks, err := m.ChunksOf(ctx, "docs/deploy.md")
	require.NoError(t, err)
	require.Len(t, chunks, 3)
	writeTree(t, root, map[string]string{"deploy.md": strings.Replace(strings.Split(deployDoc, "## Canary")[0], "previous release tag", "last good tag", 1)})
	_, err = m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	want := map[string][]engram.HistoryOp{
		chunks[0].ID: {engram.OpCreate},
		chunks[1].ID: {engram.OpCreate, engram.OpUpdate},
		chunks[2].ID: {engram.OpCreate, engram.OpArchive},
	}
	for id, ops := range want {
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		var got []engram.HistoryOp
		for _, e := range h {
			got = append(got, e.Op)
			assert.Equal(t, "ingest", e.Reason)
		}
		assert.Equal(t, ops, got, id)
	}
}

// Export and Import carry document chunks with their places, as every
// kind of the registry.
func TestIngestExportImport(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, engram.Tier1)
	root := filepath.Join(t.TempDir(), "docs")
	writeTree(t, root, map[string]string{"deploy.md": deployDoc, "copy.md": "# Copy\n\nDeploys run from CI on every merge to main, after the integration suite passes.\n"})
	_, err := m.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	var buf strings.Builder
	require.NoError(t, m.Export(ctx, &buf, engram.ExportOptions{}))
	other := newAgentMemory(t, "other", engram.Tier1)
	_, err = other.Import(ctx, strings.NewReader(buf.String()), engram.ImportOptions{})
	require.NoError(t, err)
	for _, src := range []string{"docs/deploy.md", "docs/copy.md"} {
		want, err := m.ChunksOf(ctx, src)
		require.NoError(t, err)
		got, err := other.ChunksOf(ctx, src)
		require.NoError(t, err)
		assert.Equal(t, want, got, src)
	}
	again, err := other.Ingest(ctx, root, engram.IngestOptions{})
	require.NoError(t, err)
	assert.Zero(t, again.Stored+again.Updated+again.Linked+again.Archived, "an imported memory knows the tree: %+v", again)
	res, err := other.Search(ctx, engram.SearchOptions{Query: "canary"})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	assert.Equal(t, "docs/deploy.md > Deploy > Canary", res[0].Source)
}

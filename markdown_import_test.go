package engram_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// markdownFixture is a memory with a memory.md written from eight
// entries (the last two of which do not fit the file) and two facts.
func markdownFixture(t *testing.T) (*engram.Memory, *testutil.Clock, string) {
	t.Helper()
	clock := testutil.NewClock(t0)
	cfg := engram.DefaultConfig()
	cfg.Semantic.MaxMarkdownLines = 15
	dir := t.TempDir()
	md := filepath.Join(dir, "memory.md")
	m := newAgentMemory(t, "golden", engram.Tier1, engram.WithConfig(cfg), engram.WithClock(clock.Now), withMarkdownPath(t, md))

	ctx := context.Background()
	for _, e := range []engram.SemanticEntry{
		{ID: "e01", Content: "The deploy runs from CI only", Importance: 0.9, Tags: []string{"ops", "deploy"}, Verified: true},
		{ID: "e02", Content: "Postgres listens on 6432\nvia pgbouncer", Importance: 0.7, Tags: []string{"db"}},
		{ID: "e03", Content: "Prefers tabs over spaces", Importance: 0.7},
		{ID: "e04", Content: "An HTML comment --> must not end the ID comment <!-- here", Importance: 0.5},
		{ID: "e05", Content: "Lunch is at noon", Importance: 0.1},
		{ID: "e06", Content: "The staging cluster is eu-west-1", Importance: 0.6, Summary: "staging: eu-west-1"},
		{ID: "e07", Content: "Too unimportant to fit", Importance: 0.05},
		{ID: "e08", Content: "Also too unimportant to fit", Importance: 0.01},
	} {
		clock.Advance(time.Minute)
		_, err := m.Semantic().Store(ctx, e)
		require.NoError(t, err)
	}
	for _, f := range []engram.Fact{
		{ID: "f1", Subject: "Ada", Predicate: "lives in", Object: "London", ValidFrom: t0},
		{ID: "f2", Subject: "Ada", Predicate: "works at", Object: "Acme", ValidFrom: t0},
	} {
		_, err := m.Facts().Assert(ctx, f)
		require.NoError(t, err)
	}
	clock.Advance(time.Minute)
	require.NoError(t, m.Flush(ctx))
	return m, clock, md
}

// markdownState dumps what the import left: the report, the entries, the
// archive and memory.md, with generated IDs named by order.
func markdownState(t *testing.T, m *engram.Memory, rep engram.MarkdownReport, md string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintf(&b, "== report\nchanged: %v\nupdated: %v\nadded: %v\narchived: %v\n", rep.Changed, rep.Updated, rep.Added, rep.Archived)
	if rep.Rejected != "" {
		fmt.Fprintf(&b, "rejected: %s\n", rep.Rejected)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(&b, "conflict: line %d id %s\n  file:     %s\n  database: %s\n", c.Line, c.ID, c.File, c.Database)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n  %q\n", s, s.Text)
	}
	if rep.KeptAt != "" {
		fmt.Fprintf(&b, "kept: %s\n", filepath.Base(rep.KeptAt))
	}
	b.WriteString("== entries\n")
	list, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000})
	require.NoError(t, err)
	slices.SortFunc(list, func(a, b engram.SemanticEntry) int { return strings.Compare(a.ID, b.ID) })
	for _, e := range list {
		fmt.Fprintf(&b, "%s (%.2f, verified=%v) %q %q %v\n", e.ID, e.Importance, e.Verified, e.Content, e.Summary, e.Tags)
	}
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	fmt.Fprintf(&b, "== archived: %d\n== memory.md\n", st.Archived)
	got, err := os.ReadFile(md)
	require.NoError(t, err)
	b.Write(got)
	return generatedIDs(b.String())
}

// generatedIDs names engram's generated IDs (26-character ULIDs) <id1>,
// <id2>, … in order of appearance.
func generatedIDs(s string) string {
	seen := map[string]string{}
	return regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`).ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := seen[id]; !ok {
			seen[id] = fmt.Sprintf("<id%d>", len(seen)+1)
		}
		return seen[id]
	})
}

func editLines(t *testing.T, md string, edit func(lines []string) []string) {
	t.Helper()
	b, err := os.ReadFile(md)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.NoError(t, os.WriteFile(md, []byte(strings.Join(edit(lines), "\n")+"\n"), 0o600))
}

// replaceLine replaces the line holding marker.
func replaceLine(lines []string, marker, with string) []string {
	for i, l := range lines {
		if strings.Contains(l, marker) {
			lines[i] = with
			return lines
		}
	}
	panic("no line holds " + marker)
}

func dropLine(lines []string, marker string) []string {
	return slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, marker) })
}

// TestMarkdownImportGolden edits memory.md as a person would and checks,
// against golden files under testdata/markdown, what ImportMarkdown did
// to the memory and the file it wrote again. Run with -update to rewrite
// them.
func TestMarkdownImportGolden(t *testing.T) {
	cases := []struct {
		name   string
		before func(t *testing.T, m *engram.Memory) // a change in the database
		edit   func(t *testing.T, md string)
		check  func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport)
	}{
		{name: "edits", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				l = replaceLine(l, "id:e01", "- (0.95, verified) The deploy runs from CI only, never by hand [ops, deploy] <!-- id:e01 -->")
				l = replaceLine(l, "id:e03", "- (0.40) Prefers tabs over spaces <!-- id:e03 -->")
				l = replaceLine(l, "id:e02", "- (0.70) Postgres listens on port 6432 [db, infra] <!-- id:e02 -->")
				l = replaceLine(l, "id:e06", "* (0.60) staging: eu-west-1 <!-- id:e06 -->") // another marker: no edit
				return l
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.ElementsMatch(t, []string{"e01", "e02", "e03"}, rep.Updated)
			e, err := m.Semantic().Get(context.Background(), "e02")
			require.NoError(t, err)
			assert.Equal(t, "Postgres listens on 6432\nvia pgbouncer", e.Content, "a line showing a summary edits the summary only")
			assert.Equal(t, "Postgres listens on port 6432", e.Summary)
		}},
		{name: "additions", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				at := slices.IndexFunc(l, func(s string) bool { return strings.Contains(s, "id:e05") })
				return slices.Insert(l, at+1, "- Buy oat milk on Fridays #errand #home",
					"- (0.80) The office moved to Leeds [place]",
					"- Prefers tabs over spaces")
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.Len(t, rep.Added, 2)
			require.Len(t, rep.Skipped, 1, "a line semantic memory holds already")
		}},
		{name: "removals", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string { return dropLine(dropLine(l, "id:e05"), "id:e01") })
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.Equal(t, []string{"e01", "e05"}, rep.Archived)
			ctx := context.Background()
			_, err := m.Semantic().Get(ctx, "e05")
			assert.ErrorIs(t, err, engram.ErrNotFound)
			require.NoError(t, m.Restore(ctx, "e05"), "a removed line's entry is restorable")
			e, err := m.Semantic().Get(ctx, "e05")
			require.NoError(t, err)
			assert.Equal(t, "Lunch is at noon", e.Content)
		}},
		{name: "reordering", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				at := slices.IndexFunc(l, func(s string) bool { return strings.Contains(s, "id:e01") })
				slices.Reverse(l[at : at+6])
				return l
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.True(t, rep.Changed)
			assert.Empty(t, rep.Updated)
			assert.Empty(t, rep.Archived)
			assert.Empty(t, rep.Skipped)
		}},
		{name: "conflict", before: func(t *testing.T, m *engram.Memory) {
			_, err := m.Semantic().Update(context.Background(), "e03", engram.SemanticPatch{Content: new("Prefers spaces now")})
			require.NoError(t, err)
		}, edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				l = replaceLine(l, "id:e03", "- (0.70) Prefers tabs, always <!-- id:e03 -->")
				return dropLine(l, "id:e05") // an ordinary removal beside it
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			require.Len(t, rep.Conflicts, 1)
			assert.Equal(t, "e03", rep.Conflicts[0].ID)
			e, err := m.Semantic().Get(context.Background(), "e03")
			require.NoError(t, err)
			assert.Equal(t, "Prefers spaces now", e.Content, "the database wins")
			kept, err := os.ReadFile(rep.KeptAt)
			require.NoError(t, err)
			assert.Contains(t, string(kept), "Prefers tabs, always", "the file's version is kept")
		}},
		{name: "malformed", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				l = replaceLine(l, "id:e03", "- (1.50) Prefers tabs over spaces <!-- id:e03 -->")
				l = replaceLine(l, "id:e06", "- (0.60) staging: eu-west-1 <!-- id:e06 --> trailing words")
				return append(l, "", "Just a paragraph someone typed.", "", "- a parent", "  - a nested child", "",
					"```", "- code, not an entry", "```")
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.Empty(t, rep.Updated)
			assert.Empty(t, rep.Archived, "no removal while an ID cannot be read")
			for _, s := range rep.Skipped {
				if s.Line == 0 {
					assert.Contains(t, s.String(), "removed line: ")
				}
			}
		}},
		{name: "truncated", edit: func(t *testing.T, md string) {
			b, err := os.ReadFile(md)
			require.NoError(t, err)
			at := strings.Index(string(b), "- (0.70) Prefers")
			require.NoError(t, os.WriteFile(md, b[:at+12], 0o600))
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.NotEmpty(t, rep.Rejected)
			assert.Empty(t, rep.Archived)
		}},
		{name: "tampered-id", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				l = replaceLine(l, "id:e01", "- (0.90, verified) The deploy runs from CI only [ops, deploy] <!-- id:e07 -->")
				l = replaceLine(l, "id:e04", "- (0.50) An HTML comment --&gt; must not end the ID comment &lt;!-- here <!-- id:e02 -->")
				return l
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.Empty(t, rep.Archived, "e01's and e04's lines lost their IDs: neither is archived")
			assert.Empty(t, rep.Updated)
		}},
		{name: "facts", edit: func(t *testing.T, md string) {
			editLines(t, md, func(l []string) []string {
				l = replaceLine(l, "fact:f1", "- Ada | lives in | Paris (since 2026-01-01) <!-- fact:f1 -->")
				l = dropLine(l, "fact:f2")
				return append(l, "- Ada | likes | tea")
			})
		}, check: func(t *testing.T, m *engram.Memory, rep engram.MarkdownReport) {
			assert.Len(t, rep.Skipped, 3)
			assert.Empty(t, rep.Added)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, clock, md := markdownFixture(t)
			ctx := context.Background()
			clock.Advance(time.Minute)
			if c.before != nil {
				c.before(t, m)
			}
			c.edit(t, md)
			rep, err := m.ImportMarkdown(ctx)
			require.NoError(t, err)
			c.check(t, m, rep)
			got := markdownState(t, m, rep, md)
			golden := filepath.Join("testdata", "markdown", c.name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -run TestMarkdownImportGolden -update to create it")
			assert.Equal(t, string(want), got)

			// The file written again reads back as no edit at all.
			again, err := m.ImportMarkdown(ctx)
			require.NoError(t, err)
			assert.False(t, again.Changed, "the projection written after an import is not an edit")
		})
	}
}

// An unchanged file imports nothing and costs no write.
func TestMarkdownImportUnchanged(t *testing.T) {
	m, _, _ := markdownFixture(t)
	rep, err := m.ImportMarkdown(context.Background())
	require.NoError(t, err)
	assert.Equal(t, engram.MarkdownReport{}, rep)
}

// Flush and Bootstrap read edits back in Mode A, and not in Mode B.
func TestMarkdownModes(t *testing.T) {
	ctx := context.Background()
	m, _, md := markdownFixture(t)
	editLines(t, md, func(l []string) []string { return append(l, "- Read back at Flush #mode-a") })
	require.NoError(t, m.Flush(ctx))
	b, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Regexp(t, `- \(0\.70\) Read back at Flush \[mode-a\] <!-- id:\w+ -->`, string(b))

	editLines(t, md, func(l []string) []string { return dropLine(l, "Read back at Flush") })
	boot, err := m.Bootstrap(ctx)
	require.NoError(t, err)
	require.NotNil(t, boot.MarkdownImport)
	assert.Len(t, boot.MarkdownImport.Archived, 1)
	assert.NotContains(t, boot.SemanticContext, "Read back at Flush")

	cfg := engram.DefaultConfig()
	cfg.Markdown.Mode = engram.MarkdownExport
	dir := t.TempDir()
	mdB := filepath.Join(dir, "b.md")
	mb := openOn(t, fileDB(t, filepath.Join(dir, "b.db")), "b", engram.Tier1, engram.WithConfig(cfg), withMarkdownPath(t, mdB))
	_, err = mb.Semantic().Store(ctx, engram.SemanticEntry{Content: "mode B", Importance: 0.9})
	require.NoError(t, err)
	require.NoError(t, mb.Flush(ctx))
	_, err = os.Stat(mdB)
	assert.ErrorIs(t, err, os.ErrNotExist, "Mode B writes memory.md on demand only")
	text, err := mb.ExportMarkdown(ctx)
	require.NoError(t, err)
	assert.Contains(t, text, "mode B")
	editLines(t, mdB, func(l []string) []string { return append(l, "- not read in mode B") })
	require.NoError(t, mb.Flush(ctx))
	st, err := mb.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Semantic, "Flush in Mode B does not read memory.md")
	rep, err := mb.ImportMarkdown(ctx)
	require.NoError(t, err)
	assert.Len(t, rep.Added, 1, "ImportMarkdown reads it when asked")

	mem := openOn(t, newDB(t), "x", engram.Tier1)
	_, err = mem.ImportMarkdown(ctx)
	assert.ErrorIs(t, err, engram.ErrInvalid)
	_, err = mem.ExportMarkdown(ctx)
	assert.ErrorIs(t, err, engram.ErrInvalid)

	bad := engram.DefaultConfig()
	bad.Markdown.Mode = "both"
	assert.ErrorIs(t, bad.Validate(), engram.ErrInvalid)
	bad = engram.DefaultConfig()
	bad.Markdown.MaxFileBytes = 10
	assert.ErrorIs(t, bad.Validate(), engram.ErrInvalid)
}

// Another agent's memory.md, copied over this agent's, imports nothing:
// no line of it reaches this agent's memory.
func TestMarkdownImportAnotherAgentsFile(t *testing.T) {
	ctx := context.Background()
	m, _, md := markdownFixture(t)
	other := newAgentMemory(t, "other", engram.Tier1, withMarkdownPath(t, filepath.Join(t.TempDir(), "o.md")))
	_, err := other.Semantic().Store(ctx, engram.SemanticEntry{ID: "o1", Content: "the other agent's secret", Importance: 0.9})
	require.NoError(t, err)
	text, err := other.ExportMarkdown(ctx)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(md, []byte(text), 0o600))
	rep, err := m.ImportMarkdown(ctx)
	require.NoError(t, err)
	assert.Contains(t, rep.Rejected, "another agent")
	_, err = m.Semantic().Get(ctx, "o1")
	assert.True(t, errors.Is(err, engram.ErrNotFound))
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 8, st.Semantic)
	assert.Zero(t, st.Archived)
}

// History records what an import did, with reason memory.md: an edit as
// update, a new line as create, a removed line as archive.
func TestMarkdownImportHistory(t *testing.T) {
	ctx := context.Background()
	m, _, md := markdownFixture(t)
	editLines(t, md, func(l []string) []string {
		l = replaceLine(l, "id:e03", "- (0.40) Prefers tabs over spaces <!-- id:e03 -->")
		return append(dropLine(l, "id:e05"), "- A new line #hist")
	})
	rep, err := m.ImportMarkdown(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Added, 1)
	for id, op := range map[string]engram.HistoryOp{"e03": engram.OpUpdate, "e05": engram.OpArchive, rep.Added[0]: engram.OpCreate} {
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		require.NotEmpty(t, h, id)
		last := h[len(h)-1]
		assert.Equal(t, op, last.Op, id)
		assert.Equal(t, "memory.md", last.Reason, id)
	}
}

package engram_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

var updateGolden = flag.Bool("update-history-golden", false, "write testdata/history_golden.json from this build")

// TestHistoryReadsAsRecorded runs a fixed life of memories of several
// kinds (creations, updates of plain and JSON fields, an archive and a
// restore, a merge, decay, facts merged and superseded, a deletion, a
// forget) and compares what History, Changes and an export with history
// give, byte for byte, with testdata/history_golden.json, which the build
// that wrote history as two whole copies of the row (526ec33) recorded:
// history written in the compact forms reads the same.
func TestHistoryReadsAsRecorded(t *testing.T) {
	m, clock := compactionMemory(t, func(c *engram.Config) {
		c.Zettelkasten.Enabled = false
		c.Compaction.MaxEntries = 100
	})
	ctx := context.Background()
	var ids []string
	keep := func(id string, err error) string {
		t.Helper()
		require.NoError(t, err)
		ids = append(ids, id)
		return id
	}
	step := func() { clock.Advance(time.Minute) }

	a := keep(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The deploy runs from CI only", Importance: 0.6, Tags: []string{"ops"}}))
	step()
	imp, content, tags, verified := 0.9, "The deploy runs from CI only, on weekdays", []string{"ops", "ci"}, true
	_, err := m.Semantic().Update(ctx, a, engram.SemanticPatch{Importance: &imp})
	require.NoError(t, err)
	step()
	_, err = m.Semantic().Update(ctx, a, engram.SemanticPatch{Content: &content, Tags: &tags})
	require.NoError(t, err)
	step()
	_, err = m.Semantic().Update(ctx, a, engram.SemanticPatch{Verified: &verified})
	require.NoError(t, err)

	step()
	b := keep(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The payments service retries declined cards three times", Importance: 0.5}))
	c := keep(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "The payments service retries declined cards three times.", Importance: 0.8}))
	step()
	_, err = m.Compact(ctx, engram.CompactSemantic)
	require.NoError(t, err)
	step()
	require.NoError(t, m.Restore(ctx, b))
	step()
	summary := "retries"
	_, err = m.Semantic().Update(ctx, b, engram.SemanticPatch{Summary: &summary})
	require.NoError(t, err)

	d := keep(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "Lunch is at noon", Importance: 0.55}))
	clock.Advance(24 * time.Hour)
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	clock.Advance(60 * 24 * time.Hour)
	_, err = m.Decay(ctx)
	require.NoError(t, err)
	step()
	desc := "a changed description"
	_, err = m.Semantic().Update(ctx, d, engram.SemanticPatch{Summary: &desc})
	require.NoError(t, err)

	f := m.Facts()
	lon, err := f.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "London", ValidFrom: day0})
	require.NoError(t, err)
	ids = append(ids, lon.Fact.ID)
	step()
	_, err = f.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "London"})
	require.NoError(t, err)
	step()
	par, err := f.Assert(ctx, engram.Fact{Subject: "Ada", Predicate: "lives in", Object: "Paris"})
	require.NoError(t, err)
	ids = append(ids, par.Fact.ID)

	p := keep(m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Description: "how to deploy", SuccessRate: 0.5, Tags: []string{"ops"}}))
	step()
	pd := "how to deploy, step by step"
	_, err = m.Procedural().Update(ctx, p, engram.ProcedurePatch{Description: &pd})
	require.NoError(t, err)
	_, err = m.Procedural().RecordOutcome(ctx, p, true)
	require.NoError(t, err)
	keep(m.Episodic().Log(ctx, engram.Episode{Content: "deployed", SessionID: "s1", Metadata: map[string]string{"k": "v"}}))

	step()
	require.NoError(t, m.Semantic().Delete(ctx, a))
	g := keep(m.Semantic().Store(ctx, engram.SemanticEntry{Content: "to be forgotten", Importance: 0.5}))
	step()
	require.NoError(t, m.Forget(ctx, g))
	_ = c

	// Before and After as strings: the bytes as they are.
	type entry struct {
		Seq               int64
		Op                engram.HistoryOp
		Type              engram.MemoryType
		ID, Before, After string
		Actor, Reason     string
		At                time.Time
	}
	entries := func(h []engram.HistoryEntry) []entry {
		var out []entry
		for _, e := range h {
			out = append(out, entry{e.Seq, e.Op, e.Type, e.ID, string(e.Before), string(e.After), e.Actor, e.Reason, e.At})
		}
		return out
	}
	type dump struct {
		History map[string][]entry
		Changes []entry
		Export  []string
	}
	got := dump{History: map[string][]entry{}}
	for i, id := range ids {
		h, err := m.History(ctx, id)
		require.NoError(t, err)
		got.History[string(rune('a'+i))] = entries(h)
	}
	changes, err := m.Changes(ctx, engram.ChangeQuery{Limit: 10_000})
	require.NoError(t, err)
	got.Changes = entries(changes)
	var file bytes.Buffer
	require.NoError(t, m.Export(ctx, &file, engram.ExportOptions{History: true}))
	for _, line := range bytes.Split(file.Bytes(), []byte("\n")) {
		if bytes.Contains(line, []byte(`"type":"history"`)) {
			got.Export = append(got.Export, string(line))
		}
	}
	out, err := json.MarshalIndent(got, "", " ")
	require.NoError(t, err)
	// IDs are new each run: name them by their first appearance.
	names := map[string]string{}
	out = regexp.MustCompile(`0[0-9A-HJKMNP-TV-Z]{25}`).ReplaceAllFunc(out, func(id []byte) []byte {
		if names[string(id)] == "" {
			names[string(id)] = "ID" + strings.Repeat("_", 24-len(names)/10) + string(rune('A'+len(names)%26)) + string(rune('a'+len(names)/26))
		}
		return []byte(names[string(id)])
	})
	golden := filepath.Join("testdata", "history_golden.json")
	if *updateGolden {
		require.NoError(t, os.WriteFile(golden, out, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	if onPostgres() {
		// PostgreSQL numbers entries from a sequence, which a rolled
		// back insert moves on too, and records the rows one UPDATE
		// changes in the order it visits them: the same entries, in
		// another order within one instant, with other sequence numbers.
		normal := func(b []byte) string {
			var d struct {
				History map[string][]entry
				Changes []entry
				Export  []string
			}
			require.NoError(t, json.Unmarshal(b, &d))
			order := func(es []entry) {
				for i := range es {
					es[i].Seq = 0
				}
				slices.SortStableFunc(es, func(a, b entry) int {
					return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Op, b.Op), cmp.Compare(a.Before, b.Before))
				})
			}
			for _, es := range d.History {
				order(es)
			}
			order(d.Changes)
			slices.Sort(d.Export)
			n, err := json.MarshalIndent(d, "", " ")
			require.NoError(t, err)
			return string(n)
		}
		require.Equal(t, normal(want), normal(out))
		return
	}
	require.Equal(t, string(want), string(out))
}

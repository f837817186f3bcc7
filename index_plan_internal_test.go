package engram

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// TestEveryIndexIsUsed names, for every index of the schema (but those
// SQLite makes for UNIQUE and PRIMARY KEY constraints), an operation that
// needs it, runs the operation on a memory holding a little of every
// kind, and checks that a statement the operation prepared is planned
// through the index: an index no statement uses costs every write its
// bytes for nothing. A new index fails here until it is listed with the
// operation that needs it.
func TestEveryIndexIsUsed(t *testing.T) {
	m, _ := openHashingTier2(t, 16)
	ctx := context.Background()
	f := m.Facts()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	id := func(s string, err error) string {
		t.Helper()
		must(err)
		return s
	}
	scoped := id(m.Semantic().Store(ctx, SemanticEntry{Content: "the kayak lives in the garage", Importance: 0.5, UserID: "ada", SessionID: "s1"}))
	other := id(m.Semantic().Store(ctx, SemanticEntry{Content: "the canoe lives at the lake", Importance: 0.4}))
	must(m.Links().Add(ctx, Link{SourceID: scoped, TargetID: other, Type: LinkSupports, Strength: 0.5}))
	id(m.Episodic().Log(ctx, Episode{Content: "paddled the kayak", TaskID: "t1", SessionID: "s1", UserID: "ada"}))
	id(m.Procedural().Store(ctx, Procedure{Name: "launch", Description: "carry the kayak", SuccessRate: 0.8, UserID: "ada", SessionID: "s1"}))
	id(m.Episodic().SaveSnapshot(ctx, SessionSnapshot{SessionID: "s1", Summary: "a kayak trip", StartedAt: m.now().Add(-time.Hour), EndedAt: m.now()}))
	_, err := f.Assert(ctx, Fact{Subject: "Ada", Predicate: "owns", Object: "the kayak"})
	must(err)
	must(f.Alias(ctx, "Ada", "Ada Lovelace"))
	docs := t.TempDir()
	must(os.WriteFile(filepath.Join(docs, "kayak.md"), []byte("# Kayak\n\nThe kayak lives in the garage.\n"), 0o600))
	_, err = m.Ingest(ctx, docs, IngestOptions{})
	must(err)
	settle(m)

	user := &Filter{UserID: "ada"}
	session := &Filter{SessionID: "s1"}
	ops := map[string]struct {
		op  string
		run func() error
	}{
		"semantic_by_rank": {"Semantic.List, by importance", func() error { _, err := m.Semantic().List(ctx, ListOptions{}); return err }},
		"semantic_by_hash": {"Semantic.holding (is a text stored already? for consolidation, extraction, memory.md)", func() error {
			return m.db.Write(ctx, "test", func(q store.Tx) error {
				_, err := m.semantic.holding(q, []string{"the canoe lives at the lake"}, "")
				return err
			})
		}},
		"semantic_by_user":    {"Semantic.List of a user", func() error { _, err := m.Semantic().List(ctx, ListOptions{Filter: user}); return err }},
		"semantic_by_session": {"Semantic.List of a session", func() error { _, err := m.Semantic().List(ctx, ListOptions{Filter: session}); return err }},
		"episodic_by_time":    {"Episodic.Recent", func() error { _, err := m.Episodic().Recent(ctx, 10); return err }},
		"episodic_by_task":    {"Episodic.ByTask", func() error { _, err := m.Episodic().ByTask(ctx, "t1"); return err }},
		"episodic_by_session": {"List of a session", func() error {
			_, err := m.List(ctx, MemoryQuery{Types: []MemoryType{TypeEpisodic}, Filter: session})
			return err
		}},
		"episodic_by_user": {"List of a user", func() error {
			_, err := m.List(ctx, MemoryQuery{Types: []MemoryType{TypeEpisodic}, Filter: user})
			return err
		}},
		"procedural_by_rate": {"Procedural.ListActive", func() error { _, err := m.Procedural().ListActive(ctx, 10); return err }},
		"procedural_by_user": {"List of a user", func() error {
			_, err := m.List(ctx, MemoryQuery{Types: []MemoryType{TypeProcedural}, Filter: user})
			return err
		}},
		"procedural_by_session": {"List of a session", func() error {
			_, err := m.List(ctx, MemoryQuery{Types: []MemoryType{TypeProcedural}, Filter: session})
			return err
		}},
		"snapshots_by_session": {"Episodic.LatestSnapshot", func() error { _, err := m.Episodic().LatestSnapshot(ctx, "s1"); return err }},
		"snapshots_by_time":    {"List of snapshots", func() error { _, err := m.List(ctx, MemoryQuery{Types: []MemoryType{TypeSnapshot}}); return err }},
		"links_by_target":      {"Links.For", func() error { _, err := m.Links().For(ctx, other); return err }},
		"archive_by_time":      {"PurgeArchive", func() error { _, err := m.PurgeArchive(ctx, time.Hour); return err }},
		"history_by_memory":    {"History", func() error { _, err := m.History(ctx, scoped); return err }},
		"history_by_time":      {"Changes", func() error { _, err := m.Changes(ctx, ChangeQuery{}); return err }},
		"facts_by_slot":        {"Facts.History of a slot", func() error { _, err := f.History(ctx, "Ada", "owns"); return err }},
		"facts_out": {"Facts.Neighbours out", func() error {
			_, err := f.Neighbours(ctx, FactQuery{Entity: "Ada", Direction: DirectionOut})
			return err
		}},
		"facts_in": {"Facts.Neighbours in", func() error {
			_, err := f.Neighbours(ctx, FactQuery{Entity: "the kayak", Direction: DirectionIn})
			return err
		}},
		"facts_by_time": {"List of facts", func() error { _, err := m.List(ctx, MemoryQuery{Types: []MemoryType{TypeFact}}); return err }},
		"facts_by_strength": {"the strongest facts (Context, memory.md)", func() error {
			return m.db.Read(ctx, "test", func(q store.Tx) error { _, err := f.strongest(q, 10, nil); return err })
		}},
		"fact_aliases_by_entity":    {"Facts.Alias of an entity's alias", func() error { return f.Alias(ctx, "Ada Lovelace", "Augusta") }},
		"document_chunks_by_source": {"ChunksOf", func() error { _, err := m.ChunksOf(ctx, "kayak.md"); return err }},
		"document_chunks_by_hash":   {"Ingest again", func() error { _, err := m.Ingest(ctx, docs, IngestOptions{}); return err }},
		"vector_pending_by_agent":   {"Stats", func() error { _, err := m.Stats(ctx); return err }},
	}
	// Indexes that triggers need: each trigger's statements, with its
	// row's values as parameters.
	triggers := map[string]string{
		"embedding_cache_by_row": "vec_semantic_ad",
	}

	var indexes []string
	must(m.db.Read(ctx, "test", func(q store.Tx) error {
		rows, err := q.Query(`SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
		if err != nil {
			return err
		}
		indexes, err = store.ScanAll(rows, func(r store.Scanner) (string, error) {
			var s string
			return s, r.Scan(&s)
		})
		return err
	}))
	// An index of a kind's table that no operation above names is the
	// listing's, by time: a kind added to the registry lists its
	// memories through it.
	for _, k := range kinds {
		must(m.db.Read(ctx, "test", func(q store.Tx) error {
			rows, err := q.Query(`SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = ?`, k.Table)
			if err != nil {
				return err
			}
			names, err := store.ScanAll(rows, func(r store.Scanner) (string, error) {
				var s string
				return s, r.Scan(&s)
			})
			for _, ix := range names {
				if _, named := ops[ix]; !named {
					ops[ix] = struct {
						op  string
						run func() error
					}{"List of " + k.Name, func() error { _, err := m.List(ctx, MemoryQuery{Types: []MemoryType{k.typ}}); return err }}
				}
			}
			return err
		}))
	}
	for _, ix := range indexes {
		if trigger, ok := triggers[ix]; ok {
			var body string
			must(m.db.Read(ctx, "test", func(q store.Tx) error {
				return q.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, []any{trigger}, &body)
			}))
			_, body, _ = strings.Cut(body, " BEGIN")
			body = regexp.MustCompile(`\b(old|new)\.\w+`).ReplaceAllString(strings.TrimSuffix(strings.TrimSpace(body), "END"), "?")
			found := ""
			for _, stmt := range strings.Split(body, ";") {
				if strings.TrimSpace(stmt) == "" {
					continue
				}
				plan, err := queryPlan(ctx, m.db.Write, stmt)
				must(err)
				if slices.ContainsFunc(plan, func(step string) bool { return strings.Contains(step, "INDEX "+ix+" ") }) {
					found = stmt
				}
			}
			if found == "" {
				t.Errorf("index %s: no statement of trigger %s is planned through it", ix, trigger)
			} else {
				t.Logf("%s: trigger %s: %s", ix, trigger, flat(found))
			}
			continue
		}
		o, ok := ops[ix]
		if !ok {
			t.Errorf("index %s: no operation is named that needs it", ix)
			continue
		}
		settle(m)
		forgetStatements(t, sqliteDB(t, m))
		if err := o.run(); err != nil {
			t.Fatalf("%s: %s: %v", ix, o.op, err)
		}
		settle(m)
		writes, reads := preparedStatements(t, sqliteDB(t, m))
		var found string
		for _, set := range []struct {
			stmts []string
			run   func(ctx context.Context, op string, fn func(q store.Tx) error) error
		}{{writes, m.db.Write}, {reads, m.db.Read}} {
			for _, stmt := range set.stmts {
				plan, err := queryPlan(ctx, set.run, stmt)
				if err != nil {
					continue // a statement over temp tables of another connection
				}
				if slices.ContainsFunc(plan, func(step string) bool {
					return strings.Contains(step, "INDEX "+ix+" ") || strings.HasSuffix(step, "INDEX "+ix)
				}) {
					found = stmt
				}
			}
		}
		if found == "" {
			t.Errorf("index %s: none of the %d statements of %s is planned through it", ix, len(writes)+len(reads), o.op)
			continue
		}
		t.Logf("%s: %s: %s", ix, o.op, flat(found))
	}
	for ix := range triggers {
		ops[ix] = ops[ix]
	}
	for ix := range ops {
		if !slices.Contains(indexes, ix) {
			t.Errorf("%s is listed but is no index of the schema", ix)
		}
	}
}

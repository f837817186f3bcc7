package engram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// StoreBatch links each entry to its most similar entries among those
// stored before it, whichever way the links are found (the stem index
// built in the batch's transaction, or FTS5 while it is built in the
// background): exactly the links, strengths and history of storing the
// entries one at a time.
func TestStoreBatchLinksAsStores(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	for _, c := range []struct {
		name     string
		pre, add int
	}{
		{"index built at once", 0, 600},
		{"index built across the batch", stemSyncMax - 100, 300},
		{"through FTS5", stemSyncMax + 100, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			texts := linkCorpus(9, c.pre+c.add)
			entries := make([]SemanticEntry, c.add)
			for i, text := range texts[c.pre:] {
				// Every fourth a near-copy of an earlier entry of the batch.
				if i%4 == 3 {
					text = entries[i/2].Content + " again"
				}
				entries[i] = SemanticEntry{ID: fmt.Sprintf("e-%04d", i), Content: text}
			}
			at := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
			var got [2][]string
			for way := range 2 {
				path := filepath.Join(t.TempDir(), "memory.db")
				clock := WithClock(func() time.Time { return at })
				cfg := DefaultConfig()
				cfg.Zettelkasten.Enabled = false
				pre, err := New(Tier1, WithPath(path), WithAgent("alice"), WithConfig(cfg), clock)
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				for i, text := range texts[:c.pre] {
					if _, err := pre.Semantic().Store(ctx, SemanticEntry{ID: fmt.Sprintf("p-%04d", i), Content: text}); err != nil {
						t.Fatal(err)
					}
				}
				if err := pre.Close(); err != nil {
					t.Fatal(err)
				}
				m, err := New(Tier1, WithPath(path), WithAgent("alice"), clock)
				if err != nil {
					t.Fatal(err)
				}
				if way == 0 {
					for _, e := range entries {
						if _, err := m.Semantic().Store(ctx, e); err != nil {
							t.Fatal(err)
						}
					}
				} else if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
					t.Fatal(err)
				}
				// Links that wait for the stem index are made when its
				// background build is installed, or at Close at the latest.
				if err := m.Close(); err != nil {
					t.Fatal(err)
				}
				if m, err = New(Tier1, WithPath(path), WithAgent("alice"), WithReadOnly()); err != nil {
					t.Fatal(err)
				}
				got[way] = linksAndHistory(t, m)
				if err := m.Close(); err != nil {
					t.Fatal(err)
				}
			}
			links := 0
			for _, l := range got[0] {
				if l[0] == 'l' {
					links++
				}
			}
			if links < c.add/8 {
				t.Fatalf("one store after the other made %d links: the test needs more", links)
			}
			if i := firstDiff(got[0], got[1]); i >= 0 {
				t.Errorf("StoreBatch wrote %d links and history rows, one Store after the other %d; the first that differ, at %d:\n%s\n%s",
					len(got[1]), len(got[0]), i, rowAt(got[1], i), rowAt(got[0], i))
			}
		})
	}
}

// firstDiff returns the first index at which a and b differ, -1 when
// they are equal.
func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

// rowAt returns s[i], or "(none)" past its end.
func rowAt(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// linksAndHistory returns m's links, with their strengths, and its
// history of semantic entries, in the order they were written.
func linksAndHistory(t *testing.T, m *Memory) []string {
	t.Helper()
	var out []string
	err := m.db.Read(context.Background(), "test", func(q store.Tx) error {
		rows, err := q.Query(`SELECT 'l ' || source_id || ' ' || target_id || ' ' || link_type || ' ' || printf('%!.20g', strength) || ' ' || created_at
			FROM zettel_links WHERE agent_id = ? ORDER BY source_id, strength DESC, target_id`, m.agent)
		if err != nil {
			return err
		}
		links, err := store.ScanAll(rows, func(r store.Scanner) (string, error) {
			var s string
			return s, r.Scan(&s)
		})
		if err != nil {
			return err
		}
		rows, err = q.Query(`SELECT 'h ' || id || ' ' || op || ' ' || coalesce(after, '') || ' ' || at FROM history
			WHERE agent_id = ? AND memory_type = 'semantic' ORDER BY pk`, m.agent)
		if err != nil {
			return err
		}
		hist, err := store.ScanAll(rows, func(r store.Scanner) (string, error) {
			var s string
			return s, r.Scan(&s)
		})
		if err != nil {
			return err
		}
		rows, err = q.Query(`SELECT 'r ' || pk || ' ' || id || ' ' || hex(terms) || ' ' || ntok || ' ' || hex(content_hash) || ' ' || resonance
			FROM semantic_memory WHERE agent_id = ? ORDER BY pk`, m.agent)
		if err != nil {
			return err
		}
		derived, err := store.ScanAll(rows, func(r store.Scanner) (string, error) {
			var s string
			return s, r.Scan(&s)
		})
		out = append(append(links, hist...), derived...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A batch holding an ID the agent holds, or one ID twice, is refused with
// ErrExists naming the first such ID, and writes nothing.
func TestStoreBatchRefusesTakenIDs(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	s := m.Semantic()
	if _, err := s.Store(ctx, SemanticEntry{ID: "taken", Content: "stored before"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"a", "taken", "b", "b"}, `"taken"`},
		{[]string{"a", "b", "b", "taken"}, `"b"`},
	} {
		entries := make([]SemanticEntry, len(c.ids))
		for i, id := range c.ids {
			entries[i] = SemanticEntry{ID: id, Content: "entry " + id}
		}
		_, err := s.StoreBatch(ctx, entries)
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("StoreBatch(%v) returned %v, want ErrExists naming %s", c.ids, err, c.want)
		}
		list, err := s.List(ctx, ListOptions{})
		if err != nil || len(list) != 1 {
			t.Errorf("%d entries after the refused batch (%v), want 1", len(list), err)
		}
	}
}

// countFTSLinks counts textSimilar's searches through FTS5 until the test
// ends.
func countFTSLinks(t *testing.T) *int {
	n := new(int)
	textSimilarHook = func() { *n++ }
	t.Cleanup(func() { textSimilarHook = nil })
	return n
}

// linkedTo returns the targets of the entry id's links.
func linkedTo(t *testing.T, m *Memory, id string) []string {
	t.Helper()
	ls, err := m.Links().For(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range ls {
		if l.SourceID == id {
			out = append(out, l.TargetID)
		}
	}
	slices.Sort(out)
	return out
}

// idOf returns the ID of m's semantic entry holding content.
func idOf(t *testing.T, m *Memory, content string) string {
	t.Helper()
	var id string
	err := m.db.Read(context.Background(), "test", func(q store.Tx) error {
		return q.QueryRow(`SELECT id FROM semantic_memory WHERE agent_id = ? AND content = ?`, []any{m.agent, content}, &id)
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// While a large agent's stem index is built in the background, Store and
// StoreBatch look for no similar entry through FTS5 (milliseconds an
// entry in a large memory): the entries are linked when the index is
// installed, each to the entries stored before it, as they would have
// been when stored.
func TestStoreDuringStemBuildLinksWhenReady(t *testing.T) {
	skipWithoutFTS(t, "the stem index is built at once: no store waits for a background build")
	release := holdBuilds(t)
	fts := countFTSLinks(t)
	m, _, texts := openLarge(t)
	ctx := context.Background()
	s := m.Semantic()
	first, err := s.Store(ctx, SemanticEntry{Content: texts[5] + " again"})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := s.StoreBatch(ctx, []SemanticEntry{{Content: texts[5] + " once more"}, {Content: texts[9] + " again"}})
	if err != nil {
		t.Fatal(err)
	}
	if *fts != 0 {
		t.Errorf("the stores searched FTS5 %d times while the index was built, want none", *fts)
	}
	if m.stems.bg == nil {
		t.Fatal("no background build under way")
	}
	release()
	m.stems.ctl.wg.Wait()
	if !m.stems.built || len(m.stems.deferred) != 0 {
		t.Fatalf("built %v, %d entries waiting for links after the build: want it installed and none waiting", m.stems.built, len(m.stems.deferred))
	}
	old5, old9 := idOf(t, m, texts[5]), idOf(t, m, texts[9])
	want := map[string][]string{
		first:    {old5},
		batch[0]: {first, old5},
		batch[1]: {old9},
	}
	for id, targets := range want {
		got := linkedTo(t, m, id)
		for _, target := range targets {
			if !slices.Contains(got, target) {
				t.Errorf("entry %s is linked to %v, want %s among them", id, got, target)
			}
		}
		if slices.Contains(got, batch[0]) && id == first {
			t.Errorf("entry %s is linked to %s, stored after it", id, batch[0])
		}
	}
}

// Close links the entries still waiting for the stem index, whose build
// it stops.
func TestCloseLinksWaitingEntries(t *testing.T) {
	skipWithoutFTS(t, "the stem index is built at once: no entry waits for its links")
	holdBuilds(t) // never released: only Close ends the build
	m, path, texts := openLarge(t)
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, SemanticEntry{Content: texts[5] + " again"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.stems.deferred) != 1 {
		t.Fatalf("%d entries wait for their links, want 1", len(m.stems.deferred))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err = New(Tier1, WithPath(path), WithAgent("alice"), WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got, old := linkedTo(t, m, id), idOf(t, m, texts[5]); !slices.Contains(got, old) {
		t.Errorf("after Close, entry %s is linked to %v, want %s among them", id, got, old)
	}
}

// An entry whose links wait for the index is written down with it: when
// the Memory that stored it ends without linking it (a process killed
// before its index was ready and before Close: emulated here by dropping
// its in-memory list before Close), the next Memory to open the agent
// links it, and the note goes once it is linked.
func TestWaitingLinksOutliveTheirMemory(t *testing.T) {
	skipWithoutFTS(t, "the stem index is built at once: no entry waits for its links")
	holdBuilds(t) // never released: only Close ends the build
	m, path, texts := openLarge(t)
	ctx := context.Background()
	id, err := m.Semantic().Store(ctx, SemanticEntry{Content: texts[5] + " again"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.stems.deferred) != 1 {
		t.Fatalf("%d entries wait for their links, want 1", len(m.stems.deferred))
	}
	m.stems.deferred = nil // what a killed process's memory holds: nothing
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	waiting := func(m *Memory) int {
		t.Helper()
		var n int
		err := m.db.Read(ctx, "test", func(q store.Tx) error {
			return q.QueryRow(`SELECT count(*) FROM meta WHERE key GLOB 'links.deferred.*'`, nil, &n)
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	m, err = New(Tier1, WithPath(path), WithAgent("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.stems.deferred) != 1 || waiting(m) != 1 {
		t.Fatalf("the next Memory finds %d entries waiting, %d noted, want 1", len(m.stems.deferred), waiting(m))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err = New(Tier1, WithPath(path), WithAgent("alice"), WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got, old := linkedTo(t, m, id), idOf(t, m, texts[5]); !slices.Contains(got, old) {
		t.Errorf("after the next Memory's Close, entry %s is linked to %v, want %s among them", id, got, old)
	}
	if n := waiting(m); n != 0 {
		t.Errorf("%d entries still noted as waiting once linked", n)
	}
}

// The term vector a store makes of its content while it stems it for
// search is auto-linking's: what termVector makes of the content alone,
// stopwords left out, whatever the tags.
func TestSemanticVectorsAreTermVectors(t *testing.T) {
	for _, c := range []struct{ content, tags string }{
		{"The deploy pipelines deployed; the deploying of it", `["deploy","ops"]`},
		{"Ünïcödé café naïve résumé — and the CAFÉ again", ""},
		{"the of and to a in is it", `["the"]`},
		{"kubernetes k8s 10.2.3 x_y foo-bar", `[]`},
	} {
		wantTerms, wantN := semanticTerms(c.content, c.tags)
		tags, err := store.DecodeTags(c.tags)
		if err != nil {
			t.Fatal(err)
		}
		r := semanticRow{rec: store.SemanticRow{Content: c.content, Tags: tags}}
		r.derive()
		terms, n := r.rec.Terms()
		if string(terms) != string(wantTerms) || n != wantN {
			t.Errorf("derive(%q, %q) made another search vector than semanticTerms", c.content, c.tags)
		}
		if want := termVector(c.content); !maps.Equal(r.stems, want) {
			t.Errorf("derive(%q, %q) = %v, want termVector's %v", c.content, c.tags, r.stems, want)
		}
	}
}

// An import inserts its memories many to a statement; a record that
// conflicts in the middle of them takes that statement back, with what
// the indexes beside the database saw of it, and the records are then put
// one by one: the policy applies to the one at fault, and the indexes
// hold exactly the rows written.
func TestImportConflictInABatch(t *testing.T) {
	ctx := context.Background()
	src, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ids := []string{"n1", "n2", "taken", "n3", "n4"}
	entries := make([]SemanticEntry, len(ids))
	for i, id := range ids {
		entries[i] = SemanticEntry{ID: id, Content: "imported entry about " + id + " and the pipeline"}
	}
	if _, err := src.Semantic().StoreBatch(ctx, entries); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := src.Export(ctx, &file, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy   Conflict
		content  string
		replaced int
	}{{ConflictSkip, "held before about taken", 0}, {ConflictReplace, "imported entry about taken and the pipeline", 1}} {
		t.Run(c.policy.String(), func(t *testing.T) {
			m, err := New(Tier1, WithPath(filepath.Join(t.TempDir(), "memory.db")))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for _, e := range []SemanticEntry{{ID: "taken", Content: "held before about taken"}, {Content: "the pipeline held before"}} {
				if _, err := m.Semantic().Store(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := m.Search(ctx, SearchOptions{Query: "pipeline"}); err != nil { // the text index follows from here
				t.Fatal(err)
			}
			rep, err := m.Import(ctx, bytes.NewReader(file.Bytes()), ImportOptions{Conflict: c.policy})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Added["semantic"] != 4 || rep.Replaced["semantic"] != c.replaced {
				t.Errorf("the import added %v and replaced %v, want 4 semantic entries added and %d replaced", rep.Added, rep.Replaced, c.replaced)
			}
			checkStems(t, m)
			if err := m.CheckIntegrity(ctx); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				want := "imported entry about " + id + " and the pipeline"
				if id == "taken" {
					want = c.content
				}
				res, err := m.Search(ctx, SearchOptions{Query: want, Limit: 1})
				if err != nil || len(res) != 1 || res[0].ID != id {
					t.Errorf("a search for %q found %v (%v), want %s", want, res, err, id)
				}
				e, err := m.Semantic().Get(ctx, id)
				if err != nil || e.Content != want {
					t.Errorf("entry %s holds %q (%v), want %q", id, e.Content, err, want)
				}
			}
			var n int
			if err := m.db.Read(ctx, "test", func(q store.Tx) error {
				return q.QueryRow(`SELECT count(*) FROM semantic_memory WHERE agent_id = ?`, []any{m.agent}, &n)
			}); err != nil || n != 6 {
				t.Errorf("%d semantic entries (%v), want 6", n, err)
			}
		})
	}
}

// LogBatch, which inserts its episodes many to a statement, writes what
// Log writes one episode after the other: the same rows, history and
// full-text index; and it refuses a batch holding a taken ID, writing
// nothing.
func TestLogBatchAsLogs(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	texts := linkCorpus(4, 150)
	eps := make([]Episode, len(texts))
	for i, text := range texts {
		eps[i] = Episode{ID: fmt.Sprintf("ep-%03d", i), Content: text, SessionID: fmt.Sprintf("s%d", i/40), TaskID: "t1",
			Metadata: map[string]string{"n": fmt.Sprint(i)}}
	}
	var exports [2]string
	var found [2][]string
	for way := range 2 {
		m, err := New(Tier1, WithPath(filepath.Join(t.TempDir(), "memory.db")), WithClock(func() time.Time { return at }))
		if err != nil {
			t.Fatal(err)
		}
		if way == 0 {
			for _, ep := range eps {
				if _, err := m.Episodic().Log(ctx, ep); err != nil {
					t.Fatal(err)
				}
			}
		} else if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Export(ctx, &b, ExportOptions{History: true}); err != nil {
			t.Fatal(err)
		}
		exports[way] = b.String()
		err = m.db.Read(ctx, "test", func(q store.Tx) error { // the derived columns export leaves out
			var derived string
			err := q.QueryRow(`SELECT group_concat(id || ':' || hex(terms) || ':' || ntok || ':' || resonance, ' ') FROM
				(SELECT * FROM episodic_log ORDER BY pk)`, nil, &derived)
			exports[way] += derived
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts[:20] {
			res, err := m.Episodic().Search(ctx, SearchOptions{Query: text, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				found[way] = append(found[way], r.ID)
			}
		}
		if way == 1 {
			_, err := m.Episodic().LogBatch(ctx, []Episode{{ID: "new", Content: "a"}, {ID: "ep-007", Content: "b"}})
			if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), `"ep-007"`) {
				t.Errorf("a batch with a taken ID returned %v, want ErrExists naming it", err)
			}
			if _, err := m.Episodic().Get(ctx, "new"); !errors.Is(err, ErrNotFound) {
				t.Errorf("the refused batch wrote its first episode (%v)", err)
			}
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if exports[0] != exports[1] {
		a, b := strings.Split(exports[0], "\n"), strings.Split(exports[1], "\n")
		i := firstDiff(a, b)
		t.Errorf("LogBatch's memory exports otherwise than Log's, from line %d:\n%s\n%s", i, rowAt(b, i), rowAt(a, i))
	}
	if !slices.Equal(found[0], found[1]) {
		t.Errorf("searches after LogBatch found %v, after Log %v", found[1], found[0])
	}
}

// A large batch, prepared on several goroutines, names its first invalid
// entry, writes nothing, and gives the entries without an ID IDs in the
// batch's order.
func TestStoreBatchPreparesInOrder(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	entries := make([]SemanticEntry, 4*prepareParallelMin)
	for i := range entries {
		entries[i] = SemanticEntry{Content: fmt.Sprintf("entry number %d", i)}
	}
	bad := slices.Clone(entries)
	bad[len(bad)-10].Importance = 2
	bad[prepareParallelMin+3].Content = ""
	if _, err := m.Semantic().StoreBatch(ctx, bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("entries[%d]", prepareParallelMin+3)) {
		t.Errorf("StoreBatch returned %v, want ErrInvalid naming entries[%d]", err, prepareParallelMin+3)
	}
	if list, err := m.Semantic().List(ctx, ListOptions{Limit: 1}); err != nil || len(list) != 0 {
		t.Fatalf("the refused batch left %d entries (%v)", len(list), err)
	}
	ids, err := m.Semantic().StoreBatch(ctx, entries)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(ids) {
		t.Error("the batch's new IDs are not in its order")
	}
	list, err := m.Semantic().List(ctx, ListOptions{Limit: 10})
	if err != nil || len(list) != 10 {
		t.Fatalf("listed %d entries (%v)", len(list), err)
	}
}

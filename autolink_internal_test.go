package engram

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// linkCorpus returns n texts, a third of them near-duplicates of earlier
// ones (copied, with a word added, dropped, replaced or repeated, or with
// another form of a word, which stems the same), from a fixed seed: words
// from a Zipf-distributed vocabulary, with stopwords between them.
func linkCorpus(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 15))
	syl := strings.Fields("ka lo mi ne ru sa to vi den par sol tra bel cor fin gal mar pen quo zet")
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + rng.IntN(2) {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		vocab[i] = b.String()
	}
	suffixes := []string{"", "s", "ing", "ed"}
	z := rand.NewZipf(rng, 1.1, 10, uint64(len(vocab)-1))
	stop := strings.Fields("the of and to a in is it that for on with as")
	word := func() string { return vocab[z.Uint64()] + suffixes[rng.IntN(len(suffixes))] }
	var docs [][]string
	for len(docs) < n {
		if len(docs) > 0 && rng.IntN(3) == 0 {
			w := slices.Clone(docs[rng.IntN(len(docs))])
			i := rng.IntN(len(w))
			switch rng.IntN(6) {
			case 1:
				w = slices.Insert(w, i, word())
			case 2:
				if len(w) > 1 {
					w = slices.Delete(w, i, i+1)
				}
			case 3:
				w[i] = word()
			case 4:
				w = append(w, w[i])
			case 5:
				w[i] = strings.TrimRight(w[i], "sing") + suffixes[rng.IntN(len(suffixes))]
			}
			docs = append(docs, w)
			continue
		}
		w := make([]string, 3+rng.IntN(14))
		for j := range w {
			if rng.IntN(3) == 0 {
				w[j] = stop[rng.IntN(len(stop))]
			} else {
				w[j] = word()
			}
		}
		docs = append(docs, w)
	}
	out := make([]string, n)
	for i, w := range docs {
		out[i] = strings.Join(w, " ")
	}
	return out
}

// storeTexts stores texts as the agent's semantic entries, without
// linking them.
func storeTexts(t *testing.T, path, agent string, texts []string) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := New(Tier1, WithPath(path), WithAgent(agent), WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	entries := make([]SemanticEntry, len(texts))
	for i, c := range texts {
		entries[i] = SemanticEntry{Content: c}
	}
	if _, err := m.Semantic().StoreBatch(context.Background(), entries); err != nil {
		t.Fatal(err)
	}
}

// bruteSimilar compares the entry pk with every other entry of the index.
func bruteSimilar(x *stemIndex, pk int64, threshold float64, n int) []similarDoc {
	d := x.docs[pk]
	var out []similarDoc
	for c, cd := range x.docs {
		if c == pk {
			continue
		}
		if sim := cosineSorted(d, cd); sim >= threshold && sim > 0 {
			out = append(out, similarDoc{c, cd.id, sim})
		}
	}
	return bestSimilar(out, n)
}

// heuristicSimilar is how the stem index found candidates before it
// found every entry: the newest 4n entries holding both of the two rarest
// terms the entry shares with any other (the rarest alone, if it shares
// one).
func heuristicSimilar(x *stemIndex, pk int64, threshold float64, n int) []similarDoc {
	d := x.docs[pk]
	var rare []uint32
	for _, tw := range d.vec {
		if len(x.postings[tw.term]) >= 2 {
			rare = append(rare, tw.term)
		}
	}
	if len(rare) == 0 {
		return nil
	}
	slices.SortFunc(rare, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(len(x.postings[a]), len(x.postings[b])), cmp.Compare(a, b))
	})
	first := x.postings[rare[0]]
	var second []posting
	if len(rare) > 1 {
		second = x.postings[rare[1]]
	}
	var out []similarDoc
	seen := 0
	for i := len(first) - 1; i >= 0 && seen < 4*n; i-- {
		c := first[i].pk
		if c == pk {
			continue
		}
		if second != nil {
			if _, ok := postingAt(second, c); !ok {
				continue
			}
		}
		seen++
		cd := x.docs[c]
		if sim := cosineSorted(d, cd); sim >= threshold && sim > 0 {
			out = append(out, similarDoc{c, cd.id, sim})
		}
	}
	slices.SortFunc(out, func(a, b similarDoc) int { // then by ID, as it did
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.id, b.id))
	})
	return out[:min(len(out), n)]
}

// The stem index and FTS5 find exactly the entries a comparison with
// every entry finds, with the same similarities to the last bit, in a file
// where another agent holds the same texts; the heuristic the index used
// before finds no link they miss.
func TestLinkSearchesAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	texts := linkCorpus(1, 600)
	storeTexts(t, path, "alice", texts)
	storeTexts(t, path, "bob", linkCorpus(2, 200))
	storeTexts(t, path, "bob", texts[:200])
	m, err := New(Tier1, WithPath(path), WithAgent("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	err = m.db.Write(ctx, "test", func(q store.Tx) error {
		x := &m.stems
		if err := x.sync(q); err != nil {
			return err
		}
		pks := slices.Sorted(maps.Keys(x.docs))
		contents := map[int64]string{}
		rows, err := q.Query(`SELECT pk, content FROM semantic_memory WHERE agent_id = 'alice'`)
		if err != nil {
			return err
		}
		if _, err := store.ScanAll(rows, func(r store.Scanner) (struct{}, error) {
			var pk int64
			var c string
			err := r.Scan(&pk, &c)
			contents[pk] = c
			return struct{}{}, err
		}); err != nil {
			return err
		}
		for _, c := range []struct {
			threshold  float64
			n, entries int
		}{{0.85, 10, len(pks)}, {0.85, 2, 200}, {0.6, 10, 200}, {0, 5, 20}} {
			links, heuristic, missed := 0, 0, 0
			for _, pk := range pks[:c.entries] {
				want := bruteSimilar(x, pk, c.threshold, c.n)
				if got := x.similar(pk, c.threshold, c.n); !slices.Equal(got, want) {
					t.Errorf("threshold %v, n %d: the index found %v for %q, want %v", c.threshold, c.n, got, contents[pk], want)
				}
				got, err := m.links.textSimilar(q, pk, contents[pk], c.threshold, c.n)
				if err != nil {
					return err
				}
				if !slices.Equal(got, want) {
					t.Errorf("threshold %v, n %d: FTS5 found %v for %q, want %v", c.threshold, c.n, got, contents[pk], want)
				}
				old := heuristicSimilar(x, pk, c.threshold, c.n)
				for _, o := range old {
					if !slices.Contains(want, o) && (len(want) < c.n || want[len(want)-1].sim < o.sim) {
						t.Errorf("threshold %v, n %d: the heuristic found %v for %q, missing from %v", c.threshold, c.n, o, contents[pk], want)
					}
				}
				links, heuristic = links+len(want), heuristic+len(old)
				for i, w := range want { // among equals, either may be linked
					if i >= len(old) || old[i].sim < w.sim {
						missed++
					}
				}
			}
			t.Logf("threshold %v, at most %d links, %d entries: %d links; the heuristic found %d, and fell short of the best in %d places",
				c.threshold, c.n, c.entries, links, heuristic, missed)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkStems checks that the stem index holds exactly the agent's
// semantic entries, each with its content's term vector.
func checkStems(t *testing.T, m *Memory) {
	t.Helper()
	err := m.db.Write(context.Background(), "test", func(q store.Tx) error {
		x := &m.stems
		rows, err := q.Query(`SELECT pk, id, content FROM semantic_memory WHERE agent_id = ?`, m.agent)
		if err != nil {
			return err
		}
		want := stemData{terms: map[string]uint32{}, docs: map[int64]stemDoc{}}
		_, err = store.ScanAll(rows, func(r store.Scanner) (struct{}, error) {
			var pk int64
			var id, content string
			err := r.Scan(&pk, &id, &content)
			want.put(pk, id, termVector(content))
			return struct{}{}, err
		})
		if err != nil {
			return err
		}
		if len(x.docs) != len(want.docs) {
			t.Errorf("the index holds %d entries, the table %d", len(x.docs), len(want.docs))
		}
		stems := func(d *stemData, pk int64) map[string]uint32 {
			out := map[string]uint32{}
			for st, term := range d.terms {
				for _, tw := range d.docs[pk].vec {
					if tw.term == term {
						out[st] = tw.weight
					}
				}
			}
			return out
		}
		for pk, d := range want.docs {
			got, ok := x.docs[pk]
			if !ok || got.id != d.id || !maps.Equal(stems(&x.stemData, pk), stems(&want, pk)) {
				t.Errorf("the index holds %+v for row %d, want %+v", got, pk, d)
			}
			for _, tw := range got.vec {
				if i, found := postingAt(x.postings[tw.term], pk); !found || x.postings[tw.term][i].sig != got.sig {
					t.Errorf("row %d is missing from the postings of term %d, or has another signature", pk, tw.term)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// holdBuilds makes background builds wait, once they took their snapshot,
// until the returned function is called (or their context ends).
func holdBuilds(t *testing.T) (release func()) {
	hold := make(chan struct{})
	stemSnapshotHook = func(ctx context.Context) {
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
	released := false
	release = func() {
		if !released {
			released = true
			close(hold)
		}
	}
	t.Cleanup(func() {
		release()
		stemSnapshotHook = nil
	})
	return release
}

// openLarge opens the agent "alice" of a new file holding more entries
// than the stem index is built for at once.
func openLarge(t *testing.T) (*Memory, string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	texts := linkCorpus(3, stemSyncMax+100)
	storeTexts(t, path, "alice", texts)
	m, err := New(Tier1, WithPath(path), WithAgent("alice"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, path, texts
}

// A large agent's first store links through FTS5 and starts a background
// build; the changes committed meanwhile (stores, a delete, a change of
// content, not a batch that rolled back) reach the index when it is
// installed, and the index then finds what FTS5 finds.
func TestStemIndexBuildsInBackground(t *testing.T) {
	skipWithoutFTS(t, "the stem index is built at once, never in the background")
	release := holdBuilds(t)
	m, _, texts := openLarge(t)
	ctx := context.Background()
	s := m.Semantic()
	first, err := s.Store(ctx, SemanticEntry{Content: texts[5] + " again"})
	if err != nil {
		t.Fatal(err)
	}
	if m.stems.built || m.stems.bg == nil {
		t.Fatalf("built %v, background build %v: want a background build", m.stems.built, m.stems.bg)
	}
	if _, err := s.Store(ctx, SemanticEntry{Content: texts[7] + " once more"}); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, list[1].ID, SemanticPatch{Content: new(texts[11] + " changed")}); err != nil {
		t.Fatal(err)
	}
	_, err = s.StoreBatch(ctx, []SemanticEntry{{Content: "a batch that fails"}, {ID: first, Content: "taken"}})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("the batch returned %v, want ErrExists", err)
	}
	err = m.db.Write(ctx, "test", func(q store.Tx) error {
		if err := q.Changes(); err != nil {
			return err
		}
		if n := len(m.stems.recorded); n != 3 { // a store, a delete, a change of content
			t.Errorf("%d changes recorded, want 3", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	release()
	m.stems.ctl.wg.Wait()
	if !m.stems.built || m.stems.bg != nil {
		t.Fatalf("built %v, background build %v after the build: want it installed", m.stems.built, m.stems.bg)
	}
	checkStems(t, m)
	id, err := s.Store(ctx, SemanticEntry{Content: texts[5] + " and again"})
	if err != nil {
		t.Fatal(err)
	}
	err = m.db.Write(ctx, "test", func(q store.Tx) error {
		var pk int64
		if err := q.QueryRow(`SELECT pk FROM semantic_memory WHERE id = ?`, []any{id}, &pk); err != nil {
			return err
		}
		ok, err := m.stems.ready(q)
		if err != nil || !ok {
			return fmt.Errorf("the index is not ready (%v)", err)
		}
		zc := m.cfg.Zettelkasten
		fromIndex := m.stems.similar(pk, zc.LinkingThreshold, zc.MaxLinksPerEntry)
		fromFTS, err := m.links.textSimilar(q, pk, texts[5]+" and again", zc.LinkingThreshold, zc.MaxLinksPerEntry)
		if err != nil {
			return err
		}
		if len(fromIndex) < 2 || !slices.Equal(fromIndex, fromFTS) {
			t.Errorf("the index found %v, FTS5 %v; want the same, with the first store among them", fromIndex, fromFTS)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A write through another handle while the build runs makes its install
// fail; the next store starts another, which sees that write.
func TestStemIndexBuildSeesOtherHandles(t *testing.T) {
	skipWithoutFTS(t, "the stem index is built at once, never in the background")
	release := holdBuilds(t)
	m, path, texts := openLarge(t)
	ctx := context.Background()
	if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: "the first store starts a build"}); err != nil {
		t.Fatal(err)
	}
	other, err := New(Tier1, WithPath(path), WithAgent("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Semantic().Store(ctx, SemanticEntry{Content: texts[3] + " from elsewhere"}); err != nil {
		t.Fatal(err)
	}
	release()
	m.stems.ctl.wg.Wait()
	if m.stems.built || m.stems.bg != nil {
		t.Fatalf("built %v, background build %v: want the build dropped", m.stems.built, m.stems.bg)
	}
	stemSnapshotHook = nil
	if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: "the next store starts another"}); err != nil {
		t.Fatal(err)
	}
	m.stems.ctl.wg.Wait()
	if !m.stems.built {
		t.Fatal("the second build was not installed")
	}
	checkStems(t, m)
}

// Close stops a background build and waits for it.
func TestCloseStopsStemBuild(t *testing.T) {
	holdBuilds(t) // never released: only Close ends the build
	m, _, _ := openLarge(t)
	if _, err := m.Semantic().Store(context.Background(), SemanticEntry{Content: "the first store starts a build"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close still waits for the build after 5s")
	}
}

package engram

import (
	"cmp"
	"context"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	var second []int64
	if len(rare) > 1 {
		second = x.postings[rare[1]]
	}
	var out []similarDoc
	seen := 0
	for i := len(first) - 1; i >= 0 && seen < 4*n; i-- {
		c := first[i]
		if c == pk {
			continue
		}
		if second != nil {
			if _, ok := slices.BinarySearch(second, c); !ok {
				continue
			}
		}
		seen++
		cd := x.docs[c]
		if sim := cosineSorted(d, cd); sim >= threshold && sim > 0 {
			out = append(out, similarDoc{c, cd.id, sim})
		}
	}
	return bestSimilar(out, n)
}

// The stem index finds exactly the entries a comparison with every entry
// finds, in a file where another agent holds the same texts; the
// heuristic it used before finds no link it misses.
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
	err = m.db.write(ctx, "test", func(q *dbtx) error {
		x := &m.stems
		if err := x.sync(q); err != nil {
			return err
		}
		pks := slices.Sorted(maps.Keys(x.docs))
		contents := map[int64]string{}
		rows, err := q.query(`SELECT pk, content FROM semantic_memory WHERE agent_id = 'alice'`)
		if err != nil {
			return err
		}
		if _, err := scanAll(rows, func(r scanner) (struct{}, error) {
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
				old := heuristicSimilar(x, pk, c.threshold, c.n)
				for _, o := range old {
					if !slices.Contains(want, o) && (len(want) < c.n || want[len(want)-1].sim < o.sim) {
						t.Errorf("threshold %v, n %d: the heuristic found %v for %q, missing from %v", c.threshold, c.n, o, contents[pk], want)
					}
				}
				links, heuristic = links+len(want), heuristic+len(old)
				for _, w := range want {
					if !slices.Contains(old, w) {
						missed++
					}
				}
			}
			t.Logf("threshold %v, at most %d links, %d entries: %d links, the heuristic found %d and missed %d of them",
				c.threshold, c.n, c.entries, links, heuristic, missed)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

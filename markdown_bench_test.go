package engram_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-go/engram"
)

// benchCorpus writes a generated tree of markdown (fixed seed): 150 files
// of headed sections of prose, lists and code, about 1.4 MB in all.
func benchCorpus(b *testing.B) (string, int64) {
	b.Helper()
	root := filepath.Join(b.TempDir(), "corpus")
	r := rand.New(rand.NewPCG(1, 2))
	// A vocabulary of 5,000 made-up words, drawn by Zipf's law as the
	// words of prose are.
	words := make([]string, 5000)
	for i := range words {
		w := make([]byte, 3+r.IntN(7))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	sentence := func() string {
		n := 8 + r.IntN(12)
		var s []string
		for range n {
			s = append(s, words[zipf.Uint64()])
		}
		return strings.ToUpper(s[0][:1]) + strings.Join(s, " ")[1:] + "."
	}
	var total int64
	for f := range 150 {
		var b2 strings.Builder
		fmt.Fprintf(&b2, "---\ntitle: Doc %d\ntags: [bench, t%d]\n---\n# Document %d\n\n", f, f%7, f)
		for s := range 3 + r.IntN(6) {
			fmt.Fprintf(&b2, "## Section %d.%d\n\n", f, s)
			for range 2 + r.IntN(5) {
				for range 3 + r.IntN(4) {
					b2.WriteString(sentence() + " ")
				}
				b2.WriteString("\n\n")
			}
			if s%2 == 0 {
				b2.WriteString("```sh\nmake " + words[r.IntN(len(words))] + "\n```\n\n- " + sentence() + "\n- " + sentence() + "\n\n")
			}
		}
		p := filepath.Join(root, fmt.Sprintf("d%02d", f%10), fmt.Sprintf("doc-%03d.md", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b2.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(b2.Len())
	}
	return root, total
}

// BenchmarkIngest measures ingestion at Tier 1, in MB/s of markdown: a
// tree into an empty memory (first), and the same tree again, unchanged
// (again), for a generated tree (fixed seed) and for the Go toolchain's
// markdown (read where it lies).
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	gen, genSize := benchCorpus(b)
	gr := goroot(b)
	var grSize int64
	filepath.WalkDir(gr, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if fi, err := d.Info(); err == nil {
				grSize += fi.Size()
			}
		}
		return nil
	})
	for _, c := range []struct {
		name string
		root string
		size int64
	}{{"generated", gen, genSize}, {"goroot", gr, grSize}} {
		b.Run(c.name+"/first", func(b *testing.B) {
			b.SetBytes(c.size)
			for b.Loop() {
				b.StopTimer()
				m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep, err := m.Ingest(ctx, c.root, engram.IngestOptions{})
				if err != nil || rep.Stored == 0 {
					b.Fatal(rep, err)
				}
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
		})
		b.Run(c.name+"/walk", func(b *testing.B) {
			// The baseline of again: only walking the tree, as Ingest
			// does, to find its markdown files (GOROOT holds 16,000
			// entries for 40 of them).
			for b.Loop() {
				n := 0
				filepath.WalkDir(c.root, func(p string, d os.DirEntry, err error) error {
					if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != c.root {
						return filepath.SkipDir
					}
					if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
						n++
					}
					return nil
				})
				if n == 0 {
					b.Fatal("no markdown")
				}
			}
		})
		b.Run(c.name+"/again", func(b *testing.B) {
			m, err := engram.New(engram.Tier1, engram.WithDir(b.TempDir()))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			if _, err := m.Ingest(ctx, c.root, engram.IngestOptions{}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(c.size)
			for b.Loop() {
				rep, err := m.Ingest(ctx, c.root, engram.IngestOptions{})
				if err != nil || rep.Stored+rep.Updated+rep.Linked != 0 {
					b.Fatal(rep, err)
				}
			}
		})
	}
}

// BenchmarkImportMarkdown measures ImportMarkdown of a 200-line memory.md
// in which a person edited ten lines (their importance), added one and
// removed one, the file then written again: with history on (the
// default) and off, the baseline of what recording the changes costs.
func BenchmarkImportMarkdown(b *testing.B) {
	for _, history := range []bool{true, false} {
		b.Run(fmt.Sprintf("history=%v", history), func(b *testing.B) { benchImportMarkdown(b, history) })
	}
}

func benchImportMarkdown(b *testing.B, history bool) {
	ctx := context.Background()
	dir := b.TempDir()
	md := filepath.Join(dir, "memory.md")
	cfg := engram.DefaultConfig()
	cfg.History.Enabled = history
	m, err := engram.New(engram.Tier1, engram.WithDir(dir), engram.WithMarkdownPath(md), engram.WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	var entries []engram.SemanticEntry
	for i := range 400 {
		entries = append(entries, engram.SemanticEntry{ID: fmt.Sprintf("e%03d", i),
			Content: fmt.Sprintf("Fact number %d about the deploy pipeline and its %d stages", i, i%9), Importance: 0.5 + float64(i%40)/100})
	}
	if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
		b.Fatal(err)
	}
	if _, err := m.ExportMarkdown(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		data, err := os.ReadFile(md)
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines) < 190 {
			b.Fatalf("memory.md has %d lines", len(lines))
		}
		edited := 0
		var out []string
		for j, l := range lines {
			switch {
			case j == 20:
				continue // removed
			case strings.HasPrefix(l, "- (") && edited < 10 && j%15 == 0:
				l = "- (" + fmt.Sprintf("%.2f", 0.3+float64(i%5)/100) + l[strings.IndexByte(l, ')'):]
				edited++
			}
			out = append(out, l)
		}
		out = append(out, fmt.Sprintf("- A line added by hand, number %d #bench", i))
		if err := os.WriteFile(md, []byte(strings.Join(out, "\n")+"\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := m.ImportMarkdown(ctx)
		if err != nil || len(rep.Updated) == 0 || len(rep.Added) != 1 || len(rep.Archived) != 1 {
			b.Fatalf("%+v %v", rep, err)
		}
	}
}

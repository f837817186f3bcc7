package mdchunk

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkChunks checks what every split must hold: each chunk's text is
// the file's bytes at its offsets, chunks come in order without
// overlapping, and what no chunk covers is the frontmatter or white space.
func checkChunks(t testing.TB, src []byte, d Doc) {
	t.Helper()
	if d.Body < 0 || d.Body > len(src) {
		t.Fatalf("body at %d of %d bytes", d.Body, len(src))
	}
	at := d.Body
	for i, c := range d.Chunks {
		if c.Start < at || c.End <= c.Start || c.End > len(src) {
			t.Fatalf("chunk %d [%d, %d) after %d in %d bytes", i, c.Start, c.End, at, len(src))
		}
		if c.Text != string(src[c.Start:c.End]) {
			t.Fatalf("chunk %d's text is not the file's bytes at its offsets", i)
		}
		if gap := src[at:c.Start]; len(bytes.TrimSpace(gap)) != 0 {
			t.Fatalf("bytes [%d, %d) before chunk %d are in no chunk: %q", at, c.Start, i, gap)
		}
		at = c.End
	}
	if gap := src[at:]; len(bytes.TrimSpace(gap)) != 0 {
		t.Fatalf("bytes from %d are in no chunk: %q", at, gap)
	}
}

func TestSplitHeadingsAndFrontmatter(t *testing.T) {
	src := []byte(`---
title: "Deploying"
tags: [ops, deploy]
---
Intro before any heading.

# Deploy

How to deploy.

## Rollback

Roll back with the previous tag.

#### Deep heading stays in its section

### Canary
Setext heading
--------------

Text under setext.
`)
	d := Split(src, 0)
	checkChunks(t, src, d)
	if d.Title != "Deploying" || !slices.Equal(d.Tags, []string{"ops", "deploy"}) {
		t.Errorf("title %q tags %v", d.Title, d.Tags)
	}
	var paths []string
	for _, c := range d.Chunks {
		paths = append(paths, c.HeadingPath())
	}
	want := []string{"", "Deploy", "Deploy > Rollback", "Deploy > Rollback > Canary", "Deploy > Setext heading"}
	if !slices.Equal(paths, want) {
		t.Errorf("heading paths %q, want %q", paths, want)
	}
	if !strings.Contains(d.Chunks[2].Text, "Deep heading stays") {
		t.Errorf("an h4 does not split: %q", d.Chunks[2].Text)
	}
	if strings.Contains(d.Chunks[0].Text, "title:") {
		t.Errorf("frontmatter left in the first chunk: %q", d.Chunks[0].Text)
	}
}

func TestSplitTOMLFrontmatter(t *testing.T) {
	src := []byte("+++\ntitle = \"A \\\"quoted\\\" title\"\ntags = [\"a\", 'b']\n[extra]\ntags = [\"no\"]\n+++\n# H\n\ntext\n")
	d := Split(src, 0)
	checkChunks(t, src, d)
	if d.Title != `A "quoted" title` || !slices.Equal(d.Tags, []string{"a", "b"}) {
		t.Errorf("title %q tags %v", d.Title, d.Tags)
	}
	bad := []byte("---\ntitle: [unclosed\n---\n# H\n")
	d = Split(bad, 0)
	checkChunks(t, bad, d)
	if d.FrontmatterErr == nil || d.Title != "" || d.Body == 0 {
		t.Errorf("bad YAML: %+v", d)
	}
	open := []byte("---\ntitle: x\n# never closed\n")
	d = Split(open, 0)
	checkChunks(t, open, d)
	if d.Body != 0 {
		t.Errorf("frontmatter that does not close is body: %+v", d)
	}
}

// A long section splits between paragraphs, under the limit, and never
// inside a code block, even one longer than the limit.
func TestSplitLongSectionKeepsCodeBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Long\n\n")
	para := strings.Repeat("word ", 40) + "\n\n" // 202 bytes
	for range 30 {
		b.WriteString(para)
	}
	code := "```go\n" + strings.Repeat("fmt.Println(\"x\")\n\n", 100) + "```\n\n"
	b.WriteString(code)
	for range 30 {
		b.WriteString(para)
	}
	src := []byte(b.String())
	d := Split(src, 1000)
	checkChunks(t, src, d)
	found := false
	for _, c := range d.Chunks {
		if strings.Contains(c.Text, "```go") {
			found = true
			if !strings.Contains(c.Text, code) {
				t.Errorf("the code block was split: %q", c.Text)
			}
			continue
		}
		if n := utf8.RuneCountInString(c.Text); n > 1000 {
			t.Errorf("a chunk of %d characters over the limit 1000", n)
		}
		if !strings.HasSuffix(c.Text, "\n\n") {
			t.Errorf("a chunk does not end at a paragraph's end: %q", c.Text[max(0, len(c.Text)-20):])
		}
		if !slices.Equal(c.Heading, []string{"Long"}) {
			t.Errorf("heading %v", c.Heading)
		}
	}
	if !found || len(d.Chunks) < 10 {
		t.Errorf("%d chunks, code block found %v", len(d.Chunks), found)
	}
}

// goDocs are the markdown files of the Go toolchain, read where they are.
func goDocs(t testing.TB) []string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	var files []string
	root := strings.TrimSpace(string(out))
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no markdown in GOROOT")
	}
	return files
}

// The toolchain's own markdown, which nobody here wrote, splits as every
// file must.
func TestSplitGoDocs(t *testing.T) {
	total, chunks := 0, 0
	for _, f := range goDocs(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := Split(src, 0)
		checkChunks(t, src, d)
		total += len(src)
		chunks += len(d.Chunks)
	}
	t.Logf("%d bytes in %d chunks", total, chunks)
}

// FuzzChunk splits fuzzed markdown: no panic, every chunk's text is the
// file's bytes at its offsets, and the chunks cover the text.
func FuzzChunk(f *testing.F) {
	f.Add([]byte("# A\n\ntext\n\n## B\n\n```\ncode\n```\n"), uint16(20))
	f.Add([]byte("---\ntitle: x\ntags: [a]\n---\n# T\n"), uint16(0))
	f.Add([]byte("+++\ntitle = 'x'\n+++\nA\n===\n\n    indented code\n\n- list\n  ```\n  nested\n  ```\n"), uint16(5))
	f.Add([]byte("<div>\nhtml\n</div>\n\n> # quoted heading\n\n***\n\n```\nunclosed"), uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, max uint16) {
		d := Split(src, int(max))
		checkChunks(t, src, d)
	})
}

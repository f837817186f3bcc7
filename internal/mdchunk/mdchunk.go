// Package mdchunk splits a markdown document into chunks for engram's
// document ingestion: its YAML or TOML frontmatter is read (title and
// tags) and left out, the body is split at its h1–h3 headings into
// sections carrying their heading path, and a section longer than a limit
// is split between its blocks (paragraphs, lists, code blocks), or failing
// that between lines, never inside a code block. Headings and code blocks
// are found with goldmark's parser. Each chunk is a byte range of the
// file: its text is the file's bytes there, and the chunks, with the
// frontmatter and the white space between them, cover the file.
package mdchunk

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"
)

// DefaultMaxChars is the length over which a section is split.
const DefaultMaxChars = 12_000

// Chunk is a piece of a document.
type Chunk struct {
	Start, End int      // its bytes in the file: file[Start:End]
	Heading    []string // the h1–h3 headings it is under, outermost first
	Text       string   // file[Start:End]
}

// HeadingPath is the chunk's headings joined by " > ".
func (c Chunk) HeadingPath() string { return strings.Join(c.Heading, " > ") }

// Doc is a split document.
type Doc struct {
	Title string   // the frontmatter's title, or ""
	Tags  []string // the frontmatter's tags (or keywords)
	// Body is where the body starts: after the frontmatter, or 0.
	Body int
	// FrontmatterErr says why frontmatter was found but not read (its
	// title and tags are then empty); the body is split all the same.
	FrontmatterErr error
	Chunks         []Chunk
}

// Split splits src, a markdown document, into chunks of at most maxChars
// characters where it can (DefaultMaxChars when maxChars <= 0): a block
// or line longer than that, or a code block, stays whole. Chunks that
// are only white space are left out. src should be UTF-8; Split works on
// bytes and never panics on any input.
func Split(src []byte, maxChars int) Doc {
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	var d Doc
	d.Body, d.Title, d.Tags, d.FrontmatterErr = frontmatter(src)
	body := src[d.Body:]
	root := goldmark.New().Parser().Parse(text.NewReader(body))

	// Section starts (at h1–h3 headings of the document itself), the
	// starts of its blocks (preferred places to split) and the ranges of
	// its code blocks (never split).
	type section struct {
		start   int
		heading []string
	}
	sections := []section{{start: 0}}
	var path [3]string
	var blocks []int
	var code [][2]int
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		start := blockStart(n, body)
		blocks = append(blocks, start)
		if h, ok := n.(*ast.Heading); ok && h.Level <= 3 {
			path[h.Level-1] = headingText(h, body)
			for i := h.Level; i < 3; i++ {
				path[i] = ""
			}
			var hp []string
			for _, p := range path[:h.Level] {
				if p != "" {
					hp = append(hp, p)
				}
			}
			if start == 0 {
				sections[0].heading = hp
			} else {
				sections = append(sections, section{start, hp})
			}
		}
	}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock:
			code = append(code, codeRange(n, body))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for i, s := range sections {
		end := len(body)
		if i+1 < len(sections) {
			end = sections[i+1].start
		}
		for _, r := range splitSection(body, s.start, end, maxChars, blocks, code) {
			if len(bytes.TrimSpace(body[r[0]:r[1]])) == 0 {
				continue
			}
			d.Chunks = append(d.Chunks, Chunk{
				Start: d.Body + r[0], End: d.Body + r[1],
				Heading: s.heading, Text: string(body[r[0]:r[1]]),
			})
		}
	}
	return d
}

// splitSection splits body[start:end] into ranges of at most maxChars
// characters where it can: at a block's start if one fits, else at a line
// start outside code blocks; a piece that cannot be cut small enough is
// cut at the first place after the limit.
func splitSection(body []byte, start, end, maxChars int, blocks []int, code [][2]int) [][2]int {
	var out [][2]int
	pos := start
	for utf8.RuneCount(body[pos:end]) > maxChars {
		limit := advance(body, pos, maxChars) // the byte offset maxChars characters on
		best := -1
		for _, b := range blocks {
			if b > pos && b <= limit && b < end {
				best = max(best, b)
			}
		}
		if best < 0 {
			best = lastLineStart(body, pos, limit, code)
		}
		if best < 0 {
			// Nothing fits: cut at the first place after the limit.
			best = nextCut(body, limit, end, blocks, code)
		}
		if best <= pos || best >= end {
			break
		}
		out = append(out, [2]int{pos, best})
		pos = best
	}
	return append(out, [2]int{pos, end})
}

// advance returns the offset n characters after pos (or the end).
func advance(b []byte, pos, n int) int {
	for i := 0; i < n && pos < len(b); i++ {
		_, size := utf8.DecodeRune(b[pos:])
		pos += size
	}
	return pos
}

// lastLineStart is the last start of a line in (pos, limit] that is not
// inside a code block, or -1.
func lastLineStart(b []byte, pos, limit int, code [][2]int) int {
	for i := limit; i > pos; i-- {
		if b[i-1] == '\n' && !inCode(i, code) {
			return i
		}
	}
	return -1
}

// nextCut is the first block start, else line start outside code blocks,
// after limit and before end, or -1.
func nextCut(b []byte, limit, end int, blocks []int, code [][2]int) int {
	for _, s := range blocks {
		if s > limit && s < end {
			return s
		}
	}
	for i := limit + 1; i < end; i++ {
		if b[i-1] == '\n' && !inCode(i, code) {
			return i
		}
	}
	return -1
}

// inCode reports whether a cut at off would fall inside a code block.
func inCode(off int, code [][2]int) bool {
	for _, r := range code {
		if off > r[0] && off < r[1] {
			return true
		}
	}
	return false
}

// codeRange is the byte range of a code or HTML block, its fences
// included: from the start of its first line to the end of its last (the
// closing fence's, when there is one).
func codeRange(n ast.Node, b []byte) [2]int {
	start := blockStart(n, b)
	end := lineEnd(b, start)
	if l := n.Lines(); l.Len() > 0 {
		end = max(end, lineEnd(b, max(l.At(l.Len()-1).Stop-1, start)))
	}
	if n.Kind() == ast.KindFencedCodeBlock && end < len(b) {
		next := strings.TrimSpace(string(b[end:lineEnd(b, end)]))
		if strings.HasPrefix(next, "```") || strings.HasPrefix(next, "~~~") {
			end = lineEnd(b, end) // the closing fence
		}
	}
	return [2]int{start, min(end, len(b))}
}

// lineEnd is the offset just after the newline that ends the line
// holding the byte at off (or the end of b).
func lineEnd(b []byte, off int) int {
	if off >= len(b) {
		return len(b)
	}
	i := bytes.IndexByte(b[off:], '\n')
	if i < 0 {
		return len(b)
	}
	return off + i + 1
}

// blockStart is where block n starts: the start of the line of its
// first text, or of its first child's; a fenced code block starts at its
// opening fence.
func blockStart(n ast.Node, b []byte) int {
	for c := n; c != nil; c = c.FirstChild() {
		if c.Type() != ast.TypeBlock {
			break
		}
		if c.Lines().Len() > 0 {
			s := lineStart(b, c.Lines().At(0).Start)
			if c.Kind() == ast.KindFencedCodeBlock && s > 0 {
				s = lineStart(b, s-1) // the opening fence
			}
			return s
		}
		if c.Kind() == ast.KindFencedCodeBlock || c.Kind() == ast.KindThematicBreak {
			break
		}
	}
	if p := n.Pos(); p >= 0 {
		return lineStart(b, p)
	}
	// A block with no text of its own (an empty fence, a rule): the
	// start of the line after the previous block's last.
	if prev := n.PreviousSibling(); prev != nil {
		r := codeRange(prev, b)
		return r[1]
	}
	return 0
}

func lineStart(b []byte, off int) int {
	off = min(max(off, 0), len(b))
	return bytes.LastIndexByte(b[:off], '\n') + 1
}

// headingText is a heading's text as written, markers cut.
func headingText(h *ast.Heading, b []byte) string {
	var parts []string
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(b))))
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// frontmatter finds YAML ("---") or TOML ("+++") frontmatter at the start
// of src and returns where the body starts and the title and tags it
// gives. Frontmatter that does not close is no frontmatter: the body is
// the whole file.
func frontmatter(src []byte) (body int, title string, tags []string, err error) {
	var fence string
	switch {
	case bytes.HasPrefix(src, []byte("---\n")), bytes.HasPrefix(src, []byte("---\r\n")):
		fence = "---"
	case bytes.HasPrefix(src, []byte("+++\n")), bytes.HasPrefix(src, []byte("+++\r\n")):
		fence = "+++"
	default:
		return 0, "", nil, nil
	}
	first := bytes.IndexByte(src, '\n') + 1
	for off := first; off < len(src); {
		end := lineEnd(src, off)
		line := strings.TrimRight(string(src[off:end]), "\r\n")
		if line == fence || fence == "---" && line == "..." {
			inner := src[first:off]
			if fence == "---" {
				title, tags, err = yamlMeta(inner)
			} else {
				title, tags, err = tomlMeta(inner)
			}
			return end, title, tags, err
		}
		off = end
	}
	return 0, "", nil, nil
}

// yamlMeta reads title and tags (or keywords) from YAML frontmatter.
func yamlMeta(b []byte) (title string, tags []string, err error) {
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return "", nil, fmt.Errorf("YAML frontmatter: %w", err)
	}
	if t, ok := m["title"]; ok && t != nil {
		title = strings.TrimSpace(fmt.Sprint(t))
	}
	for _, key := range []string{"tags", "keywords"} {
		switch v := m[key].(type) {
		case []any:
			for _, t := range v {
				if s := strings.TrimSpace(fmt.Sprint(t)); s != "" && t != nil {
					tags = append(tags, s)
				}
			}
		case string:
			for t := range strings.SplitSeq(v, ",") {
				if s := strings.TrimSpace(t); s != "" {
					tags = append(tags, s)
				}
			}
		}
	}
	return title, tags, nil
}

// tomlMeta reads title and tags from TOML frontmatter: the small part of
// TOML they need (title = "…", tags = ["…", …] on one line, at the top
// level, before any [table]).
func tomlMeta(b []byte) (title string, tags []string, err error) {
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			break // a table: title and tags are top-level keys
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "title":
			s, ok := tomlString(val)
			if !ok {
				return "", nil, fmt.Errorf("TOML frontmatter: title %s is not a string", val)
			}
			title = s
		case "tags", "keywords":
			if !strings.HasPrefix(val, "[") || !strings.HasSuffix(val, "]") {
				return "", nil, fmt.Errorf("TOML frontmatter: %s %s is not a one-line array", key, val)
			}
			for item := range strings.SplitSeq(val[1:len(val)-1], ",") {
				item = strings.TrimSpace(item)
				if item == "" {
					continue
				}
				s, ok := tomlString(item)
				if !ok {
					return "", nil, fmt.Errorf("TOML frontmatter: tag %s is not a string", item)
				}
				if s = strings.TrimSpace(s); s != "" {
					tags = append(tags, s)
				}
			}
		}
	}
	return title, tags, nil
}

// tomlString reads a basic ("…", with \" and \\ escapes) or literal
// ('…') TOML string.
func tomlString(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1], true
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	in := s[1 : len(s)-1]
	for i := 0; i < len(in); i++ {
		if in[i] == '\\' && i+1 < len(in) {
			i++
			switch in[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(in[i])
			}
			continue
		}
		b.WriteByte(in[i])
	}
	return b.String(), true
}

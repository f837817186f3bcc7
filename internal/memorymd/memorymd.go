// Package memorymd reads and writes the pieces of engram's memory.md: the
// escaping of an entry's text and of the ID in its HTML comment, and a
// reader that finds the file's entry and fact lines with a markdown
// parser (goldmark), saying exactly which lines it cannot read and why.
// It knows nothing of the database: the root package compares what it
// reads with what it wrote (see engram's markdown_import.go).
package memorymd

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Text keeps s on one line and unable to close or open the ID comment.
func Text(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.Contains(s, "-->") || strings.Contains(s, "<!--") {
		s = strings.NewReplacer("-->", "--&gt;", "<!--", "&lt;!--").Replace(s)
	}
	return s
}

// Unescape reads back what Text escaped.
func Unescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return strings.NewReplacer("--&gt;", "-->", "&lt;!--", "<!--").Replace(s)
}

// CommentID writes an ID so that it cannot end or open an HTML comment,
// and reads back exactly (ParseCommentID): '%', '<' and '>' and a '-'
// before another '-' are percent-encoded. An ID of letters, digits and
// single dashes, as engram's own are, is written as it is.
func CommentID(id string) string {
	if !strings.ContainsAny(id, "%<>") && !strings.Contains(id, "--") {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c == '%' || c == '<' || c == '>' || c == '-' && i+1 < len(id) && id[i+1] == '-':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ParseCommentID reads back an ID CommentID wrote; it returns false for
// text CommentID cannot have written.
func ParseCommentID(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, !strings.Contains(s, "--")
	}
	id, err := url.PathUnescape(s)
	return id, err == nil && CommentID(id) == s
}

// Line is a list item of memory.md: an entry, or a fact in the Facts
// section.
type Line struct {
	Num  int    // its first line, from 1
	Raw  string // its text in the file, trailing white space cut; lines joined by "\n"
	Fact bool   // in the "## Facts" section
	// ID is the ID its comment names ("" for a line without one: a new
	// entry).
	ID string
	// Body is its text before the ID comment, marker and white space cut,
	// its lines joined by a space.
	Body string
	// Problem says why the line cannot be read, "" when it can.
	Problem string
}

// Skip is a part of the file that is not a list item: a paragraph, a
// code block, an HTML block, a heading engram does not write.
type Skip struct {
	Line   int
	Text   string
	Reason string
}

// File is what Parse found.
type File struct {
	Lines   []Line
	Skipped []Skip
}

// Rejection says why a whole file cannot be read: nothing of it may be
// imported.
type Rejection struct {
	Line   int // 0 when it is not one line's fault
	Reason string
}

func (r *Rejection) Error() string {
	if r.Line == 0 {
		return r.Reason
	}
	return fmt.Sprintf("line %d: %s", r.Line, r.Reason)
}

// FactsHeading is the heading of the Facts section.
const FactsHeading = "## Facts"

// HeaderPrefix starts the HTML comment engram writes under the title.
const HeaderPrefix = "<!-- engram memory.md"

var md = goldmark.New()

// Parse reads memory.md, whose first line must be title ("# Memory of
// agent …"). It rejects a file that is empty, not UTF-8, holds a NUL
// byte, does not end with a newline (it may have been cut short) or does
// not start with title (another agent's file, or not engram's). Lines it
// cannot read otherwise are in File.Lines with their Problem, or in
// File.Skipped.
func Parse(src []byte, title string) (*File, *Rejection) {
	switch {
	case len(src) == 0:
		return nil, &Rejection{Reason: "the file is empty"}
	case !utf8.Valid(src):
		return nil, &Rejection{Line: lineOf(src, firstInvalid(src)), Reason: "the file is not valid UTF-8"}
	case bytes.IndexByte(src, 0) >= 0:
		return nil, &Rejection{Line: lineOf(src, bytes.IndexByte(src, 0)), Reason: "the file holds a NUL byte"}
	case src[len(src)-1] != '\n':
		return nil, &Rejection{Line: lineOf(src, len(src)-1), Reason: "the file ends mid-line, without a newline: it may have been cut short"}
	}
	first, _, _ := bytes.Cut(src, []byte("\n"))
	if string(bytes.TrimRight(first, " \t\r")) != title {
		return nil, &Rejection{Line: 1, Reason: fmt.Sprintf("the first line is not %q: the file is another agent's or not engram's memory.md", title)}
	}
	doc := md.Parser().Parse(text.NewReader(src))
	f := &File{}
	facts := false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		start := blockStart(n, src)
		num := lineOf(src, start)
		switch n := n.(type) {
		case *ast.Heading:
			raw := lineText(src, start)
			switch {
			case num == 1 && n.Level == 1:
			case raw == FactsHeading:
				facts = true
			default:
				f.Skipped = append(f.Skipped, Skip{num, raw, "a heading engram does not write; headings are not read"})
			}
		case *ast.HTMLBlock:
			raw := lineText(src, start)
			if !strings.HasPrefix(raw, HeaderPrefix) {
				f.Skipped = append(f.Skipped, Skip{num, raw, "an HTML block, not an entry; entries are list items (\"- text\")"})
			}
		case *ast.List:
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				f.Lines = append(f.Lines, readItem(it, src, facts))
			}
		case *ast.FencedCodeBlock:
			at := start
			if n.Lines().Len() > 0 && start > 0 {
				num, at = num-1, start-1 // the fence's line
			}
			f.Skipped = append(f.Skipped, Skip{num, lineText(src, at), "a code block, not an entry"})
		default:
			f.Skipped = append(f.Skipped, Skip{num, lineText(src, start), "not a list item; write a new entry as \"- text\""})
		}
	}
	return f, nil
}

// readItem reads one list item.
func readItem(it ast.Node, src []byte, facts bool) Line {
	start := blockStart(it, src)
	l := Line{Num: lineOf(src, start), Fact: facts}
	block := it.FirstChild()
	l.Raw = itemRaw(src, start, block)
	switch {
	case block == nil:
		l.Problem = "an empty list item"
		return l
	case block.NextSibling() != nil || (block.Kind() != ast.KindTextBlock && block.Kind() != ast.KindParagraph):
		l.Problem = "an entry is one paragraph of text, without nested lists or blocks"
		return l
	}
	comment, cut, hasComment := endingHTML(block, src)
	l.Body = strings.TrimSpace(strings.Join(itemBody(block, src, hasComment, cut), " "))
	switch {
	case comment != "":
		l.ID, l.Problem = commentID(comment, facts)
	case strings.Contains(l.Body, "<!--"):
		l.Problem = "an ID comment that does not close or does not end the line"
	}
	return l
}

// itemRaw returns an item's lines in the file, from its start to the
// last line of its block (if any), joined by "\n".
func itemRaw(src []byte, start int, block ast.Node) string {
	end := start
	if block != nil && block.Lines().Len() > 0 {
		end = block.Lines().At(block.Lines().Len() - 1).Start
	}
	var lines []string
	for off := start; ; {
		line := lineText(src, off)
		lines = append(lines, line)
		next := bytes.IndexByte(src[off:], '\n')
		if next < 0 || off+next+1 > end {
			break
		}
		off += next + 1
	}
	return strings.Join(lines, "\n")
}

// endingHTML returns the raw HTML that is the block's last inline, after
// all the text (where the ID comment is), and the offset in src where it
// starts; ok is false when the block does not end with HTML.
func endingHTML(block ast.Node, src []byte) (html string, start int, ok bool) {
	last := block.LastChild()
	for last != nil && last.Kind() == ast.KindText && strings.TrimSpace(string(last.(*ast.Text).Value(src))) == "" {
		last = last.PreviousSibling()
	}
	raw, ok := last.(*ast.RawHTML)
	if !ok || raw.Segments.Len() == 0 {
		return "", 0, false
	}
	var b strings.Builder
	for i := 0; i < raw.Segments.Len(); i++ {
		seg := raw.Segments.At(i)
		b.Write(seg.Value(src))
	}
	return b.String(), raw.Segments.At(0).Start, true
}

// itemBody returns the block's lines, white space cut: with an ending
// comment, the text before the offset cut where it starts.
func itemBody(block ast.Node, src []byte, comment bool, cut int) []string {
	var body []string
	for i := 0; i < block.Lines().Len(); i++ {
		seg := block.Lines().At(i)
		if !comment {
			body = append(body, strings.TrimSpace(string(seg.Value(src))))
			continue
		}
		if seg.Start >= cut {
			break
		}
		body = append(body, strings.TrimSpace(string(src[seg.Start:min(seg.Stop, cut)])))
	}
	return body
}

// commentID reads the ID of the comment that ends an item, in the Facts
// section if facts: it returns the ID, or why the comment holds none.
func commentID(comment string, facts bool) (id, problem string) {
	prefix := "id:"
	if facts {
		prefix = "fact:"
	}
	inner, ok := strings.CutPrefix(comment, "<!--")
	if ok {
		inner, ok = strings.CutSuffix(inner, "-->")
	}
	inner = strings.TrimSpace(inner)
	switch {
	case !ok:
		return "", "the line ends with HTML that is not an ID comment"
	case strings.HasPrefix(inner, "id:") && facts:
		return "", "an entry's ID comment in the Facts section"
	case strings.HasPrefix(inner, "fact:") && !facts:
		return "", "a fact's ID comment outside the Facts section"
	case !strings.HasPrefix(inner, prefix):
		return "", fmt.Sprintf("the comment %q is not an ID comment (%q)", comment, "<!-- "+prefix+"… -->")
	}
	id, ok = ParseCommentID(strings.TrimPrefix(inner, prefix))
	if !ok || id == "" || strings.ContainsFunc(id, unicode.IsSpace) {
		return "", fmt.Sprintf("the ID comment %q is malformed", comment)
	}
	return id, ""
}

// Entry is what an entry line says.
type Entry struct {
	Importance    float64
	HasImportance bool // the line starts with "(0.70)" or "(0.70, verified)"
	Verified      bool
	Text          string // unescaped
	Tags          []string
}

// ParseEntry reads an entry line's body: "(0.70, verified) text [tag,
// tag]", the parenthesis optional. With hashtags, trailing words of the
// form #tag are tags too (new entries are written that way).
func ParseEntry(body string, hashtags bool) (Entry, error) {
	var e Entry
	s := strings.TrimSpace(body)
	if strings.HasPrefix(s, "(") {
		if end := strings.IndexByte(s, ')'); end > 0 {
			parts := strings.Split(s[1:end], ",")
			f, err := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
			if err == nil {
				if f < 0 || f > 1 || f != f {
					return e, fmt.Errorf("importance %s is outside [0, 1]", strings.TrimSpace(parts[0]))
				}
				e.Importance, e.HasImportance = f, true
				for _, p := range parts[1:] {
					switch strings.TrimSpace(p) {
					case "verified":
						e.Verified = true
					default:
						return e, fmt.Errorf("%q in the parenthesis is not \"verified\"", strings.TrimSpace(p))
					}
				}
				s = strings.TrimSpace(s[end+1:])
			}
		}
	}
	if strings.HasSuffix(s, "]") {
		if open := strings.LastIndex(s, " ["); open >= 0 {
			for t := range strings.SplitSeq(s[open+2:len(s)-1], ",") {
				t = strings.TrimSpace(t)
				if t == "" {
					return e, fmt.Errorf("an empty tag in %q", s[open+1:])
				}
				e.Tags = append(e.Tags, Unescape(t))
			}
			s = strings.TrimSpace(s[:open])
		}
	}
	if hashtags {
		words := strings.Fields(s)
		for len(words) > 0 {
			w := words[len(words)-1]
			if len(w) < 2 || w[0] != '#' || strings.ContainsAny(w[1:], "#[]()") {
				break
			}
			e.Tags = append([]string{w[1:]}, e.Tags...)
			words = words[:len(words)-1]
		}
		s = strings.Join(words, " ")
	}
	e.Text = Unescape(s)
	if strings.TrimSpace(e.Text) == "" {
		return e, fmt.Errorf("the entry has no text")
	}
	return e, nil
}

// blockStart is where block n starts in src: its first line's start, or
// for a container its first child's, moved back to the line's start.
func blockStart(n ast.Node, src []byte) int {
	for c := n; c != nil; c = c.FirstChild() {
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			return lineStart(src, c.Lines().At(0).Start)
		}
		if c.Type() != ast.TypeBlock {
			break
		}
	}
	if p := n.Pos(); p >= 0 {
		return lineStart(src, p)
	}
	return 0
}

func lineStart(src []byte, off int) int {
	off = min(off, len(src))
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineText is the line of src that holds offset off, trailing white
// space cut.
func lineText(src []byte, off int) string {
	off = lineStart(src, off)
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src) - off
	}
	return strings.TrimRight(string(src[off:off+end]), " \t\r")
}

// lineOf is the number (from 1) of the line holding offset off.
func lineOf(src []byte, off int) int {
	off = min(max(off, 0), len(src))
	return bytes.Count(src[:off], []byte("\n")) + 1
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

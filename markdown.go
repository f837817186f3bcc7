package engram

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/memorymd"
	"github.com/engram-go/engram/internal/store"
)

// memory.md is a projection of semantic memory and of the facts that hold
// now, never their source: deleting it loses nothing, and Flush or
// Bootstrap write it again. Its layout:
//
//	# Memory of agent "default"
//
//	<!-- engram memory.md v1: generated from the database … -->
//
//	- (0.90, verified) The deploy runs from CI only [ops, deploy] <!-- id:01J… -->
//	- (0.70) …
//
//	## Facts
//
//	- Ada | lives in | London (since 2026-01-01) <!-- fact:01J… -->
//
// One entry per line, highest importance first, then most recently updated,
// then by ID, so the same data always gives the same bytes. Each line ends
// with the entry's ID in an HTML comment, which Markdown viewers hide and a
// later import can read back. The facts follow, one per line, by subject,
// predicate and start, their parts split by " | " (a "|" or "\" in a part
// is escaped with a backslash), ending with the fact's ID. The file has at
// most MaxMarkdownLines lines: when everything does not fit, facts and
// entries share the lines, each taking at least half if it has enough (the
// strongest facts, the most important entries).

const (
	markdownHeaderLines = 4
	markdownFactsLines  = 3 // the facts' heading, with a blank line on each side
)

// writtenLine is a line of memory.md as engram wrote it: an entry's or a
// fact's (kind "entry" or "fact"), by ID.
type writtenLine struct {
	kind, id, line string
}

// renderMarkdown builds memory.md from the database, and returns its entry
// and fact lines too.
func (m *Memory) renderMarkdown(ctx context.Context) ([]byte, []writtenLine, error) {
	lines := m.cfg.Semantic.MaxMarkdownLines - markdownHeaderLines
	now := m.now()
	var total, totalFacts int
	var entries []SemanticEntry
	var facts []Fact
	err := m.read(ctx, "markdown", func(q store.Tx) (err error) {
		if total, totalFacts, err = store.MarkdownCounts(q, m.agent, now); err != nil {
			return err
		}
		nEntries, nFacts := shareLines(lines, total, totalFacts)
		if entries, err = m.semantic.best(q, nil, nEntries, 0); err != nil {
			return err
		}
		facts, err = m.facts.strongest(q, nFacts, nil)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(facts, func(a, b Fact) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Subject), strings.ToLower(b.Subject)),
			cmp.Compare(strings.ToLower(a.Predicate), strings.ToLower(b.Predicate)),
			a.ValidFrom.Compare(b.ValidFrom), cmp.Compare(a.ID, b.ID))
	})

	var b bytes.Buffer
	b.Grow(64 * (len(entries) + markdownHeaderLines))
	fmt.Fprintf(&b, "# Memory of agent %q\n\n", m.agent)
	if m.cfg.Markdown.Mode == MarkdownSync {
		b.WriteString(memorymd.HeaderPrefix + " v1: generated from the database; edits to its entries are read back. ")
	} else {
		b.WriteString(memorymd.HeaderPrefix + " v1: generated from the database; edits here are overwritten. ")
	}
	switch {
	case total == 0 && totalFacts == 0:
		b.WriteString("Nothing is known yet.")
	case len(entries) < total:
		fmt.Fprintf(&b, "The %d most important of %d entries.", len(entries), total)
	default:
		fmt.Fprintf(&b, "All %s.", plural(total, "entry", "entries"))
	}
	switch {
	case totalFacts == 0:
	case len(facts) < totalFacts:
		fmt.Fprintf(&b, " The %d strongest of %d facts that hold.", len(facts), totalFacts)
	default:
		fmt.Fprintf(&b, " All %s.", plural(totalFacts, "fact that holds", "facts that hold"))
	}
	b.WriteString(" -->\n\n")
	written := make([]writtenLine, 0, len(entries)+len(facts))
	for _, e := range entries {
		line := entryLine(e)
		written = append(written, writtenLine{"entry", e.ID, line})
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if len(facts) > 0 {
		b.WriteString("\n" + memorymd.FactsHeading + "\n\n")
	}
	for _, f := range facts {
		line := factLine(f)
		written = append(written, writtenLine{"fact", f.ID, line})
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), written, nil
}

// entryLine is an entry's line in memory.md.
func entryLine(e SemanticEntry) string {
	var b strings.Builder
	b.WriteString("- (")
	b.WriteString(strconv.FormatFloat(e.Importance, 'f', 2, 64))
	if e.Verified {
		b.WriteString(", verified")
	}
	b.WriteString(") ")
	b.WriteString(markdownText(e.Summary))
	if len(e.Tags) > 0 {
		b.WriteString(" [")
		for i, t := range e.Tags {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(markdownText(t))
		}
		b.WriteString("]")
	}
	b.WriteString(" <!-- id:")
	b.WriteString(commentID(e.ID))
	b.WriteString(" -->")
	return b.String()
}

// factLine is a fact's line in memory.md.
func factLine(f Fact) string {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(factPart(f.Subject))
	b.WriteString(" | ")
	b.WriteString(factPart(f.Predicate))
	b.WriteString(" | ")
	b.WriteString(factPart(f.Object))
	b.WriteString(" (since ")
	b.WriteString(f.ValidFrom.Format(time.DateOnly))
	if !f.ValidTo.IsZero() {
		b.WriteString(", until ")
		b.WriteString(f.ValidTo.Format(time.DateOnly))
	}
	if f.Strength != 1 {
		b.WriteString(", strength ")
		b.WriteString(strconv.FormatFloat(f.Strength, 'g', 6, 64))
	}
	b.WriteString(") <!-- fact:")
	b.WriteString(commentID(f.ID))
	b.WriteString(" -->")
	return b.String()
}

// shareLines splits lines between entries and facts, of which there are
// total and totalFacts: each gets what it has if all fit, and otherwise
// at least half the lines (the facts' heading included) if it has that
// many, the rest going to the other.
func shareLines(lines, total, totalFacts int) (nEntries, nFacts int) {
	if totalFacts == 0 {
		return min(total, lines), 0
	}
	lines -= markdownFactsLines
	if lines <= 0 {
		return 0, 0
	}
	nFacts = min(totalFacts, max(lines/2, lines-total))
	return min(total, lines-nFacts), nFacts
}

// factPart writes a part of a fact on one line, its "|" and "\" escaped
// so that the parts split back, and unable to close the ID comment.
func factPart(s string) string {
	s = strings.NewReplacer(`\`, `\\`, "|", `\|`).Replace(s)
	return markdownText(s)
}

// commentID, parseCommentID and markdownText are memorymd's: the reader
// of memory.md (see markdown_import.go) reads back what they write.
func commentID(id string) string             { return memorymd.CommentID(id) }
func parseCommentID(s string) (string, bool) { return memorymd.ParseCommentID(s) }
func markdownText(s string) string           { return memorymd.Text(s) }

// writeMarkdown renders memory.md and, when the Memory has a markdown path,
// writes it atomically if its content changed, then records what it
// wrote (see recordMarkdown). It returns the text.
func (m *Memory) writeMarkdown(ctx context.Context) (string, error) {
	m.mdMu.Lock()
	defer m.mdMu.Unlock()
	return m.writeMarkdownLocked(ctx)
}

// writeMarkdownLocked is writeMarkdown, its caller holding mdMu.
func (m *Memory) writeMarkdownLocked(ctx context.Context) (string, error) {
	text, lines, err := m.renderMarkdown(ctx)
	if err != nil {
		return "", err
	}
	if m.mdPath == "" {
		return string(text), nil
	}
	written, err := writeFileAtomic(m.mdPath, text)
	if err != nil {
		return "", fmt.Errorf("engram: writing memory.md: %w", err)
	}
	if written {
		m.log.Debug("engram: wrote memory.md", "agent", m.agent, "path", m.mdPath, "bytes", len(text))
	}
	// The file first, then the record: a record of a file that was never
	// written would make the old file's lines look like edits.
	if err := m.recordMarkdown(ctx, text, lines); err != nil {
		return "", err
	}
	return string(text), nil
}

// writeFileAtomic replaces path with data unless it already holds exactly
// data. It writes a temporary file in the same directory and renames it, so
// a reader sees the old file or the new one, never a torn one. It reports
// whether it wrote.
func writeFileAtomic(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return false, err
	}
	// The temporary file is already 0600 (memory is personal data); make
	// it durable before it takes the old file's place.
	if err := f.Sync(); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, path)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

package engram

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// memory.md is a projection of semantic memory, never its source: deleting
// it loses nothing, and Flush or Bootstrap write it again. Its layout:
//
//	# Memory of agent "default"
//
//	<!-- engram memory.md v1: generated from the database … -->
//
//	- (0.90, verified) The deploy runs from CI only [ops, deploy] <!-- id:01J… -->
//	- (0.70) …
//
// One entry per line, highest importance first, then most recently updated,
// then by ID, so the same data always gives the same bytes. Each line ends
// with the entry's ID in an HTML comment, which Markdown viewers hide and a
// later import can read back. The file has at most MaxMarkdownLines lines.

const markdownHeaderLines = 4

// renderMarkdown builds memory.md from the database.
func (m *Memory) renderMarkdown(ctx context.Context) ([]byte, error) {
	limit := m.cfg.Semantic.MaxMarkdownLines - markdownHeaderLines
	var total int
	var entries []SemanticEntry
	err := m.db.read(ctx, "markdown", func(q *dbtx) error {
		if err := q.queryRow(`SELECT count(*) FROM semantic_memory WHERE agent_id = ?`, []any{m.agent}, &total); err != nil {
			return err
		}
		var err error
		entries, err = m.semantic.entries(q, `1 ORDER BY importance DESC, updated_at DESC, id LIMIT ?`, limit)
		return err
	})
	if err != nil {
		return nil, err
	}

	var b bytes.Buffer
	b.Grow(64 * (len(entries) + markdownHeaderLines))
	fmt.Fprintf(&b, "# Memory of agent %q\n\n", m.agent)
	switch {
	case total == 0:
		b.WriteString("<!-- engram memory.md v1: generated from the database; edits here are overwritten. Nothing is known yet. -->\n")
	case len(entries) < total:
		fmt.Fprintf(&b, "<!-- engram memory.md v1: generated from the database; edits here are overwritten. The %d most important of %d entries. -->\n", len(entries), total)
	default:
		fmt.Fprintf(&b, "<!-- engram memory.md v1: generated from the database; edits here are overwritten. All %s. -->\n", plural(total, "entry", "entries"))
	}
	b.WriteString("\n")
	for _, e := range entries {
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
		b.WriteString(" -->\n")
	}
	return b.Bytes(), nil
}

// commentID writes an ID so that it cannot end or open an HTML comment,
// and reads back exactly (parseCommentID): '%', '<' and '>' and a '-'
// before another '-' are percent-encoded. An ID of letters, digits and
// single dashes, as engram's own are, is written as it is.
func commentID(id string) string {
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

// parseCommentID reads back an ID commentID wrote; it returns false for
// text commentID cannot have written.
func parseCommentID(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, !strings.Contains(s, "--")
	}
	id, err := url.PathUnescape(s)
	return id, err == nil && commentID(id) == s
}

// markdownText keeps text on one line and unable to close the ID comment.
func markdownText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.Contains(s, "-->") || strings.Contains(s, "<!--") {
		s = strings.NewReplacer("-->", "--&gt;", "<!--", "&lt;!--").Replace(s)
	}
	return s
}

// writeMarkdown renders memory.md and, when the Memory has a markdown path,
// writes it atomically if its content changed. It returns the text.
func (m *Memory) writeMarkdown(ctx context.Context) (string, error) {
	m.mdMu.Lock()
	defer m.mdMu.Unlock()
	text, err := m.renderMarkdown(ctx)
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

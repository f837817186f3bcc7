package engram

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/memorymd"
	"github.com/engram-go/engram/internal/store"
)

// Reading memory.md back (the seed's Mode A).
//
// engram records what it last wrote to memory.md: the file's hash and each
// entry's and fact's line (markdown_lines, migration 0009). An import
// compares three versions of each entry: the line engram wrote, the line
// in the file now and the line the database would write now. A line that
// is as engram wrote it is no edit, whatever the database did since; a
// line that differs is a person's edit, applied field by field (the text,
// the importance, "verified" and the tags that differ from what engram
// wrote), unless the database changed the entry too: that is a conflict,
// and the database wins. The file's version of a conflicting line is
// returned in the report and kept, with the whole file as it was found,
// beside memory.md (see MarkdownReport.KeptAt): nothing is lost.
//
// The Facts section is read-only: an edited, added or removed fact line
// (a line of the section with a fact's ID comment, or with " | " between
// parts) is reported as skipped, never applied (facts change through
// [Facts]). Any other new line there, as a person appending to the file
// writes it, is a new entry like one above the section.

// MarkdownImportance is the importance of an entry a person added to
// memory.md without one ("- text" rather than "- (0.80) text"): as much
// as [SemanticConfig].ImportanceThreshold by default, so the new line
// stays among the file's lines.
const MarkdownImportance = 0.7

// markdownSource is the Source of an entry added in memory.md, and the
// archive's reason for an entry whose line was removed.
const markdownSource = "memory.md"

// keptSuffix names the copy of memory.md an import keeps (see
// MarkdownReport.KeptAt).
const keptSuffix = ".kept"

// MarkdownReport says what [Memory.ImportMarkdown] did with memory.md.
type MarkdownReport struct {
	// Changed says the file differed from what engram last wrote; when
	// it is false nothing else is set.
	Changed  bool
	Updated  []string // IDs of the entries whose edits were applied
	Added    []string // IDs of the entries made from new lines
	Archived []string // IDs of the entries whose lines were removed
	// Conflicts are the entries changed both in the file and in the
	// database since engram wrote the file; the database's version won.
	Conflicts []MarkdownConflict
	// Skipped are the lines that were not read or not applied, and why
	// (Line 0 for a line engram wrote that the file no longer holds).
	Skipped []MarkdownSkip
	// Rejected, when not "", says why the whole file was not read
	// ("line 12: the file ends mid-line…"): nothing of it was imported.
	Rejected string
	// KeptAt is where the file as it was found was kept when something
	// in it was not imported (a conflict, a skipped line, a rejected
	// file), before memory.md was written again: memory.md's path with
	// ".kept" added. "" when nothing needed keeping.
	KeptAt string
}

// MarkdownConflict is an entry edited in memory.md and changed in the
// database since engram wrote the file.
type MarkdownConflict struct {
	Line     int    // the line in the file
	ID       string // the entry's ID
	File     string // the line in the file, which was not applied
	Database string // the line as the database has it ("" if the entry is gone)
}

// MarkdownSkip is a line of memory.md that was not read or not applied.
type MarkdownSkip struct {
	Line   int
	Text   string
	Reason string
}

// String says "line N: reason", or "removed line: reason" for a line
// engram wrote that the file no longer holds.
func (s MarkdownSkip) String() string {
	if s.Line == 0 {
		return "removed line: " + s.Reason
	}
	return fmt.Sprintf("line %d: %s", s.Line, s.Reason)
}

// needsKeeping reports whether something of the file was not imported.
func (r *MarkdownReport) needsKeeping() bool {
	return r.Rejected != "" || len(r.Conflicts) > 0 || len(r.Skipped) > 0
}

// ImportMarkdown reads a person's edits to memory.md back into semantic
// memory, then writes memory.md again from the database. With
// [MarkdownSync] (the default) [Memory.Bootstrap] and [Memory.Flush] do
// this first.
//
// When the file differs from what engram last wrote: an edited line with
// an ID updates that entry (its text, importance, "verified" and tags; the
// text becomes the entry's content when the line showed all of it, and
// its summary when the line showed a summary of longer content); a new
// line without an ID ("- text #tag", or "- (0.80) text [tag]") becomes a
// new semantic entry of importance [MarkdownImportance] unless it gives
// one, tagged with its #tags and [tags]; a removed line archives its
// entry ([Memory.Restore] brings it back); reordering changes nothing. An
// entry changed both in the file and in the database since is a conflict:
// the database wins and the report keeps the file's line. Lines that
// cannot be read are reported with their line numbers, never guessed at;
// while any line's ID cannot be read, no entry is archived (the line may
// be that entry's). A file that cannot be read as a whole (empty, not
// UTF-8, cut short without its last newline, another agent's) imports
// nothing. Whenever something was not imported, the file as it was found
// is kept beside memory.md (see [MarkdownReport].KeptAt). A missing file
// imports nothing and is written again.
//
// It returns an error matching [ErrInvalid] when the Memory writes no
// memory.md, [ErrReadOnly] for a read-only Memory, [ErrClosed] after
// Close, a [*DatabaseError] when SQLite fails and an [*fs.PathError] when
// the file cannot be read or written. The import is one transaction: on
// error nothing of it was applied.
func (m *Memory) ImportMarkdown(ctx context.Context) (MarkdownReport, error) {
	if m.mdPath == "" {
		return MarkdownReport{}, invalid("ImportMarkdown", "the Memory writes no memory.md (see WithMarkdownPath)")
	}
	if m.db.ReadOnly() {
		return MarkdownReport{}, fmt.Errorf("engram: markdown.import: %w", ErrReadOnly)
	}
	m.mdMu.Lock()
	defer m.mdMu.Unlock()
	rep, err := m.importMarkdown(ctx)
	if err != nil {
		return rep, err
	}
	_, err = m.writeMarkdownLocked(ctx)
	return rep, err
}

// ExportMarkdown writes memory.md from the database now, as [Memory.Flush]
// does with [MarkdownSync], and returns its text; with [MarkdownExport]
// it is the only call that writes the file. A person's edits since engram
// last wrote the file are overwritten: call [Memory.ImportMarkdown] first
// to keep them. It returns an error matching [ErrInvalid] when the Memory
// writes no memory.md, [ErrReadOnly] for a read-only Memory, [ErrClosed]
// after Close, a [*DatabaseError] when SQLite fails and an
// [*fs.PathError] when the file cannot be written.
func (m *Memory) ExportMarkdown(ctx context.Context) (string, error) {
	if m.closed.Load() {
		return "", ErrClosed
	}
	if m.mdPath == "" {
		return "", invalid("ExportMarkdown", "the Memory writes no memory.md (see WithMarkdownPath)")
	}
	if m.db.ReadOnly() {
		return "", fmt.Errorf("engram: markdown.export: %w", ErrReadOnly)
	}
	return m.writeMarkdown(ctx)
}

// syncMarkdown imports memory.md's edits when the Memory is in
// MarkdownSync mode, for Bootstrap and Flush; the caller writes the file
// afterwards. What was not imported is logged at warn level (and kept,
// see MarkdownReport.KeptAt).
func (m *Memory) syncMarkdown(ctx context.Context) (*MarkdownReport, error) {
	if m.mdPath == "" || m.cfg.Markdown.Mode != MarkdownSync {
		return nil, nil
	}
	m.mdMu.Lock()
	defer m.mdMu.Unlock()
	rep, err := m.importMarkdown(ctx)
	if err != nil || !rep.Changed {
		return nil, err
	}
	if rep.needsKeeping() {
		m.log.Warn("engram: memory.md: edits not imported", "agent", m.agent, "rejected", rep.Rejected,
			"conflicts", len(rep.Conflicts), "skipped", len(rep.Skipped), "kept", rep.KeptAt)
	}
	return &rep, nil
}

// markdownState is what engram last wrote to memory.md.
type markdownState struct {
	hash  []byte
	lines map[string]string // "entry\x00" + ID or "fact\x00" + ID → the line
}

func lineKey(kind, id string) string { return kind + "\x00" + id }

// readMarkdownState reads what engram last wrote; ok is false when it has
// no record.
func (m *Memory) readMarkdownState(q store.Tx) (st markdownState, ok bool, err error) {
	st.hash, ok, err = store.MarkdownHash(q, m.agent)
	if !ok || err != nil {
		return st, false, err
	}
	st.lines = map[string]string{}
	err = store.EachMarkdownLine(q, m.agent, func(l store.MarkdownLine) error {
		st.lines[lineKey(l.Kind, l.ID)] = l.Line
		return nil
	})
	return st, err == nil, err
}

// recordMarkdown records what writeMarkdown wrote, unless it is recorded
// already.
func (m *Memory) recordMarkdown(ctx context.Context, text []byte, lines []writtenLine) error {
	sum := sha256.Sum256(text)
	var held []byte
	err := m.read(ctx, "markdown.state", func(q store.Tx) (err error) {
		held, _, err = store.MarkdownHash(q, m.agent)
		return err
	})
	if err != nil || bytes.Equal(held, sum[:]) {
		return err
	}
	list := make([]store.MarkdownLine, len(lines))
	for i, l := range lines {
		list[i] = store.MarkdownLine{Kind: l.kind, ID: l.id, Line: l.line}
	}
	now := m.now()
	return m.write(ctx, "markdown.record", func(q store.Tx) error {
		return store.RecordMarkdown(q, m.agent, m.mdPath, sum[:], list, now)
	})
}

// importMarkdown reads memory.md and applies its edits, in one
// transaction; the caller holds mdMu and writes the file again.
func (m *Memory) importMarkdown(ctx context.Context) (MarkdownReport, error) {
	var rep MarkdownReport
	data, err := os.ReadFile(m.mdPath)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("engram: reading memory.md: %w", err)
	}
	var st markdownState
	var known bool
	if err := m.read(ctx, "markdown.state", func(q store.Tx) (err error) {
		st, known, err = m.readMarkdownState(q)
		return err
	}); err != nil {
		return rep, err
	}
	sum := sha256.Sum256(data)
	if known && bytes.Equal(sum[:], st.hash) {
		return rep, nil
	}
	rep.Changed = true
	if !known {
		rep.Rejected = "engram has no record of writing this file (written by an older engram, or copied here): its lines cannot be told from edits"
		return rep, m.keepMarkdown(&rep, data)
	}
	if len(data) > m.cfg.Markdown.MaxFileBytes {
		rep.Rejected = fmt.Sprintf("the file is %d bytes, over Markdown.MaxFileBytes (%d)", len(data), m.cfg.Markdown.MaxFileBytes)
		return rep, m.keepMarkdown(&rep, data)
	}
	file, rej := memorymd.Parse(data, fmt.Sprintf("# Memory of agent %q", m.agent))
	if rej != nil {
		rep.Rejected = rej.Error()
		return rep, m.keepMarkdown(&rep, data)
	}
	now := m.now()
	var plan MarkdownReport
	err = m.write(ctx, "markdown.import", func(q store.Tx) error {
		plan = rep
		// History records the edits as updates, new lines as creations
		// and removed lines as archives, with reason memory.md.
		return recordAs(q, "", markdownSource, func() error {
			return m.applyMarkdown(q, file, st, &plan, now)
		})
	})
	if err != nil {
		return rep, err
	}
	rep = plan
	if len(rep.Updated)+len(rep.Added) > 0 {
		m.embedSoon(ctx)
	}
	return rep, m.keepMarkdown(&rep, data)
}

// keepMarkdown keeps the file as it was found beside memory.md when the
// report says something of it was not imported.
func (m *Memory) keepMarkdown(rep *MarkdownReport, data []byte) error {
	if !rep.needsKeeping() {
		return nil
	}
	rep.KeptAt = m.mdPath + keptSuffix
	if _, err := writeFileAtomic(rep.KeptAt, data); err != nil {
		return fmt.Errorf("engram: keeping memory.md: %w", err)
	}
	return nil
}

// applyMarkdown applies the file's edits in q's transaction and reports
// them in rep.
func (m *Memory) applyMarkdown(q store.Tx, file *memorymd.File, st markdownState, rep *MarkdownReport, now time.Time) error {
	for _, s := range file.Skipped {
		rep.Skipped = append(rep.Skipped, MarkdownSkip{s.Line, s.Text, s.Reason})
	}
	seen, unsure, err := m.applyLines(q, file.Lines, st, rep, now)
	if err != nil {
		return err
	}
	out, err := m.removedLines(q, st, seen, unsure, rep)
	if err != nil {
		return err
	}
	// Lines in the file's order; removed lines (line 0) last.
	slices.SortStableFunc(rep.Skipped, func(a, b MarkdownSkip) int {
		return cmp.Compare(uint(a.Line-1), uint(b.Line-1)) // 0 wraps to the largest
	})
	// History records it as archive, reason memory.md.
	return m.archive(q, semanticKind, out, markdownSource, now)
}

// applyLines applies the file's lines in q's transaction and reports
// them in rep. It returns the keys (see lineKey) of the lines it found
// with a readable ID, and unsure when a line's ID cannot be read (then no
// removal is applied).
func (m *Memory) applyLines(q store.Tx, lines []memorymd.Line, st markdownState, rep *MarkdownReport, now time.Time) (seen map[string]bool, unsure bool, err error) {
	// Lines by ID, and the IDs on more than one line.
	count := map[string]int{}
	for _, l := range lines {
		if l.ID != "" && l.Problem == "" {
			count[lineKey(kindOfLine(l), l.ID)]++
		}
	}
	seen = map[string]bool{}
	for _, l := range lines {
		key := lineKey(kindOfLine(l), l.ID)
		written, wrote := st.lines[key]
		if l.ID != "" && l.Problem == "" {
			seen[key] = true
		}
		if reason, doubt := lineProblem(l, count[key], wrote); reason != "" {
			rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, reason})
			unsure = unsure || doubt
			continue
		}
		if err := m.applyLine(q, l, written, rep, now); err != nil {
			return nil, false, err
		}
	}
	return seen, unsure, nil
}

// lineProblem returns why a line is skipped, or "": a problem reading
// it, its ID on count lines, or an ID engram did not write (wrote is
// false). unsure says the line may hold an ID that cannot be read.
func lineProblem(l memorymd.Line, count int, wrote bool) (reason string, unsure bool) {
	switch {
	case l.Problem != "":
		return l.Problem, strings.Contains(l.Raw, "<!--")
	case l.ID != "" && count > 1:
		return fmt.Sprintf("the ID %q is on %d lines", l.ID, count), true
	case l.ID != "" && !wrote:
		return fmt.Sprintf("the ID %q is not one engram wrote to this file (changed by hand, or copied from elsewhere)", l.ID), true
	}
	return "", false
}

// applyLine applies one readable line, written being the line engram
// wrote with its ID.
func (m *Memory) applyLine(q store.Tx, l memorymd.Line, written string, rep *MarkdownReport, now time.Time) error {
	if l.Fact && (l.ID != "" || strings.Contains(l.Body, " | ")) {
		if l.ID == "" || l.Raw != written {
			rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, "the Facts section is read-only: change facts with Facts.Assert and Facts.Retract"})
		}
		return nil
	}
	switch {
	case l.ID == "":
		return m.addMarkdownEntry(q, l, rep, now)
	case l.Raw == written:
		return nil // as engram wrote it: no edit
	}
	return m.editMarkdownEntry(q, l, written, rep, now)
}

// removedLines reports the lines engram wrote that are not in the file
// (not seen), in a stable order, and returns the entries to archive: none
// when unsure, or when the database changed the entry since.
func (m *Memory) removedLines(q store.Tx, st markdownState, seen map[string]bool, unsure bool, rep *MarkdownReport) ([]leaving, error) {
	var gone []string
	for key := range st.lines {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	var out []leaving
	for _, key := range gone {
		kind, id, _ := strings.Cut(key, "\x00")
		written := st.lines[key]
		if kind == "fact" {
			rep.Skipped = append(rep.Skipped, MarkdownSkip{0, written, "a removed fact line: the Facts section is read-only, the fact still holds (retract it with Facts.Retract)"})
			continue
		}
		if unsure {
			rep.Skipped = append(rep.Skipped, MarkdownSkip{0, written, "a removed line, not archived: another line's ID cannot be read, and may be this entry's"})
			continue
		}
		e, err := m.semantic.one(q, id)
		if errors.Is(err, ErrNotFound) {
			continue // gone from the database too
		}
		if err != nil {
			return nil, err
		}
		if now := entryLine(e); now != written {
			rep.Conflicts = append(rep.Conflicts, MarkdownConflict{ID: id, Database: now})
			continue
		}
		pk, found, err := store.RowPK(q, semanticKind.Kind, m.agent, id)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, notFound("semantic entry", id)
		}
		out = append(out, leaving{PK: pk})
		rep.Archived = append(rep.Archived, id)
	}
	return out, nil
}

func kindOfLine(l memorymd.Line) string {
	if l.Fact {
		return "fact"
	}
	return "entry"
}

// addMarkdownEntry stores a new line as a new semantic entry.
func (m *Memory) addMarkdownEntry(q store.Tx, l memorymd.Line, rep *MarkdownReport, now time.Time) error {
	e, err := memorymd.ParseEntry(l.Body, true)
	if err != nil {
		rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, err.Error()})
		return nil
	}
	entry := SemanticEntry{Content: e.Text, Importance: MarkdownImportance, Verified: e.Verified, Tags: e.Tags, Source: markdownSource}
	if e.HasImportance {
		entry.Importance = e.Importance
		if e.Importance == 0 {
			entry.Importance = 0.01 // 0 would mean "unset"
		}
	}
	row, err := m.semantic.prepare("line", entry, now)
	var inv *InvalidError
	if errors.As(err, &inv) {
		rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, inv.Error()})
		return nil
	}
	if err != nil {
		return err
	}
	stored, err := m.semantic.insertNew(q, row, now)
	if err != nil {
		return err
	}
	if !stored {
		rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, "semantic memory holds this text already"})
		return nil
	}
	rep.Added = append(rep.Added, row.ID)
	return nil
}

// editMarkdownEntry applies an edited line, field by field, unless the
// database changed the entry since engram wrote the line (a conflict: the
// database wins).
func (m *Memory) editMarkdownEntry(q store.Tx, l memorymd.Line, written string, rep *MarkdownReport, now time.Time) error {
	cur, err := m.semantic.one(q, l.ID)
	if errors.Is(err, ErrNotFound) {
		rep.Conflicts = append(rep.Conflicts, MarkdownConflict{Line: l.Num, ID: l.ID, File: l.Raw})
		return nil
	}
	if err != nil {
		return err
	}
	if dbLine := entryLine(cur); dbLine != written {
		if dbLine != l.Raw {
			rep.Conflicts = append(rep.Conflicts, MarkdownConflict{Line: l.Num, ID: l.ID, File: l.Raw, Database: dbLine})
		}
		return nil
	}
	was, err := memorymd.ParseEntry(bodyOf(written), false)
	if err != nil {
		// engram wrote a line it cannot read back as fields (its text
		// is all brackets, say): an edit of it cannot be told apart.
		rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, "engram cannot read back the line it wrote for this entry: " + err.Error()})
		return nil
	}
	now2, err := memorymd.ParseEntry(l.Body, false)
	if err != nil {
		rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, err.Error()})
		return nil
	}
	var patch SemanticPatch
	if now2.Text != was.Text {
		if markdownText(cur.Content) == markdownText(cur.Summary) {
			patch.Content = &now2.Text
		} else {
			patch.Summary = &now2.Text
		}
	}
	if now2.HasImportance && now2.Importance != was.Importance {
		patch.Importance = &now2.Importance
	}
	if now2.HasImportance && now2.Verified != was.Verified {
		patch.Verified = &now2.Verified
	}
	if !slices.Equal(now2.Tags, was.Tags) {
		tags := now2.Tags
		if tags == nil {
			tags = []string{}
		}
		patch.Tags = &tags
	}
	if patch == (SemanticPatch{}) {
		return nil // the same fields, written otherwise
	}
	var inv *InvalidError
	if err := m.semantic.validatePatch(patch); errors.As(err, &inv) {
		rep.Skipped = append(rep.Skipped, MarkdownSkip{l.Num, l.Raw, inv.Error()})
		return nil
	} else if err != nil {
		return err
	}
	if _, err := m.semantic.update(q, l.ID, patch, now); err != nil {
		return err
	}
	rep.Updated = append(rep.Updated, l.ID)
	return nil
}

// bodyOf is the body of a line engram wrote: its text between "- " and
// the ID comment.
func bodyOf(line string) string {
	line = strings.TrimPrefix(line, "- ")
	if i := strings.LastIndex(line, " <!-- "); i >= 0 {
		line = line[:i]
	}
	return line
}

package engram_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/engram-go/engram"
)

// engramSentinels are the sentinels of errors.go: every error a call
// returns must match one of them or be a *DatabaseError.
var engramSentinels = []error{
	engram.ErrBadAnswer, engram.ErrNotFound, engram.ErrInvalid, engram.ErrExists, engram.ErrClosed,
	engram.ErrSchemaTooNew, engram.ErrTierUnsupported, engram.ErrEmbedding, engram.ErrInvalidQuery,
}

// checkNamedError fails t unless err is nil, matches one of engram's
// sentinels, or is a *DatabaseError that is not SQLite's plain "SQL logic
// error" (SQLITE_ERROR), which is what a query engram built wrongly from
// the caller's input gives.
func checkNamedError(t *testing.T, call string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range engramSentinels {
		if errors.Is(err, s) {
			return
		}
	}
	var de *engram.DatabaseError
	if !errors.As(err, &de) {
		t.Fatalf("%s: an error that is neither a sentinel nor a *DatabaseError: %T %v", call, err, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_ERROR {
		t.Fatalf("%s: a raw SQL error: %v", call, err)
	}
}

// fuzzPieces cuts text into the strings the operations use, at '|'.
func fuzzPieces(text string) []string {
	p := strings.Split(text, "|")
	for i, s := range p {
		if len(s) > 300 {
			p[i] = s[:300]
		}
	}
	return p
}

// FuzzAPI drives a sequence of public calls on an in-memory Tier 1 memory
// from the fuzzer's bytes: stores, batches, updates, deletes, gets, and
// searches plain, Advanced and filtered, with fuzzed text and IDs. No call
// panics, every error is a named one and the database is intact after.
func FuzzAPI(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 3, 2, 4, 3, 1, 0, 2, 0}, "the deploy runs from the blue pipeline|deploy|\"deploy\" AND blue|NEAR(deploy pipeline)|ops")
	f.Add([]byte{8, 0, 7, 0, 5, 1, 9, 2, 4, 1, 4, 2, 4, 3}, "my-id|deploy*|\"unclosed|a OR|NOT b|(x AND|*|^x|col:val|")
	f.Add([]byte{0, 1, 6, 2, 3, 0, 1, 0, 2, 0, 3, 0}, "café ☕ naïve|ＦＵＬＬ|\x00nul|日本語のテキスト|emoji 🎉🎉")
	f.Add([]byte{9, 0, 4, 1, 4, 2, 4, 3, 4, 4}, "a b c|a AND|OR|\"\"|a NEAR/2 b|NEAR(a b, 5)|{a b}:c")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		pieces := fuzzPieces(text)
		// A hang is a failure too: the fuzzer saves the input that panics.
		wd := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("FuzzAPI hangs on %q %q", ops, text)) })
		defer wd.Stop()
		piece := func(b byte) string { return pieces[int(b)%len(pieces)] }
		ctx := context.Background()
		m, err := engram.New(engram.Tier1, engram.InMemory())
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		var ids []string
		id := func(b byte) string {
			if len(ids) == 0 || b&0x80 != 0 {
				return piece(b) // a fuzzed ID
			}
			return ids[int(b)%len(ids)]
		}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%11, ops[i+1]
			s := piece(arg)
			switch op {
			case 0:
				got, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: s, Importance: 0.5, Tags: []string{piece(arg + 1)}})
				checkNamedError(t, "Store", err)
				if err == nil {
					ids = append(ids, got)
				}
			case 1:
				_, err := m.Semantic().Update(ctx, id(arg), engram.SemanticPatch{Content: &s})
				checkNamedError(t, "Update", err)
			case 2:
				checkNamedError(t, "Delete", m.Semantic().Delete(ctx, id(arg)))
			case 3:
				_, err := m.Search(ctx, engram.SearchOptions{Query: s})
				checkNamedError(t, "Search", err)
			case 4:
				// Advanced expressions are kept short: a long one against
				// long contents is issue 12 item 3 (unbounded queries).
				q := s
				if len(q) > 64 {
					q = q[:64]
				}
				_, err := m.Search(ctx, engram.SearchOptions{Query: q, Advanced: true})
				checkNamedError(t, "Search Advanced", err)
			case 5:
				_, err := m.Search(ctx, engram.SearchOptions{Query: s, Tags: []string{piece(arg + 1)},
					Types: []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic}})
				checkNamedError(t, "Search Tags", err)
			case 6:
				_, err := m.Episodic().Log(ctx, engram.Episode{Content: s, SessionID: piece(arg + 1)})
				checkNamedError(t, "Log", err)
			case 7:
				_, err := m.Semantic().Get(ctx, id(arg))
				checkNamedError(t, "Get", err)
			case 8:
				got, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: s, Content: piece(arg + 1), Importance: 0.7})
				checkNamedError(t, "Store with ID", err)
				if err == nil {
					ids = append(ids, got)
				}
			case 9:
				var batch []engram.SemanticEntry
				for k := range int(arg%4) + 1 {
					batch = append(batch, engram.SemanticEntry{Content: piece(arg + byte(k)), Importance: 0.4})
				}
				got, err := m.Semantic().StoreBatch(ctx, batch)
				checkNamedError(t, "StoreBatch", err)
				if err == nil {
					ids = append(ids, got...)
				}
			case 10:
				_, err := m.Rules().Match(ctx, []engram.Message{{Role: "user", Content: s}})
				checkNamedError(t, "Rules.Match", err)
			}
		}
		if err := m.CheckIntegrity(ctx); err != nil {
			t.Fatalf("CheckIntegrity after the calls: %v", err)
		}
	})
}

// markdownLine is how memory.md writes a text: on one line, whitespace
// collapsed, unable to open or close an HTML comment.
func markdownLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("-->", "--&gt;", "<!--", "&lt;!--").Replace(s)
}

// FuzzMarkdown renders memory.md (through Bootstrap, which returns its
// text) for entries with fuzzed contents, tags and IDs: no panic, the file
// keeps to MaxMarkdownLines, each entry shown has its own line with its
// summary, and each line's ID comment reads back as the entry's ID.
func FuzzMarkdown(f *testing.F) {
	f.Add("the deploy runs from CI|ops|id-1|second entry\nwith two lines|a, b|id-2", uint8(3), uint8(10))
	f.Add("<!-- not a comment -->|--> x|weird|  spaced   out  |tag with space|x", uint8(6), uint8(12))
	f.Add("é|ü|ß|🎉 party|🎉|id🎉", uint8(20), uint8(10))
	f.Fuzz(func(t *testing.T, text string, n, lines uint8) {
		pieces := fuzzPieces(text)
		cfg := engram.DefaultConfig()
		cfg.Semantic.MaxMarkdownLines = 10 + int(lines)%30
		ctx := context.Background()
		m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithConfig(cfg))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		stored := storeMarkdownEntries(t, ctx, m, pieces, int(n%40))
		b, err := m.Bootstrap(ctx)
		if err != nil {
			t.Fatalf("Bootstrap: %v", err)
		}
		checkMarkdown(t, b.SemanticContext, cfg.Semantic.MaxMarkdownLines, stored)
	})
}

// storeMarkdownEntries stores count semantic entries made of pieces (every
// third with an ID of its own) and returns them by ID as read back. A
// Store that fails must fail with a named error, and with ErrInvalid or
// ErrExists unless it returned an ID; the entry is then stored once more
// without its tags, and left out if that fails too.
func storeMarkdownEntries(t *testing.T, ctx context.Context, m *engram.Memory, pieces []string, count int) map[string]engram.SemanticEntry {
	t.Helper()
	stored := map[string]engram.SemanticEntry{}
	for i := range count {
		e := engram.SemanticEntry{
			Content:    pieces[i%len(pieces)] + fmt.Sprintf(" #%d", i),
			Tags:       []string{pieces[(i+1)%len(pieces)]},
			Importance: float64(i%10) / 10,
		}
		if i%3 == 0 {
			e.ID = pieces[(i+2)%len(pieces)] + fmt.Sprint(i)
		}
		id, err := m.Semantic().Store(ctx, e)
		if err != nil {
			checkNamedError(t, "Store", err)
			if id == "" && !errors.Is(err, engram.ErrInvalid) && !errors.Is(err, engram.ErrExists) {
				t.Fatalf("Store: %v", err)
			}
			e.Tags = nil // a tag engram refuses: store without it
			if id, err = m.Semantic().Store(ctx, e); err != nil {
				continue
			}
		}
		got, err := m.Semantic().Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%q): %v", id, err)
		}
		stored[id] = got
	}
	return stored
}

// checkMarkdown checks the memory.md text md against the stored entries:
// at most maxLines lines, each entry line as checkMarkdownEntry wants, as
// many entry lines as there are entries or room for (maxLines-4), and,
// where all fit, every entry shown.
func checkMarkdown(t *testing.T, md string, maxLines int, stored map[string]engram.SemanticEntry) {
	t.Helper()
	all := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if len(all) > maxLines {
		t.Fatalf("memory.md has %d lines, more than MaxMarkdownLines %d:\n%s", len(all), maxLines, md)
	}
	shown := map[string]bool{}
	items := 0
	for _, line := range all {
		if !strings.HasPrefix(line, "- (") {
			continue
		}
		items++
		checkMarkdownEntry(t, line, stored, shown)
	}
	if room := maxLines - 4; items != min(len(stored), room) {
		t.Fatalf("%d entries and room for %d, but %d lines of entries:\n%s", len(stored), room, items, md)
	}
	if len(stored) <= maxLines-4 {
		for id := range stored {
			if !shown[id] {
				t.Fatalf("entry %q (%q) is missing from memory.md:\n%s", id, stored[id].Content, md)
			}
		}
	}
}

// checkMarkdownEntry checks one entry line of memory.md: it ends in an ID
// comment that reads back as the ID of a stored entry not shown before
// (recorded in shown), and holds that entry's summary, which comes from its
// content; the comment is one engram writes, which no ID ends or opens.
func checkMarkdownEntry(t *testing.T, line string, stored map[string]engram.SemanticEntry, shown map[string]bool) {
	t.Helper()
	rest, ok := strings.CutSuffix(line, " -->")
	i := strings.LastIndex(rest, " <!-- id:")
	if !ok || i < 0 {
		t.Fatalf("line without its ID comment: %q", line)
	}
	raw := rest[i+len(" <!-- id:"):]
	id, ok := engram.ParseCommentID(raw)
	if !ok || strings.Contains(raw, "-->") || strings.Contains(rest[:i], "<!--") {
		t.Fatalf("the ID comment of %q is not one engram writes (an ID must not end or open its comment)", line)
	}
	e, ok := stored[id]
	if !ok {
		t.Fatalf("the ID comment of %q reads back as %q, no stored entry's ID", line, id)
	}
	if shown[id] {
		t.Fatalf("entry %q shown twice", id)
	}
	shown[id] = true
	if !strings.Contains(rest[:i], markdownLine(e.Summary)) {
		t.Fatalf("line %q lacks the summary %q of %q", line, markdownLine(e.Summary), e.Content)
	}
	if want := strings.Join(strings.Fields(e.Content), " "); !strings.HasPrefix(want, strings.TrimSuffix(e.Summary, "…")) && !strings.Contains(e.Content, "\n") {
		t.Fatalf("summary %q does not come from content %q", e.Summary, e.Content)
	}
}

// FuzzFacts asserts facts of fuzzed parts, times and strengths, with
// retractions, aliases and reads between, on an in-memory Tier 1 memory.
// An assertion is either rejected with an error matching ErrInvalid,
// writing nothing, or stored and readable by its ID; reads fail only on
// bad input; the database is intact after.
func FuzzFacts(f *testing.F) {
	day := int64(24 * time.Hour / time.Millisecond)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	f.Add([]byte{0, 0, 0, 1, 0, 2, 1, 0, 2, 3, 3, 0}, "Ada|lives in|London|Paris|ada|resides in", base-300*day, base-100*day, 1.0)
	f.Add([]byte{0, 3, 4, 0, 0, 9, 2, 1, 3, 5}, "User|likes|tea|tea|Ada Lovelace|Ada|is employed by|Initech", base, base+day, 0.0)
	f.Add([]byte{4, 0, 0, 1, 3, 2}, "café ☕|→|\xff|a\nb|  |x", int64(-1)<<62, int64(1)<<62, math.NaN())
	f.Add([]byte{0, 0, 0, 129, 1, 1, 1, 129}, "Ada|works at|Globex|Hooli|Umbrella", base-day, base-2*day, math.Inf(1))
	f.Fuzz(func(t *testing.T, ops []byte, text string, from, to int64, strength float64) {
		if len(ops) > 48 {
			ops = ops[:48]
		}
		pieces := fuzzPieces(text)
		piece := func(b byte) string { return pieces[int(b)%len(pieces)] }
		wd := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("FuzzFacts hangs on %q %q", ops, text)) })
		defer wd.Stop()
		now := time.UnixMilli(base)
		ctx := context.Background()
		m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(func() time.Time { return now }))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		facts := m.Facts()
		count := func() int {
			st, err := m.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return st.Facts
		}
		var ids []string
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%5, ops[i+1]
			switch op {
			case 0, 4:
				fact := engram.Fact{Subject: piece(arg), Predicate: piece(arg + 1), Object: piece(arg + 2), Strength: strength}
				// The high bit of arg picks fuzzed times, else days around now.
				if arg&0x80 != 0 {
					fact.ValidFrom, fact.ValidTo = time.UnixMilli(from), time.UnixMilli(to)
				} else if arg&1 != 0 {
					fact.ValidFrom = now.Add(time.Duration(int(arg)-64) * 24 * time.Hour)
				}
				if op == 4 {
					fact.ID = piece(arg + 3)
				}
				before := count()
				a, err := facts.Assert(ctx, fact)
				switch {
				case err == nil:
					if _, err := facts.Get(ctx, a.Fact.ID); err != nil {
						t.Fatalf("Assert %+v stored %s, which Get cannot find: %v", fact, a.Fact.ID, err)
					}
					ids = append(ids, a.Fact.ID)
				case errors.Is(err, engram.ErrInvalid), op == 4 && errors.Is(err, engram.ErrExists):
					if after := count(); after != before {
						t.Fatalf("Assert %+v failed (%v) but the facts went from %d to %d", fact, err, before, after)
					}
				default:
					t.Fatalf("Assert %+v: %v, not ErrInvalid", fact, err)
				}
			case 1:
				if len(ids) == 0 {
					continue
				}
				at := time.Time{}
				if arg&1 != 0 {
					at = time.UnixMilli(to)
				}
				_, err := facts.Retract(ctx, ids[int(arg)%len(ids)], at)
				if err != nil && !errors.Is(err, engram.ErrInvalid) {
					t.Fatalf("Retract: %v", err)
				}
			case 2:
				if err := facts.Alias(ctx, piece(arg), piece(arg+1)); err != nil && !errors.Is(err, engram.ErrInvalid) {
					t.Fatalf("Alias: %v", err)
				}
			case 3:
				fq := engram.FactQuery{Entity: piece(arg), Predicate: piece(arg + 1), Limit: int(arg)}
				_, err := facts.AsOf(ctx, time.UnixMilli(from), fq)
				checkNamedError(t, "AsOf", err)
				_, err = facts.KnownAt(ctx, time.UnixMilli(to), fq)
				checkNamedError(t, "KnownAt", err)
				_, err = facts.History(ctx, piece(arg), piece(arg+1))
				checkNamedError(t, "History", err)
				_, err = m.Search(ctx, engram.SearchOptions{Query: piece(arg), Types: []engram.MemoryType{engram.TypeFact}})
				checkNamedError(t, "Search", err)
			}
		}
		if err := m.CheckIntegrity(ctx); err != nil {
			t.Fatalf("integrity: %v", err)
		}
	})
}

// FuzzMarkdownImport writes fuzzed text as memory.md (seeded with the
// file engram wrote and edits of it) and imports it: no panic and no
// error; a rejected file changes nothing; no entry is ever lost (each one
// stored before is still there or in the archive); every added entry
// exists; and the file written again after the import reads back as no
// edit.
func FuzzMarkdownImport(f *testing.F) {
	ctx := context.Background()
	base := func(t testing.TB) (*engram.Memory, string) {
		dir := t.TempDir()
		md := filepath.Join(dir, "memory.md")
		m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithAgent("fuzz"), engram.WithMarkdownPath(md))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []string{"The deploy runs from CI only", "Postgres listens on 6432\nvia pgbouncer", "tabs --> spaces <!-- x", "Lunch is at noon"} {
			if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: fmt.Sprintf("e%d", i), Content: c, Importance: 0.9 - float64(i)/10, Tags: []string{"t" + fmt.Sprint(i%2)}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.Facts().Assert(ctx, engram.Fact{ID: "f1", Subject: "Ada", Predicate: "lives in", Object: "London"}); err != nil {
			t.Fatal(err)
		}
		if err := m.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		return m, md
	}
	m0, md0 := base(f)
	written, err := os.ReadFile(md0)
	if err != nil {
		f.Fatal(err)
	}
	m0.Close()
	w := string(written)
	f.Add(w)
	f.Add(strings.Replace(w, "(0.90)", "(0.20)", 1))
	f.Add(strings.Replace(w, "Lunch is at noon", "Lunch is at one", 1) + "- a new line #new\n")
	f.Add(strings.Replace(w, "id:e1", "id:e2", 1))
	f.Add(w[:len(w)/2])
	f.Add(strings.Replace(w, "London", "Paris", 1))
	f.Add(w + "\n```\n- code\n```\n\n- nested\n  - child\n\n<div>x</div>\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, md := base(t)
		defer m.Close()
		before := dumpMemory(t, m)
		ids := entryIDs(t, m)
		if err := os.WriteFile(md, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := m.ImportMarkdown(ctx)
		if err != nil {
			t.Fatalf("ImportMarkdown: %v", err)
		}
		if rep.Rejected != "" || !rep.Changed {
			if after := dumpMemory(t, m); after != before {
				t.Fatalf("a rejected or unchanged file changed the memory (%q):\nbefore %s\nafter  %s", rep.Rejected, before, after)
			}
		}
		after := entryIDs(t, m)
		for id := range ids {
			if !after[id] {
				// Not live: it must be in the archive.
				if err := m.Restore(ctx, id); err != nil {
					t.Fatalf("entry %s is neither live nor restorable: %v", id, err)
				}
			}
		}
		for _, id := range rep.Added {
			if _, err := m.Semantic().Get(ctx, id); err != nil {
				t.Fatalf("added %s: %v", id, err)
			}
		}
		if err := m.CheckIntegrity(ctx); err != nil {
			t.Fatal(err)
		}
		again, err := m.ImportMarkdown(ctx)
		if err != nil || again.Changed {
			t.Fatalf("the file written again reads back as an edit: %+v, %v", again, err)
		}
	})
}

// dumpMemory is the agent's entries and counts, to compare.
func dumpMemory(t *testing.T, m *engram.Memory) string {
	t.Helper()
	list, err := m.Semantic().List(context.Background(), engram.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%+v %+v", list, st)
}

func entryIDs(t *testing.T, m *engram.Memory) map[string]bool {
	t.Helper()
	list, err := m.Semantic().List(context.Background(), engram.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range list {
		out[e.ID] = true
	}
	return out
}

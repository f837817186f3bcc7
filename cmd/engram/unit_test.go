package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/gemini"
)

// TestExitCode checks how errors map to the documented exit codes.
func TestExitCode(t *testing.T) {
	ran := func(err error) error { return ranError{err} }
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"cobra's own error", errors.New(`unknown flag: --bogus`), exitUsage},
		{"usage", ran(usagef("--kind %q", "x")), exitUsage},
		{"invalid input", ran(fmt.Errorf("add: %w", engram.ErrInvalid)), exitUsage},
		{"invalid query", ran(engram.ErrInvalidQuery), exitUsage},
		{"tier", ran(engram.ErrTierUnsupported), exitUsage},
		{"not found", ran(engram.ErrNotFound), exitNotFound},
		{"no database", ran(notFoundf("no database")), exitNotFound},
		{"corrupt", ran(&engram.DatabaseError{Op: "open", Err: engram.ErrCorrupt}), exitDamaged},
		{"not engram", ran(engram.ErrNotEngram), exitDamaged},
		{"too new", ran(engram.ErrSchemaTooNew), exitDamaged},
		{"check failed", ran(damaged{errors.New("row 3 missing from index")}), exitDamaged},
		{"exists", ran(engram.ErrExists), exitConflict},
		{"file exists", ran(fmt.Errorf("export: %w", fs.ErrExist)), exitConflict},
		{"permission", ran(&engram.DatabaseError{Op: "open", Err: fs.ErrPermission}), exitFailure},
		{"busy", ran(engram.ErrBusy), exitFailure},
		{"hinted keeps its code", ran(hint(engram.ErrNotFound, "look elsewhere")), exitNotFound},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exit code %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestDescribe checks the shape of error messages: one "engram: " prefix
// and what to do after the last colon.
func TestDescribe(t *testing.T) {
	err := ranError{&engram.DatabaseError{Op: "open", Err: fs.ErrPermission}}
	code, msg := describe(nil, err, false)
	if code != exitFailure || strings.Count(msg, "engram:") != 1 || !strings.Contains(msg, "check the permissions") {
		t.Errorf("describe = %d, %q", code, msg)
	}
}

// TestProgress checks that a bar draws nothing when its writer is not a
// terminal, and what it draws on one.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "import", 100)
	p.set(50, 0)
	p.done()
	if buf.Len() != 0 {
		t.Errorf("a bar on a buffer drew %q", buf.String())
	}

	p = &progress{w: &buf, label: "import", total: 2048}
	p.bytes().add(1024)
	if got, want := buf.String(), "\rimport [===============>              ]  50%  1.0 KB / 2.0 KB\x1b[K"; got != want {
		t.Errorf("bar = %q, want %q", got, want)
	}
	p.add(1024) // within 100 ms of the last drawing: not drawn
	if strings.Count(buf.String(), "\r") != 1 {
		t.Errorf("the bar was drawn again within 100 ms: %q", buf.String())
	}
	p.done()
	if !strings.HasSuffix(buf.String(), "100%  2.0 KB / 2.0 KB\x1b[K\n") {
		t.Errorf("done drew %q", buf.String())
	}

	buf.Reset()
	p = &progress{w: &buf, label: "export"}
	p.bytes().add(3 << 20)
	if got, want := buf.String(), "\rexport  3.0 MB\x1b[K"; got != want {
		t.Errorf("a bar without total = %q, want %q", got, want)
	}
}

// TestParseTime checks the times the command line takes.
func TestParseTime(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-05-01":           time.Date(2026, 5, 1, 0, 0, 0, 0, time.Local),
		"2026-05-01T15:04":     time.Date(2026, 5, 1, 15, 4, 0, 0, time.Local),
		"2026-05-01T15:04:05Z": time.Date(2026, 5, 1, 15, 4, 5, 0, time.UTC),
		"7d":                   now.AddDate(0, 0, -7),
		"36h":                  now.Add(-36 * time.Hour),
	} {
		got, err := parseTime(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "-3d", "7x", "2026-13-01"} {
		if _, err := parseTime(in, now); err == nil {
			t.Errorf("parseTime(%q) accepted it", in)
		}
	}
}

// TestLLMs checks what --llm makes: gemini with its key from
// GEMINI_API_KEY (or GOOGLE_API_KEY) and its default model and server.
func TestLLMs(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "google-key")
	llm, err := (&serverFlags{llm: "gemini"}).newLLM()
	if err != nil {
		t.Fatal(err)
	}
	want := &gemini.Chat{BaseURL: gemini.DefaultBaseURL, APIKey: "google-key", Model: gemini.DefaultChatModel}
	if got, ok := llm.(*gemini.Chat); !ok || *got != *want {
		t.Errorf("--llm gemini made %#v, want %#v", llm, want)
	}
	t.Setenv("GEMINI_API_KEY", "gemini-key")
	llm, err = (&serverFlags{llm: "gemini", llmURL: "http://localhost:1", llmModel: "m"}).newLLM()
	want = &gemini.Chat{BaseURL: "http://localhost:1", APIKey: "gemini-key", Model: "m"}
	if got, ok := llm.(*gemini.Chat); err != nil || !ok || *got != *want {
		t.Errorf("--llm gemini with flags made %#v, %v; want %#v", llm, err, want)
	}
	if _, err := (&serverFlags{llm: "bard"}).newLLM(); !errors.As(err, new(usageError)) {
		t.Errorf("--llm bard: %v, want a usage error", err)
	}
}

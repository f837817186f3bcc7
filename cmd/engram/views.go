package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// memoryView is a memory of any kind as people see it: the fields of its
// kind's view (memview.Of, which --json prints, as every transport shows
// it), under the same names, flat, with the text it is shown by in
// Content.
type memoryView struct {
	Type        engram.MemoryType `json:"type"`
	ID          string            `json:"id"`
	Content     string            `json:"content"`
	Summary     string            `json:"summary"`
	Importance  float64           `json:"importance"`
	Verified    bool              `json:"verified"`
	Source      string            `json:"source"`
	AccessCount int               `json:"access_count"`
	EventType   engram.EventType  `json:"event_type"`
	TaskID      string            `json:"task_id"`
	UserID      string            `json:"user_id"`
	SessionID   string            `json:"session_id"`
	Metadata    map[string]any    `json:"metadata"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Steps       string            `json:"pattern"`
	SuccessRate float64           `json:"success_rate"`
	UseCount    int               `json:"use_count"`
	Disabled    bool              `json:"disabled"`
	Subject     string            `json:"subject"`
	Predicate   string            `json:"predicate"`
	Object      string            `json:"object"`
	ValidFrom   time.Time         `json:"valid_from"`
	ValidTo     time.Time         `json:"valid_to"`
	RecordedAt  time.Time         `json:"recorded_at"`
	Strength    float64           `json:"strength"`
	Sources     []string          `json:"sources"`
	Heading     string            `json:"heading"`
	Title       string            `json:"title"`
	Also        []string          `json:"also"`
	Tags        []string          `json:"tags"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	Retrievals  int               `json:"retrievals"`
}

// recordView returns the memory r holds as people see it: its view
// (memview.Of) read into a memoryView. A fact is shown by its triple, a
// session snapshot by its summary.
func recordView(r engram.Record) (memoryView, error) {
	v := memoryView{Type: r.Type}
	b, err := json.Marshal(memview.Of(r))
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, err
	}
	switch v.Type {
	case engram.TypeFact:
		v.Content = v.Subject + " " + v.Predicate + " " + v.Object
	case engram.TypeSnapshot:
		v.Content = v.Summary
	}
	return v, nil
}

// writeMemory prints the memory r holds for people, one field a line.
func writeMemory(w io.Writer, r engram.Record) error {
	v, err := recordView(r)
	if err != nil {
		return err
	}
	t := newTable(w)
	field := func(name string, value any, show bool) {
		if show {
			t.row(name+":", value)
		}
	}
	field("type", v.Type, true)
	field("id", v.ID, true)
	field("name", v.Name, v.Name != "")
	field("subject", v.Subject, v.Subject != "")
	field("predicate", v.Predicate, v.Predicate != "")
	field("object", v.Object, v.Object != "")
	multiline := func(s string) bool { return strings.Contains(s, "\n") }
	field("content", v.Content, v.Content != "" && v.Type != engram.TypeFact && !multiline(v.Content))
	field("description", v.Description, v.Description != "")
	field("steps", v.Steps, v.Steps != "" && !multiline(v.Steps))
	field("importance", v.Importance, v.Type == engram.TypeSemantic)
	field("verified", v.Verified, v.Verified)
	field("event", v.EventType, v.EventType != "")
	field("task", v.TaskID, v.TaskID != "")
	field("user", v.UserID, v.UserID != "")
	field("session", v.SessionID, v.SessionID != "")
	field("metadata", metadataText(v.Metadata), len(v.Metadata) > 0)
	field("success rate", v.SuccessRate, v.Type == engram.TypeProcedural)
	field("uses", v.UseCount, v.Type == engram.TypeProcedural)
	field("disabled", v.Disabled, v.Disabled)
	field("valid from", when(v.ValidFrom), v.Type == engram.TypeFact)
	field("valid to", when(v.ValidTo), !v.ValidTo.IsZero())
	field("strength", v.Strength, v.Strength != 0)
	field("sources", strings.Join(v.Sources, ", "), len(v.Sources) > 0)
	field("source", v.Source, v.Source != "")
	field("heading", v.Heading, v.Heading != "")
	field("title", v.Title, v.Title != "")
	field("also", strings.Join(v.Also, "; "), len(v.Also) > 0)
	field("tags", strings.Join(v.Tags, ", "), len(v.Tags) > 0)
	field("accesses", v.AccessCount, v.AccessCount > 0)
	field("retrievals", v.Retrievals, v.Retrievals > 0)
	field("created", when(v.CreatedAt), !v.CreatedAt.IsZero())
	field("updated", when(v.UpdatedAt), !v.UpdatedAt.IsZero() && !v.UpdatedAt.Equal(v.CreatedAt))
	if err := t.flush(); err != nil {
		return err
	}
	// Text of several lines follows the fields, as it is.
	for _, block := range []struct{ name, text string }{{"content", v.Content}, {"steps", v.Steps}} {
		if multiline(block.text) {
			fmt.Fprintf(w, "\n%s:\n%s\n", block.name, strings.TrimRight(block.text, "\n"))
		}
	}
	return nil
}

// metadataText is metadata for people: its JSON, keys sorted.
func metadataText(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return fmt.Sprint(m)
	}
	return strings.TrimSpace(b.String())
}

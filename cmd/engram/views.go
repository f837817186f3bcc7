package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/engram-go/engram"
)

// memoryView is a memory of any kind as --json prints it: its kind, ID and
// text, and the fields of its kind. The field names are the command's
// own, kept stable whatever the library's types become.
type memoryView struct {
	Type    engram.MemoryType `json:"type"`
	ID      string            `json:"id"`
	Content string            `json:"content,omitempty"`

	// semantic
	Summary        string    `json:"summary,omitempty"`
	Importance     float64   `json:"importance,omitempty"`
	Verified       bool      `json:"verified,omitempty"`
	Source         string    `json:"source,omitempty"`
	AccessCount    int       `json:"accessCount,omitempty"`
	LastAccessedAt time.Time `json:"lastAccessedAt,omitzero"`
	Resonance      float64   `json:"resonance,omitempty"`
	MergedFrom     []string  `json:"mergedFrom,omitempty"`

	// episodic
	EventType  engram.EventType `json:"eventType,omitempty"`
	TaskID     string           `json:"taskId,omitempty"`
	Cost       float64          `json:"cost,omitempty"`
	DurationMS int64            `json:"durationMs,omitempty"`

	// the scope below the agent: semantic, episodic, procedural (a
	// snapshot has a session, a fact metadata)
	UserID    string         `json:"userId,omitempty"`
	SessionID string         `json:"sessionId,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`

	// procedural
	Name        string  `json:"name,omitempty"`
	Description string  `json:"description,omitempty"`
	Steps       string  `json:"steps,omitempty"`
	SuccessRate float64 `json:"successRate,omitempty"`
	UseCount    int     `json:"useCount,omitempty"`
	Disabled    bool    `json:"disabled,omitempty"`

	// fact
	Subject    string    `json:"subject,omitempty"`
	Predicate  string    `json:"predicate,omitempty"`
	Object     string    `json:"object,omitempty"`
	ValidFrom  time.Time `json:"validFrom,omitzero"`
	ValidTo    time.Time `json:"validTo,omitzero"`
	RecordedAt time.Time `json:"recordedAt,omitzero"`
	ExpiredAt  time.Time `json:"expiredAt,omitzero"`
	Strength   float64   `json:"strength,omitempty"`
	Sources    []string  `json:"sources,omitempty"`

	// document
	Heading string   `json:"heading,omitempty"`
	Title   string   `json:"title,omitempty"`
	Also    []string `json:"also,omitempty"`

	Tags       []string  `json:"tags,omitempty"`
	CreatedAt  time.Time `json:"createdAt,omitzero"`
	UpdatedAt  time.Time `json:"updatedAt,omitzero"`
	Retrievals int       `json:"retrievals,omitempty"`
}

func semanticView(e engram.SemanticEntry) memoryView {
	return memoryView{Type: engram.TypeSemantic, ID: e.ID, Content: e.Content, Summary: e.Summary,
		Importance: e.Importance, Verified: e.Verified, Source: e.Source, AccessCount: e.AccessCount,
		LastAccessedAt: e.LastAccessedAt, Resonance: e.Resonance, MergedFrom: e.MergedFrom,
		Tags: e.Tags, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Retrievals: e.Retrievals,
		UserID: e.UserID, SessionID: e.SessionID, Metadata: e.Metadata}
}

// anyMap returns a map of strings as a map of any values (nil for none).
func anyMap(m map[string]string) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func episodeView(e engram.Episode) memoryView {
	return memoryView{Type: engram.TypeEpisodic, ID: e.ID, Content: e.Content, EventType: e.Type,
		TaskID: e.TaskID, SessionID: e.SessionID, Cost: e.Cost, DurationMS: e.Duration.Milliseconds(),
		UserID: e.UserID, Metadata: anyMap(e.Metadata), CreatedAt: e.CreatedAt, Retrievals: e.Retrievals}
}

func procedureView(p engram.Procedure) memoryView {
	return memoryView{Type: engram.TypeProcedural, ID: p.ID, Name: p.Name, Description: p.Description,
		Steps: p.Pattern, SuccessRate: p.SuccessRate, UseCount: p.UseCount, Disabled: p.Disabled,
		Tags: p.Tags, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Retrievals: p.Retrievals,
		UserID: p.UserID, SessionID: p.SessionID, Metadata: p.Metadata}
}

func factView(f engram.Fact) memoryView {
	return memoryView{Type: engram.TypeFact, ID: f.ID, Content: f.String(), Subject: f.Subject,
		Predicate: f.Predicate, Object: f.Object, ValidFrom: f.ValidFrom, ValidTo: f.ValidTo,
		RecordedAt: f.RecordedAt, ExpiredAt: f.ExpiredAt, Strength: f.Strength, Sources: f.Sources,
		Metadata: anyMap(f.Metadata), Retrievals: f.Retrievals}
}

func snapshotView(s engram.SessionSnapshot) memoryView {
	return memoryView{Type: engram.TypeSnapshot, ID: s.ID, Content: s.Summary, SessionID: s.SessionID,
		CreatedAt: s.CreatedAt, Retrievals: s.Retrievals}
}

// recordView returns the view of the memory r holds, of its kind.
func recordView(r engram.Record) memoryView {
	switch {
	case r.Semantic != nil:
		return semanticView(*r.Semantic)
	case r.Episode != nil:
		return episodeView(*r.Episode)
	case r.Procedure != nil:
		return procedureView(*r.Procedure)
	case r.Fact != nil:
		return factView(*r.Fact)
	case r.Snapshot != nil:
		return snapshotView(*r.Snapshot)
	case r.Document != nil:
		return chunkView(*r.Document)
	}
	return memoryView{Type: r.Type}
}

func chunkView(c engram.DocumentChunk) memoryView {
	v := memoryView{Type: engram.TypeDocument, ID: c.ID, Content: c.Content, Source: c.Source,
		Heading: c.Heading, Title: c.Title, Tags: c.Tags, CreatedAt: c.CreatedAt,
		UpdatedAt: c.UpdatedAt, Retrievals: c.Retrievals}
	for _, s := range c.Also {
		v.Also = append(v.Also, s.String())
	}
	return v
}

// writeMemory prints a memory for people, one field a line.
func writeMemory(w io.Writer, v memoryView) error {
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

// Package memview holds the JSON views of engram's stored memories that
// every transport answers with (httpapi's routes, mcpserver's tools, the
// engram CLI's --json and its tables): one view per kind, each naming its
// kind in "type" (semantic, episodic, procedural, fact, snapshot,
// document), with the view of a search result (Result), of a fact walked
// in the graph (Hop), and the forms they take memories in: one to add of
// any kind (Item), a change by ID to a memory of any kind (Patch, Apply),
// a filter (Filter) and a question about facts (FactsAsked). Field names
// are snake_case and stable; times are RFC 3339 in UTC; lists are []
// rather than null. A memory's user, session and metadata (see
// engram.Filter) are "user_id", "session_id" and "metadata", left out
// when empty.
package memview

import (
	"time"

	"github.com/engram-go/engram"
)

// Semantic is a semantic entry.
type Semantic struct {
	Type       engram.MemoryType `json:"type"`
	ID         string            `json:"id"`
	Content    string            `json:"content"`
	Summary    string            `json:"summary"`
	Importance float64           `json:"importance"`
	Verified   bool              `json:"verified"`
	Tags       []string          `json:"tags"`
	Source     string            `json:"source,omitempty"`
	Times
	AccessCount    int        `json:"access_count"`
	LastAccessedAt *time.Time `json:"last_accessed_at,omitempty"`
	Resonance      float64    `json:"resonance"`
	MergedFrom     []string   `json:"merged_from,omitempty"`
	Retrievals     int        `json:"retrievals"`
	Scope
}

// Times are when a memory that may change was stored and last changed,
// in UTC, each left out when zero.
type Times struct {
	CreatedAt *time.Time `json:"created_at,omitempty"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// Scope is the user, session and metadata of a semantic entry or a
// procedure (see engram.Filter), each left out when empty.
type Scope struct {
	User     string         `json:"user_id,omitempty"`
	Session  string         `json:"session_id,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Episode is an episode of the event log.
type Episode struct {
	Type       engram.MemoryType `json:"type"`
	ID         string            `json:"id"`
	Content    string            `json:"content"`
	EventType  engram.EventType  `json:"event_type"`
	TaskID     string            `json:"task_id,omitempty"`
	Cost       float64           `json:"cost"`
	DurationMS int64             `json:"duration_ms"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	CreatedAt  *time.Time        `json:"created_at,omitempty"`
	Retrievals int               `json:"retrievals"`
	User       string            `json:"user_id,omitempty"`
	Session    string            `json:"session_id,omitempty"`
}

// Procedure is a procedure.
type Procedure struct {
	Type        engram.MemoryType `json:"type"`
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Pattern     string            `json:"pattern"`
	SuccessRate float64           `json:"success_rate"`
	UseCount    int               `json:"use_count"`
	Tags        []string          `json:"tags"`
	Disabled    bool              `json:"disabled"`
	Times
	Retrievals int `json:"retrievals"`
	Scope
}

// Fact is a subject–predicate–object fact with the times it holds. Its
// Type is empty, and left out, where it is shown as a fact of the graph
// rather than as a memory of a listing (see FactOf and Of).
type Fact struct {
	Type       engram.MemoryType `json:"type,omitempty"`
	ID         string            `json:"id"`
	Subject    string            `json:"subject"`
	Predicate  string            `json:"predicate"`
	Object     string            `json:"object"`
	ValidFrom  *time.Time        `json:"valid_from,omitempty"`
	ValidTo    *time.Time        `json:"valid_to,omitempty"`
	RecordedAt *time.Time        `json:"recorded_at,omitempty"`
	ExpiredAt  *time.Time        `json:"expired_at,omitempty"`
	Strength   float64           `json:"strength"`
	Sources    []string          `json:"sources"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	Retrievals int               `json:"retrievals"`
}

// Snapshot is a session snapshot.
type Snapshot struct {
	Type         engram.MemoryType `json:"type"`
	ID           string            `json:"id"`
	SessionID    string            `json:"session_id"`
	Summary      string            `json:"summary"`
	KeyDecisions []string          `json:"key_decisions"`
	TaskIDs      []string          `json:"task_ids"`
	Messages     []engram.Message  `json:"messages"`
	StartedAt    *time.Time        `json:"started_at,omitempty"`
	EndedAt      *time.Time        `json:"ended_at,omitempty"`
	TotalCost    float64           `json:"total_cost"`
	TotalTokens  int               `json:"total_tokens"`
	CreatedAt    *time.Time        `json:"created_at,omitempty"`
	Retrievals   int               `json:"retrievals"`
}

// Document is a chunk of a markdown document.
type Document struct {
	Type    engram.MemoryType `json:"type"`
	ID      string            `json:"id"`
	Source  string            `json:"source"`  // where it was found: "guide/deploy.md > Deploy > Rollback"
	Also    []string          `json:"also"`    // the other places it was found
	Heading string            `json:"heading"` // its heading path: "Deploy > Rollback"
	Chunk   int               `json:"chunk"`   // its index in its file
	Title   string            `json:"title,omitempty"`
	Tags    []string          `json:"tags"`
	Content string            `json:"content"`
	Times
	Retrievals int `json:"retrievals"`
}

// Time returns t in UTC, or nil for the zero time.
func Time(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// NonNil returns s, or an empty slice for nil, so that lists are [] in
// JSON rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// FactOf returns the view of a fact of the graph (no type).
func FactOf(f engram.Fact) Fact {
	return Fact{
		ID: f.ID, Subject: f.Subject, Predicate: f.Predicate, Object: f.Object,
		ValidFrom: Time(f.ValidFrom), ValidTo: Time(f.ValidTo),
		RecordedAt: Time(f.RecordedAt), ExpiredAt: Time(f.ExpiredAt),
		Strength: f.Strength, Sources: NonNil(f.Sources), Metadata: f.Metadata, Retrievals: f.Retrievals,
	}
}

// Of returns the view of the memory r holds, of its kind: a Semantic,
// Episode, Procedure, Fact, Snapshot or Document, or for a kind that has
// no view of its own here an Other; nil for a record that holds none.
func Of(r engram.Record) any {
	switch {
	case r.Semantic != nil:
		e := r.Semantic
		return Semantic{engram.TypeSemantic, e.ID, e.Content, e.Summary, e.Importance, e.Verified, NonNil(e.Tags), e.Source,
			Times{Time(e.CreatedAt), Time(e.UpdatedAt)}, e.AccessCount, Time(e.LastAccessedAt), e.Resonance, e.MergedFrom, e.Retrievals,
			Scope{e.UserID, e.SessionID, e.Metadata}}
	case r.Episode != nil:
		e := r.Episode
		return Episode{engram.TypeEpisodic, e.ID, e.Content, e.Type, e.TaskID, e.Cost, e.Duration.Milliseconds(),
			e.Metadata, Time(e.CreatedAt), e.Retrievals, e.UserID, e.SessionID}
	case r.Procedure != nil:
		p := r.Procedure
		return Procedure{engram.TypeProcedural, p.ID, p.Name, p.Description, p.Pattern, p.SuccessRate, p.UseCount, NonNil(p.Tags),
			p.Disabled, Times{Time(p.CreatedAt), Time(p.UpdatedAt)}, p.Retrievals, Scope{p.UserID, p.SessionID, p.Metadata}}
	case r.Fact != nil:
		f := FactOf(*r.Fact)
		f.Type = engram.TypeFact
		return f
	case r.Snapshot != nil:
		s := r.Snapshot
		return Snapshot{engram.TypeSnapshot, s.ID, s.SessionID, s.Summary, NonNil(s.KeyDecisions), NonNil(s.TaskIDs), NonNil(s.Messages),
			Time(s.StartedAt), Time(s.EndedAt), s.TotalCost, s.TotalTokens, Time(s.CreatedAt), s.Retrievals}
	case r.Document != nil:
		c := r.Document
		also := make([]string, 0, len(c.Also))
		for _, a := range c.Also {
			also = append(also, a.String())
		}
		return Document{engram.TypeDocument, c.ID, c.DocumentSource.String(), also, c.Heading, c.Index, c.Title, NonNil(c.Tags),
			c.Content, Times{Time(c.CreatedAt), Time(c.UpdatedAt)}, c.Retrievals}
	}
	for _, k := range registered() {
		if v := k.Held(r); v != nil {
			return Other{engram.MemoryType(k.Type), v}
		}
	}
	return nil
}

// List returns the views of records, in order.
func List(rs []engram.Record) []any {
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		out = append(out, Of(r))
	}
	return out
}

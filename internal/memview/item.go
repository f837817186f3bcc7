package memview

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/engram-go/engram"
)

// Item is one memory to add, of any kind, as POST /v1/memories (httpapi)
// and the tool add_memories (mcpserver) take it: the fields of every kind
// under the names the views give them, of which an item holds its own
// kind's (each transport checks that its own way). Metadata is read by
// kind (see Record): any JSON values for a semantic entry or a procedure,
// strings for an episode or a fact. A fact's fields are FactItem's; its
// ID and metadata are the item's.
type Item struct {
	Type        engram.MemoryType `json:"type"`
	ID          string            `json:"id,omitempty"`
	CreatedAt   time.Time         `json:"created_at,omitzero"`
	Content     string            `json:"content,omitempty"`
	Summary     string            `json:"summary,omitempty"`
	Importance  float64           `json:"importance,omitempty"`
	Verified    bool              `json:"verified,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Source      string            `json:"source,omitempty"`
	EventType   engram.EventType  `json:"event_type,omitempty"`
	TaskID      string            `json:"task_id,omitempty"`
	User        string            `json:"user_id,omitempty"`
	Session     string            `json:"session_id,omitempty"`
	Cost        float64           `json:"cost,omitempty"`
	DurationMS  int64             `json:"duration_ms,omitempty"`
	Metadata    json.RawMessage   `json:"metadata,omitempty"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Pattern     string            `json:"pattern,omitempty"`
	SuccessRate float64           `json:"success_rate,omitempty"`
	Disabled    bool              `json:"disabled,omitempty"`
	FactItem
}

// FactItem is a fact to assert, as POST /v1/facts and the tool add_facts
// take it, and the fact fields of an Item.
type FactItem struct {
	ID        string            `json:"id,omitempty"`
	Subject   string            `json:"subject,omitempty"`
	Predicate string            `json:"predicate,omitempty"`
	Object    string            `json:"object,omitempty"`
	ValidFrom time.Time         `json:"valid_from,omitzero"`
	ValidTo   time.Time         `json:"valid_to,omitzero"`
	Strength  float64           `json:"strength,omitempty"`
	Sources   []string          `json:"sources,omitempty"`
	MemoryID  string            `json:"memory_id,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
}

// Fact returns the fact f stands for; its sources are a copy of f's.
func (f FactItem) Fact() engram.Fact {
	return engram.Fact{ID: f.ID, Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, ValidFrom: f.ValidFrom,
		ValidTo: f.ValidTo, Strength: f.Strength, Sources: slices.Clone(f.Sources), MemoryID: f.MemoryID, Metadata: f.Metadata}
}

// Record returns the memory it stands for, of its Type (semantic,
// episodic, procedural or fact); source is the source of a semantic entry
// that names none ("api", "mcp"). An item of another type gives a record
// of that type and no memory, which engram.Memory.AddAll refuses. It
// returns an *engram.InvalidError of field "metadata" for metadata that is
// not an object, or, for an episode or a fact, not an object of strings.
func (it Item) Record(source string) (engram.Record, error) {
	var anyMeta map[string]any
	var strMeta map[string]string
	if len(it.Metadata) > 0 {
		if err := it.metadata(&anyMeta, &strMeta); err != nil {
			return engram.Record{}, err
		}
	}
	switch it.Type {
	case engram.TypeSemantic:
		if it.Source == "" {
			it.Source = source
		}
		return engram.Record{Semantic: &engram.SemanticEntry{ID: it.ID, CreatedAt: it.CreatedAt, Content: it.Content, Summary: it.Summary,
			Importance: it.Importance, Verified: it.Verified, Tags: it.Tags, Source: it.Source,
			UserID: it.User, SessionID: it.Session, Metadata: anyMeta}}, nil
	case engram.TypeEpisodic:
		return engram.Record{Episode: &engram.Episode{ID: it.ID, CreatedAt: it.CreatedAt, Content: it.Content, Type: it.EventType,
			TaskID: it.TaskID, UserID: it.User, SessionID: it.Session, Cost: it.Cost,
			Duration: time.Duration(it.DurationMS) * time.Millisecond, Metadata: strMeta}}, nil
	case engram.TypeProcedural:
		return engram.Record{Procedure: &engram.Procedure{ID: it.ID, CreatedAt: it.CreatedAt, Name: it.Name, Description: it.Description,
			Pattern: it.Pattern, SuccessRate: it.SuccessRate, Tags: it.Tags, Disabled: it.Disabled,
			UserID: it.User, SessionID: it.Session, Metadata: anyMeta}}, nil
	case engram.TypeFact:
		f := it.FactItem.Fact()
		f.ID, f.Metadata = it.ID, strMeta // the item's own, which hide FactItem's
		return engram.Record{Fact: &f}, nil
	}
	return engram.Record{Type: it.Type}, nil
}

// metadata reads the item's metadata as its kind keeps it: into anyMeta
// for a semantic entry or a procedure, into strMeta otherwise.
func (it Item) metadata(anyMeta *map[string]any, strMeta *map[string]string) error {
	if it.Type == engram.TypeSemantic || it.Type == engram.TypeProcedural {
		if json.Unmarshal(it.Metadata, anyMeta) != nil {
			return &engram.InvalidError{Field: "metadata", Reason: "want an object"}
		}
		return nil
	}
	if json.Unmarshal(it.Metadata, strMeta) != nil {
		return &engram.InvalidError{Field: "metadata", Reason: "want an object of strings"}
	}
	return nil
}

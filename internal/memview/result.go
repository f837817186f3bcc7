package memview

import (
	"time"

	"github.com/engram-go/engram"
)

// Result is a memory a search found, as every transport shows it (POST
// /v1/search, the MCP tools search and recall, engram search and engram
// recall): its kind, ID and text, the snippet that matched, and its score
// with the parts it is made of.
type Result struct {
	Type      engram.MemoryType `json:"type"`
	ID        string            `json:"id"`
	Content   string            `json:"content"`
	Snippet   string            `json:"snippet"`
	Tags      []string          `json:"tags"`
	CreatedAt *time.Time        `json:"created_at,omitempty"`
	Source    string            `json:"source,omitempty"`
	Score     float64           `json:"score"`
	Parts     Parts             `json:"parts"`
	ContextOf string            `json:"context_of,omitempty"`
	// DialogueWith is the matching turn beside the episode that it was
	// scored with (see engram.Result.DialogueWith).
	DialogueWith string `json:"dialogue_with,omitempty"`
}

// Parts are the parts of a result's score (engram.ScoreParts).
type Parts struct {
	Text       float64 `json:"text"`
	Importance float64 `json:"importance"`
	Recency    float64 `json:"recency"`
	Vector     float64 `json:"vector"`
	Fused      float64 `json:"fused"`
	Dialogue   float64 `json:"dialogue"`
	Session    float64 `json:"session_match"`
	Question   float64 `json:"question"`
	Spread     float64 `json:"spread"`
}

// ResultOf returns the view of a search result.
func ResultOf(r engram.Result) Result {
	p := r.Parts
	return Result{Type: r.Type, ID: r.ID, Content: r.Content, Snippet: r.Snippet, Tags: NonNil(r.Tags),
		CreatedAt: Time(r.CreatedAt), Source: r.Source, Score: r.Score,
		Parts:     Parts{p.Text, p.Importance, p.Recency, p.Vector, p.Fused, p.Dialogue, p.Session, p.Question, p.Spread},
		ContextOf: r.ContextOf, DialogueWith: r.DialogueWith}
}

// Results returns the views of rs, in order.
func Results(rs []engram.Result) []Result {
	out := make([]Result, 0, len(rs))
	for _, r := range rs {
		out = append(out, ResultOf(r))
	}
	return out
}

// Recalled is a candidate of a recall with the value of its gate and
// whether the gate admitted it, as the MCP tool recall and engram recall
// show it (POST /v1/search shows every term of the gate).
type Recalled struct {
	Result
	Gate     float64 `json:"gate"`
	Admitted bool    `json:"admitted"`
}

// RecalledOf returns the views of rs, in order.
func RecalledOf(rs []engram.Recalled) []Recalled {
	out := make([]Recalled, 0, len(rs))
	for _, r := range rs {
		out = append(out, Recalled{ResultOf(r.Result), r.Gate.Gate, r.Admitted})
	}
	return out
}

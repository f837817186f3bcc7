package httpapi

import (
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// The JSON shapes of the API's answers. Field names are snake_case and
// stable; times are RFC 3339 in UTC; the OpenAPI document describes each.

// resultView is a memory a search found: memview's, which the MCP server
// and the CLI show too.
type resultView = memview.Result

type gateView struct {
	Relevance     float64 `json:"relevance"`
	Retrievals    int     `json:"retrievals"`
	Strength      float64 `json:"strength"`
	ExpectedValue float64 `json:"expected_value"`
	Control       float64 `json:"control"`
	Noise         float64 `json:"noise"`
	X             float64 `json:"x"`
	Gate          float64 `json:"gate"`
}

type recalledView struct {
	resultView
	Gate     gateView `json:"gate"`
	Admitted bool     `json:"admitted"`
}

func recalledOf(rs []engram.Recalled) []recalledView {
	out := make([]recalledView, 0, len(rs))
	for _, r := range rs {
		g := r.Gate
		out = append(out, recalledView{
			resultView: memview.ResultOf(r.Result),
			Gate:       gateView{g.Relevance, g.Retrievals, g.Strength, g.ExpectedValue, g.Control, g.Noise, g.X, g.Gate},
			Admitted:   r.Admitted,
		})
	}
	return out
}

// factView is a fact of the graph; memview holds it, with the views of
// every kind of memory that answers about memories use (memview.Of).
type factView = memview.Fact

func factOf(f engram.Fact) factView { return memview.FactOf(f) }

func factsOf(fs []engram.Fact) []factView {
	out := make([]factView, 0, len(fs))
	for _, f := range fs {
		out = append(out, factOf(f))
	}
	return out
}

// hopView is a fact walked from one entity to another: memview's, which
// the CLI prints too.
type hopView = memview.Hop

// historyView is an entry of history: memview's, which the CLI shows
// too.
type historyView = memview.Change

type ruleView struct {
	Name       string            `json:"name"`
	Pattern    string            `json:"pattern"`
	Type       engram.MemoryType `json:"type"`
	Importance float64           `json:"importance"`
	Tags       []string          `json:"tags"`
	Active     bool              `json:"active"`
	CreatedAt  *time.Time        `json:"created_at,omitempty"`
	Subject    string            `json:"subject,omitempty"`
	Predicate  string            `json:"predicate,omitempty"`
	Object     string            `json:"object,omitempty"`
}

func ruleOf(r engram.ExtractionRule) ruleView {
	return ruleView{r.Name, r.Pattern, r.Type, r.Importance, memview.NonNil(r.Tags), r.Active, memview.Time(r.CreatedAt), r.Subject, r.Predicate, r.Object}
}

package memview

import (
	"context"
	"time"

	"github.com/engram-go/engram"
)

// FactsAsked is a question about facts as every transport asks it (GET
// /v1/facts, the MCP tool get_facts, engram facts): the facts that hold
// now, or that held at AsOf as engram knows them now, or that engram held
// true at KnownAt, or, with History, every fact of the query's entity and
// predicate, current and past. Each transport checks its own arguments,
// named its own way, before it asks.
type FactsAsked struct {
	Query   engram.FactQuery
	AsOf    time.Time
	KnownAt time.Time
	History bool
}

// Facts answers q in m (engram.Facts.History, AsOf, KnownAt or Current),
// with at most q.Query.Limit facts, and returns their errors.
func Facts(ctx context.Context, m *engram.Memory, q FactsAsked) ([]engram.Fact, error) {
	f := m.Facts()
	switch {
	case q.History:
		fs, err := f.History(ctx, q.Query.Entity, q.Query.Predicate)
		return fs[:min(len(fs), q.Query.Limit)], err
	case !q.AsOf.IsZero():
		return f.AsOf(ctx, q.AsOf, q.Query)
	case !q.KnownAt.IsZero():
		return f.KnownAt(ctx, q.KnownAt, q.Query)
	}
	return f.Current(ctx, q.Query)
}

// Hop is a fact walked from one entity to another, as the graph's
// neighbours and paths show it (GET /v1/graph/neighbors and
// /v1/graph/paths, engram graph): the fact (FactOf), the way it was
// walked ("out" along it, "in" against it) and the entities at either end.
type Hop struct {
	Fact      Fact             `json:"fact"`
	Direction engram.Direction `json:"direction"`
	From      string           `json:"from"`
	To        string           `json:"to"`
}

// Hops returns the views of hs, in order.
func Hops(hs []engram.Hop) []Hop {
	out := make([]Hop, 0, len(hs))
	for _, h := range hs {
		out = append(out, Hop{Fact: FactOf(h.Fact), Direction: h.Direction, From: h.From(), To: h.To()})
	}
	return out
}

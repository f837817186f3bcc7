package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
)

// Routes of the entity graph: the agent's facts (engram.Facts) as
// subject–predicate–object triples. An entity no fact names answers as an
// empty graph, as an agent with no memory does.

// direction reads the direction parameter: in/incoming, out/outgoing or
// both (the default).
func direction(q *query) engram.Direction {
	switch q.oneOf("direction", "in", "incoming", "out", "outgoing", "both") {
	case "in", "incoming":
		return engram.DirectionIn
	case "out", "outgoing":
		return engram.DirectionOut
	}
	return engram.DirectionBoth
}

type triplesResponse struct {
	Entity  string     `json:"entity"`
	Triples []factView `json:"triples"`
	Count   int        `json:"count"`
	Profile string     `json:"profile"`
}

// triples answers GET /v1/graph/triples: the facts that hold now, of an
// entity (every entity's without one), in a direction, of a predicate
// (engram.Facts.Current).
func (s *Server) triples(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "entity", "direction", "predicate", "max_results")
	fq := engram.FactQuery{Entity: q.str("entity"), Direction: direction(q), Predicate: q.str("predicate"), Limit: q.integer("max_results", 100, 1, 10000)}
	if q.err != nil {
		return q.err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	facts, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.Fact, error) {
		return m.Facts().Current(r.Context(), fq)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, triplesResponse{fq.Entity, factsOf(facts), len(facts), id})
	return nil
}

type neighborView struct {
	Entity string    `json:"entity"`
	Hops   []hopView `json:"hops"`
}

type neighborsResponse struct {
	Entity    string         `json:"entity"`
	Neighbors []neighborView `json:"neighbors"`
	Count     int            `json:"count"`
	Profile   string         `json:"profile"`
}

// neighbors answers GET /v1/graph/neighbors: the entities one hop from an
// entity, each with the facts that join them (engram.Facts.Neighbours).
func (s *Server) neighbors(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "entity", "direction", "predicate", "max_results")
	fq := engram.FactQuery{Entity: q.required("entity"), Direction: direction(q), Predicate: q.str("predicate"), Limit: q.integer("max_results", 100, 1, 10000)}
	if q.err != nil {
		return q.err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	ns, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.Neighbour, error) {
		return m.Facts().Neighbours(r.Context(), fq)
	})
	if err != nil && !errors.Is(err, engram.ErrNotFound) {
		return err
	}
	out := neighborsResponse{Entity: fq.Entity, Neighbors: []neighborView{}, Profile: id}
	for _, n := range ns {
		out.Neighbors = append(out.Neighbors, neighborView{n.Entity, memview.Hops(n.Hops)})
	}
	out.Count = len(out.Neighbors)
	writeJSON(w, http.StatusOK, out)
	return nil
}

type pathView struct {
	Path  []hopView `json:"path"`
	Depth int       `json:"depth"`
}

type pathsResponse struct {
	From    string     `json:"from"`
	To      string     `json:"to"`
	Paths   []pathView `json:"paths"`
	Count   int        `json:"count"`
	Profile string     `json:"profile"`
}

// paths answers GET /v1/graph/paths: the paths between two entities along
// facts that hold now, shortest first (engram.Facts.Paths).
func (s *Server) paths(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "from", "to", "max_depth")
	from, to, depth := q.required("from"), q.required("to"), q.integer("max_depth", engram.MaxGraphDepth, 1, engram.MaxGraphDepth)
	if q.err != nil {
		return q.err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	ps, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.Path, error) {
		return m.Facts().Paths(r.Context(), from, to, depth)
	})
	if err != nil && !errors.Is(err, engram.ErrNotFound) {
		return err
	}
	out := pathsResponse{From: from, To: to, Paths: []pathView{}, Profile: id}
	for _, p := range ps {
		out.Paths = append(out.Paths, pathView{memview.Hops(p), len(p)})
	}
	out.Count = len(out.Paths)
	writeJSON(w, http.StatusOK, out)
	return nil
}

type nodeView struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

type edgeView struct {
	Source    string     `json:"source"`
	Target    string     `json:"target"`
	Predicate string     `json:"predicate"`
	FactID    string     `json:"fact_id"`
	ValidFrom time.Time  `json:"valid_from"`
	ValidTo   *time.Time `json:"valid_to,omitempty"`
}

type graphResponse struct {
	Center         string     `json:"center"`
	Nodes          []nodeView `json:"nodes"`
	Edges          []edgeView `json:"edges"`
	IncludeHistory bool       `json:"include_history"`
	Profile        string     `json:"profile"`
}

// visualization answers GET /v1/graph/visualization: entities around a
// center (or the most connected ones) and the facts between them, for
// drawing (engram.Facts.Graph).
func (s *Server) visualization(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "entity", "max_depth", "max_nodes", "include_history")
	opts := engram.GraphOptions{Center: q.str("entity"), Depth: q.integer("max_depth", 2, 1, engram.MaxGraphDepth),
		MaxNodes: q.integer("max_nodes", 50, 1, engram.MaxGraphNodes), History: q.boolean("include_history")}
	if q.err != nil {
		return q.err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	g, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) (engram.Graph, error) {
		return m.Facts().Graph(r.Context(), opts)
	})
	if err != nil && !errors.Is(err, engram.ErrNotFound) {
		return err
	}
	out := graphResponse{Center: opts.Center, Nodes: []nodeView{}, Edges: []edgeView{}, IncludeHistory: opts.History, Profile: id}
	for _, n := range g.Nodes {
		out.Nodes = append(out.Nodes, nodeView{n.ID, n.Label})
	}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, edgeView{e.Source, e.Target, e.Predicate, e.FactID, e.ValidFrom.UTC(), memview.Time(e.ValidTo)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// deleteTriple answers DELETE /v1/graph/triple/{id}: the fact of that ID
// is deleted, with its full-text entry and links (engram.Facts.Delete);
// DELETE /v1/memory/{id} erases its history too.
func (s *Server) deleteTriple(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	factID := r.PathValue("id")
	err = s.reg.Change(r.Context(), id, func(m *engram.Memory) error {
		return m.Facts().Delete(r.Context(), factID)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedResponse{1, id})
	return nil
}

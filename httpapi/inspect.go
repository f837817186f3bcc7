package httpapi

import (
	"net/http"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// Routes that let a person inspect and mend an agent's memory (what the
// web console shows): an agent's counts, a memory's links both ways and
// the facts it supports, archiving a memory and bringing it back.

type statsResponse struct {
	// Counts are the memories of each kind that search and listings
	// find (facts current or not).
	Counts   map[engram.MemoryType]int `json:"counts"`
	Total    int                       `json:"total"`
	Archived int                       `json:"archived"`
	Links    int                       `json:"links"`
	Working  int                       `json:"working"`
	Pending  int                       `json:"pending_embeddings"`
	// LastChange is when the agent's memory last changed, by its history;
	// absent when it has none.
	LastChange *time.Time `json:"last_change,omitempty"`
	Profile    string     `json:"profile"`
}

// stats answers GET /v1/stats: how many memories of each kind the agent
// holds (engram.Memory.Stats) and when its memory last changed (the newest
// entry of engram.Memory.Changes).
func (s *Server) stats(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	var st engram.Stats
	var last []engram.HistoryEntry
	err = s.reg.Read(r.Context(), id, func(m *engram.Memory) error {
		var err error
		if st, err = m.Stats(r.Context()); err != nil {
			return err
		}
		last, err = m.Changes(r.Context(), engram.ChangeQuery{Newest: true, Limit: 1})
		return err
	})
	if err != nil {
		return err
	}
	out := statsResponse{
		Counts:   memview.Counts(st),
		Archived: st.Archived, Links: st.Links, Working: st.Working, Pending: st.PendingEmbeddings, Profile: id,
	}
	for _, n := range out.Counts {
		out.Total += n
	}
	if len(last) > 0 {
		out.LastChange = memview.Time(last[0].At)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type linkView struct {
	// Direction is "out" for a link from the memory, "in" for one to it;
	// Other and OtherType name the memory at its other end.
	Direction  string            `json:"direction"`
	Type       engram.LinkType   `json:"type"`
	Other      string            `json:"other"`
	OtherType  engram.MemoryType `json:"other_type"`
	SourceID   string            `json:"source_id"`
	SourceType engram.MemoryType `json:"source_type"`
	TargetID   string            `json:"target_id"`
	TargetType engram.MemoryType `json:"target_type"`
	Strength   float64           `json:"strength"`
	CreatedAt  *time.Time        `json:"created_at,omitempty"`
}

type linksResponse struct {
	ID    string     `json:"id"`
	Links []linkView `json:"links"`
	// Supports are the facts the memory is evidence of (its "supports"
	// links to facts), current or ended.
	Supports []factView `json:"supports"`
	Profile  string     `json:"profile"`
}

// memoryLinks answers GET /v1/memories/{id}/links: the links that start
// or end at the memory (engram.Links.For), strongest first, and the facts
// it supports. A memory with no links, or none of that ID, has none.
func (s *Server) memoryLinks(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	memID := r.PathValue("id")
	out := linksResponse{ID: memID, Links: []linkView{}, Supports: []factView{}, Profile: id}
	err = s.reg.Read(r.Context(), id, func(m *engram.Memory) error {
		links, err := m.Links().For(r.Context(), memID)
		if err != nil {
			return err
		}
		for _, l := range links {
			v := linkView{Direction: "out", Type: l.Type, Other: l.TargetID, OtherType: l.TargetType,
				SourceID: l.SourceID, SourceType: l.SourceType, TargetID: l.TargetID, TargetType: l.TargetType,
				Strength: l.Strength, CreatedAt: memview.Time(l.CreatedAt)}
			if l.SourceID != memID {
				v.Direction, v.Other, v.OtherType = "in", l.SourceID, l.SourceType
			}
			out.Links = append(out.Links, v)
			if v.Direction == "out" && l.Type == engram.LinkSupports && l.TargetType == engram.TypeFact {
				f, err := m.Facts().Get(r.Context(), l.TargetID)
				if err != nil {
					return err
				}
				out.Supports = append(out.Supports, factOf(f))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type reasonRequest struct {
	profileFields
	// Reason is what history records of why (engram.ContextWithReason).
	Reason string `json:"reason"`
}

type archivedResponse struct {
	ID       string `json:"id"`
	Archived bool   `json:"archived"`
	Profile  string `json:"profile"`
}

// archiveMemory answers POST /v1/memories/{id}/archive: the memory goes to
// the archive (engram.Memory.Archive), from which restore brings it back.
// The body is JSON ({} or the reason history records).
func (s *Server) archiveMemory(w http.ResponseWriter, r *http.Request) error {
	return s.archiveOrRestore(w, r, true)
}

// restoreMemory answers POST /v1/memories/{id}/restore: the archived
// memory comes back (engram.Memory.Restore), with its links.
func (s *Server) restoreMemory(w http.ResponseWriter, r *http.Request) error {
	return s.archiveOrRestore(w, r, false)
}

func (s *Server) archiveOrRestore(w http.ResponseWriter, r *http.Request, archive bool) error {
	if err := params(r, "profile").err; err != nil {
		return err
	}
	var req reasonRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	memID := r.PathValue("id")
	err = s.reg.Change(r.Context(), id, func(m *engram.Memory) error {
		if archive {
			return m.Archive(r.Context(), memID, req.Reason)
		}
		ctx := r.Context()
		if req.Reason != "" {
			ctx = engram.ContextWithReason(ctx, req.Reason)
		}
		return m.Restore(ctx, memID)
	})
	if err != nil {
		return renamed(err, "")
	}
	writeJSON(w, http.StatusOK, archivedResponse{memID, archive, id})
	return nil
}

package engram

import (
	"context"
	"fmt"
	"math"

	"github.com/engram-go/engram/internal/store"
)

// Links is the Zettelkasten graph: typed, weighted links between the
// agent's semantic, episodic and procedural memories. Links belong to the
// agent and disappear with either end. Get it from [Memory.Links]; it is
// safe for concurrent use.
type Links struct{ m *Memory }

// MaxTraverseDepth bounds [Links.Traverse].
const MaxTraverseDepth = 8

// linkCols are the columns of a link (see store.LinkCols), for the
// statements of other files that write links.
const linkCols = store.LinkCols

// Add links two memories of the agent. The ends are found by ID among the
// agent's semantic, episodic and procedural memories and facts; set SourceType or
// TargetType when an ID is used by more than one of them. A zero Strength
// means 1 and a zero CreatedAt the clock's now. Adding a link that exists
// (same ends, same type) updates its strength.
//
// It returns an error matching [ErrInvalid] for bad input (an unknown link
// type, a strength outside [0, 1], a link from a memory to itself, an
// ambiguous ID), [ErrNotFound] if either end is not one of the agent's
// memories, [ErrClosed] after Close and a [*DatabaseError] when SQLite
// fails.
func (l *Links) Add(ctx context.Context, link Link) error {
	if err := validateID("SourceID", link.SourceID); err != nil {
		return err
	}
	if err := validateID("TargetID", link.TargetID); err != nil {
		return err
	}
	if err := link.Type.Validate(); err != nil {
		return invalid("Type", "unknown link type %q", string(link.Type))
	}
	if math.IsNaN(link.Strength) || link.Strength < 0 || link.Strength > 1 {
		return invalid("Strength", "%v is outside [0, 1]", link.Strength)
	}
	if err := validateEndType("SourceType", link.SourceType); err != nil {
		return err
	}
	if err := validateEndType("TargetType", link.TargetType); err != nil {
		return err
	}
	if link.Strength == 0 {
		link.Strength = 1
	}
	if err := validateTime("CreatedAt", link.CreatedAt); err != nil {
		return err
	}
	now := l.m.now()
	if link.CreatedAt.IsZero() {
		link.CreatedAt = now
	}
	return l.m.write(ctx, "links.add", func(q store.Tx) error {
		var err error
		if link.SourceType, err = resolveType(q, l.m.agent, link.SourceID, link.SourceType, "SourceID"); err != nil {
			return err
		}
		if link.TargetType, err = resolveType(q, l.m.agent, link.TargetID, link.TargetType, "TargetID"); err != nil {
			return err
		}
		if link.SourceType == link.TargetType && link.SourceID == link.TargetID {
			return invalid("TargetID", "a memory cannot link to itself")
		}
		return store.UpsertLink(q, l.m.agent, linkRow(link))
	})
}

// validateEndType accepts an unset type or a kind links may join.
func validateEndType(field string, t MemoryType) error {
	if k := kindOf(t); t == "" || k != nil && k.Linkable {
		return nil
	}
	return invalid(field, "%q is not a stored memory type", string(t))
}

// linkable are the kinds links may join.
var linkable = kindsWith(func(k *kind) bool { return k.Linkable })

// linkableKinds is linkable as the store describes them.
func linkableKinds() []*store.Kind {
	out := make([]*store.Kind, len(linkable))
	for i, k := range linkable {
		out[i] = k.Kind
	}
	return out
}

// linkKinds runs the statements of links over the kinds links may join.
var linkKinds = func() *store.LinkKinds {
	kinds := make([]store.LinkKind, len(linkable))
	for i, k := range linkable {
		kinds[i] = store.LinkKind{Type: string(k.typ), Table: k.Table}
	}
	return store.NewLinkKinds(kinds)
}()

// resolveType finds which of the agent's stores holds id. When want is set
// it only checks that store.
func resolveType(q store.Tx, agent, id string, want MemoryType, field string) (MemoryType, error) {
	kinds, err := linkKinds.KindsOf(q, agent, id)
	if err != nil {
		return "", err
	}
	found := make([]MemoryType, len(kinds))
	for i, k := range kinds {
		found[i] = MemoryType(k)
		if found[i] == want {
			return want, nil
		}
	}
	switch {
	case len(found) == 0 || want != "":
		return "", notFound("memory", id)
	case len(found) > 1:
		return "", invalid(field, "%q names memories of several types; set the link's %sType", id, field[:len(field)-2])
	}
	return found[0], nil
}

// Remove deletes the link of the given type between two memories. It
// returns [ErrNotFound] if there is no such link; other errors are as for
// [Links.Add].
func (l *Links) Remove(ctx context.Context, sourceID, targetID string, typ LinkType) error {
	if err := validateID("sourceID", sourceID); err != nil {
		return err
	}
	if err := validateID("targetID", targetID); err != nil {
		return err
	}
	if err := typ.Validate(); err != nil {
		return err
	}
	return l.m.write(ctx, "links.remove", func(q store.Tx) error {
		n, err := linkKinds.RemoveLink(q, l.m.agent, sourceID, targetID, string(typ))
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound("link", fmt.Sprintf("%s -%s-> %s", sourceID, typ, targetID))
		}
		return nil
	})
}

// For returns the links that start or end at the memory with the given
// ID, strongest first. It returns an empty list for a memory without links
// (or one the agent does not have); other errors are as for [Links.Add].
func (l *Links) For(ctx context.Context, id string) ([]Link, error) {
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	var out []Link
	err := l.m.read(ctx, "links.for", func(q store.Tx) error {
		rows, err := linkKinds.LinksOf(q, l.m.agent, id)
		for _, r := range rows {
			out = append(out, Link{SourceType: MemoryType(r.SourceType), SourceID: r.SourceID,
				TargetType: MemoryType(r.TargetType), TargetID: r.TargetID, Type: LinkType(r.Type),
				Strength: r.Strength, CreatedAt: r.CreatedAt})
		}
		return err
	})
	return out, err
}

// Traverse returns the memories reachable from the memory with the given ID
// by following up to depth links in either direction, nearest first, each
// once with its shortest distance. The start is not included. It runs as
// one recursive query and is safe on cycles.
//
// It returns [ErrNotFound] if the agent has no memory with that ID and an
// error matching [ErrInvalid] for a depth outside [1, MaxTraverseDepth];
// other errors are as for [Links.Add].
func (l *Links) Traverse(ctx context.Context, startID string, depth int) ([]LinkedMemory, error) {
	if err := validateID("startID", startID); err != nil {
		return nil, err
	}
	if depth < 1 || depth > MaxTraverseDepth {
		return nil, invalid("depth", "%d is outside [1, %d]", depth, MaxTraverseDepth)
	}
	var out []LinkedMemory
	err := l.m.read(ctx, "links.traverse", func(q store.Tx) error {
		starts, reached, err := linkKinds.Traverse(q, l.m.agent, startID, depth)
		if err != nil {
			return err
		}
		if starts == 0 {
			return notFound("memory", startID)
		}
		// The start itself (depth 0) is dropped.
		out = make([]LinkedMemory, 0, len(reached)-1)
		for _, r := range reached {
			if r.Depth > 0 {
				out = append(out, LinkedMemory{ID: r.ID, Type: MemoryType(r.Kind), Depth: r.Depth})
			}
		}
		return nil
	})
	return out, err
}

// linkRow is the store's row of the link l.
func linkRow(l Link) store.LinkRow {
	return store.LinkRow{SourceType: string(l.SourceType), SourceID: l.SourceID,
		TargetType: string(l.TargetType), TargetID: l.TargetID, Type: string(l.Type),
		Strength: l.Strength, CreatedAt: l.CreatedAt}
}

package engram

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// Links is the Zettelkasten graph: typed, weighted links between the
// agent's semantic, episodic and procedural memories. Links belong to the
// agent and disappear with either end. Get it from [Memory.Links]; it is
// safe for concurrent use.
type Links struct{ m *Memory }

// MaxTraverseDepth bounds [Links.Traverse].
const MaxTraverseDepth = 8

const linkCols = `source_type, source_id, target_type, target_id, link_type, strength, created_at`

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
	return l.m.write(ctx, "links.add", func(q *dbtx) error {
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
		_, err = q.exec(`INSERT INTO zettel_links (agent_id, `+linkCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET strength = excluded.strength`,
			l.m.agent, string(link.SourceType), link.SourceID, string(link.TargetType), link.TargetID,
			string(link.Type), link.Strength, ms(link.CreatedAt))
		return err
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

// linkTypes is the SQL list of the kinds links may join: "('semantic',
// 'episodic', 'procedural')".
var linkTypes = func() string {
	var names []string
	for _, k := range linkable {
		names = append(names, "'"+string(k.typ)+"'")
	}
	return "(" + strings.Join(names, ", ") + ")"
}()

// kindsByID is the SQL that lists the kinds of the agent's (?1) memories
// with ID ?2, as (kind) rows, among the kinds links may join.
var kindsByID = func() string {
	var parts []string
	for _, k := range linkable {
		parts = append(parts, `SELECT '`+string(k.typ)+`' AS kind, id FROM `+k.Table+` WHERE agent_id = ?1 AND id = ?2`)
	}
	return strings.Join(parts, " UNION ALL ")
}()

// resolveType finds which of the agent's stores holds id. When want is set
// it only checks that store.
func resolveType(q *dbtx, agent, id string, want MemoryType, field string) (MemoryType, error) {
	rows, err := q.query(`SELECT kind FROM (`+kindsByID+`)`, agent, id)
	if err != nil {
		return "", err
	}
	found, err := store.ScanAll(rows, func(r store.Scanner) (MemoryType, error) {
		var t string
		err := r.Scan(&t)
		return MemoryType(t), err
	})
	if err != nil {
		return "", err
	}
	for _, t := range found {
		if t == want {
			return t, nil
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
	return l.m.write(ctx, "links.remove", func(q *dbtx) error {
		res, err := q.exec(`DELETE FROM zettel_links WHERE agent_id = ? AND source_id = ? AND target_id = ?
			AND link_type = ? AND source_type IN `+linkTypes,
			l.m.agent, sourceID, targetID, string(typ))
		return notFoundUnless(res, err, "link", fmt.Sprintf("%s -%s-> %s", sourceID, typ, targetID))
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
	err := l.m.read(ctx, "links.for", func(q *dbtx) error {
		rows, err := q.query(`
			SELECT `+linkCols+` FROM zettel_links WHERE agent_id = ?1
				AND source_type IN `+linkTypes+` AND source_id = ?2
			UNION
			SELECT `+linkCols+` FROM zettel_links INDEXED BY links_by_target WHERE agent_id = ?1
				AND target_type IN `+linkTypes+` AND target_id = ?2
			ORDER BY strength DESC, created_at, source_id, target_id, link_type`, l.m.agent, id)
		if err != nil {
			return err
		}
		out, err = store.ScanAll(rows, scanLink)
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
	err := l.m.read(ctx, "links.traverse", func(q *dbtx) error {
		// UNION (not UNION ALL) drops a (node, depth) pair already seen, so
		// a cycle adds nothing new once its nodes are in the frontier; the
		// depth bound ends the recursion.
		rows, err := q.query(`
			WITH RECURSIVE
			start(kind, id) AS (`+kindsByID+`),
			walk(kind, id, depth) AS (
				SELECT kind, id, 0 FROM start
				UNION
				SELECT l.target_type, l.target_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.source_type = w.kind AND l.source_id = w.id
					WHERE w.depth < ?3
				UNION
				SELECT l.source_type, l.source_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.target_type = w.kind AND l.target_id = w.id
					WHERE w.depth < ?3)
			SELECT (SELECT count(*) FROM start), kind, id, min(depth) AS d FROM walk
			GROUP BY kind, id
			ORDER BY d, kind, id`, l.m.agent, startID, depth)
		if err != nil {
			return err
		}
		starts := 0
		out, err = store.ScanAll(rows, func(r store.Scanner) (LinkedMemory, error) {
			var lm LinkedMemory
			var kind string
			err := r.Scan(&starts, &kind, &lm.ID, &lm.Depth)
			lm.Type = MemoryType(kind)
			return lm, err
		})
		if err != nil {
			return err
		}
		if starts == 0 {
			return notFound("memory", startID)
		}
		// Drop the start itself (depth 0).
		kept := out[:0]
		for _, lm := range out {
			if lm.Depth > 0 {
				kept = append(kept, lm)
			}
		}
		out = kept
		return nil
	})
	return out, err
}

func scanLink(r store.Scanner) (Link, error) {
	var lk Link
	var st, tt, typ string
	var created int64
	err := r.Scan(&st, &lk.SourceID, &tt, &lk.TargetID, &typ, &lk.Strength, &created)
	lk.SourceType, lk.TargetType, lk.Type, lk.CreatedAt = MemoryType(st), MemoryType(tt), LinkType(typ), fromMS(created)
	return lk, err
}

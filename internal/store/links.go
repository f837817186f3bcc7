package store

import (
	"strings"
	"time"
)

// The links of the Zettelkasten graph, in the table zettel_links: typed,
// weighted links between the agent's memories, each end named by its
// kind and ID.

// LinkCols are the columns of a link that [LinkRow] holds, in its order.
const LinkCols = `source_type, source_id, target_type, target_id, link_type, strength, created_at`

// LinkRow is a link as the table holds it, decoded.
type LinkRow struct {
	SourceType, SourceID string
	TargetType, TargetID string
	Type                 string
	Strength             float64
	CreatedAt            time.Time
}

// args are the values of the columns LinkCols.
func (l LinkRow) args() []any {
	return []any{l.SourceType, l.SourceID, l.TargetType, l.TargetID, l.Type, l.Strength, MS(l.CreatedAt)}
}

// scanLink scans the columns LinkCols of one row.
func scanLink(r Scanner) (LinkRow, error) {
	var l LinkRow
	var created int64
	err := r.Scan(&l.SourceType, &l.SourceID, &l.TargetType, &l.TargetID, &l.Type, &l.Strength, &created)
	l.CreatedAt = FromMS(created)
	return l, err
}

// UpsertLink adds the agent's link l or, when the agent has that link
// (same ends, same type), sets its strength to l's. It returns the
// driver's errors unchanged.
func UpsertLink(q Querier, agent string, l LinkRow) error {
	_, err := q.Exec(`INSERT INTO zettel_links (agent_id, `+LinkCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (agent_id, source_type, source_id, target_type, target_id, link_type) DO UPDATE SET strength = excluded.strength`, append([]any{agent}, l.args()...)...)
	return err
}

// AddLinkIfAbsent adds the agent's link l unless the agent has that link
// (same ends, same type), which it leaves as it is. It returns the
// driver's errors unchanged.
func AddLinkIfAbsent(q Querier, agent string, l LinkRow) error {
	_, err := q.Exec(`INSERT INTO zettel_links (agent_id, `+LinkCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, append([]any{agent}, l.args()...)...)
	return err
}

// LinkKind is a kind of memory that links may join: its name, the type a
// link's end names, and the table of its rows.
type LinkKind struct{ Type, Table string }

// LinkKinds runs the statements of links that depend on the kinds links
// may join. Make it with [NewLinkKinds].
type LinkKinds struct {
	// types is the SQL list of the kinds' types: "('semantic', ...)".
	types string
	// byID lists the kinds of the agent's (?1) memories of ID ?2, as
	// (kind, id) rows.
	byID string
}

// NewLinkKinds returns the statements of links between memories of the
// given kinds. The kinds' types and tables come, for now, from the root
// package's kind registry: they are written into the statements as they
// are, and must be SQL names and literals free of quotes.
func NewLinkKinds(kinds []LinkKind) *LinkKinds {
	var types, parts []string
	for _, k := range kinds {
		types = append(types, "'"+k.Type+"'")
		parts = append(parts, `SELECT '`+k.Type+`' AS kind, id FROM `+k.Table+` WHERE agent_id = ?1 AND id = ?2`)
	}
	return &LinkKinds{types: "(" + strings.Join(types, ", ") + ")", byID: strings.Join(parts, " UNION ALL ")}
}

// KindsOf returns the types of the kinds of which the agent has a memory
// of ID id. It returns the driver's errors unchanged.
func (lk *LinkKinds) KindsOf(q Querier, agent, id string) ([]string, error) {
	rows, err := q.Query(`SELECT kind FROM (`+lk.byID+`)`, agent, id)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (string, error) {
		var t string
		return t, r.Scan(&t)
	})
}

// RemoveLink deletes the agent's link of type typ from the memory
// sourceID (of one of the kinds) to targetID, and returns how many links
// it deleted (0 or 1). It returns the driver's errors unchanged.
func (lk *LinkKinds) RemoveLink(q Querier, agent, sourceID, targetID, typ string) (int64, error) {
	res, err := q.Exec(`DELETE FROM zettel_links WHERE agent_id = ? AND source_id = ? AND target_id = ?
			AND link_type = ? AND source_type IN `+lk.types,
		agent, sourceID, targetID, typ)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// LinksOf returns the agent's links that start or end at a memory of ID
// id of one of the kinds, strongest first, then oldest first, then by
// source, target and type. It returns the driver's errors unchanged.
func (lk *LinkKinds) LinksOf(q Querier, agent, id string) ([]LinkRow, error) {
	rows, err := q.Query(`
			SELECT `+LinkCols+` FROM zettel_links WHERE agent_id = ?1
				AND source_type IN `+lk.types+` AND source_id = ?2
			UNION
			SELECT `+LinkCols+` FROM zettel_links INDEXED BY links_by_target WHERE agent_id = ?1
				AND target_type IN `+lk.types+` AND target_id = ?2
			ORDER BY strength DESC, created_at, source_id, target_id, link_type`, agent, id)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanLink)
}

// Linked is a memory a walk of the links reached.
type Linked struct {
	Kind, ID string
	// Depth is the fewest links from the start.
	Depth int
}

// Traverse returns the memories reachable from the agent's memories of
// ID start (of the kinds; of every one of them when several have that
// ID) by following up to depth links in either direction, each once with
// its fewest links, by depth, kind and ID: the start itself first, at
// depth 0. It also returns how many memories the start names (0: none,
// and no memory is returned). The walk is one recursive statement, whose
// UNION drops a (memory, depth) pair already seen, so a cycle adds
// nothing new once its memories are reached; the depth bound ends it. It
// returns the driver's errors unchanged.
func (lk *LinkKinds) Traverse(q Querier, agent, start string, depth int) (starts int, reached []Linked, err error) {
	first, step := `SELECT kind, id, 0 FROM start`, `SELECT l.target_type, l.target_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.source_type = w.kind AND l.source_id = w.id
					WHERE w.depth < ?3
				UNION
				SELECT l.source_type, l.source_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.target_type = w.kind AND l.target_id = w.id
					WHERE w.depth < ?3`
	if Postgres(q) {
		// A recursive query of PostgreSQL names walk once: the two
		// directions are one LATERAL join; its columns have one
		// collation, the tables' "C".
		first = `SELECT kind COLLATE "C", id COLLATE "C", 0 FROM start`
		step = `SELECT x.kind, x.id, w.depth + 1 FROM walk w CROSS JOIN LATERAL (
					SELECT l.target_type AS kind, l.target_id AS id FROM zettel_links l
						WHERE l.agent_id = ?1 AND l.source_type = w.kind AND l.source_id = w.id
					UNION ALL
					SELECT l.source_type, l.source_id FROM zettel_links l
						WHERE l.agent_id = ?1 AND l.target_type = w.kind AND l.target_id = w.id) x
					WHERE w.depth < ?3`
	}
	rows, err := q.Query(`
			WITH RECURSIVE
			start(kind, id) AS (`+lk.byID+`),
			walk(kind, id, depth) AS (
				`+first+`
				UNION
				`+step+`)
			SELECT (SELECT count(*) FROM start), kind, id, min(depth) AS d FROM walk
			GROUP BY kind, id
			ORDER BY d, kind, id`, agent, start, depth)
	if err != nil {
		return 0, nil, err
	}
	reached, err = ScanAll(rows, func(r Scanner) (Linked, error) {
		var l Linked
		return l, r.Scan(&starts, &l.Kind, &l.ID, &l.Depth)
	})
	return starts, reached, err
}

package engram

import (
	"context"
	"encoding/json"
)

// Session context: in a conversation the answer is often the turn after
// the one that shares the question's words, so the episodes logged just
// before and after a matching episode, in the same session, come along.

// contextSQL finds, for each matched episode named in ?2, the episodes
// logged just before and just after it in its session, within [?3, ?4):
// what ranking needs of them (see scanRanked), then the match's ID.
var contextSQL = `
	WITH hit AS (
		SELECT e.id, e.session_id, e.created_at, e.pk FROM episodic_log e
		WHERE e.agent_id = ?1 AND e.session_id <> '' AND e.id IN (SELECT value FROM json_each(?2))),
	near(hit, pk) AS (
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT ` + episodicKind.rankCols("e") + `, n.hit FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4`

// contextShare caps a neighbour's text score below the direct matches it
// must not outrank (see withContext).
const contextShare = 0.999

// withContext adds the session neighbours of the episodic candidates. A
// neighbour's text score is weight times its match's, so its Text part is
// weight times the match's, but never as much as a direct match that
// holds every query term its match holds: an episode that came along as
// context never outranks a direct match for the same words.
func (m *Memory) withContext(ctx context.Context, cands []candidate, weight float64, f ftsFilter) ([]candidate, error) {
	byID := map[string]int{} // episodic candidate ID → index in cands
	var hits []string
	for i, c := range cands {
		if c.Type == TypeEpisodic && c.text > 0 {
			byID[c.ID] = i
			hits = append(hits, c.ID)
		}
	}
	if len(hits) == 0 {
		return cands, nil
	}
	list, _ := json.Marshal(hits)
	var found []candidate // each with the match it came with as ContextOf
	err := m.db.read(ctx, "search.context", func(q *dbtx) error {
		rows, err := q.query(contextSQL, m.agent, string(list), f.since, f.until)
		if err != nil {
			return err
		}
		found, err = scanAll(rows, scanRanked(TypeEpisodic, func(c *candidate) []any { return []any{&c.ContextOf} }))
		return err
	})
	if err != nil {
		return nil, err
	}
	direct := make([]candidate, 0, len(cands))
	for _, c := range cands {
		if c.text > 0 {
			direct = append(direct, c)
		}
	}
	for _, n := range found {
		via := cands[byID[n.ContextOf]]
		n.text = contextScore(weight*via.text, via.held, direct)
		if i, ok := byID[n.ID]; ok {
			if n.text > cands[i].text {
				cands[i].text, cands[i].ContextOf = n.text, n.ContextOf
			}
			continue
		}
		byID[n.ID] = len(cands)
		cands = append(cands, n)
	}
	return cands, nil
}

// contextScore caps the score of a neighbour reached through a match
// holding the query terms held below every direct match holding them all.
func contextScore(score float64, held uint64, direct []candidate) float64 {
	for _, d := range direct {
		if d.held&held == held && d.text*contextShare < score {
			score = d.text * contextShare
		}
	}
	return score
}

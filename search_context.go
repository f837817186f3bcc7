package engram

import (
	"context"
	"encoding/json"
)

// Session context: in a conversation the answer is often the turn after
// the one that shares the question's words, so the episodes logged just
// before and after a matching episode, in the same session, come along.

// contextSQL finds, for each matched episode named in ?2, the episodes
// logged just before and just after it in its session, within [?3, ?4).
const contextSQL = `
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
	SELECT n.hit, e.id, e.pk, e.content, e.created_at, e.resonance FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4`

// withContext adds the session neighbours of the episodic candidates. A
// neighbour's bm25 is weight times its match's, so after normalisation
// its Text part is weight times the match's Text part.
func (m *Memory) withContext(ctx context.Context, cands []candidate, weight float64, f ftsFilter) ([]candidate, error) {
	byID := map[string]int{} // episodic candidate ID → index in cands
	var hits []string
	for i, c := range cands {
		if c.Type == TypeEpisodic {
			byID[c.ID] = i
			hits = append(hits, c.ID)
		}
	}
	if len(hits) == 0 {
		return cands, nil
	}
	list, _ := json.Marshal(hits)
	type neighbour struct {
		hit, id, content string
		pk, created      int64
		resonance        float64
	}
	var found []neighbour
	err := m.db.read(ctx, "search.context", func(q *dbtx) error {
		rows, err := q.query(contextSQL, m.agent, string(list), f.since, f.until)
		if err != nil {
			return err
		}
		found, err = scanAll(rows, func(r scanner) (neighbour, error) {
			var n neighbour
			err := r.Scan(&n.hit, &n.id, &n.pk, &n.content, &n.created, &n.resonance)
			return n, err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, n := range found {
		via := cands[byID[n.hit]]
		bm25 := weight * via.bm25
		if i, ok := byID[n.id]; ok {
			if bm25 < cands[i].bm25 { // lower is better
				cands[i].bm25, cands[i].ContextOf = bm25, n.hit
			}
			continue
		}
		byID[n.id] = len(cands)
		cands = append(cands, candidate{
			Result: Result{Type: TypeEpisodic, ID: n.id, Content: n.content,
				CreatedAt: fromMS(n.created), ContextOf: n.hit},
			pk:         n.pk,
			bm25:       bm25,
			importance: episodeImportance * n.resonance,
			touched:    fromMS(n.created),
		})
	}
	return cands, nil
}

package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The statements of auto-linking: semantic entries linked to their most
// similar neighbours by "similar" links, and the bookkeeping of entries
// whose links wait for the in-memory stem index.

// SemanticText returns the rowid and content of an agent's semantic
// entry, and whether the agent has it.
// Errors are the driver's.
func SemanticText(q Querier, agent, id string) (pk int64, content string, found bool, err error) {
	err = q.QueryRow(`SELECT pk, content FROM semantic_memory WHERE agent_id = ? AND id = ?`, []any{agent, id}, &pk, &content)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return pk, content, err == nil, err
}

// SemanticDoc is a semantic entry as the stem index reads it.
type SemanticDoc struct {
	PK          int64
	ID, Content string
}

// SemanticDocsByPK returns the agent's semantic entries with the rowids
// pks, in the order of pks; rowids the agent has no entry at are left
// out.
// Errors are the driver's.
func SemanticDocsByPK(q Querier, agent string, pks []int64) ([]SemanticDoc, error) {
	list, _ := json.Marshal(pks) // an []int64 always marshals
	return scanDocs(q.Query(`SELECT s.pk, s.id, s.content FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = CAST(j.value AS INTEGER)
		WHERE s.agent_id = ?2 ORDER BY j.key`, string(list), agent))
}

// EachSemanticDoc calls fn with every semantic entry of the agent, by
// rowid, as it reads them; an error from fn stops the read and is
// returned.
func EachSemanticDoc(q Querier, agent string, fn func(SemanticDoc) error) error {
	rows, err := q.Query(`SELECT pk, id, content FROM semantic_memory WHERE agent_id = ? ORDER BY pk`, agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d SemanticDoc
		if err := rows.Scan(&d.PK, &d.ID, &d.Content); err != nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

func scanDocs(rows *sql.Rows, err error) ([]SemanticDoc, error) {
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (SemanticDoc, error) {
		var d SemanticDoc
		return d, r.Scan(&d.PK, &d.ID, &d.Content)
	})
}

// CountSemanticUpTo returns how many semantic entries the agent has, or
// limit when it has more: a read that stops at limit rows.
// Errors are the driver's.
func CountSemanticUpTo(q Querier, agent string, limit int) (int, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM semantic_memory WHERE agent_id = ? LIMIT ?)`, []any{agent, limit}, &n)
	return n, err
}

// LinkSimilar links the agent's semantic entry source to its entry
// target with a link of type typ and the given strength, made at, unless
// the agent has no entry target (the target is checked in SQL: an
// in-memory index is not the truth). A link already there takes the new
// strength. It reports whether a link was written.
// Errors are the driver's.
func LinkSimilar(q Querier, agent, source, target, typ string, strength float64, at time.Time) (bool, error) {
	return affected(q.Exec(`INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		SELECT ?1, 'semantic', ?2, 'semantic', ?3, ?4, ?5, ?6
		WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND id = ?3)
		ON CONFLICT (agent_id, source_type, source_id, target_type, target_id, link_type) DO UPDATE SET strength = excluded.strength`,
		agent, source, target, typ, strength, MS(at)))
}

// SimilarLink is one link LinkSimilarBatch writes.
type SimilarLink struct {
	Source, Target string
	Strength       float64
}

// linkBatchMax is how many links one statement of LinkSimilarBatch
// writes at most.
const linkBatchMax = 64

// LinkSimilarBatch writes links as LinkSimilar writes each (of type typ,
// made at), a few dozen per statement, in order.
// Errors are the driver's.
func LinkSimilarBatch(q Querier, agent, typ string, at time.Time, links []SimilarLink) error {
	for len(links) > 0 {
		n := linkBatchMax
		for n > len(links) {
			n /= 4
		}
		args := make([]any, 0, 3+3*n)
		args = append(args, agent, typ, MS(at))
		for _, l := range links[:n] {
			args = append(args, l.Source, l.Target, l.Strength)
		}
		_, err := q.Exec(`INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
			SELECT ?1, 'semantic', v.column1, 'semantic', v.column2, ?2, v.column3, ?3
			FROM (VALUES (?, ?, CAST(? AS REAL))`+strings.Repeat(", (?, ?, CAST(? AS REAL))", n-1)+`) v
			WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND id = v.column2)
			ON CONFLICT (agent_id, source_type, source_id, target_type, target_id, link_type) DO UPDATE SET strength = excluded.strength`, args...)
		if err != nil {
			return err
		}
		links = links[n:]
	}
	return nil
}

// CountSemanticMatches returns how many of every agent's semantic entries
// the full-text expression match finds, or limit when more do.
// Errors are the driver's.
func CountSemanticMatches(q Querier, match string, limit int) (int, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM semantic_fts WHERE semantic_fts MATCH ?1 LIMIT ?2)`, []any{match, limit}, &n)
	return n, err
}

// SemanticMatches calls fn with each of the agent's semantic entries that
// the full-text expression match finds, but the one at rowid skip: its
// rowid, ID, stored term vector (nil when it has none) and content. The
// byte slices are valid only until fn returns; an error from fn stops the
// read and is returned.
func SemanticMatches(q Querier, agent, match string, skip int64, fn func(pk int64, id string, terms, content []byte) error) error {
	rows, err := q.Query(`SELECT t.pk, t.id, t.terms, t.content FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
		WHERE semantic_fts MATCH ?1 AND t.agent_id = ?2 AND t.pk <> ?3`, match, agent, skip)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var id string
		var terms, content sql.RawBytes
		if err := rows.Scan(&pk, &id, &terms, &content); err != nil {
			return err
		}
		if err := fn(pk, id, terms, content); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// The meta keys of entries whose links wait: prefix, the entry's rowid,
// ":" and the agent (per-agent keys end in ":" and the agent, so that
// forgetting an agent removes them).
const waitingPrefix = "links.deferred."

func waitingKey(pk int64, agent string) string {
	return waitingPrefix + strconv.FormatInt(pk, 10) + ":" + agent
}

// MarkLinksWaiting writes down that the agent's semantic entries with
// rowids pks wait for their links.
// Errors are the driver's.
func MarkLinksWaiting(q Querier, agent string, pks []int64) error {
	for _, pk := range pks {
		if _, err := q.Exec(`INSERT INTO meta (key, value) VALUES (?, '') ON CONFLICT (key) DO NOTHING`, waitingKey(pk, agent)); err != nil {
			return err
		}
	}
	return nil
}

// LinksWaiting returns the rowids of the agent's semantic entries whose
// links wait, in order. It reads the keys of every agent's waiting
// entries: few, and only while an index builds.
// Errors are the driver's.
func LinksWaiting(q Querier, agent string) ([]int64, error) {
	keys, err := MetaKeys(q, waitingPrefix)
	if err != nil {
		return nil, err
	}
	var pks []int64
	for _, k := range keys {
		num, owner, ok := strings.Cut(strings.TrimPrefix(k, waitingPrefix), ":")
		if !ok || owner != agent {
			continue // another agent's, whose name ends as this one's does
		}
		if pk, err := strconv.ParseInt(num, 10, 64); err == nil {
			pks = append(pks, pk)
		}
	}
	return pks, nil
}

// UnmarkLinksWaiting removes what MarkLinksWaiting wrote for the agent's
// entries pks.
// Errors are the driver's.
func UnmarkLinksWaiting(q Querier, agent string, pks []int64) error {
	keys := make([]string, len(pks))
	for i, pk := range pks {
		keys[i] = waitingKey(pk, agent)
	}
	list, _ := json.Marshal(keys) // a []string always marshals
	_, err := q.Exec(`DELETE FROM meta WHERE key IN (SELECT value FROM json_each(?))`, string(list))
	return err
}

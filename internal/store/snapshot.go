package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// SnapshotRow is a row of session_snapshots: a session snapshot of an
// agent. Messages is the JSON array of the snapshot's messages, which the
// root package encodes and decodes (their type is its own).
type SnapshotRow struct {
	ID, SessionID string
	Messages      string
	Summary       string
	KeyDecisions  []string
	TaskIDs       []string
	StartedAt     time.Time
	EndedAt       time.Time
	TotalCost     float64
	TotalTokens   int
	CreatedAt     time.Time
	Retrievals    int // read only: InsertSnapshot ignores it
}

const snapshotCols = `id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals`

// InsertSnapshot inserts the agent's snapshot s with its term vector
// terms of ntok tokens. It returns the driver's error unchanged: a
// duplicate ID is a unique violation (see IsUniqueViolation).
func InsertSnapshot(q Querier, agent string, s SnapshotRow, terms []byte, ntok int) error {
	_, err := changing(q, Snapshot, Inserted, `INSERT INTO session_snapshots (id, agent_id, session_id, messages, summary,
		key_decisions, task_ids, started_at, ended_at, total_cost, total_tokens, created_at, terms, ntok)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, agent, s.SessionID, s.Messages, s.Summary, EncodeTags(s.KeyDecisions),
		EncodeTags(s.TaskIDs), MS(s.StartedAt), MS(s.EndedAt), s.TotalCost, s.TotalTokens,
		MS(s.CreatedAt), terms, ntok)
	return err
}

// KeepSnapshots deletes the agent's snapshots of the session but its
// newest keep (by end, then insertion). It returns the driver's errors
// unchanged.
func KeepSnapshots(q Querier, agent, session string, keep int) error {
	_, err := changing(q, Snapshot, Deleted, `DELETE FROM session_snapshots WHERE agent_id = ?1 AND session_id = ?2 AND pk NOT IN (
		SELECT pk FROM session_snapshots WHERE agent_id = ?1 AND session_id = ?2
		ORDER BY ended_at DESC, pk DESC LIMIT ?3)`,
		agent, session, keep)
	return err
}

// LatestSnapshot returns the agent's newest snapshot (by end, then
// insertion) of the session, or of any session when session is "", in a
// list of at most one. It returns the driver's errors unchanged, and an
// error for a row whose lists are not JSON.
func LatestSnapshot(q Querier, agent, session string) ([]SnapshotRow, error) {
	if session == "" {
		return querySnapshots(q, `SELECT `+snapshotCols+` FROM session_snapshots WHERE agent_id = ?
			ORDER BY ended_at DESC, pk DESC LIMIT 1`, agent)
	}
	return querySnapshots(q, `SELECT `+snapshotCols+` FROM session_snapshots WHERE agent_id = ? AND session_id = ?
			ORDER BY ended_at DESC, pk DESC LIMIT 1`, agent, session)
}

// SessionSnapshots returns the agent's snapshots of the session, newest
// first. Errors are as for LatestSnapshot.
func SessionSnapshots(q Querier, agent, session string) ([]SnapshotRow, error) {
	return querySnapshots(q, `SELECT `+snapshotCols+` FROM session_snapshots
		WHERE agent_id = ? AND session_id = ? ORDER BY ended_at DESC, pk DESC`, agent, session)
}

// SnapshotsSelected returns the agent's snapshots that sel selects, in
// the order and number it says. Errors are as for LatestSnapshot.
func SnapshotsSelected(q Querier, agent string, sel Selection) ([]SnapshotRow, error) {
	stmt, args := sel.Statement(Snapshot, snapshotCols, agent)
	return querySnapshots(q, stmt, args...)
}

func querySnapshots(q Querier, query string, args ...any) ([]SnapshotRow, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanSnapshot)
}

func scanSnapshot(r Scanner) (SnapshotRow, error) {
	var s SnapshotRow
	var decisions, tasks string
	var started, ended, created int64
	err := r.Scan(&s.ID, &s.SessionID, &s.Messages, &s.Summary, &decisions, &tasks, &started, &ended,
		&s.TotalCost, &s.TotalTokens, &created, &s.Retrievals)
	if err != nil {
		return s, err
	}
	s.StartedAt, s.EndedAt, s.CreatedAt = FromMS(started), FromMS(ended), FromMS(created)
	for _, f := range []struct {
		src string
		dst *[]string
	}{{decisions, &s.KeyDecisions}, {tasks, &s.TaskIDs}} {
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return s, fmt.Errorf("decoding snapshot %q: %w", s.ID, err)
		}
		if len(*f.dst) == 0 {
			*f.dst = nil
		}
	}
	return s, nil
}

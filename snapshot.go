package engram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/store"
)

// Session snapshots: how a session went (its messages, a summary and the
// decisions taken), kept per session by episodic memory.

const snapshotCols = `id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals`

// maxSnapshotBytes bounds the encoded messages of one snapshot.
const maxSnapshotBytes = 16 << 20

// SaveSnapshot stores a snapshot of a session and returns its ID, keeping
// only the newest [EpisodicConfig.MaxSnapshotsPerSession] snapshots of that
// session (by EndedAt) in the same transaction. An empty ID gets a new
// time-ordered ID; a zero EndedAt or CreatedAt the clock's now; a zero
// StartedAt the EndedAt.
//
// It returns an error matching [ErrInvalid] for bad input (an empty
// SessionID, a message with an empty role, EndedAt before StartedAt, …),
// [ErrExists] for a duplicate ID, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails. On error nothing was written.
func (e *Episodic) SaveSnapshot(ctx context.Context, snap SessionSnapshot) (string, error) {
	row, err := e.prepareSnapshot(snap, e.m.now())
	if err != nil {
		return "", err
	}
	err = e.m.write(ctx, "episodic.save_snapshot", func(q *dbtx) error {
		return e.saveSnapshot(q, row)
	})
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// snapshotRow is a validated snapshot ready to insert, its lists encoded.
type snapshotRow struct {
	SessionSnapshot
	messages, decisions, tasks string
}

// prepareSnapshot validates snap, fills in what the caller left empty and
// encodes it.
func (e *Episodic) prepareSnapshot(snap SessionSnapshot, now time.Time) (snapshotRow, error) {
	if err := e.validateSnapshot(snap); err != nil {
		return snapshotRow{}, err
	}
	if snap.ID == "" {
		snap.ID = e.m.newID(now)
	}
	if snap.EndedAt.IsZero() {
		snap.EndedAt = now
	}
	if snap.StartedAt.IsZero() {
		snap.StartedAt = snap.EndedAt
	}
	if snap.CreatedAt.IsZero() {
		snap.CreatedAt = now
	}
	if snap.EndedAt.Before(snap.StartedAt) {
		return snapshotRow{}, invalid("EndedAt", "%v is before StartedAt (%v)", snap.EndedAt, snap.StartedAt)
	}
	msgs, err := json.Marshal(nonNil(snap.Messages))
	if err != nil {
		return snapshotRow{}, invalid("Messages", "%v", err)
	}
	if len(msgs) > maxSnapshotBytes {
		return snapshotRow{}, invalid("Messages", "encode to %d bytes, over the limit of %d", len(msgs), maxSnapshotBytes)
	}
	decisions, _ := json.Marshal(nonNil(snap.KeyDecisions))
	tasks, _ := json.Marshal(nonNil(snap.TaskIDs))
	return snapshotRow{SessionSnapshot: snap, messages: string(msgs), decisions: string(decisions), tasks: string(tasks)}, nil
}

// validateSnapshot checks every field of snap the caller sets.
func (e *Episodic) validateSnapshot(snap SessionSnapshot) error {
	lim := e.m.cfg.Limits
	if err := validateID("SessionID", snap.SessionID); err != nil {
		return err
	}
	if snap.ID != "" {
		if err := validateID("ID", snap.ID); err != nil {
			return err
		}
	}
	if err := validateText("Summary", snap.Summary, false, lim.MaxContentBytes); err != nil {
		return err
	}
	for i, msg := range snap.Messages {
		if err := validateText(fmt.Sprintf("Messages[%d].Role", i), msg.Role, true, lim.MaxTagBytes); err != nil {
			return err
		}
		if err := validateText(fmt.Sprintf("Messages[%d].Content", i), msg.Content, false, lim.MaxContentBytes); err != nil {
			return err
		}
	}
	for i, d := range snap.KeyDecisions {
		if err := validateText(fmt.Sprintf("KeyDecisions[%d]", i), d, true, lim.MaxContentBytes); err != nil {
			return err
		}
	}
	for i, t := range snap.TaskIDs {
		if err := validateID(fmt.Sprintf("TaskIDs[%d]", i), t); err != nil {
			return err
		}
	}
	if math.IsNaN(snap.TotalCost) || math.IsInf(snap.TotalCost, 0) || snap.TotalCost < 0 {
		return invalid("TotalCost", "%v is not a finite, non-negative number", snap.TotalCost)
	}
	if snap.TotalTokens < 0 {
		return invalid("TotalTokens", "%d is negative", snap.TotalTokens)
	}
	return errors.Join(validateTime("StartedAt", snap.StartedAt), validateTime("EndedAt", snap.EndedAt),
		validateTime("CreatedAt", snap.CreatedAt))
}

// snapshotTerms is the term vector of a snapshot's indexed text: its
// summary, its decisions and the content of its messages (see
// snapshotKind.indexed).
func snapshotTerms(s SessionSnapshot) ([]byte, int) {
	texts := make([]string, 0, 1+len(s.KeyDecisions)+len(s.Messages))
	texts = append(append(texts, s.Summary), s.KeyDecisions...)
	for _, msg := range s.Messages {
		texts = append(texts, msg.Content)
	}
	return bm25.Vector(texts...)
}

// saveSnapshot inserts a prepared snapshot in q's transaction and keeps
// only the newest MaxSnapshotsPerSession of its session.
func (e *Episodic) saveSnapshot(q *dbtx, s snapshotRow) error {
	terms, ntok := snapshotTerms(s.SessionSnapshot)
	_, err := q.exec(`INSERT INTO session_snapshots (id, agent_id, session_id, messages, summary,
		key_decisions, task_ids, started_at, ended_at, total_cost, total_tokens, created_at, terms, ntok)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, e.m.agent, s.SessionID, s.messages, s.Summary, s.decisions,
		s.tasks, ms(s.StartedAt), ms(s.EndedAt), s.TotalCost, s.TotalTokens,
		ms(s.CreatedAt), terms, ntok)
	if store.IsUniqueViolation(err) {
		return fmt.Errorf("engram: snapshot %q: %w", s.ID, ErrExists)
	}
	if err != nil {
		return err
	}
	_, err = q.exec(`DELETE FROM session_snapshots WHERE agent_id = ?1 AND session_id = ?2 AND pk NOT IN (
		SELECT pk FROM session_snapshots WHERE agent_id = ?1 AND session_id = ?2
		ORDER BY ended_at DESC, pk DESC LIMIT ?3)`,
		e.m.agent, s.SessionID, e.m.cfg.Episodic.MaxSnapshotsPerSession)
	return err
}

// LatestSnapshot returns the newest snapshot (by EndedAt) of the session, or
// of any session when sessionID is empty. It returns [ErrNotFound] when there
// is none; other errors are as for [Episodic.Get].
func (e *Episodic) LatestSnapshot(ctx context.Context, sessionID string) (SessionSnapshot, error) {
	query := `SELECT ` + snapshotCols + ` FROM session_snapshots WHERE agent_id = ?
		ORDER BY ended_at DESC, pk DESC LIMIT 1`
	args := []any{e.m.agent}
	if sessionID != "" {
		if err := validateID("sessionID", sessionID); err != nil {
			return SessionSnapshot{}, err
		}
		query = `SELECT ` + snapshotCols + ` FROM session_snapshots WHERE agent_id = ? AND session_id = ?
			ORDER BY ended_at DESC, pk DESC LIMIT 1`
		args = append(args, sessionID)
	}
	out, err := readCounted(ctx, e.m, "episodic.latest_snapshot", scanSnapshot, query, args...)
	if err != nil {
		return SessionSnapshot{}, err
	}
	if len(out) == 0 {
		return SessionSnapshot{}, notFound("snapshot of session", sessionID)
	}
	return out[0], nil
}

// Snapshots returns the kept snapshots of a session, newest first. Errors
// are as for [Episodic.Get].
func (e *Episodic) Snapshots(ctx context.Context, sessionID string) ([]SessionSnapshot, error) {
	if err := validateID("sessionID", sessionID); err != nil {
		return nil, err
	}
	return readCounted(ctx, e.m, "episodic.snapshots", scanSnapshot, `SELECT `+snapshotCols+` FROM session_snapshots
		WHERE agent_id = ? AND session_id = ? ORDER BY ended_at DESC, pk DESC`, e.m.agent, sessionID)
}

func scanSnapshot(r store.Scanner) (SessionSnapshot, error) {
	var s SessionSnapshot
	var msgs, decisions, tasks string
	var started, ended, created int64
	err := r.Scan(&s.ID, &s.SessionID, &msgs, &s.Summary, &decisions, &tasks, &started, &ended,
		&s.TotalCost, &s.TotalTokens, &created, &s.Retrievals)
	if err != nil {
		return s, err
	}
	s.StartedAt, s.EndedAt, s.CreatedAt = fromMS(started), fromMS(ended), fromMS(created)
	for _, f := range []struct {
		src string
		dst any
	}{{msgs, &s.Messages}, {decisions, &s.KeyDecisions}, {tasks, &s.TaskIDs}} {
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return s, fmt.Errorf("decoding snapshot %q: %w", s.ID, err)
		}
	}
	if len(s.Messages) == 0 {
		s.Messages = nil
	}
	if len(s.KeyDecisions) == 0 {
		s.KeyDecisions = nil
	}
	if len(s.TaskIDs) == 0 {
		s.TaskIDs = nil
	}
	return s, nil
}

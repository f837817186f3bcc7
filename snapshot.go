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
	err = e.m.write(ctx, "episodic.save_snapshot", func(q store.Tx) error {
		return e.saveSnapshot(q, row)
	})
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// snapshotRow is a validated snapshot ready to insert, its messages
// encoded.
type snapshotRow struct {
	SessionSnapshot
	messages string
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
	return snapshotRow{SessionSnapshot: snap, messages: string(msgs)}, nil
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
func (e *Episodic) saveSnapshot(q store.Tx, s snapshotRow) error {
	terms, ntok := snapshotTerms(s.SessionSnapshot)
	err := store.InsertSnapshot(q, e.m.agent, store.SnapshotRow{
		ID: s.ID, SessionID: s.SessionID, Messages: s.messages, Summary: s.Summary,
		KeyDecisions: s.KeyDecisions, TaskIDs: s.TaskIDs, StartedAt: s.StartedAt, EndedAt: s.EndedAt,
		TotalCost: s.TotalCost, TotalTokens: s.TotalTokens, CreatedAt: s.CreatedAt,
	}, terms, ntok)
	if store.IsUniqueViolation(err) {
		return fmt.Errorf("engram: snapshot %q: %w", s.ID, ErrExists)
	}
	if err != nil {
		return err
	}
	return store.KeepSnapshots(q, e.m.agent, s.SessionID, e.m.cfg.Episodic.MaxSnapshotsPerSession)
}

// LatestSnapshot returns the newest snapshot (by EndedAt) of the session, or
// of any session when sessionID is empty. It returns [ErrNotFound] when there
// is none; other errors are as for [Episodic.Get].
func (e *Episodic) LatestSnapshot(ctx context.Context, sessionID string) (SessionSnapshot, error) {
	if sessionID != "" {
		if err := validateID("sessionID", sessionID); err != nil {
			return SessionSnapshot{}, err
		}
	}
	out, err := e.readSnapshots(ctx, "episodic.latest_snapshot", func(q store.Tx) ([]store.SnapshotRow, error) {
		return store.LatestSnapshot(q, e.m.agent, sessionID)
	})
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
	return e.readSnapshots(ctx, "episodic.snapshots", func(q store.Tx) ([]store.SnapshotRow, error) {
		return store.SessionSnapshots(q, e.m.agent, sessionID)
	})
}

// readSnapshots reads the snapshots read returns in one read, with the
// retrievals not written yet.
func (e *Episodic) readSnapshots(ctx context.Context, op string, read func(q store.Tx) ([]store.SnapshotRow, error)) ([]SessionSnapshot, error) {
	var out []SessionSnapshot
	err := e.m.read(ctx, op, func(q store.Tx) error {
		rows, err := read(q)
		if err != nil {
			return err
		}
		out, err = snapshotsOf(e.m, q, rows)
		return err
	})
	return out, err
}

// snapshotsOf returns the snapshots of rows, with the retrievals not
// written yet that q's snapshot of the database does not hold.
func snapshotsOf(m *Memory, q store.Tx, rows []store.SnapshotRow) ([]SessionSnapshot, error) {
	out := make([]SessionSnapshot, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = snapshotOf(r); err != nil {
			return nil, err
		}
	}
	return out, overlayAll(m, q, out)
}

// snapshotOf returns the snapshot a row holds.
func snapshotOf(r store.SnapshotRow) (SessionSnapshot, error) {
	s := SessionSnapshot{
		ID: r.ID, SessionID: r.SessionID, Summary: r.Summary, KeyDecisions: r.KeyDecisions, TaskIDs: r.TaskIDs,
		StartedAt: r.StartedAt, EndedAt: r.EndedAt, TotalCost: r.TotalCost, TotalTokens: r.TotalTokens,
		CreatedAt: r.CreatedAt, Retrievals: r.Retrievals,
	}
	if err := json.Unmarshal([]byte(r.Messages), &s.Messages); err != nil {
		return s, fmt.Errorf("decoding snapshot %q: %w", s.ID, err)
	}
	if len(s.Messages) == 0 {
		s.Messages = nil
	}
	return s, nil
}

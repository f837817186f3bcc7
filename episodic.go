package engram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// Episodic is the agent's log of events and its session snapshots. Get it
// from [Memory.Episodic]; it is safe for concurrent use.
type Episodic struct{ m *Memory }

// episodeCols are the columns scanEpisode reads (see store.EpisodeCols).
const episodeCols = store.EpisodeCols

const (
	maxMetadataKeys = 64
	day             = 24 * time.Hour
)

// Log appends one episode and returns its ID. An empty ID gets a new
// time-ordered ID, a zero CreatedAt the clock's now and an empty Type
// [EventObservation].
//
// It returns an error matching [ErrInvalid] for bad input, [ErrExists] if
// the agent already has an episode with that ID, [ErrClosed] after Close and
// a [*DatabaseError] when SQLite fails. On error nothing was written.
func (e *Episodic) Log(ctx context.Context, ep Episode) (string, error) {
	now := e.m.now()
	row, err := e.prepare("episode", ep, now)
	if err != nil {
		return "", err
	}
	es, err := e.m.embedNew(ctx, []string{row.Content})
	if err != nil {
		return "", err
	}
	err = e.m.write(ctx, "episodic.log", func(q store.Tx) error {
		return e.log(q, row, es, 0)
	})
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// LogBatch appends many episodes in one transaction and returns their IDs
// in order: all of them or, on error, none. Errors are as for
// [Episodic.Log]; an invalid episode is named by its index. Like
// [Semantic.StoreBatch], it holds the write lock for all of its episodes:
// other processes wait up to their busy timeout, then get [ErrBusy].
func (e *Episodic) LogBatch(ctx context.Context, eps []Episode) ([]string, error) {
	now := e.m.now()
	rows := make([]episodeRow, len(eps))
	ids := make([]string, len(eps))
	for i, ep := range eps {
		r, err := e.prepare(fmt.Sprintf("episodes[%d]", i), ep, now)
		if err != nil {
			return nil, err
		}
		rows[i], ids[i] = r, r.ID
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.Content
	}
	es, err := e.m.embedNew(ctx, texts)
	if err != nil {
		return nil, err
	}
	err = e.m.write(ctx, "episodic.log_batch", func(q store.Tx) error {
		if es == nil {
			return e.logRows(q, rows)
		}
		for i, r := range rows {
			if err := e.log(q, r, es, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// episodeRow is a validated episode ready to insert: rec is what the
// store writes.
type episodeRow struct {
	Episode
	rec store.EpisodeRow
}

func (e *Episodic) prepare(field string, ep Episode, now time.Time) (episodeRow, error) {
	lim := e.m.cfg.Limits
	if ep.ID != "" {
		if err := validateID(field+".ID", ep.ID); err != nil {
			return episodeRow{}, err
		}
	}
	if err := validateText(field+".Content", ep.Content, true, lim.MaxContentBytes); err != nil {
		return episodeRow{}, err
	}
	if ep.Type == "" {
		ep.Type = EventObservation
	}
	if err := ep.Type.Validate(); err != nil {
		return episodeRow{}, invalid(field+".Type", "unknown event type %q", string(ep.Type))
	}
	if ep.TaskID != "" {
		if err := validateID(field+".TaskID", ep.TaskID); err != nil {
			return episodeRow{}, err
		}
	}
	if err := validateScope(field, ep.UserID, ep.SessionID); err != nil {
		return episodeRow{}, err
	}
	if math.IsNaN(ep.Cost) || math.IsInf(ep.Cost, 0) || ep.Cost < 0 {
		return episodeRow{}, invalid(field+".Cost", "%v is not a finite, non-negative number", ep.Cost)
	}
	if ep.Duration < 0 {
		return episodeRow{}, invalid(field+".Duration", "%v is negative", ep.Duration)
	}
	meta, err := encodeMetadata(field+".Metadata", ep.Metadata, lim)
	if err != nil {
		return episodeRow{}, err
	}
	if err := validateTime(field+".CreatedAt", ep.CreatedAt); err != nil {
		return episodeRow{}, err
	}
	if ep.ID == "" {
		ep.ID = e.m.newID(now)
	}
	if ep.CreatedAt.IsZero() {
		ep.CreatedAt = now
	}
	ep.Metadata = cloneMap(ep.Metadata)
	r := episodeRow{Episode: ep, rec: store.EpisodeRow{ID: ep.ID, Content: ep.Content, Type: string(ep.Type),
		TaskID: ep.TaskID, SessionID: ep.SessionID, Cost: ep.Cost, Duration: ep.Duration, Metadata: meta,
		CreatedAt: ep.CreatedAt, Resonance: resonance(0, 0, 0, episodeImportance), UserID: ep.UserID}}
	r.rec.Derive()
	return r, nil
}

// log inserts a prepared episode in q's transaction with its vector, the
// i-th of embedNew's answer es (none when es is nil: the row stays
// pending).
func (e *Episodic) log(q store.Tx, r episodeRow, es []embedded, i int) error {
	pk, err := store.InsertEpisode(q, e.m.agent, &r.rec)
	if store.IsUniqueViolation(err) {
		return fmt.Errorf("engram: episode %q: %w", r.ID, ErrExists)
	}
	if err != nil {
		return err
	}
	return e.m.putNew(q, TypeEpisodic, pk, es, i)
}

// logNew logs a prepared episode in q's transaction unless the agent has
// an episode with the same content, and reports whether it did.
func (e *Episodic) logNew(q store.Tx, r episodeRow) (bool, error) {
	held, err := e.holding(q, []string{r.Content}, r.UserID)
	if err != nil || held[r.Content] {
		return false, err
	}
	return true, e.log(q, r, nil, 0)
}

// holding returns which of contents the agent's episodes hold, in one
// query: the episodes of user, or of any user when user is "".
func (e *Episodic) holding(q store.Tx, contents []string, user string) (map[string]bool, error) {
	return store.EpisodeHolding(q, e.m.agent, contents, user)
}

// logRows inserts prepared episodes without vectors in q's transaction,
// as log would one after the other, but up to store.BatchMax per
// statement (see store.InsertRows, for why). It returns an error
// matching ErrExists for the first episode (in order) whose ID the agent
// or an earlier episode of the batch holds.
func (e *Episodic) logRows(q store.Tx, rows []episodeRow) error {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	if err := checkIDsNew(q, episodicKind, e.m.agent, ids); err != nil {
		return err
	}
	recs := make([]*store.EpisodeRow, len(rows))
	for i := range rows {
		recs[i] = &rows[i].rec
	}
	err := store.InsertEpisodeBatch(q, e.m.agent, recs)
	if store.IsUniqueViolation(err) { // not expected: checked above
		return fmt.Errorf("engram: episodes: %w", ErrExists)
	}
	return err
}

// Get returns the episode with the given ID. It returns [ErrNotFound] if the
// agent has none, an error matching [ErrInvalid] for a malformed ID,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails.
func (e *Episodic) Get(ctx context.Context, id string) (Episode, error) {
	if err := validateID("id", id); err != nil {
		return Episode{}, err
	}
	list, err := e.list(ctx, "episodic.get", func(q store.Tx) ([]Episode, error) {
		return store.EpisodeByID(q, episodeOf, e.m.agent, id)
	})
	if err != nil {
		return Episode{}, err
	}
	if len(list) == 0 {
		return Episode{}, notFound("episode", id)
	}
	return list[0], nil
}

// Today returns the episodes of the clock's current UTC day, newest first.
// Errors are as for [Episodic.Get].
func (e *Episodic) Today(ctx context.Context) ([]Episode, error) {
	start := e.m.now().UTC().Truncate(day)
	return e.list(ctx, "episodic.today", func(q store.Tx) ([]Episode, error) {
		return store.EpisodesBetween(q, episodeOf, e.m.agent, start, start.Add(day), true)
	})
}

// Recent returns the limit most recent episodes, newest first; a limit of 0
// means 20. It returns an error matching [ErrInvalid] for a limit outside
// [0, 10000]; other errors are as for [Episodic.Get].
func (e *Episodic) Recent(ctx context.Context, limit int) ([]Episode, error) {
	if limit == 0 {
		limit = 20
	}
	limit, _, err := ListOptions{Limit: limit}.resolve()
	if err != nil {
		return nil, err
	}
	var out []Episode
	err = e.m.read(ctx, "episodic.recent", func(q store.Tx) error {
		out, err = e.recent(q, limit, nil)
		return err
	})
	return out, err
}

// recent reads the limit most recent episodes in q's transaction.
func (e *Episodic) recent(q store.Tx, limit int, sc *scope) ([]Episode, error) {
	if limit == 0 || !sc.admitsKind(episodicKind) {
		return nil, nil
	}
	out, err := store.EpisodesRecent(q, episodeOf, e.m.agent, sc.storedOrNil(), limit)
	if err != nil {
		return nil, err
	}
	return out, overlayAll(e.m, q, out)
}

// ByTask returns the episodes of a task, oldest first. Errors are as for
// [Episodic.Get].
func (e *Episodic) ByTask(ctx context.Context, taskID string) ([]Episode, error) {
	if err := validateID("taskID", taskID); err != nil {
		return nil, err
	}
	return e.list(ctx, "episodic.by_task", func(q store.Tx) ([]Episode, error) {
		return store.EpisodesOfTask(q, episodeOf, e.m.agent, taskID)
	})
}

// Range returns the episodes created in [from, to), oldest first. A zero to
// means no upper bound. It returns an error matching [ErrInvalid] if to is
// not after from; other errors are as for [Episodic.Get].
func (e *Episodic) Range(ctx context.Context, from, to time.Time) ([]Episode, error) {
	if err := errors.Join(validateTime("from", from), validateTime("to", to)); err != nil {
		return nil, err
	}
	if !to.IsZero() && !to.After(from) {
		return nil, invalid("to", "%v is not after from (%v)", to, from)
	}
	return e.list(ctx, "episodic.range", func(q store.Tx) ([]Episode, error) {
		return store.EpisodesBetween(q, episodeOf, e.m.agent, from, to, false)
	})
}

// Delete removes the episode with the given ID, its full-text entry and its
// links. It returns [ErrNotFound] if the agent has none; other errors are as
// for [Episodic.Get].
func (e *Episodic) Delete(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	return e.m.write(ctx, "episodic.delete", func(q store.Tx) error {
		return deleteByID(q, episodicKind, e.m.agent, id)
	})
}

// Prune deletes the episodes created more than retainDays days before the
// clock's now, with their full-text entries and links, and returns how many
// it deleted. [Config] holds the usual value, [EpisodicConfig.RetainDays].
// It returns an error matching [ErrInvalid] for a retainDays outside
// [0, MaxDays]; other errors are as for [Episodic.Get].
func (e *Episodic) Prune(ctx context.Context, retainDays int) (int, error) {
	if retainDays < 0 || retainDays > MaxDays {
		return 0, invalid("retainDays", "%d is outside [0, %d]", retainDays, MaxDays)
	}
	cutoff := e.m.now().Add(-time.Duration(retainDays) * day)
	var n int64
	err := e.m.write(ctx, "episodic.prune", func(q store.Tx) error {
		var err error
		n, err = store.PruneEpisodes(q, e.m.agent, cutoff)
		return err
	})
	return int(n), err
}

// list reads, in one read, the episodes read returns, with the accesses
// noted and not written yet added (see Memory.overlayAccess).
func (e *Episodic) list(ctx context.Context, op string, read func(q store.Tx) ([]Episode, error)) ([]Episode, error) {
	var out []Episode
	err := e.m.read(ctx, op, func(q store.Tx) error {
		var err error
		if out, err = read(q); err != nil {
			return err
		}
		return overlayAll(e.m, q, out)
	})
	return out, err
}

// episodeOf is the episode the store's row r holds.
func episodeOf(r store.EpisodeRow) (Episode, error) {
	ep := Episode{ID: r.ID, Content: r.Content, Type: EventType(r.Type), TaskID: r.TaskID, SessionID: r.SessionID,
		Cost: r.Cost, Duration: r.Duration, CreatedAt: r.CreatedAt, Retrievals: r.Retrievals, UserID: r.UserID}
	if r.Metadata != "" && r.Metadata != "{}" {
		if err := json.Unmarshal([]byte(r.Metadata), &ep.Metadata); err != nil {
			return ep, fmt.Errorf("decoding metadata of episode %q: %w", ep.ID, err)
		}
	}
	return ep, nil
}

// scanEpisode scans a row of episodeCols as an episode.
func scanEpisode(r store.Scanner) (Episode, error) {
	rec, err := store.ScanEpisode(r)
	if err != nil {
		return Episode{}, err
	}
	return episodeOf(rec)
}

func encodeMetadata(field string, md map[string]string, lim Limits) (string, error) {
	if len(md) == 0 {
		return "{}", nil
	}
	if len(md) > maxMetadataKeys {
		return "", invalid(field, "has %d keys, over the limit of %d", len(md), maxMetadataKeys)
	}
	size := 0
	for k, v := range md {
		if err := validateText(field+" key", k, true, lim.MaxTagBytes); err != nil {
			return "", err
		}
		if err := validateText(field+"["+k+"]", v, false, lim.MaxContentBytes); err != nil {
			return "", err
		}
		size += len(k) + len(v)
	}
	if size > lim.MaxContentBytes {
		return "", invalid(field, "is %d bytes, over the limit of %d", size, lim.MaxContentBytes)
	}
	b, err := json.Marshal(md)
	return string(b), err
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nonNil returns s, or an empty slice for nil, so JSON says [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

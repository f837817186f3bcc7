package store

import (
	"encoding/json"
	"math"
	"time"
)

// EpisodeRow is an episode as the episodic_log table holds it. The store
// computes its derived columns (the term vector of its content and its
// token count) when it writes it.
type EpisodeRow struct {
	ID, Content, Type, TaskID, SessionID string
	Cost                                 float64
	Duration                             time.Duration
	// Metadata is a JSON object of strings ("{}" for none).
	Metadata   string
	CreatedAt  time.Time
	Resonance  float64
	Retrievals int
	UserID     string

	derived
}

// Derive computes the row's derived columns, the term vector of its
// content and its token count, unless done already; the writes derive a
// row that was not. A row changed after Derive must be derived anew: make
// a new row.
func (r *EpisodeRow) Derive() { r.derive(nil, r.Content) }

// episodeWriteCols are the columns an insert of an episode names.
var episodeWriteCols = []string{"id", "agent_id", "content", "event_type", "task_id", "session_id",
	"cost", "duration_ns", "metadata", "created_at", "resonance", "terms", "ntok", "user_id"}

// args appends the values of episodeWriteCols for r, derived, to args.
func (r *EpisodeRow) args(agent string, args []any) []any {
	r.Derive()
	return append(args, r.ID, agent, r.Content, r.Type, r.TaskID, r.SessionID, r.Cost,
		int64(r.Duration), r.Metadata, MS(r.CreatedAt), r.Resonance, r.terms, r.ntok, r.UserID)
}

// InsertEpisode inserts r as agent's episode, with its derived columns,
// and returns its rowid. Errors are the driver's, unchanged: an ID the
// agent holds already is a unique violation ([IsUniqueViolation]).
func InsertEpisode(q Querier, agent string, r *EpisodeRow) (int64, error) {
	args := r.args(agent, make([]any, 0, len(episodeWriteCols)))
	var pk int64
	err := q.QueryRow(`INSERT INTO episodic_log (id, agent_id, content, event_type, task_id, session_id,
		cost, duration_ns, metadata, created_at, resonance, terms, ntok, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`, args, &pk)
	if err == nil {
		inserted(q, Episodic, agent, r.ID, pk, r.Content)
	}
	return pk, err
}

// InsertEpisodeBatch inserts rows as agent's episodes, with their derived
// columns, [BatchMax] per statement (see [InsertRows]). The rows' IDs
// must be distinct and new (see [HeldIDs]); errors are the driver's,
// unchanged.
func InsertEpisodeBatch(q Querier, agent string, rows []*EpisodeRow) error {
	return InsertRows(q, "episodic_log", episodeWriteCols, len(rows),
		func(i int, args []any) []any { return rows[i].args(agent, args) },
		func(i int, pk int64) { inserted(q, Episodic, agent, rows[i].ID, pk, rows[i].Content) })
}

// EpisodeHolding returns which of contents agent's episodes hold, in one
// query: the episodes of user, or of any user when user is "". Errors are
// the driver's.
func EpisodeHolding(q Querier, agent string, contents []string, user string) (map[string]bool, error) {
	b, _ := json.Marshal(contents) // a []string always marshals
	return JSONSet(q, `SELECT json_group_array(content) FROM episodic_log
		WHERE agent_id = ?1 AND content IN (SELECT value FROM json_each(?2)) AND (?3 = '' OR user_id = ?3)`, agent, string(b), user)
}

// EpisodeCols are the columns [ScanEpisode] reads, in its order.
const EpisodeCols = `id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id`

// ScanEpisode scans a row of [EpisodeCols]; it returns the scan's error.
func ScanEpisode(sc Scanner) (EpisodeRow, error) {
	var r EpisodeRow
	var dur, created int64
	err := sc.Scan(&r.ID, &r.Content, &r.Type, &r.TaskID, &r.SessionID, &r.Cost, &dur, &r.Metadata, &created, &r.Retrievals, &r.UserID)
	r.Duration, r.CreatedAt = time.Duration(dur), FromMS(created)
	return r, err
}

// episodes reads agent's episodes that cond (with args after the agent)
// selects, in its order, each made the caller's value by as (so that no
// list of rows is made on the way).
func episodes[T any](q Querier, as func(EpisodeRow) (T, error), agent, cond string, args ...any) ([]T, error) {
	rows, err := q.Query(`SELECT `+EpisodeCols+` FROM episodic_log WHERE agent_id = ? AND `+cond, append([]any{agent}, args...)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(sc Scanner) (T, error) {
		r, err := ScanEpisode(sc)
		if err != nil {
			var zero T
			return zero, err
		}
		return as(r)
	})
}

// The reads below make each episode the caller's value with as, so that
// no list of rows is made on the way.

// EpisodeByID reads agent's episode with the given ID: none or one.
// Errors are the driver's or as's.
func EpisodeByID[T any](q Querier, as func(EpisodeRow) (T, error), agent, id string) ([]T, error) {
	return episodes(q, as, agent, `id = ?`, id)
}

// EpisodesBetween reads agent's episodes created in [from, to), oldest
// first, or newest first when newest is set; a zero to means no upper
// bound. Errors are the driver's or as's.
func EpisodesBetween[T any](q Querier, as func(EpisodeRow) (T, error), agent string, from, to time.Time, newest bool) ([]T, error) {
	order := `created_at, pk`
	if newest {
		order = `created_at DESC, pk DESC`
	}
	upper := int64(math.MaxInt64)
	if !to.IsZero() {
		upper = MS(to)
	}
	return episodes(q, as, agent, `created_at >= ? AND created_at < ? ORDER BY `+order, MS(from), upper)
}

// EpisodesOfTask reads agent's episodes of the task, oldest first.
// Errors are the driver's or as's.
func EpisodesOfTask[T any](q Querier, as func(EpisodeRow) (T, error), agent, task string) ([]T, error) {
	return episodes(q, as, agent, `task_id = ? AND task_id <> '' ORDER BY created_at, pk`, task)
}

// EpisodesRecent reads up to limit of agent's episodes in the scope sc
// (nil for all), newest first. Errors are the driver's or as's.
func EpisodesRecent[T any](q Querier, as func(EpisodeRow) (T, error), agent string, sc *Scope, limit int) ([]T, error) {
	cond, args := sc.whereOrAll(Episodic, "episodic_log")
	order := sc.orderBy("created_at DESC, pk DESC")
	return episodes(q, as, agent, cond+` ORDER BY `+order+` LIMIT ?`, append(args, limit)...)
}

// PruneEpisodes deletes agent's episodes created before cutoff and
// returns how many. Errors are the driver's.
func PruneEpisodes(q Querier, agent string, cutoff time.Time) (int64, error) {
	return changing(q, Episodic, ChangeDelete, `DELETE FROM episodic_log WHERE agent_id = ? AND created_at < ?`, agent, MS(cutoff))
}

// OldEpisode is an episode with its rowid, as compaction reads it.
type OldEpisode struct {
	PK int64
	EpisodeRow
}

// EpisodesBefore reads agent's episodes created before cutoff, but those
// of type skip, by user, then oldest first: what time-based compaction
// rolls into digests. Errors are the driver's.
func EpisodesBefore(q Querier, agent string, cutoff time.Time, skip string) ([]OldEpisode, error) {
	rows, err := q.Query(`SELECT pk, `+EpisodeCols+` FROM episodic_log
		WHERE agent_id = ? AND created_at < ? AND event_type <> ? ORDER BY user_id, created_at, pk`,
		agent, MS(cutoff), skip)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(sc Scanner) (OldEpisode, error) {
		var o OldEpisode
		var err error
		o.EpisodeRow, err = ScanEpisode(pkFirst{sc, &o.PK})
		return o, err
	})
}

// pkFirst scans a leading pk column before the ones a scan function
// expects.
type pkFirst struct {
	sc Scanner
	pk *int64
}

func (s pkFirst) Scan(dest ...any) error { return s.sc.Scan(append([]any{s.pk}, dest...)...) }

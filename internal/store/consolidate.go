package store

import (
	"encoding/json"
	"time"
)

// The statements of consolidation's steps over semantic entries and
// episodes: merging near-duplicates, promoting what is used, and turning
// recurring events into entries.

// MergeCandidate is a semantic entry's state that merging needs.
type MergeCandidate struct {
	PK                  int64
	ID, Content, UserID string
	Importance          float64
	Access              int
	Created             time.Time
	Tags, MergedFrom    []string
	// Protected says the entry is kept whatever its value (verified, or
	// tagged to never decay): merging never archives it.
	Protected bool
}

// MergeCandidates returns the agent's semantic entries with the rowids
// pks (neverDecay is the never-decay tags as a JSON list).
// Errors are the driver's, or a decoding error of a row's tags.
func MergeCandidates(q Querier, agent, neverDecay string, pks []int64) ([]MergeCandidate, error) {
	list, _ := json.Marshal(pks) // an []int64 always marshals
	rows, err := q.Query(`SELECT s.pk, s.id, s.content, s.importance, s.access_count, s.created_at, s.tags, s.merged_from,
			`+Over(Semantic.Protected, "s")+`, s.user_id
		FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = CAST(j.value AS INTEGER) WHERE s.agent_id = ?3`,
		string(list), neverDecay, agent)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (MergeCandidate, error) {
		var c MergeCandidate
		var tags, from string
		var created int64
		if err := r.Scan(&c.PK, &c.ID, &c.Content, &c.Importance, &c.Access, &created, &tags, &from, &c.Protected, &c.UserID); err != nil {
			return c, err
		}
		c.Created = FromMS(created)
		var err error
		if c.Tags, err = DecodeTags(tags); err != nil {
			return c, err
		}
		c.MergedFrom, err = DecodeTags(from)
		return c, err
	})
}

// SetMerged writes what a merge leaves of the surviving semantic entry at
// rowid pk: its importance, uses, tags, the IDs merged into it, when, and
// its term vector (terms, of ntok tokens).
// Errors are the driver's.
func SetMerged(q Querier, pk int64, importance float64, access int, tags, mergedFrom []string, at time.Time, terms []byte, ntok int) error {
	from, err := json.Marshal(nonNil(mergedFrom))
	if err != nil {
		return err
	}
	_, err = q.Exec(`UPDATE semantic_memory SET importance = ?, access_count = ?, tags = ?, merged_from = ?,
		updated_at = ?, terms = ?, ntok = ? WHERE pk = ?`, importance, access, EncodeTags(tags), string(from), MS(at),
		terms, ntok, pk)
	return err
}

// nonNil returns s, or an empty slice for nil (which JSON writes as []).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// HotEntry is a semantic entry used often enough since its last
// promotion to be promoted: Times is how many steps of every uses.
type HotEntry struct {
	PK         int64
	ID         string
	Importance float64
	Times      int
}

// HotEntries returns the agent's semantic entries used at least every
// times since their last promotion whose importance is under below, by
// rowid.
// Errors are the driver's.
func HotEntries(q Querier, agent string, every int, below float64) ([]HotEntry, error) {
	rows, err := q.Query(`SELECT pk, id, importance, (access_count - promoted_at_count) / ?2 FROM semantic_memory
		WHERE agent_id = ?1 AND access_count - promoted_at_count >= ?2 AND importance < ?3 ORDER BY pk`,
		agent, every, below)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (HotEntry, error) {
		var h HotEntry
		return h, r.Scan(&h.PK, &h.ID, &h.Importance, &h.Times)
	})
}

// Promote sets the importance of the semantic entry at rowid pk, and
// counts its uses so far as promoted, at at.
// Errors are the driver's.
func Promote(q Querier, pk int64, importance float64, at time.Time) error {
	_, err := q.Exec(`UPDATE semantic_memory SET importance = ?, promoted_at_count = access_count, updated_at = ?
		WHERE pk = ?`, importance, MS(at), pk)
	return err
}

// Recurring is an event logged on several days: its text (the first
// spelling), on how many days, and the episodes that logged it.
type Recurring struct {
	Content string
	Days    int
	IDs     []string
}

// RecurringEvents returns the agent's episodes, but those of type skip,
// grouped by their text (without case or surrounding spaces) when it was
// logged on at least days distinct days (UTC), in order of first logging.
// Errors are the driver's, or a decoding error of a row's IDs.
func RecurringEvents(q Querier, agent, skip string, days int) ([]Recurring, error) {
	const dayMS = int64(24 * time.Hour / time.Millisecond)
	rows, err := q.Query(`SELECT min(content), count(DISTINCT created_at / ?3), json_group_array(id)
		FROM episodic_log WHERE agent_id = ?1 AND event_type <> ?2
		GROUP BY lower(trim(content)) HAVING count(DISTINCT created_at / ?3) >= ?4
		ORDER BY min(pk)`, agent, skip, dayMS, days)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (Recurring, error) {
		var e Recurring
		var ids string
		if err := r.Scan(&e.Content, &e.Days, &ids); err != nil {
			return e, err
		}
		return e, json.Unmarshal([]byte(ids), &e.IDs)
	})
}

// LinkEpisodeTo links the agent's episode to its semantic entry with a
// link of type typ and strength 1, made at at, unless one is there.
// Errors are the driver's.
func LinkEpisodeTo(q Querier, agent, episode, entry, typ string, at time.Time) error {
	_, err := q.Exec(`INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		VALUES (?, 'episodic', ?, 'semantic', ?, ?, 1, ?)
		ON CONFLICT DO NOTHING`, agent, episode, entry, typ, MS(at))
	return err
}

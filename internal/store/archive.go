package store

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// The archive: rows compaction, decay or a person took out of search,
// kept as JSON copies with the links that touched them, until Restore
// brings them back or the archive is purged.

// blobColumns are the columns the archive keeps as hex, and
// columnDefaults what a column added since a row was archived restores as.
var (
	blobColumns    = map[string]bool{"content_hash": true, "terms": true}
	columnDefaults = map[string]string{"retrievals": "0", "ntok": "0", "promoted_at_count": "0",
		"user_id": "''", "session_id": "''", "metadata": "'{}'"}
)

// RowJSON is the SQL expression of a row of k, named alias, as a JSON
// object of its columns (Cols); blobs are stored as hex.
func (k *Kind) RowJSON(alias string) string {
	parts := make([]string, 0, 2*len(k.Cols))
	for _, c := range k.Cols {
		v := alias + "." + c
		if blobColumns[c] {
			v = "hex(" + v + ")"
		}
		parts = append(parts, "'"+c+"'", v)
	}
	return "json_object(" + strings.Join(parts, ", ") + ")"
}

// FromJSON is the SQL list of a row's columns read back from the JSON in
// expression j; a column the archived row lacks (added since) takes its
// default.
func (k *Kind) FromJSON(j string) string {
	parts := make([]string, len(k.Cols))
	for i, c := range k.Cols {
		parts[i] = "json_extract(" + j + ", '$." + c + "')"
		if blobColumns[c] {
			// hex(NULL) is '': a NULL blob comes back NULL.
			parts[i] = "unhex(nullif(" + parts[i] + ", ''))"
		}
		if d, ok := columnDefaults[c]; ok {
			parts[i] = "coalesce(" + parts[i] + ", " + d + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// fromRecord is FromJSON on PostgreSQL: the columns of the record r that
// jsonb_populate_record made of the JSON in expression j, typed as the
// table's (blobs read from their hex in j).
func (k *Kind) fromRecord(j, r string) string {
	parts := make([]string, len(k.Cols))
	for i, c := range k.Cols {
		parts[i] = r + "." + c
		if blobColumns[c] {
			parts[i] = "decode(nullif(" + j + "::jsonb ->> '" + c + "', ''), 'hex')"
		}
		if d, ok := columnDefaults[c]; ok {
			parts[i] = "coalesce(" + parts[i] + ", " + d + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// Leaving is a row on its way to the archive: its rowid, and the memory
// it was merged into ("" for none).
type Leaving struct {
	PK   int64  `json:"pk"`
	Into string `json:"into"`
}

// PKID is a row's rowid and ID.
type PKID struct {
	PK int64
	ID string
}

// ArchiveRows copies the agent's rows of kind k listed in rows to the
// archive, with the links that touch them, as archived for reason at at,
// then deletes them (their full-text entries and links go with them, by
// trigger). A row archived before under the same ID is replaced.
// Errors are the driver's.
func ArchiveRows(q Querier, k *Kind, agent string, rows []Leaving, reason string, at time.Time) error {
	list, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	_, err = q.Exec(`INSERT INTO archive (agent_id, memory_type, id, row, links, reason, merged_into, archived_at)
		SELECT r.agent_id, ?3, r.id, `+k.RowJSON("r")+`,
			(SELECT json_group_array(json_object('source_type', l.source_type, 'source_id', l.source_id,
				'target_type', l.target_type, 'target_id', l.target_id, 'link_type', l.link_type,
				'strength', l.strength, 'created_at', l.created_at))
			FROM zettel_links l WHERE l.agent_id = r.agent_id
				AND ((l.source_type = ?3 AND l.source_id = r.id) OR (l.target_type = ?3 AND l.target_id = r.id))),
			?4, j.value ->> '$.into', ?5
		FROM json_each(?1) j CROSS JOIN `+k.Table+` r ON r.pk = CAST(j.value ->> '$.pk' AS INTEGER)
		WHERE r.agent_id = ?2
		ON CONFLICT (agent_id, memory_type, id) DO UPDATE SET row = excluded.row, links = excluded.links,
			reason = excluded.reason, merged_into = excluded.merged_into, archived_at = excluded.archived_at`,
		string(list), agent, k.Name, reason, MS(at))
	if err != nil {
		return err
	}
	_, err = changing(q, k, ChangeDelete, `DELETE FROM `+k.Table+` WHERE agent_id = ?2 AND pk IN (SELECT CAST(value ->> '$.pk' AS INTEGER) FROM json_each(?1))`,
		string(list), agent)
	return err
}

// ArchivedKinds returns the names of the kinds the agent's archive holds
// a memory with the given ID of, oldest archived first.
// Errors are the driver's.
func ArchivedKinds(q Querier, agent, id string) ([]string, error) {
	rows, err := q.Query(`SELECT memory_type FROM archive WHERE agent_id = ? AND id = ? ORDER BY pk`, agent, id)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (string, error) {
		var t string
		return t, r.Scan(&t)
	})
}

// RestoreRow writes the agent's archived row of kind k with the given ID
// back into k's table (a column added since it was archived takes its
// default); a row of that ID in the table is a unique violation.
// Errors are the driver's.
func RestoreRow(q Querier, k *Kind, agent, id string) error {
	if Postgres(q) {
		_, err := changing(q, k, ChangeInsert, PG(`INSERT INTO `+k.Table+` (agent_id, `+strings.Join(k.WrittenCols(k.Cols), ", ")+`)
			SELECT a.agent_id, `+k.fromRecord("a.row", "r")+` FROM archive a
				CROSS JOIN LATERAL jsonb_populate_record(NULL::`+k.Table+`, a.row::jsonb) r
			WHERE a.agent_id = $1 AND a.memory_type = $2 AND a.id = $3`),
			agent, k.Name, id)
		return err
	}
	_, err := changing(q, k, ChangeInsert, `INSERT INTO `+k.Table+` (agent_id, `+strings.Join(k.WrittenCols(k.Cols), ", ")+`)
		SELECT agent_id, `+k.FromJSON("row")+` FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ?`,
		agent, k.Name, id)
	return err
}

// RestoreLinks writes back the links the agent's archived memory of kind
// k with the given ID had, those whose both ends (of the linkable kinds)
// exist; a link already there stays as it is.
// Errors are the driver's.
func RestoreLinks(q Querier, k *Kind, agent, id string, linkable []*Kind) error {
	_, err := q.Exec(`INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		SELECT a.agent_id, l.value ->> 'source_type', l.value ->> 'source_id', l.value ->> 'target_type',
			l.value ->> 'target_id', l.value ->> 'link_type', CAST(l.value ->> 'strength' AS REAL), CAST(l.value ->> 'created_at' AS INTEGER)
		FROM archive a, json_each(a.links) l
		WHERE a.agent_id = ?1 AND a.memory_type = ?2 AND a.id = ?3
			AND `+memoryExists(linkable, "a.agent_id", "l.value ->> 'source_type'", "l.value ->> 'source_id'")+`
			AND `+memoryExists(linkable, "a.agent_id", "l.value ->> 'target_type'", "l.value ->> 'target_id'")+`
		ON CONFLICT DO NOTHING`, agent, k.Name, id)
	return err
}

// memoryExists is the SQL condition that the memory of the kind named by
// expression typ, with the ID expression id, of agent, exists among the
// kinds given.
func memoryExists(kinds []*Kind, agent, typ, id string) string {
	var b strings.Builder
	b.WriteString("CASE " + typ)
	for _, k := range kinds {
		b.WriteString(" WHEN '" + k.Name + "' THEN EXISTS (SELECT 1 FROM " + k.Table + " WHERE agent_id = " + agent + " AND id = " + id + ")")
	}
	b.WriteString(" ELSE false END")
	return b.String()
}

// DropArchived removes the agent's archived memory of kind k with the
// given ID.
// Errors are the driver's.
func DropArchived(q Querier, k *Kind, agent, id string) error {
	_, err := q.Exec(`DELETE FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ?`, agent, k.Name, id)
	return err
}

// RowPK returns the rowid of the agent's row of kind k with the given
// ID, and whether it has one.
// Errors are the driver's.
func RowPK(q Querier, k *Kind, agent, id string) (int64, bool, error) {
	var pk int64
	err := q.QueryRow(`SELECT pk FROM `+k.Table+` WHERE agent_id = ? AND id = ?`, []any{agent, id}, &pk)
	return noRow(pk, err)
}

// DeleteRow deletes the agent's row of kind k with the given ID (its
// triggers remove its full-text entry, vector and links), and reports
// whether there was one. Errors are the driver's.
func DeleteRow(q Querier, k *Kind, agent, id string) (bool, error) {
	n, err := changing(q, k, ChangeDelete, `DELETE FROM `+k.Table+` WHERE agent_id = ? AND id = ?`, agent, id)
	return n > 0, err
}

// CountRows returns how many rows of kind k the agent has.
// Errors are the driver's.
func CountRows(q Querier, k *Kind, agent string) (int, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM `+k.Table+` WHERE agent_id = ?`, []any{agent}, &n)
	return n, err
}

// scanPKIDs scans rows of (pk, id) and closes rows.
func scanPKIDs(rows *sql.Rows) ([]PKID, error) {
	return ScanAll(rows, func(r Scanner) (PKID, error) {
		var p PKID
		return p, r.Scan(&p.PK, &p.ID)
	})
}

// LowestValued returns the n rows of kind k of the agent that are worth
// least (by the kind's Importance, then oldest first), leaving out those
// its Protected condition keeps (neverDecay is the never-decay tags as a
// JSON list).
// Errors are the driver's.
func LowestValued(q Querier, k *Kind, agent, neverDecay string, n int) ([]PKID, error) {
	query, args := protectedArgs(k, `SELECT t.pk, t.id FROM `+k.Table+` t WHERE t.agent_id = ?1 AND NOT `+Over(k.Protected, "t")+`
		ORDER BY `+Over(k.Importance, "t")+`, t.created_at, t.pk LIMIT ?3`, agent, neverDecay, n)
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return scanPKIDs(rows)
}

// protectedArgs returns query, whose parameters are the agent (?1), the
// never-decay tags (?2, which k's Protected condition may read) and last
// (?3), with its arguments: without ?2 when the condition does not read
// it, so that no parameter goes unused (PostgreSQL cannot type one).
func protectedArgs(k *Kind, query, agent, neverDecay string, last any) (string, []any) {
	if strings.Contains(k.Protected, "?2") {
		return query, []any{agent, neverDecay, last}
	}
	return strings.ReplaceAll(query, "?3", "?2"), []any{agent, last}
}

// Resonance is decay's formula: a row's resonance is
// exp(-rate × days since its Decay.Since) × (Base + Use × min(1, uses ÷
// Uses) + Importance × its importance), clamped to [0, 1].
type Resonance struct {
	Base, Use, Uses, Importance float64
}

// DecayRows sets the resonance of every row of kind k (which has a Decay) of
// the agent as of now, at rate per day, and returns how many rows it set.
// Errors are the driver's.
func DecayRows(q Querier, k *Kind, agent string, now time.Time, rate float64, f Resonance) (int64, error) {
	const day = float64(24 * time.Hour / time.Millisecond)
	r := k.Decay
	res, err := q.Exec(`UPDATE `+k.Table+` AS t SET resonance = min(1, max(0,
		exp(-CAST(?3 AS REAL) * max(0, ?2 - `+Over(r.Since, "t")+`) / CAST(?4 AS REAL)) * (CAST(?5 AS REAL) + CAST(?6 AS REAL) * min(1.0, `+Over(r.Uses, "t")+` / CAST(?7 AS REAL))
			+ CAST(?8 AS REAL) * `+Over(r.Importance, "t")+`)))
		WHERE t.agent_id = ?1`, agent, MS(now), rate, day, f.Base, f.Use, f.Uses, f.Importance)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Faded returns the rows of kind k of the agent whose resonance fell
// below minResonance and whose Decay.Importance is under 0.5, but those
// its Protected condition keeps, by rowid.
// Errors are the driver's.
func Faded(q Querier, k *Kind, agent, neverDecay string, minResonance float64) ([]PKID, error) {
	query, args := protectedArgs(k, `SELECT t.pk, t.id FROM `+k.Table+` t WHERE t.agent_id = ?1 AND t.resonance < ?3 AND `+Over(k.Decay.Importance, "t")+` < 0.5
		AND NOT `+Over(k.Protected, "t")+` ORDER BY t.pk`, agent, neverDecay, minResonance)
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return scanPKIDs(rows)
}

// OptimizeText merges the segments of k's full-text index into one; with
// always unset, only when it has more than one. The index is shared by
// every agent of the file: merging changes how it is stored, not what it
// holds.
// Errors are the driver's.
func OptimizeText(q Querier, k *Kind, always bool) error {
	if !always {
		var segments int
		if err := q.QueryRow(`SELECT count(DISTINCT segid) FROM `+k.FTS+`_idx`, nil, &segments); err != nil {
			return err
		}
		if segments <= 1 {
			return nil
		}
	}
	_, err := q.Exec(`INSERT INTO ` + k.FTS + `(` + k.FTS + `) VALUES ('optimize')`)
	return err
}

// HasDefault reports whether an archived row that lacks column c (added
// since it was archived) restores with a default for it.
func HasDefault(c string) bool { return columnDefaults[c] != "" }

// MemoryExists reports whether the agent has a memory of the kind named
// typ, among kinds, with the given ID (each a string, or any value SQLite
// compares with one).
// Errors are the driver's.
func MemoryExists(q Querier, kinds []*Kind, agent string, typ, id any) (bool, error) {
	var ok bool
	err := q.QueryRow(`SELECT `+memoryExists(kinds, "?1", "?2", "?3"), []any{agent, typ, id}, &ok)
	return ok, err
}

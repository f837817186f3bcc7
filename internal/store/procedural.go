package store

import (
	"encoding/json"
	"time"
)

// ProcedureRow is a procedure as the procedural_memory table holds it.
// The store computes its derived columns (the term vector of its name,
// description, pattern and tags, and its token count) when it writes it.
type ProcedureRow struct {
	ID, Name, Description, Pattern string
	SuccessRate                    float64
	UseCount                       int
	Tags                           []string
	Disabled                       bool
	CreatedAt, UpdatedAt           time.Time
	Resonance                      float64
	Retrievals                     int
	UserID, SessionID              string
	// Metadata is a JSON object ("{}" for none).
	Metadata string

	derived
	tags string // Tags encoded, once derived
}

// Derive computes the row's derived columns, the term vector of its
// name, description, pattern and encoded tags and its token count,
// unless done already; the writes derive a row that was not. A row
// changed after Derive must be derived anew: make a new row.
func (r *ProcedureRow) Derive() {
	if !r.done {
		r.tags = EncodeTags(r.Tags)
	}
	r.derive(nil, r.Name, r.Description, r.Pattern, r.tags)
}

// InsertProcedure inserts r as agent's procedure, with its derived
// columns, and returns its rowid. Errors are the driver's, unchanged: an
// ID or a name the agent holds already is a unique violation
// ([IsUniqueViolation]).
func InsertProcedure(q Querier, agent string, r *ProcedureRow) (int64, error) {
	r.Derive()
	var pk int64
	err := q.QueryRow(`INSERT INTO procedural_memory (id, agent_id, name, description, pattern,
		success_rate, use_count, tags, disabled, created_at, updated_at, resonance, terms, ntok,
		user_id, session_id, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
		[]any{r.ID, agent, r.Name, r.Description, r.Pattern, r.SuccessRate, r.UseCount,
			r.tags, r.Disabled, MS(r.CreatedAt), MS(r.UpdatedAt), r.Resonance, r.terms, r.ntok,
			r.UserID, r.SessionID, r.Metadata}, &pk)
	if err == nil {
		inserted(q, Procedural, agent, r.ID, pk, r.Name+": "+r.Description)
	}
	return pk, err
}

// UpdateProcedure writes r's description, pattern, tags, disabled flag
// and time of update, with its derived columns, to agent's procedure with
// r's ID; an unknown ID changes nothing. Errors are the driver's.
func UpdateProcedure(q Querier, agent string, r *ProcedureRow) error {
	r.Derive()
	_, err := updatingText(q, Procedural, `UPDATE procedural_memory SET description = ?, pattern = ?, tags = ?, disabled = ?,
		updated_at = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ?`,
		[]any{r.Description, r.Pattern, r.tags, r.Disabled, MS(r.UpdatedAt), r.terms, r.ntok, agent, r.ID},
		`agent_id = ? AND id = ?`, agent, r.ID)
	return err
}

// ProceduresNamed returns which of names agent's procedures have, in one
// query. Errors are the driver's.
func ProceduresNamed(q Querier, agent string, names []string) (map[string]bool, error) {
	b, _ := json.Marshal(names) // a []string always marshals
	return JSONSet(q, `SELECT json_group_array(name) FROM procedural_memory
		WHERE agent_id = ?1 AND name IN (SELECT value FROM json_each(?2))`, agent, string(b))
}

// ProcedureCols are the columns [ScanProcedure] reads, in its order.
const ProcedureCols = `id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata`

// ScanProcedure scans a row of [ProcedureCols]. It returns the scan's
// error, or an error for tags that are not a JSON list.
func ScanProcedure(sc Scanner) (ProcedureRow, error) {
	var r ProcedureRow
	var tags string
	var created, updated int64
	err := sc.Scan(&r.ID, &r.Name, &r.Description, &r.Pattern, &r.SuccessRate, &r.UseCount,
		&tags, &r.Disabled, &created, &updated, &r.Retrievals, &r.UserID, &r.SessionID, &r.Metadata)
	if err != nil {
		return r, err
	}
	r.CreatedAt, r.UpdatedAt = FromMS(created), FromMS(updated)
	r.Tags, err = DecodeTags(tags)
	return r, err
}

// procedures runs query, which reads ProcedureCols, and scans its rows,
// each made the caller's value by as (so that no list of rows is made on
// the way).
func procedures[T any](q Querier, as func(ProcedureRow) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(sc Scanner) (T, error) {
		r, err := ScanProcedure(sc)
		if err != nil {
			var zero T
			return zero, err
		}
		return as(r)
	})
}

// ProcedureByID reads agent's procedure with the given ID: none or one.
// Errors are the driver's, ScanProcedure's or as's.
func ProcedureByID[T any](q Querier, as func(ProcedureRow) (T, error), agent, id string) ([]T, error) {
	return procedures(q, as, `SELECT `+ProcedureCols+` FROM procedural_memory
		WHERE agent_id = ? AND id = ?`, agent, id)
}

// ProcedureByName reads agent's procedure with the given name: none or
// one. Errors are the driver's, ScanProcedure's or as's.
func ProcedureByName[T any](q Querier, as func(ProcedureRow) (T, error), agent, name string) ([]T, error) {
	return procedures(q, as, `SELECT `+ProcedureCols+` FROM procedural_memory
		WHERE agent_id = ? AND name = ?`, agent, name)
}

// RecordProcedureOutcome records one use of agent's procedure with the
// given ID at the time at: its use count goes up by one and its success
// rate becomes rate·keep + add, kept in [0, 1]. It returns the procedure
// as updated: none when the agent has no such procedure. Errors are the
// driver's or ScanProcedure's or as's.
func RecordProcedureOutcome[T any](q Querier, as func(ProcedureRow) (T, error), agent, id string, keep, add float64, at time.Time) ([]T, error) {
	// min/max keep float rounding from stepping outside the CHECK range.
	return procedures(q, as, `UPDATE procedural_memory
		SET success_rate = min(1.0, max(0.0, success_rate * ? + ?)), use_count = use_count + 1, updated_at = ?
		WHERE agent_id = ? AND id = ? RETURNING `+ProcedureCols,
		keep, add, MS(at), agent, id)
}

// ProceduresActive reads up to limit of agent's procedures that are not
// disabled, in the scope sc (nil for all), the most successful first,
// then the most used, then by ID. Errors are the driver's or
// ScanProcedure's or as's.
func ProceduresActive[T any](q Querier, as func(ProcedureRow) (T, error), agent string, sc *Scope, limit int) ([]T, error) {
	cond, args := sc.whereOrAll(Procedural, "procedural_memory")
	order := sc.orderBy("success_rate DESC, use_count DESC, id")
	return procedures(q, as, `SELECT `+ProcedureCols+` FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND `+cond+` ORDER BY `+order+` LIMIT ?`, append(append([]any{agent}, args...), limit)...)
}

// ProceduresByTags reads up to limit of agent's procedures carrying at
// least one of tags, those carrying the most first, then by success rate,
// use count and ID. Errors are the driver's, ScanProcedure's or as's.
func ProceduresByTags[T any](q Querier, as func(ProcedureRow) (T, error), agent string, tags []string, limit int) ([]T, error) {
	want, _ := json.Marshal(tags) // a []string always marshals
	return procedures(q, as, `SELECT `+ProcedureCols+` FROM (
			SELECT p.*, (SELECT count(DISTINCT t.value) FROM json_each(p.tags) t
			             WHERE t.value IN (SELECT value FROM json_each(?2))) AS hits
			FROM procedural_memory p WHERE p.agent_id = ?1)
		WHERE hits > 0 ORDER BY hits DESC, success_rate DESC, use_count DESC, id LIMIT ?3`,
		agent, string(want), limit)
}

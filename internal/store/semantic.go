package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// SemanticRow is a semantic entry as the semantic_memory table holds it.
// The store computes its derived columns (the term vector of its content
// and tags, their token count, the content's hash) when it writes it; see
// [SemanticRow.Derive].
type SemanticRow struct {
	ID, Content, Summary string
	Importance           float64
	Verified             bool
	Tags                 []string
	Source               string
	CreatedAt, UpdatedAt time.Time
	AccessCount          int
	LastAccessedAt       time.Time
	Resonance            float64
	MergedFrom           []string
	Retrievals           int
	UserID, SessionID    string
	// Metadata is a JSON object, or "" for none (read back as "" too).
	Metadata string

	derived
	tags string // Tags encoded, once derived
	hash []byte // ContentHash(Content), once derived
}

// Derive computes the row's derived columns, the term vector of its
// content and encoded tags and its token count, unless done already; each,
// when not nil, sees every token as bm25.VectorEach gives it (i is 0 for
// the content, 1 for the tags). The writes derive a row that was not;
// calling Derive before (outside the write transaction, on several
// goroutines for a batch) only moves the work. A row changed after Derive
// must be derived anew: make a new row.
func (r *SemanticRow) Derive(each func(i int, tok, stem string)) {
	if !r.done {
		r.tags, r.hash = EncodeTags(r.Tags), ContentHash(r.Content)
	}
	r.derive(each, r.Content, r.tags)
}

// Terms returns the row's term vector and token count, derived first
// when they are not yet.
func (r *SemanticRow) Terms() ([]byte, int) {
	r.Derive(nil)
	return r.terms, r.ntok
}

// SemanticTerms is the term vector and token count of an entry's indexed
// texts: its content and its tags.
// SemanticTerms returns the term vector of a semantic entry of the given
// content and tags, and its length in tokens, as Derive makes them.
func SemanticTerms(content string, tags []string) ([]byte, int) {
	r := SemanticRow{Content: content, Tags: tags}
	r.Derive(nil)
	return r.terms, r.ntok
}

// CompactSummary is what a semantic entry's summary_own column holds for
// the summary: the empty string when it is the content (a one-line
// content is its own summary), which the summary column, generated from
// summary_own, reads back as the content. A summary is never empty, so
// the empty string stands for nothing else.
func CompactSummary(summary, content string) string {
	if summary == content {
		return ""
	}
	return summary
}

// semanticWriteCols are the columns an insert of a semantic entry names.
var semanticWriteCols = []string{"id", "agent_id", "content", "summary_own", "importance",
	"verified", "tags", "source", "content_hash", "created_at", "updated_at", "access_count", "last_accessed_at", "resonance",
	"terms", "ntok", "user_id", "session_id", "metadata"}

// args appends the values of semanticWriteCols for r, derived, to args.
func (r *SemanticRow) args(agent string, args []any) []any {
	r.Derive(nil)
	return append(args, r.ID, agent, r.Content, CompactSummary(r.Summary, r.Content), r.Importance, r.Verified, r.tags, r.Source,
		r.hash, MS(r.CreatedAt), MS(r.UpdatedAt), r.AccessCount, MS(r.LastAccessedAt), r.Resonance, r.terms, r.ntok,
		r.UserID, r.SessionID, r.Metadata)
}

// InsertSemantic inserts r as agent's entry, with its derived columns,
// and returns its rowid. Errors are the driver's, unchanged: an ID the
// agent holds already is a unique violation ([IsUniqueViolation]).
func InsertSemantic(q Querier, agent string, r *SemanticRow) (int64, error) {
	args := r.args(agent, make([]any, 0, len(semanticWriteCols)))
	var pk int64
	err := q.QueryRow(`INSERT INTO semantic_memory (id, agent_id, content, summary_own, importance,
		verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance,
		terms, ntok, user_id, session_id, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`, args, &pk)
	if err == nil {
		inserted(q, Semantic, agent, r.ID, pk, r.Content)
	}
	return pk, err
}

// InsertSemanticBatch inserts rows as agent's entries, with their derived
// columns, [BatchMax] per statement (see [InsertRows]), and returns their
// rowids in order. The rows' IDs must be distinct and new (see
// [HeldIDs]); errors are the driver's, unchanged.
func InsertSemanticBatch(q Querier, agent string, rows []*SemanticRow) ([]int64, error) {
	pks := make([]int64, len(rows))
	err := InsertRows(q, "semantic_memory", semanticWriteCols, len(rows),
		func(i int, args []any) []any { return rows[i].args(agent, args) },
		func(i int, pk int64) {
			pks[i] = pk
			inserted(q, Semantic, agent, rows[i].ID, pk, rows[i].Content)
		})
	return pks, err
}

// SemanticContentByID returns the rowid and content of agent's entry
// with the given ID, and whether there is one. Errors are the driver's.
func SemanticContentByID(q Querier, agent, id string) (pk int64, content string, ok bool, err error) {
	err = q.QueryRow(`SELECT pk, content FROM semantic_memory WHERE agent_id = ? AND id = ?`,
		[]any{agent, id}, &pk, &content)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return pk, content, err == nil, err
}

// UpdateSemanticContent writes r's content, summary, importance and
// tags, with its derived columns, to the entry with rowid pk, and
// updatedAt as its time of update. Errors are the driver's.
func UpdateSemanticContent(q Querier, pk int64, r *SemanticRow, updatedAt time.Time) error {
	r.Derive(nil)
	_, err := updatingText(q, Semantic, `UPDATE semantic_memory SET content = ?, summary_own = ?, importance = ?, tags = ?,
		content_hash = ?, updated_at = ?, terms = ?, ntok = ? WHERE pk = ?`,
		[]any{r.Content, CompactSummary(r.Summary, r.Content), r.Importance, r.tags, r.hash, MS(updatedAt), r.terms, r.ntok, pk},
		`pk = ?`, pk)
	return err
}

// UpdateSemantic writes r's content, summary, importance, verified flag,
// tags and time of update, with its derived columns, to agent's entry
// with r's ID; an unknown ID changes nothing. Errors are the driver's.
func UpdateSemantic(q Querier, agent string, r *SemanticRow) error {
	r.Derive(nil)
	_, err := updatingText(q, Semantic, `UPDATE semantic_memory SET content = ?, summary_own = ?, importance = ?, verified = ?,
		tags = ?, content_hash = ?, updated_at = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ?`,
		[]any{r.Content, CompactSummary(r.Summary, r.Content), r.Importance, r.Verified, r.tags, r.hash,
			MS(r.UpdatedAt), r.terms, r.ntok, agent, r.ID},
		`agent_id = ? AND id = ?`, agent, r.ID)
	return err
}

// SemanticHolding returns which of contents agent's entries hold, in one
// query (found by hash, then compared): the entries of user, or of any
// user when user is "". Errors are the driver's.
func SemanticHolding(q Querier, agent string, contents []string, user string) (map[string]bool, error) {
	type keyHash struct {
		K string `json:"k"`
		H string `json:"h"`
	}
	keyed := make([]keyHash, len(contents))
	for i, c := range contents {
		keyed[i] = keyHash{K: c, H: fmt.Sprintf("%X", ContentHash(c))}
	}
	b, err := json.Marshal(keyed)
	if err != nil {
		return nil, err
	}
	return JSONSet(q, `SELECT json_group_array(j.value ->> '$.k') FROM json_each(?2) j
		WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND content_hash = unhex(j.value ->> '$.h')
			AND content = j.value ->> '$.k' AND (?3 = '' OR user_id = ?3))`,
		agent, string(b), user)
}

// SemanticCols are the columns [ScanSemantic] reads, in its order. The
// metadata is NULL when empty, which scans into a nil pointer: no string
// is made for it, for the many rows that have none.
const SemanticCols = `id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}')`

// ScanSemantic scans a row of [SemanticCols]. It returns the scan's
// error, or an error for tags that are not a JSON list.
func ScanSemantic(sc Scanner) (SemanticRow, error) {
	var r SemanticRow
	var tags, from string
	var meta *string
	var created, updated, accessed int64
	err := sc.Scan(&r.ID, &r.Content, &r.Summary, &r.Importance, &r.Verified, &tags, &r.Source,
		&created, &updated, &r.AccessCount, &accessed, &r.Resonance, &from, &r.Retrievals,
		&r.UserID, &r.SessionID, &meta)
	if err != nil {
		return r, err
	}
	if meta != nil {
		r.Metadata = *meta
	}
	r.CreatedAt, r.UpdatedAt, r.LastAccessedAt = FromMS(created), FromMS(updated), FromMS(accessed)
	if r.Tags, err = DecodeTags(tags); err != nil {
		return r, err
	}
	if from != "[]" {
		r.MergedFrom, err = DecodeTags(from)
	}
	return r, err
}

// semanticEntries reads agent's entries that the condition where (with
// args, numbered from ?2 or unnumbered after the agent) selects, in the
// order and number its ORDER BY and LIMIT say, each made the caller's
// value by as (so that no list of rows is made on the way). where is a
// fragment the root builds from its filters and the kind registry, never
// from input. Errors are the driver's, ScanSemantic's or as's.
func semanticEntries[T any](q Querier, as func(SemanticRow) (T, error), agent, where string, args ...any) ([]T, error) {
	rows, err := q.Query(`SELECT `+SemanticCols+` FROM semantic_memory WHERE agent_id = ? AND `+where, append([]any{agent}, args...)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(sc Scanner) (T, error) {
		r, err := ScanSemantic(sc)
		if err != nil {
			var zero T
			return zero, err
		}
		return as(r)
	})
}

// SemanticByID reads agent's entry with the given ID: none or one.
// Errors are the driver's, ScanSemantic's or as's.
func SemanticByID[T any](q Querier, as func(SemanticRow) (T, error), agent, id string) ([]T, error) {
	return semanticEntries(q, as, agent, `id = ?`, id)
}

// SemanticPage reads agent's entries in the scope sc (nil for all), the
// most important first, then the latest changed, then by ID, limit of
// them from offset on. Errors are the driver's, ScanSemantic's or as's.
func SemanticPage[T any](q Querier, as func(SemanticRow) (T, error), agent string, sc *Scope, limit, offset int) ([]T, error) {
	cond, args := sc.whereOrAll(Semantic, "semantic_memory")
	order := sc.orderBy("importance DESC, updated_at DESC, id")
	return semanticEntries(q, as, agent, cond+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
}

// BumpSemanticAccess raises the access count of agent's entries with the
// given IDs by one and sets their last access to at, in one statement,
// and returns how many entries it changed. Unknown IDs are skipped.
// Errors are the driver's.
func BumpSemanticAccess(q Querier, agent string, ids []string, at time.Time) (int, error) {
	list, _ := json.Marshal(ids) // a []string always marshals
	res, err := q.Exec(`UPDATE semantic_memory SET access_count = access_count + 1, last_accessed_at = ?
		WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))`, MS(at), agent, string(list))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

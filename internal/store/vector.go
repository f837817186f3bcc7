package store

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	_ "modernc.org/sqlite/vec" // registers sqlite-vec's vec0 on every connection
)

// Tier 2's statements: the vec0 tables that hold each kind's vectors, the
// pending marks of the rows waiting for theirs (vector_pending), the
// embedding cache, and the meta keys that record the vectors' model. On
// PostgreSQL, which has no vec0, a kind's vectors are in the side table
// vec_<kind> of its schema (schema.sql), keyed by (agent_id, pk): the
// functions over them choose PostgreSQL's own statements by [Postgres].

// VecKind is what the vector statements need of a memory kind with
// vectors. The root package's kind registry makes it: its table names
// and expressions are SQL fragments, for now passed in as strings.
type VecKind struct {
	Type  string // its memory_type
	Table string // its table
	Vec   string // its vec0 table, keyed by the row's pk
	// Text is the expression of the text it embeds over the alias t of
	// its table, ArchivedText the same over the JSON column row of the
	// archive.
	Text, ArchivedText string
}

// TextHash is the hash engram keeps of a text: a document chunk's
// content_hash and the embedding cache's key.
func TextHash(text string) []byte {
	sum := sha256.Sum256([]byte(text))
	return sum[:16]
}

// ContentHash is the hash a semantic entry keeps of its content, in
// content_hash: the first 8 bytes of TextHash's. It only finds the
// entries that may hold a text already (semantic_by_hash), each of which
// is then compared by its content, so a collision costs a comparison, not
// a wrong answer; entries written before schema 14 kept 16 bytes, which
// migration 14 cut to these 8.
func ContentHash(text string) []byte { return TextHash(text)[:8] }

// EncodeVector encodes a vector as vec0 and the embedding cache store it:
// little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector decodes what EncodeVector made of a vector of dims
// dimensions; it returns an error when b is not 4*dims bytes long.
func DecodeVector(b []byte, dims int) ([]float32, error) {
	if len(b) != 4*dims {
		return nil, fmt.Errorf("a stored vector has %d bytes, want %d", len(b), 4*dims)
	}
	v := make([]float32, dims)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// VectorMeta returns the values of meta's keys dimsKey and modelKey, ""
// for a key meta lacks. Errors are the driver's.
func VectorMeta(q Querier, dimsKey, modelKey string) (dims, model string, err error) {
	err = q.QueryRow(`SELECT coalesce((SELECT value FROM meta WHERE key = ?), ''), coalesce((SELECT value FROM meta WHERE key = ?), '')`,
		[]any{dimsKey, modelKey}, &dims, &model)
	return dims, model, err
}

// BumpVectorVersions moves on by one every counter in meta whose key
// begins with prefix. Errors are the driver's.
func BumpVectorVersions(q Querier, prefix string) error {
	_, err := q.Exec(`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key >= ? AND key < ?`, prefix, prefixEnd(prefix))
	return err
}

// VectorTableExists reports whether the database has a table (a vec0
// table among them) named name. On PostgreSQL, whose schema has every
// vector table from the start, it reports whether the Tier 2 schema was
// made: whether meta has its version (vector.schema). Errors are the
// driver's.
func VectorTableExists(q Querier, name string) (bool, error) {
	var made bool
	if Postgres(q) {
		err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'vector.schema')`, nil, &made)
		return made, err
	}
	err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?)`, []any{name}, &made)
	return made, err
}

// DropVectorTable drops the vec0 table vec and the triggers that keep it
// in step with its kind's table (made by the Tier 2 schema). On
// PostgreSQL, whose side table vec_<kind> declares no dimension and
// whose triggers are schema.sql's, it deletes every agent's vectors from
// it instead. It returns the driver's error, prefixed with vec; the
// table must exist.
func DropVectorTable(q Querier, vec string) error {
	if Postgres(q) {
		if _, err := q.Exec(PG(`DELETE FROM ` + vec)); err != nil {
			return fmt.Errorf("%s: %w", vec, err)
		}
		return nil
	}
	for _, stmt := range []string{`DROP TABLE ` + vec, `DROP TRIGGER IF EXISTS ` + vec + `_ai`,
		`DROP TRIGGER IF EXISTS ` + vec + `_au`, `DROP TRIGGER IF EXISTS ` + vec + `_ad`} {
		if _, err := q.Exec(stmt); err != nil {
			return fmt.Errorf("%s: %w", vec, err)
		}
	}
	return nil
}

// MarkPending marks every row of k's table pending (waiting for its
// vector), those of agent only unless agent is "", keeping the marks
// there are. Errors are the driver's.
func MarkPending(q Querier, k VecKind, agent string) error {
	// No conflict target: the table's key is (memory_type, pk) on SQLite,
	// agent first on PostgreSQL.
	_, err := q.Exec(`INSERT INTO vector_pending (memory_type, pk, agent_id)
			SELECT '`+k.Type+`', pk, agent_id FROM `+k.Table+` WHERE ?1 = '' OR agent_id = ?1 ON CONFLICT DO NOTHING`, agent)
	return err
}

// DropStalePending deletes agent's pending marks of kind k whose row is
// gone. Errors are the driver's.
func DropStalePending(q Querier, k VecKind, agent string) error {
	_, err := q.Exec(`DELETE FROM vector_pending WHERE agent_id = ? AND memory_type = '`+k.Type+`'
				AND pk NOT IN (SELECT pk FROM `+k.Table+`)`, agent)
	return err
}

// PendingCount returns how many of agent's rows are pending. Errors are
// the driver's.
func PendingCount(q Querier, agent string) (int, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM vector_pending WHERE agent_id = ?`, []any{agent}, &n)
	return n, err
}

// PendingError returns the last error recorded on agent's pending rows
// whose embedding failed (the greatest, when several), or "". Errors are
// the driver's.
func PendingError(q Querier, agent string) (string, error) {
	var why string
	err := q.QueryRow(`SELECT coalesce(max(last_error), '') FROM vector_pending WHERE agent_id = ? AND attempts > 0`,
		[]any{agent}, &why)
	return why, err
}

// PendingOf returns which of the rows pks of type typ are pending. Errors
// are the driver's.
func PendingOf(q Querier, typ string, pks []int64) ([]int64, error) {
	list, _ := json.Marshal(pks)
	rows, err := q.Query(`SELECT p.pk FROM json_each(?2) j CROSS JOIN vector_pending p ON p.memory_type = ?1 AND p.pk = CAST(j.value AS INTEGER)`,
		typ, string(list))
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (int64, error) {
		var pk int64
		return pk, r.Scan(&pk)
	})
}

// PendingVector is a row waiting for its vector, with the text to embed
// ("" if the row is gone, which none should be).
type PendingVector struct {
	Type string
	PK   int64
	Text string
}

// PendingVectors returns up to n of agent's pending rows of the kinds,
// fewest failed attempts first, then by type and pk. Errors are the
// driver's.
func PendingVectors(q Querier, kinds []VecKind, agent string, n int) ([]PendingVector, error) {
	var cases []string
	for _, k := range kinds {
		cases = append(cases, `WHEN '`+k.Type+`' THEN (SELECT `+k.Text+` FROM `+k.Table+` t WHERE t.pk = p.pk)`)
	}
	rows, err := q.Query(`SELECT p.memory_type, p.pk, CASE p.memory_type `+strings.Join(cases, " ")+` END
		FROM vector_pending p WHERE p.agent_id = ?1 ORDER BY p.attempts, p.memory_type, p.pk LIMIT ?2`, agent, n)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (PendingVector, error) {
		var p PendingVector
		var text sql.NullString
		err := r.Scan(&p.Type, &p.PK, &text)
		p.Text = text.String
		return p, err
	})
}

// PendingText returns the text of agent's row pk of kind k, if the row is
// there and pending (ok). Errors are the driver's.
func PendingText(q Querier, k VecKind, pk int64, agent string) (text string, ok bool, err error) {
	err = q.QueryRow(`SELECT `+k.Text+` FROM `+k.Table+` t WHERE t.pk = ?1 AND t.agent_id = ?2
				AND EXISTS (SELECT 1 FROM vector_pending WHERE memory_type = ?3 AND pk = ?1)`,
		[]any{pk, agent, k.Type}, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return text, err == nil, err
}

// VectorFailed records a failed embedding of the pending row pk of type
// typ: one more attempt, and msg as its last error. Errors are the
// driver's.
func VectorFailed(q Querier, typ string, pk int64, msg string) error {
	_, err := q.Exec(`UPDATE vector_pending SET attempts = attempts + 1, last_error = ?
				WHERE memory_type = ? AND pk = ?`, msg, typ, pk)
	return err
}

// PutVector writes vec as the vector of agent's row pk (of type typ) in
// the vector table vecTable, deleting the one it had first when replace
// (vec0 has no upsert), and clears the row's pending mark; without
// replace the row must have no vector. On PostgreSQL it is one
// statement, keyed by the agent as the side table is. Errors are the
// driver's.
func PutVector(q Querier, vecTable, typ, agent string, pk int64, vec []float32, replace bool) error {
	if Postgres(q) {
		upsert := ``
		if replace {
			upsert = ` ON CONFLICT (agent_id, pk) DO UPDATE SET embedding = excluded.embedding`
		}
		_, err := q.Exec(PG(`WITH p AS (DELETE FROM vector_pending WHERE agent_id = $1 AND memory_type = $2 AND pk = $3)
			INSERT INTO `+vecTable+` (agent_id, pk, embedding) VALUES ($1, $3, $4)`+upsert), agent, typ, pk, EncodeVector(vec))
		return err
	}
	if replace {
		if _, err := q.Exec(`DELETE FROM `+vecTable+` WHERE rowid = ?`, pk); err != nil {
			return err
		}
	}
	if _, err := q.Exec(`INSERT INTO `+vecTable+` (rowid, embedding) VALUES (?, ?)`, pk, EncodeVector(vec)); err != nil {
		return err
	}
	_, err := q.Exec(`DELETE FROM vector_pending WHERE memory_type = ? AND pk = ?`, typ, pk)
	return err
}

// HasVector reports whether the vector table vecTable holds a vector of
// agent's row pk. Errors are the driver's.
func HasVector(q Querier, vecTable, agent string, pk int64) (bool, error) {
	if Postgres(q) {
		var has bool
		err := q.QueryRow(PG(`SELECT EXISTS (SELECT 1 FROM `+vecTable+` WHERE agent_id = $1 AND pk = $2)`), []any{agent, pk}, &has)
		return has, err
	}
	var n int
	err := q.QueryRow(`SELECT count(*) FROM `+vecTable+` WHERE rowid = ?`, []any{pk}, &n)
	return n > 0, err
}

// StoredVector returns the vector of agent's row pk in the vector table
// vecTable, of dims dimensions, or nil when it has none. Errors are the
// driver's, or DecodeVector's.
func StoredVector(q Querier, vecTable, agent string, pk int64, dims int) ([]float32, error) {
	var b []byte
	var err error
	if Postgres(q) {
		err = q.QueryRow(PG(`SELECT embedding FROM `+vecTable+` WHERE agent_id = $1 AND pk = $2`), []any{agent, pk}, &b)
	} else {
		err = q.QueryRow(`SELECT embedding FROM `+vecTable+` WHERE rowid = ?`, []any{pk}, &b)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return DecodeVector(b, dims)
}

// OtherAgentWithVector returns an agent other than agent with a row of
// kind k that has its vector (is not pending), or "". Errors are the
// driver's.
func OtherAgentWithVector(q Querier, k VecKind, agent string) (string, error) {
	var other string
	err := q.QueryRow(`SELECT t.agent_id FROM `+k.Table+` t WHERE (t.agent_id < ?1 OR t.agent_id > ?1)
			AND NOT EXISTS (SELECT 1 FROM vector_pending p WHERE p.memory_type = ?2 AND p.pk = t.pk) LIMIT 1`,
		[]any{agent, k.Type}, &other)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return other, err
}

// VectorRowID is a row's pk and its memory ID.
type VectorRowID struct {
	PK int64
	ID string
}

// VectorRowIDs returns the pks and IDs of agent's rows of table among
// pks, in no order. Errors are the driver's.
func VectorRowIDs(q Querier, table, agent string, pks []int64) ([]VectorRowID, error) {
	list, _ := json.Marshal(pks)
	rows, err := q.Query(`SELECT s.pk, s.id FROM json_each(?1) j CROSS JOIN `+table+` s ON s.pk = CAST(j.value AS INTEGER)
		WHERE s.agent_id = ?2`, string(list), agent)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (VectorRowID, error) {
		var d VectorRowID
		return d, r.Scan(&d.PK, &d.ID)
	})
}

// VectorRankedSQL makes the statement that reads, for the rows of kind k
// whose pks are listed in ?1, what ranking needs of them (RankCols, over
// the alias t), under a search's filters: the agent, the creation times
// since and until (Unix milliseconds, until excluded) and the tags as ?2
// to ?5, and the search's scope, whose condition the caller puts in place
// of ScopeMark, with its arguments after ?5.
func VectorRankedSQL(k *Kind) string {
	return `SELECT ` + RankCols(k, "t") + `
			FROM json_each(?1) j CROSS JOIN ` + k.Table + ` t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ` + k.TagFilter("t", "?5") + ` AND ` + ScopeMark
}

// VectorRanked runs stmt, a statement of VectorRankedSQL whose scope the
// caller has filled in, for the rows pks of agent, with the filters'
// arguments (since, until, tags, then scopeArgs), and scans each row
// with scan. Errors are the driver's, or scan's.
func VectorRanked[T any](q Querier, stmt string, pks []int64, agent string, since, until int64, tags string,
	scopeArgs []any, scan func(Scanner) (T, error)) ([]T, error) {
	list, _ := json.Marshal(pks)
	rows, err := q.Query(stmt, append([]any{string(list), agent, since, until, tags}, scopeArgs...)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scan)
}

// CachedEmbedding is an entry of the embedding cache: the hash of its
// text, whether it names a row that holds the vector (Named), and the
// vector (nil when a named row has none, which none should).
type CachedEmbedding struct {
	Hash  []byte
	Named bool
	Vec   []float32
}

// CachedEmbeddings returns the embedding cache's entries of model for the
// hashes given, their vectors of dims dimensions read from the vec0
// table of their row's kind (one of kinds) when they name one. Errors
// are the driver's, or DecodeVector's.
//
// On PostgreSQL an entry finds its row's vector by pk alone (the side
// tables' index <vec>_by_pk): the cache, shared by the agents, does not
// name the row's agent.
func CachedEmbeddings(q Querier, kinds []VecKind, model string, dims int, hashes [][]byte) ([]CachedEmbedding, error) {
	pg := Postgres(q)
	var cases []string
	for _, k := range kinds {
		if pg {
			cases = append(cases, `WHEN '`+k.Type+`' THEN (SELECT embedding FROM `+k.Vec+` WHERE pk = c.memory_pk)`)
		} else {
			cases = append(cases, `WHEN '`+k.Type+`' THEN (SELECT embedding FROM `+k.Vec+` WHERE rowid = c.memory_pk)`)
		}
	}
	var rows *sql.Rows
	var err error
	if pg {
		rows, err = q.Query(PG(`SELECT c.hash, c.memory_pk IS NOT NULL,
			CASE WHEN c.memory_pk IS NULL THEN c.vector ELSE CASE c.memory_type `+strings.Join(cases, " ")+` END END
		FROM embedding_cache c WHERE c.model = $1 AND c.hash = ANY($2)`), model, hashes)
	} else {
		hexes := make([]string, len(hashes))
		for i, h := range hashes {
			hexes[i] = hex.EncodeToString(h)
		}
		list, _ := json.Marshal(hexes)
		rows, err = q.Query(`SELECT c.hash, c.memory_pk IS NOT NULL,
			CASE WHEN c.memory_pk IS NULL THEN c.vector ELSE CASE c.memory_type `+strings.Join(cases, " ")+` END END
		FROM json_each(?2) j CROSS JOIN embedding_cache c ON c.model = ?1 AND c.hash = unhex(j.value)`, model, string(list))
	}
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (CachedEmbedding, error) {
		var e CachedEmbedding
		var b []byte
		if err := r.Scan(&e.Hash, &e.Named, &b); err != nil || b == nil {
			return e, err
		}
		var err error
		e.Vec, err = DecodeVector(b, dims)
		return e, err
	})
}

// NameCachedRow records in the embedding cache that row pk of type typ
// holds the embedding of model for the text of hash, used at at, unless
// the cache names a row for it already; an entry that held the vector
// itself gives it up. Errors are the driver's.
func NameCachedRow(q Querier, model string, hash []byte, at time.Time, typ string, pk int64) error {
	_, err := q.Exec(`INSERT INTO embedding_cache (model, hash, vector, used_at, memory_type, memory_pk)
			VALUES (?1, ?2, x'', ?3, ?4, ?5)
			ON CONFLICT (model, hash) DO UPDATE SET vector = x'', used_at = ?3, memory_type = ?4, memory_pk = ?5
			WHERE embedding_cache.memory_pk IS NULL`, model, hash, MS(at), typ, pk)
	return err
}

// DropOtherEmbeddings deletes the embedding cache's entries that are not
// of model or not of dims dimensions (those that name rows hold no
// vector, and go too). Errors are the driver's.
func DropOtherEmbeddings(q Querier, model string, dims int) error {
	_, err := q.Exec(`DELETE FROM embedding_cache WHERE model <> ? OR length(vector) <> ?`, model, 4*dims)
	return err
}

package store

import (
	"encoding/json"
	"time"
)

// The reads that check Tier 2's tables against each other, and those of
// the Tier 2 schema step that names rows in the embedding cache.

// VectorProblems counts what is wrong between kind k's rows and its
// vectors: vectors without a row (Orphans), rows neither embedded nor
// pending (Missing), pending marks without a row (Stale).
type VectorProblems struct {
	Orphans, Missing, Stale int
}

// CheckVectorKind counts what is wrong between kind k's rows, its vec0
// table and its pending marks. On PostgreSQL, whose side table and
// pending marks name the row's agent, a vector or a mark of a row under
// another agent is one without a row. Errors are the driver's.
func CheckVectorKind(q Querier, k VecKind) (VectorProblems, error) {
	var p VectorProblems
	if Postgres(q) {
		err := q.QueryRow(PG(`SELECT
			(SELECT count(*) FROM `+k.Vec+` v WHERE NOT EXISTS
				(SELECT 1 FROM `+k.Table+` b WHERE b.agent_id = v.agent_id AND b.pk = v.pk)),
			(SELECT count(*) FROM `+k.Table+` b WHERE NOT EXISTS
				(SELECT 1 FROM vector_pending p WHERE p.agent_id = b.agent_id AND p.memory_type = $1 AND p.pk = b.pk)
				AND NOT EXISTS (SELECT 1 FROM `+k.Vec+` v WHERE v.agent_id = b.agent_id AND v.pk = b.pk)),
			(SELECT count(*) FROM vector_pending p WHERE p.memory_type = $1
				AND NOT EXISTS (SELECT 1 FROM `+k.Table+` b WHERE b.agent_id = p.agent_id AND b.pk = p.pk))`),
			[]any{k.Type}, &p.Orphans, &p.Missing, &p.Stale)
		return p, err
	}
	err := q.QueryRow(`SELECT
			(SELECT count(*) FROM `+k.Vec+` v WHERE NOT EXISTS (SELECT 1 FROM `+k.Table+` b WHERE b.pk = v.rowid)),
			(SELECT count(*) FROM `+k.Table+` b WHERE NOT EXISTS
				(SELECT 1 FROM vector_pending p WHERE p.memory_type = ?1 AND p.pk = b.pk)
				AND b.pk NOT IN (SELECT rowid FROM `+k.Vec+`)),
			(SELECT count(*) FROM vector_pending p WHERE p.memory_type = ?1
				AND NOT EXISTS (SELECT 1 FROM `+k.Table+` b WHERE b.pk = p.pk))`,
		[]any{k.Type}, &p.Orphans, &p.Missing, &p.Stale)
	return p, err
}

// CacheProblems counts what is wrong in the embedding cache as a whole:
// entries that name rows but are of another model than the vectors'
// (OtherModel) or name rows of a kind without vectors (OtherKind), and
// entries of the vectors' model holding a vector of another dimension
// (BadLength).
type CacheProblems struct {
	OtherModel, OtherKind, BadLength int
}

// CheckCache counts what is wrong in the embedding cache, for vectors of
// model and dims dimensions (as meta records them: dims is a string) and
// the kinds with vectors types. Errors are the driver's.
func CheckCache(q Querier, model, dims string, types []string) (CacheProblems, error) {
	list, _ := json.Marshal(types)
	var p CacheProblems
	err := q.QueryRow(`SELECT
		(SELECT count(*) FROM embedding_cache WHERE memory_pk IS NOT NULL AND model <> ?1),
		(SELECT count(*) FROM embedding_cache WHERE memory_pk IS NOT NULL AND memory_type NOT IN (SELECT value FROM json_each(?3))),
		(SELECT count(*) FROM embedding_cache WHERE memory_pk IS NULL AND model = ?1 AND length(vector) <> 4 * ?2)`,
		[]any{model, dims, string(list)}, &p.OtherModel, &p.OtherKind, &p.BadLength)
	return p, err
}

// CacheUnembedded returns how many of the embedding cache's entries name
// a row of kind k that has no vector. Errors are the driver's.
func CacheUnembedded(q Querier, k VecKind) (int, error) {
	var n int
	if Postgres(q) {
		// By pk alone (<vec>_by_pk): the cache does not name the agent.
		err := q.QueryRow(PG(`SELECT count(*) FROM embedding_cache c WHERE c.memory_type = $1
			AND NOT EXISTS (SELECT 1 FROM `+k.Vec+` v WHERE v.pk = c.memory_pk)`), []any{k.Type}, &n)
		return n, err
	}
	err := q.QueryRow(`SELECT count(*) FROM embedding_cache WHERE memory_type = ?1
			AND memory_pk NOT IN (SELECT rowid FROM `+k.Vec+`)`, []any{k.Type}, &n)
	return n, err
}

// CacheNamed is an entry of the embedding cache that names a row: its
// hash, and the text of the row it names ("" when the row is gone).
type CacheNamed struct {
	Hash []byte
	Text string
}

// CacheNamedOf returns the embedding cache's entries that name rows of
// kind k, with those rows' texts. Errors are the driver's.
func CacheNamedOf(q Querier, k VecKind) ([]CacheNamed, error) {
	rows, err := q.Query(`SELECT c.hash, coalesce(`+k.Text+`, '') FROM embedding_cache c
			LEFT JOIN `+k.Table+` t ON t.pk = c.memory_pk WHERE c.memory_type = ?`, k.Type)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (CacheNamed, error) {
		var c CacheNamed
		return c, r.Scan(&c.Hash, &c.Text)
	})
}

// VectorText is a row of a kind with vectors: its pk, its text, and
// whether it has its vector.
type VectorText struct {
	PK        int64
	Text      string
	HasVector bool
}

// VectorTexts returns every row of kind k, of every agent, with its text
// and whether it has its vector. Errors are the driver's.
func VectorTexts(q Querier, k VecKind) ([]VectorText, error) {
	rows, err := q.Query(`SELECT t.pk, ` + k.Text + `, t.pk IN (SELECT rowid FROM ` + k.Vec + `) FROM ` + k.Table + ` t`)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (VectorText, error) {
		var t VectorText
		return t, r.Scan(&t.PK, &t.Text, &t.HasVector)
	})
}

// KindArchivedTexts returns the texts of kind k's archived memories, every
// agent's ("" for one without). Errors are the driver's.
func KindArchivedTexts(q Querier, k VecKind) ([]string, error) {
	rows, err := q.Query(`SELECT coalesce(`+k.ArchivedText+`, '') FROM archive WHERE memory_type = ?`, k.Type)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (string, error) {
		var s string
		return s, r.Scan(&s)
	})
}

// CachedCopy is an entry of the embedding cache that holds its vector
// itself: its pk and its hash, in lower-case hex.
type CachedCopy struct {
	PK   int64
	Hash string
}

// CachedCopies returns the embedding cache's entries that hold their
// vector themselves (name no row). Errors are the driver's.
func CachedCopies(q Querier) ([]CachedCopy, error) {
	rows, err := q.Query(`SELECT pk, lower(hex(hash)) FROM embedding_cache WHERE memory_pk IS NULL`)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (CachedCopy, error) {
		var c CachedCopy
		return c, r.Scan(&c.PK, &c.Hash)
	})
}

// DeleteCached deletes the embedding cache's entries pks, 10,000 per
// statement. Errors are the driver's.
func DeleteCached(q Querier, pks []int64) error {
	for len(pks) > 0 {
		n := min(len(pks), 10000)
		list, _ := json.Marshal(pks[:n])
		pks = pks[n:]
		if _, err := q.Exec(`DELETE FROM embedding_cache WHERE pk IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`, string(list)); err != nil {
			return err
		}
	}
	return nil
}

// CacheName names a row (of memory_type Type, pk PK) as holding the
// embedding of the text whose hash is Hash, in lower-case hex.
type CacheName struct {
	Type string `json:"t"`
	PK   int64  `json:"p"`
	Hash string `json:"h"`
}

// NameCachedRows enters names in the embedding cache, for model, used at
// at, 1,000 per statement; an entry of the model for the same hash (one
// that names a row already) stays. Errors are the driver's.
func NameCachedRows(q Querier, model string, at time.Time, names []CacheName) error {
	for len(names) > 0 {
		n := min(len(names), 1000)
		list, _ := json.Marshal(names[:n])
		names = names[n:]
		// (The WHERE true tells SQLite's parser that ON CONFLICT belongs
		// to the INSERT, not to a join of the SELECT.)
		if _, err := q.Exec(`INSERT INTO embedding_cache (model, hash, vector, used_at, memory_type, memory_pk)
			SELECT ?1, unhex(j.value ->> '$.h'), x'', ?2, j.value ->> '$.t', CAST(j.value ->> '$.p' AS INTEGER) FROM json_each(?3) j WHERE true
			ON CONFLICT (model, hash) DO NOTHING`, model, MS(at), string(list)); err != nil {
			return err
		}
	}
	return nil
}

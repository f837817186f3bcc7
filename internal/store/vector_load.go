package store

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"
)

// The reads that load an agent's vectors of one kind into the root
// package's in-memory index: straight from vec0's chunks, or through
// vec0's own scan when the chunks are not laid out as expected.

// ErrChunkLayout says vec0's storage is not laid out as VectorChunks
// expects.
var ErrChunkLayout = errors.New("unexpected vec0 chunk layout")

// chunkLayoutErr returns a failure to read vec0's storage as
// ErrChunkLayout when the table or column read is not there, and as
// itself otherwise (the context's end, a busy database, an I/O error).
func chunkLayoutErr(err error) error {
	if Code(err)&0xff == sqlite3.SQLITE_ERROR {
		if msg := err.Error(); strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") {
			return fmt.Errorf("%w: %w", ErrChunkLayout, err)
		}
	}
	return err
}

// VectorKindShared reports whether an agent other than agent has rows in
// table. Errors are the driver's.
func VectorKindShared(q Querier, table, agent string) (bool, error) {
	var others bool
	err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM `+table+` WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM `+table+` WHERE agent_id > ?1)`, []any{agent}, &others)
	return others, err
}

// VectorCount returns how many vectors the vec0 table vec holds, from
// its rowids table. An error matches ErrChunkLayout when that table is
// not there; other errors are the driver's.
func VectorCount(q Querier, vec string) (int, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM `+vec+`_rowids`, nil, &n)
	return n, chunkLayoutErr(err)
}

// VectorChunk is a vector's row and the vec0 chunk that holds it.
type VectorChunk struct {
	PK, Chunk int64
}

// VectorChunksOf returns, for each of agent's rows of table that has a
// vector in the vec0 table vec, its pk and the chunk that holds its
// vector. An error matches ErrChunkLayout when vec0's rowids table is not
// there; other errors are the driver's.
func VectorChunksOf(q Querier, table, vec, agent string) ([]VectorChunk, error) {
	rows, err := q.Query(`SELECT t.pk, r.chunk_id FROM `+table+` t CROSS JOIN `+vec+`_rowids r ON r.rowid = t.pk
		WHERE t.agent_id = ?`, agent)
	if err != nil {
		return nil, chunkLayoutErr(err)
	}
	return ScanAll(rows, func(r Scanner) (VectorChunk, error) {
		var c VectorChunk
		return c, r.Scan(&c.PK, &c.Chunk)
	})
}

// VectorChunks calls fn with the vectors of the vec0 table vec, of dims
// dimensions, read straight from the table's chunks, one call per chunk:
// the rowids of the chunk's valid slots and their vectors, one after
// another, as vec0 stores them (little-endian float32s), valid only
// during the call. It reads the chunks listed (ascending), or every chunk
// when chunks is nil.
//
// A chunk holds, per slot, a validity bit, a rowid (little-endian
// int64) and a vector: that is how sqlite-vec v0.1.9 stores a float
// column; anything else returns an error matching ErrChunkLayout (and a
// test of the root package checks the result against vec0's own scan).
// Other errors are the driver's.
func VectorChunks(q Querier, vec string, dims int, chunks []int64, fn func(pks []int64, vecs []byte)) error {
	// The chunks drive the join, in chunk_id (their rowid) order, so
	// that SQLite need not sort the vectors (150 MiB at 100K of 384
	// dimensions) to return them in order. The vector chunks' key is a
	// column named rowid, declared without a type: the unary + takes the
	// chunk_id's integer affinity off the comparison, which could not
	// use that column's index otherwise (a scan per chunk).
	from := vec + `_chunks c`
	var args []any
	if chunks != nil {
		list, _ := json.Marshal(chunks)
		from = `json_each(?) j CROSS JOIN ` + vec + `_chunks c ON c.chunk_id = j.value`
		args = append(args, string(list))
	}
	rows, err := q.Query(`SELECT c.size, c.validity, c.rowids, v.vectors
		FROM `+from+` CROSS JOIN `+vec+`_vector_chunks00 v ON v.rowid = +c.chunk_id`, args...)
	if err != nil {
		return chunkLayoutErr(err)
	}
	defer rows.Close()
	width := 4 * dims
	var pks []int64
	var packed []byte
	for rows.Next() {
		var size int
		var validity, rowids, vecs sql.RawBytes
		if err := rows.Scan(&size, &validity, &rowids, &vecs); err != nil {
			return err
		}
		if size <= 0 || len(validity) != (size+7)/8 || len(rowids) != 8*size || len(vecs) != width*size {
			return fmt.Errorf("%w: chunk of %d slots with %d, %d and %d bytes", ErrChunkLayout,
				size, len(validity), len(rowids), len(vecs))
		}
		pks = pks[:0]
		for s := range size {
			if validity[s/8]>>(s%8)&1 == 1 {
				pks = append(pks, int64(binary.LittleEndian.Uint64(rowids[8*s:])))
			}
		}
		if len(pks) == size {
			fn(pks, vecs)
			continue
		}
		packed = packed[:0]
		for s := range size {
			if validity[s/8]>>(s%8)&1 == 1 {
				packed = append(packed, vecs[s*width:(s+1)*width]...)
			}
		}
		fn(pks, packed)
	}
	return rows.Err()
}

// ScanVectors calls fn with each vector, of dims dimensions, that the
// vec0 table vec holds for agent's rows of table, read through vec0's own
// scan: correct whatever vec0's storage looks like, but it reads every
// vector separately. Errors are the driver's, or DecodeVector's.
func ScanVectors(q Querier, table, vec, agent string, dims int, fn func(pk int64, v []float32)) error {
	rows, err := q.Query(`SELECT v.rowid, v.embedding FROM `+vec+` v
		WHERE v.rowid IN (SELECT pk FROM `+table+` WHERE agent_id = ?)`, agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var b []byte
		if err := rows.Scan(&pk, &b); err != nil {
			return err
		}
		v, err := DecodeVector(b, dims)
		if err != nil {
			return err
		}
		fn(pk, v)
	}
	return rows.Err()
}

// AgentVectors calls fn with each vector, of dims dimensions, that
// PostgreSQL's side table vec (vec_<kind>) holds for agent, in one
// statement over the table's key (agent_id, pk), in pk order: its row's
// pk and the vector as it is stored (little-endian float32s), valid only
// during the call. It is the PostgreSQL engine's counterpart of the
// reads of vec0's chunks, which it has not. It returns an error when a
// stored vector is not 4*dims bytes long, and the driver's errors.
//
// pgvector would plug in beside it, not in it: where CREATE EXTENSION
// vector succeeds, a vector(dims) column (or an expression index over
// this bytea) with an HNSW index could answer the root package's vector
// search (vectors.search) in SQL instead of the in-memory index this
// read loads; engram's own index stays the default, as HNSW filters the
// agent's rows after its search, and loses recall under that filter.
func AgentVectors(q Querier, vec, agent string, dims int, fn func(pk int64, raw []byte)) error {
	rows, err := q.Query(PG(`SELECT pk, embedding FROM `+vec+` WHERE agent_id = $1 ORDER BY pk`), agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var b sql.RawBytes
		if err := rows.Scan(&pk, &b); err != nil {
			return err
		}
		if len(b) != 4*dims {
			return fmt.Errorf("%s: the vector of row %d has %d bytes, want %d", vec, pk, len(b), 4*dims)
		}
		fn(pk, b)
	}
	return rows.Err()
}

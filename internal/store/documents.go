package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/engram-go/engram/internal/bm25"
)

// The document chunks of ingested markdown files, in the table
// document_chunks: a chunk's text, the document's title and tags, the
// place it was first found (source, heading, chunk) and, in sources, the
// other places the same or nearly the same text was found, each with the
// hash of the text found there.

// ChunkPlace is a place a chunk was found, with the hash of the text
// found there (a near-duplicate's differs from the chunk's). Its JSON form
// is how document_chunks.sources holds it.
type ChunkPlace struct {
	Source  string `json:"source"`
	Heading string `json:"heading"`
	Index   int    `json:"chunk"`
	Hash    []byte `json:"hash"`
}

// EncodeChunkPlaces encodes places as document_chunks.sources holds them:
// a JSON array, "[]" for none. It returns the encoder's error.
func EncodeChunkPlaces(ps []ChunkPlace) (string, error) {
	if len(ps) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(ps)
	return string(b), err
}

// DecodeChunkPlaces decodes document_chunks.sources: nil for "[]". It
// returns the decoder's error when s is not a JSON array of places.
func DecodeChunkPlaces(s string) ([]ChunkPlace, error) {
	if s == "[]" {
		return nil, nil
	}
	var ps []ChunkPlace
	err := json.Unmarshal([]byte(s), &ps)
	return ps, err
}

// ChunkKey is a chunk without its text: what ingestion indexes.
type ChunkKey struct {
	PK   int64
	ID   string
	Hash []byte // the hash of the chunk's text
	// Primary is the place the chunk was first found, its Hash the
	// chunk's; Also are its other places.
	Primary ChunkPlace
	Also    []ChunkPlace
}

// EachChunkKey calls fn with each of the agent's chunks, without their
// text, streaming. It returns the driver's error, fn's, or an error
// naming the chunk whose places are not the JSON they should be.
func EachChunkKey(q Querier, agent string, fn func(ChunkKey) error) error {
	rows, err := q.Query(`SELECT pk, id, content_hash, source, heading, chunk, sources FROM document_chunks WHERE agent_id = ?`, agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k ChunkKey
		var also string
		if err := rows.Scan(&k.PK, &k.ID, &k.Hash, &k.Primary.Source, &k.Primary.Heading, &k.Primary.Index, &also); err != nil {
			return err
		}
		k.Primary.Hash = k.Hash
		if k.Also, err = DecodeChunkPlaces(also); err != nil {
			return fmt.Errorf("document chunk %q: sources: %w", k.ID, err)
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// EachChunkText calls fn with the rowid and the text of each of the
// agent's chunks, streaming. It returns the driver's error or fn's.
func EachChunkText(q Querier, agent string, fn func(pk int64, content string) error) error {
	rows, err := q.Query(`SELECT pk, content FROM document_chunks WHERE agent_id = ?`, agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var content string
		if err := rows.Scan(&pk, &content); err != nil {
			return err
		}
		if err := fn(pk, content); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// ChunkText is what a write of a chunk's text stores.
type ChunkText struct {
	// Place is where the chunk is found first (its Hash is not read).
	Place   ChunkPlace
	Title   string   // the document's frontmatter title
	Tags    []string // the document's frontmatter tags
	Content string
	Hash    []byte // the hash of Content
	At      time.Time
}

// derived returns the chunk's encoded tags, and its term vector and token
// count, derived from its indexed texts (see Document.Indexed: the title,
// heading, content and encoded tags).
func (c ChunkText) derived() (tags string, terms []byte, ntok int) {
	tags = EncodeTags(c.Tags)
	terms, ntok = bm25.Vector(c.Title, c.Place.Heading, c.Content, tags)
	return tags, terms, ntok
}

// InsertChunk stores a new chunk of the agent's, with the given ID and no
// other places, created and updated at c.At, its term vector derived from
// its texts, and returns its rowid. It returns the driver's error (a
// unique violation for an ID in use).
func InsertChunk(q Querier, agent, id string, c ChunkText) (int64, error) {
	tags, terms, ntok := c.derived()
	var pk int64
	err := q.QueryRow(`INSERT INTO document_chunks (id, agent_id, source, heading, chunk, title, tags, content, content_hash,
		sources, created_at, updated_at, terms, ntok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?) RETURNING pk`,
		[]any{id, agent, c.Place.Source, c.Place.Heading, c.Place.Index, c.Title, tags, c.Content, c.Hash,
			MS(c.At), MS(c.At), terms, ntok}, &pk)
	if err == nil {
		inserted(q, Document, agent, id, pk, c.Content)
	}
	return pk, err
}

// UpdateChunk writes c over the text and first place of the agent's chunk
// with rowid pk (its other places stay), its term vector derived again,
// updated at c.At; a pk the agent has no chunk at changes nothing. It
// returns the driver's error.
func UpdateChunk(q Querier, agent string, pk int64, c ChunkText) error {
	tags, terms, ntok := c.derived()
	_, err := updatingText(q, Document, `UPDATE document_chunks SET source = ?, heading = ?, chunk = ?, title = ?, tags = ?, content = ?,
		content_hash = ?, updated_at = ?, terms = ?, ntok = ? WHERE pk = ? AND agent_id = ?`,
		[]any{c.Place.Source, c.Place.Heading, c.Place.Index, c.Title, tags, c.Content, c.Hash,
			MS(c.At), terms, ntok, pk, agent},
		`pk = ? AND agent_id = ?`, pk, agent)
	return err
}

// SetChunkPlaces writes the places of the agent's chunk with rowid pk:
// primary (whose Hash is not stored: the chunk's own stays) and also,
// updated at at; a pk the agent has no chunk at changes nothing. It
// returns the driver's error, or the encoder's.
func SetChunkPlaces(q Querier, agent string, pk int64, primary ChunkPlace, also []ChunkPlace, at time.Time) error {
	enc, err := EncodeChunkPlaces(also)
	if err != nil {
		return err
	}
	_, err = q.Exec(`UPDATE document_chunks SET source = ?, heading = ?, chunk = ?, sources = ?, updated_at = ? WHERE pk = ? AND agent_id = ?`,
		primary.Source, primary.Heading, primary.Index, enc, MS(at), pk, agent)
	return err
}

// ChunkRow is a document chunk as the table holds it, decoded (the hashes
// of its places left out).
type ChunkRow struct {
	ID string
	// Primary is the place the chunk was first found; Also are its
	// others.
	Primary              ChunkPlace
	Also                 []ChunkPlace
	Title                string
	Tags                 []string
	Content              string
	CreatedAt, UpdatedAt time.Time
	Retrievals           int
}

// chunkCols are the columns scanChunk reads, in its order.
const chunkCols = `id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals`

// scanChunk scans the columns chunkCols of one row.
func scanChunk(r Scanner) (ChunkRow, error) {
	var c ChunkRow
	var also, tags string
	var created, updated int64
	if err := r.Scan(&c.ID, &c.Primary.Source, &c.Primary.Heading, &c.Primary.Index, &also, &c.Title, &tags, &c.Content,
		&created, &updated, &c.Retrievals); err != nil {
		return c, err
	}
	c.CreatedAt, c.UpdatedAt = FromMS(created), FromMS(updated)
	var err error
	if c.Also, err = DecodeChunkPlaces(also); err != nil {
		return c, err
	}
	c.Tags, err = DecodeTags(tags)
	return c, err
}

// ChunkByID returns the agent's chunk with the given ID, and whether it
// has one. It returns the driver's error, or the decoder's when the
// chunk's places or tags are not the JSON they should be.
func ChunkByID(q Querier, agent, id string) (ChunkRow, bool, error) {
	list, err := chunksWhere(q, agent, `id = ?1`, id)
	if err != nil || len(list) == 0 {
		return ChunkRow{}, false, err
	}
	return list[0], true, nil
}

// ChunksIn returns the agent's chunks found in the file source, where it
// is their first place or one of their others, ordered by their first
// place. It returns the driver's error, or the decoder's when a chunk's
// places or tags are not the JSON they should be.
func ChunksIn(q Querier, agent, source string) ([]ChunkRow, error) {
	return chunksWhere(q, agent, `(source = ?1 OR EXISTS (SELECT 1 FROM json_each(sources) s WHERE s.value ->> '$.source' = ?1))`, source)
}

// ChunksSelected returns the agent's chunks that sel selects, ordered
// by their first place (not sel's order: sel picks which). It returns
// the driver's error, or the decoder's when a chunk's places or tags are
// not the JSON they should be.
func ChunksSelected(q Querier, agent string, sel Selection) ([]ChunkRow, error) {
	return chunksWhere(q, agent, `pk IN (SELECT pk FROM document_chunks WHERE agent_id = ?1 AND `+sel.cond+`)`,
		append([]any{agent}, sel.args...)...)
}

// chunksWhere returns the agent's chunks that the condition where
// selects (over document_chunks, with the numbered parameters ?1… for
// args; the agent is bound after them), ordered by their first place.
func chunksWhere(q Querier, agent, where string, args ...any) ([]ChunkRow, error) {
	rows, err := q.Query(`SELECT `+chunkCols+` FROM document_chunks WHERE agent_id = ?`+strconv.Itoa(len(args)+1)+
		` AND `+where+` ORDER BY source, chunk, id`, append(slices.Clip(args), agent)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanChunk)
}

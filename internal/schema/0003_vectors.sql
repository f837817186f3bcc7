-- Tier 2 (vector search). The vec0 tables themselves, and the triggers that
-- keep them in step with the rows, are created when a database is first
-- opened at Tier 2, because their declaration names the embedder's
-- dimension (see vector.go); a database only ever opened at Tier 1 has
-- neither and pays nothing for them.

-- Rows whose embedding is still to be made: new rows until their vector is
-- written (in the same transaction when the embedder answers), rows whose
-- text changed, rows whose embedding failed (with the error), and every
-- row while a Reindex runs.
CREATE TABLE vector_pending (
    memory_type TEXT    NOT NULL,
    pk          INTEGER NOT NULL,
    agent_id    TEXT    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (memory_type, pk)
) WITHOUT ROWID;
CREATE INDEX vector_pending_by_agent ON vector_pending (agent_id, attempts, memory_type, pk);

-- Embeddings by model and text (a SHA-256 prefix), so that identical text
-- is embedded once, however often it is stored or reindexed. (A rowid
-- table: its rows, a vector each, are too large for a WITHOUT ROWID one.)
CREATE TABLE embedding_cache (
    pk      INTEGER PRIMARY KEY,
    model   TEXT    NOT NULL,
    hash    BLOB    NOT NULL,
    vector  BLOB    NOT NULL,
    used_at INTEGER NOT NULL,
    UNIQUE (model, hash)
);

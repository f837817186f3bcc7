-- engram Tier 2 schema v3: document chunks (main schema v9) have vectors,
-- kept in step with their rows as the other kinds' are (see v1 and v2).
-- The chunks a database held before are marked pending, to be embedded.
-- Idempotent, as every step may run again on a database that has it.

CREATE VIRTUAL TABLE IF NOT EXISTS vec_document USING vec0(embedding float[{{DIMS}}] distance_metric=cosine, chunk_size={{CHUNK}});

DROP TRIGGER IF EXISTS vec_document_ai;
CREATE TRIGGER vec_document_ai AFTER INSERT ON document_chunks BEGIN
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('document', new.pk, new.agent_id);
END;
DROP TRIGGER IF EXISTS vec_document_au;
CREATE TRIGGER vec_document_au AFTER UPDATE ON document_chunks WHEN old.content IS NOT new.content BEGIN
    DELETE FROM embedding_cache WHERE memory_type = 'document' AND memory_pk = old.pk;
    DELETE FROM vec_document WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('document', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
DROP TRIGGER IF EXISTS vec_document_ad;
CREATE TRIGGER vec_document_ad AFTER DELETE ON document_chunks BEGIN
    UPDATE embedding_cache SET vector = (SELECT embedding FROM vec_document WHERE rowid = old.pk), memory_type = NULL, memory_pk = NULL
        WHERE memory_type = 'document' AND memory_pk = old.pk
        AND EXISTS (SELECT 1 FROM archive WHERE agent_id = old.agent_id AND memory_type = 'document' AND id = old.id)
        AND EXISTS (SELECT 1 FROM vec_document WHERE rowid = old.pk);
    DELETE FROM embedding_cache WHERE memory_type = 'document' AND memory_pk = old.pk;
    DELETE FROM vec_document WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'document' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id)
    SELECT 'document', c.pk, c.agent_id FROM document_chunks c
    WHERE NOT EXISTS (SELECT 1 FROM vec_document v WHERE v.rowid = c.pk);

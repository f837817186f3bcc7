-- engram Tier 2 schema v2: the embedding cache names the rows that hold
-- its vectors (main schema v6), and these triggers keep the names in step
-- with the rows. A change of a row's embedded text drops its name with
-- its vector; a delete drops it too, unless the memory went to the archive
-- (which compaction writes before it deletes the row): the entry then
-- keeps the vector itself, for Restore. Idempotent, as every step may run
-- again on a database that has it (see migrateVectors).

DROP TRIGGER IF EXISTS vec_semantic_au;
CREATE TRIGGER vec_semantic_au AFTER UPDATE ON semantic_memory WHEN old.content IS NOT new.content BEGIN
    DELETE FROM embedding_cache WHERE memory_type = 'semantic' AND memory_pk = old.pk;
    DELETE FROM vec_semantic WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('semantic', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
DROP TRIGGER IF EXISTS vec_semantic_ad;
CREATE TRIGGER vec_semantic_ad AFTER DELETE ON semantic_memory BEGIN
    UPDATE embedding_cache SET vector = (SELECT embedding FROM vec_semantic WHERE rowid = old.pk), memory_type = NULL, memory_pk = NULL
        WHERE memory_type = 'semantic' AND memory_pk = old.pk
        AND EXISTS (SELECT 1 FROM archive WHERE agent_id = old.agent_id AND memory_type = 'semantic' AND id = old.id)
        AND EXISTS (SELECT 1 FROM vec_semantic WHERE rowid = old.pk);
    DELETE FROM embedding_cache WHERE memory_type = 'semantic' AND memory_pk = old.pk;
    DELETE FROM vec_semantic WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'semantic' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

DROP TRIGGER IF EXISTS vec_episodic_au;
CREATE TRIGGER vec_episodic_au AFTER UPDATE ON episodic_log WHEN old.content IS NOT new.content BEGIN
    DELETE FROM embedding_cache WHERE memory_type = 'episodic' AND memory_pk = old.pk;
    DELETE FROM vec_episodic WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('episodic', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
DROP TRIGGER IF EXISTS vec_episodic_ad;
CREATE TRIGGER vec_episodic_ad AFTER DELETE ON episodic_log BEGIN
    UPDATE embedding_cache SET vector = (SELECT embedding FROM vec_episodic WHERE rowid = old.pk), memory_type = NULL, memory_pk = NULL
        WHERE memory_type = 'episodic' AND memory_pk = old.pk
        AND EXISTS (SELECT 1 FROM archive WHERE agent_id = old.agent_id AND memory_type = 'episodic' AND id = old.id)
        AND EXISTS (SELECT 1 FROM vec_episodic WHERE rowid = old.pk);
    DELETE FROM embedding_cache WHERE memory_type = 'episodic' AND memory_pk = old.pk;
    DELETE FROM vec_episodic WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'episodic' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

DROP TRIGGER IF EXISTS vec_procedural_au;
CREATE TRIGGER vec_procedural_au AFTER UPDATE ON procedural_memory 
WHEN old.name IS NOT new.name OR old.description IS NOT new.description BEGIN
    DELETE FROM embedding_cache WHERE memory_type = 'procedural' AND memory_pk = old.pk;
    DELETE FROM vec_procedural WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('procedural', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
DROP TRIGGER IF EXISTS vec_procedural_ad;
CREATE TRIGGER vec_procedural_ad AFTER DELETE ON procedural_memory BEGIN
    UPDATE embedding_cache SET vector = (SELECT embedding FROM vec_procedural WHERE rowid = old.pk), memory_type = NULL, memory_pk = NULL
        WHERE memory_type = 'procedural' AND memory_pk = old.pk
        AND EXISTS (SELECT 1 FROM archive WHERE agent_id = old.agent_id AND memory_type = 'procedural' AND id = old.id)
        AND EXISTS (SELECT 1 FROM vec_procedural WHERE rowid = old.pk);
    DELETE FROM embedding_cache WHERE memory_type = 'procedural' AND memory_pk = old.pk;
    DELETE FROM vec_procedural WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'procedural' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

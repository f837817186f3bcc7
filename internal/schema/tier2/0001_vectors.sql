-- engram Tier 2 schema v1: the vector tables and the triggers that keep
-- them in step with the rows.
--
-- The vec0 tables declare the embedder's dimension, so this step runs when
-- a database is first opened at Tier 2 (and again after a change of model
-- or dimension drops them), with {{DIMS}} and {{CHUNK}} filled in; meta's
-- vector.schema records the steps applied. A database only ever opened at
-- Tier 1 has none of this and pays nothing for it.
--
-- A row's vector is keyed by the row's pk. A new row, or one whose
-- embedded text changed, is marked pending until its vector is written;
-- a change or a delete drops the old vector and moves the agent's vector
-- counter on (see vector.go).

CREATE VIRTUAL TABLE vec_semantic USING vec0(embedding float[{{DIMS}}] distance_metric=cosine, chunk_size={{CHUNK}});
CREATE VIRTUAL TABLE vec_episodic USING vec0(embedding float[{{DIMS}}] distance_metric=cosine, chunk_size={{CHUNK}});
CREATE VIRTUAL TABLE vec_procedural USING vec0(embedding float[{{DIMS}}] distance_metric=cosine, chunk_size={{CHUNK}});

CREATE TRIGGER vec_semantic_ai AFTER INSERT ON semantic_memory BEGIN
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('semantic', new.pk, new.agent_id);
END;
CREATE TRIGGER vec_semantic_au AFTER UPDATE ON semantic_memory WHEN old.content IS NOT new.content BEGIN
    DELETE FROM vec_semantic WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('semantic', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER vec_semantic_ad AFTER DELETE ON semantic_memory BEGIN
    DELETE FROM vec_semantic WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'semantic' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

CREATE TRIGGER vec_episodic_ai AFTER INSERT ON episodic_log BEGIN
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('episodic', new.pk, new.agent_id);
END;
CREATE TRIGGER vec_episodic_au AFTER UPDATE ON episodic_log WHEN old.content IS NOT new.content BEGIN
    DELETE FROM vec_episodic WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('episodic', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER vec_episodic_ad AFTER DELETE ON episodic_log BEGIN
    DELETE FROM vec_episodic WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'episodic' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

CREATE TRIGGER vec_procedural_ai AFTER INSERT ON procedural_memory BEGIN
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('procedural', new.pk, new.agent_id);
END;
CREATE TRIGGER vec_procedural_au AFTER UPDATE ON procedural_memory
WHEN old.name IS NOT new.name OR old.description IS NOT new.description BEGIN
    DELETE FROM vec_procedural WHERE rowid = old.pk;
    INSERT OR IGNORE INTO vector_pending (memory_type, pk, agent_id) VALUES ('procedural', new.pk, new.agent_id);
    INSERT INTO meta (key, value) VALUES ('vector.version:' || new.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER vec_procedural_ad AFTER DELETE ON procedural_memory BEGIN
    DELETE FROM vec_procedural WHERE rowid = old.pk;
    DELETE FROM vector_pending WHERE memory_type = 'procedural' AND pk = old.pk;
    INSERT INTO meta (key, value) VALUES ('vector.version:' || old.agent_id, '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

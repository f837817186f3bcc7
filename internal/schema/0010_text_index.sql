-- Search keeps, per agent, an index of its texts in memory (see
-- textindex.go), valid while text_stats.version has not moved. It also
-- holds when and in which session each episode was logged (the session
-- context of a search): a change of either moves the version too, from
-- any connection.
CREATE TRIGGER episodic_session_au AFTER UPDATE OF session_id, created_at ON episodic_log
WHEN old.session_id IS NOT new.session_id OR old.created_at IS NOT new.created_at BEGIN
    UPDATE text_stats SET version = version + 1 WHERE agent_id = new.agent_id;
END;

-- The index keeps each row's importance as search blends it in (see
-- kinds.go), valid while ranks has not moved: every change of a column it
-- is made of moves it, from any connection.
ALTER TABLE text_stats ADD COLUMN ranks INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER semantic_ranks_au AFTER UPDATE OF importance, resonance ON semantic_memory
WHEN old.importance IS NOT new.importance OR old.resonance IS NOT new.resonance BEGIN
    UPDATE text_stats SET ranks = ranks + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER episodic_ranks_au AFTER UPDATE OF resonance ON episodic_log
WHEN old.resonance IS NOT new.resonance BEGIN
    UPDATE text_stats SET ranks = ranks + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER procedural_ranks_au AFTER UPDATE OF success_rate, resonance ON procedural_memory
WHEN old.success_rate IS NOT new.success_rate OR old.resonance IS NOT new.resonance BEGIN
    UPDATE text_stats SET ranks = ranks + 1 WHERE agent_id = new.agent_id;
END;

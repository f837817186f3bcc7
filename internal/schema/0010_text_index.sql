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
-- kinds.go), as a bound on it: a search reads the rows it ranks, and skips
-- those whose bound cannot reach its results. The bound holds while ranks
-- has not moved: every change that raises a row's importance moves it,
-- from any connection. One that lowers it (decay, mostly) leaves the bound
-- above it, still a bound, and costs nothing more.
ALTER TABLE text_stats ADD COLUMN ranks INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER semantic_ranks_au AFTER UPDATE OF importance, resonance ON semantic_memory
WHEN new.importance * new.resonance > old.importance * old.resonance BEGIN
    UPDATE text_stats SET ranks = ranks + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER episodic_ranks_au AFTER UPDATE OF resonance ON episodic_log
WHEN 0.5 * new.resonance > 0.5 * old.resonance BEGIN
    UPDATE text_stats SET ranks = ranks + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER procedural_ranks_au AFTER UPDATE OF success_rate, resonance ON procedural_memory
WHEN new.success_rate * new.resonance > old.success_rate * old.resonance BEGIN
    UPDATE text_stats SET ranks = ranks + 1 WHERE agent_id = new.agent_id;
END;

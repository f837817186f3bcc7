-- Search keeps, per agent, an index of its texts in memory (see
-- textindex.go), valid while text_stats.version has not moved. It also
-- holds when and in which session each episode was logged (the session
-- context of a search): a change of either moves the version too, from
-- any connection.
CREATE TRIGGER episodic_session_au AFTER UPDATE OF session_id, created_at ON episodic_log
WHEN old.session_id IS NOT new.session_id OR old.created_at IS NOT new.created_at BEGIN
    UPDATE text_stats SET version = version + 1 WHERE agent_id = new.agent_id;
END;

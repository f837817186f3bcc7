-- engram schema v12: scopes below the agent.
--
-- A memory may belong to a user and a session of the agent, and carry
-- metadata (a JSON object), so that one agent can serve many users and a
-- search, a listing, an export or a forget can be limited to one of them.
-- Episodes had their session and metadata already (metadata then held
-- strings only; it still does for episodes); semantic entries and
-- procedures get all three, episodes their user. '' is no user or no
-- session. Facts, snapshots and document chunks stay the agent's
-- (snapshots have a session of their own since v1).
ALTER TABLE semantic_memory ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE semantic_memory ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
ALTER TABLE semantic_memory ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE episodic_log ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE procedural_memory ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE procedural_memory ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
ALTER TABLE procedural_memory ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';

-- A search, listing or forget of one user (and session) finds its rows by
-- these, never by a scan of the agent's.
CREATE INDEX semantic_by_user ON semantic_memory (agent_id, user_id, session_id, created_at);
CREATE INDEX semantic_by_session ON semantic_memory (agent_id, session_id, created_at);
CREATE INDEX episodic_by_user ON episodic_log (agent_id, user_id, session_id, created_at);
CREATE INDEX procedural_by_user ON procedural_memory (agent_id, user_id, session_id, created_at);
CREATE INDEX procedural_by_session ON procedural_memory (agent_id, session_id, created_at);

-- The in-memory text index (see textindex.go) holds each row's user and
-- session: a change of either moves the agent's text version, from any
-- connection, as a change of an episode's session does (migration 0010).
CREATE TRIGGER semantic_scope_au AFTER UPDATE OF user_id, session_id ON semantic_memory
WHEN old.user_id IS NOT new.user_id OR old.session_id IS NOT new.session_id BEGIN
    UPDATE text_stats SET version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER episodic_scope_au AFTER UPDATE OF user_id ON episodic_log
WHEN old.user_id IS NOT new.user_id BEGIN
    UPDATE text_stats SET version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER procedural_scope_au AFTER UPDATE OF user_id, session_id ON procedural_memory
WHEN old.user_id IS NOT new.user_id OR old.session_id IS NOT new.session_id BEGIN
    UPDATE text_stats SET version = version + 1 WHERE agent_id = new.agent_id;
END;

-- engram schema v13: a lighter file.
--
-- History holds what changed, not two copies of the row: form says how
-- an entry holds the memory's fields (see history_form.go). NULL, every
-- entry written before this step, is as migration 0008 wrote it (before
-- and after as JSON objects); 1, a creation, holds neither, since the row
-- (or the next entry) holds the fields it made; 2, an update, holds in
-- before the old values of the fields it changed, and no after. A
-- deletion holds the row it deleted, as before. engram reads all three.
ALTER TABLE history ADD COLUMN form INTEGER;

-- Term vectors (the terms columns, see internal/bm25) take a compact form:
-- each stem's 4-byte hash, and a count only for the stems that occur more
-- than once, instead of 6 bytes for every stem. engram rewrites the
-- vectors of the rows written before this step when it applies it.
-- An archived row keeps its vector in its JSON copy: those of the old
-- form are dropped, and a restore makes the row's vector from its text,
-- as it does for rows archived before there were vectors.
UPDATE archive SET row = json_remove(row, '$.terms') WHERE row ->> '$.terms' IS NOT NULL;

-- The indexes of users and sessions hold the rows that have one: a
-- memory without a user or a session (most, in a memory that serves one
-- person) costs them nothing, and the queries that read them say the
-- value is not '' (see scope.where), as episodic_by_session's do.
DROP INDEX semantic_by_user;
DROP INDEX semantic_by_session;
DROP INDEX episodic_by_user;
DROP INDEX procedural_by_user;
DROP INDEX procedural_by_session;
CREATE INDEX semantic_by_user ON semantic_memory (agent_id, user_id, session_id, created_at) WHERE user_id <> '';
CREATE INDEX semantic_by_session ON semantic_memory (agent_id, session_id, created_at) WHERE session_id <> '';
CREATE INDEX episodic_by_user ON episodic_log (agent_id, user_id, session_id, created_at) WHERE user_id <> '';
CREATE INDEX procedural_by_user ON procedural_memory (agent_id, user_id, session_id, created_at) WHERE user_id <> '';
CREATE INDEX procedural_by_session ON procedural_memory (agent_id, session_id, created_at) WHERE session_id <> '';

-- A semantic entry's summary is most often its content (a one-line
-- content is its own summary): the row holds it once. summary_own holds
-- the summary, or '' when it is the content, and summary is generated
-- from it, so that every read of summary is as it was. (A summary is
-- never empty: engram makes one of the content when none is given.)
ALTER TABLE semantic_memory RENAME COLUMN summary TO summary_own;
ALTER TABLE semantic_memory ADD COLUMN summary TEXT GENERATED ALWAYS AS (CASE WHEN summary_own = '' THEN content ELSE summary_own END) VIRTUAL;
UPDATE semantic_memory SET summary_own = '' WHERE summary_own = content;

-- An index of a table with a rowid ends with the rowid: naming pk in it
-- too stored it twice.
DROP INDEX history_by_memory;
DROP INDEX history_by_time;
CREATE INDEX history_by_memory ON history (agent_id, id);
CREATE INDEX history_by_time ON history (agent_id, at);

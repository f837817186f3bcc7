-- engram schema v8: data the user owns.
--
-- history is every change to a memory or a fact, appended in the
-- transaction that made it: what happened (op: create, update, delete,
-- archive, restore, merge, supersede, decay, import, forget), to which
-- memory (memory_type, id), its fields before and after as JSON objects
-- (NULL before a creation and after a deletion), who made it and why
-- (actor, reason: set per Memory or per call) and when (at, Unix
-- milliseconds). The rows are written by triggers engram makes on its
-- writer connection from its registry of kinds (see history.go), so no
-- write path can forget them; forgetting a memory deletes its rows.
CREATE TABLE history (
    pk          INTEGER PRIMARY KEY,
    agent_id    TEXT    NOT NULL,
    memory_type TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    op          TEXT    NOT NULL,
    before      TEXT,
    after       TEXT,
    actor       TEXT    NOT NULL DEFAULT '',
    reason      TEXT    NOT NULL DEFAULT '',
    at          INTEGER NOT NULL
);
CREATE INDEX history_by_memory ON history (agent_id, id, pk);
CREATE INDEX history_by_time ON history (agent_id, at, pk);

-- Deleting from a full-text index removes the row's terms from the index
-- itself, not just marks them deleted until a later merge: a forgotten
-- text's words do not stay behind in the index's pages.
INSERT INTO semantic_fts (semantic_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO episodic_fts (episodic_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO procedural_fts (procedural_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO snapshot_fts (snapshot_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO fact_fts (fact_fts, rank) VALUES ('secure-delete', 1);

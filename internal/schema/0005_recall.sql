-- engram schema v5: recall.
--
-- Every kind counts how often Memory.Recall admitted one of its rows into
-- the working set (retrievals), which recall's gate weighs as expected
-- value; and session snapshots are searched by full text like the other
-- kinds: their summary, key decisions and the text of their messages.
--
-- The snapshot index is contentless (it keeps no copy of the text, which
-- it builds from JSON lists) and deletes by rowid; its agent_tok column
-- restricts a search to one agent's snapshots, as migration 0004's do.

ALTER TABLE semantic_memory ADD COLUMN retrievals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE episodic_log ADD COLUMN retrievals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE procedural_memory ADD COLUMN retrievals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE session_snapshots ADD COLUMN retrievals INTEGER NOT NULL DEFAULT 0;

ALTER TABLE session_snapshots ADD COLUMN agent_tok TEXT GENERATED ALWAYS AS ('x' || lower(hex(agent_id)) || '0') VIRTUAL;

CREATE VIRTUAL TABLE snapshot_fts USING fts5(
    summary, decisions, messages, agent_tok,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE snapshot_vocab USING fts5vocab(snapshot_fts, 'row');

CREATE TRIGGER snapshot_ai AFTER INSERT ON session_snapshots BEGIN
    INSERT INTO snapshot_fts (rowid, summary, decisions, messages, agent_tok) VALUES (new.pk, new.summary,
        (SELECT group_concat(value, ' ') FROM json_each(new.key_decisions)),
        (SELECT group_concat(value ->> '$.content', ' ') FROM json_each(new.messages)),
        new.agent_tok);
END;
CREATE TRIGGER snapshot_ad AFTER DELETE ON session_snapshots BEGIN
    DELETE FROM snapshot_fts WHERE rowid = old.pk;
END;
CREATE TRIGGER snapshot_au AFTER UPDATE OF summary, key_decisions, messages ON session_snapshots BEGIN
    DELETE FROM snapshot_fts WHERE rowid = old.pk;
    INSERT INTO snapshot_fts (rowid, summary, decisions, messages, agent_tok) VALUES (new.pk, new.summary,
        (SELECT group_concat(value, ' ') FROM json_each(new.key_decisions)),
        (SELECT group_concat(value ->> '$.content', ' ') FROM json_each(new.messages)),
        new.agent_tok);
END;

INSERT INTO snapshot_fts (rowid, summary, decisions, messages, agent_tok)
    SELECT pk, summary,
        (SELECT group_concat(value, ' ') FROM json_each(key_decisions)),
        (SELECT group_concat(value ->> '$.content', ' ') FROM json_each(messages)),
        agent_tok
    FROM session_snapshots;

-- Each searchable row keeps the term vector of its indexed text (terms:
-- the hash and count of each stem, see internal/bm25) and its length in
-- tokens (ntok), written with the row; text_stats keeps, per agent, how
-- many searchable rows it has and their tokens in all. Search scores
-- FTS5's matches by BM25 over these, the statistics of the agent's whole
-- memory, instead of FTS5's bm25(), whose statistics are the index's: every
-- agent's in a shared file, and one kind's in each index. The rows written
-- before this step get their vectors from engram when it applies it.
-- A change of a row's indexed text that does not bring a new vector
-- clears it: a row without a vector is scored from its text.

ALTER TABLE semantic_memory ADD COLUMN terms BLOB;
ALTER TABLE semantic_memory ADD COLUMN ntok INTEGER NOT NULL DEFAULT 0;
ALTER TABLE episodic_log ADD COLUMN terms BLOB;
ALTER TABLE episodic_log ADD COLUMN ntok INTEGER NOT NULL DEFAULT 0;
ALTER TABLE procedural_memory ADD COLUMN terms BLOB;
ALTER TABLE procedural_memory ADD COLUMN ntok INTEGER NOT NULL DEFAULT 0;
ALTER TABLE session_snapshots ADD COLUMN terms BLOB;
ALTER TABLE session_snapshots ADD COLUMN ntok INTEGER NOT NULL DEFAULT 0;

-- version moves on with every change of the agent's searchable texts (a
-- row added or deleted, its text or term vector changed), from any
-- connection: what engram caches of the agent's statistics (how many of
-- its memories hold a term) is valid while version has not moved.
CREATE TABLE text_stats (
    agent_id TEXT    PRIMARY KEY,
    docs     INTEGER NOT NULL,
    tokens   INTEGER NOT NULL,
    version  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO text_stats (agent_id, docs, tokens)
    SELECT agent_id, count(*), 0 FROM (
        SELECT agent_id FROM semantic_memory UNION ALL SELECT agent_id FROM episodic_log
        UNION ALL SELECT agent_id FROM procedural_memory UNION ALL SELECT agent_id FROM session_snapshots)
    GROUP BY agent_id;

CREATE TRIGGER semantic_stats_ai AFTER INSERT ON semantic_memory BEGIN
    INSERT INTO text_stats (agent_id, docs, tokens) VALUES (new.agent_id, 1, new.ntok)
        ON CONFLICT (agent_id) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens, version = version + 1;
END;
CREATE TRIGGER semantic_stats_ad AFTER DELETE ON semantic_memory BEGIN
    UPDATE text_stats SET docs = docs - 1, tokens = tokens - old.ntok, version = version + 1 WHERE agent_id = old.agent_id;
END;
CREATE TRIGGER semantic_stats_au AFTER UPDATE OF content, tags, terms, ntok ON semantic_memory
WHEN old.ntok IS NOT new.ntok OR old.terms IS NOT new.terms OR old.content IS NOT new.content OR old.tags IS NOT new.tags BEGIN
    UPDATE text_stats SET tokens = tokens - old.ntok + new.ntok, version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER semantic_terms_au AFTER UPDATE OF content, tags ON semantic_memory
WHEN new.terms IS old.terms AND (old.content IS NOT new.content OR old.tags IS NOT new.tags) BEGIN
    UPDATE semantic_memory SET terms = NULL WHERE pk = new.pk;
END;

CREATE TRIGGER episodic_stats_ai AFTER INSERT ON episodic_log BEGIN
    INSERT INTO text_stats (agent_id, docs, tokens) VALUES (new.agent_id, 1, new.ntok)
        ON CONFLICT (agent_id) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens, version = version + 1;
END;
CREATE TRIGGER episodic_stats_ad AFTER DELETE ON episodic_log BEGIN
    UPDATE text_stats SET docs = docs - 1, tokens = tokens - old.ntok, version = version + 1 WHERE agent_id = old.agent_id;
END;
CREATE TRIGGER episodic_stats_au AFTER UPDATE OF content, terms, ntok ON episodic_log
WHEN old.ntok IS NOT new.ntok OR old.terms IS NOT new.terms OR old.content IS NOT new.content BEGIN
    UPDATE text_stats SET tokens = tokens - old.ntok + new.ntok, version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER episodic_terms_au AFTER UPDATE OF content ON episodic_log
WHEN new.terms IS old.terms AND old.content IS NOT new.content BEGIN
    UPDATE episodic_log SET terms = NULL WHERE pk = new.pk;
END;

CREATE TRIGGER procedural_stats_ai AFTER INSERT ON procedural_memory BEGIN
    INSERT INTO text_stats (agent_id, docs, tokens) VALUES (new.agent_id, 1, new.ntok)
        ON CONFLICT (agent_id) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens, version = version + 1;
END;
CREATE TRIGGER procedural_stats_ad AFTER DELETE ON procedural_memory BEGIN
    UPDATE text_stats SET docs = docs - 1, tokens = tokens - old.ntok, version = version + 1 WHERE agent_id = old.agent_id;
END;
CREATE TRIGGER procedural_stats_au AFTER UPDATE OF name, description, pattern, tags, terms, ntok ON procedural_memory
WHEN old.ntok IS NOT new.ntok OR old.terms IS NOT new.terms OR old.name IS NOT new.name OR old.description IS NOT new.description OR old.pattern IS NOT new.pattern OR old.tags IS NOT new.tags BEGIN
    UPDATE text_stats SET tokens = tokens - old.ntok + new.ntok, version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER procedural_terms_au AFTER UPDATE OF name, description, pattern, tags ON procedural_memory
WHEN new.terms IS old.terms AND (old.name IS NOT new.name OR old.description IS NOT new.description
    OR old.pattern IS NOT new.pattern OR old.tags IS NOT new.tags) BEGIN
    UPDATE procedural_memory SET terms = NULL WHERE pk = new.pk;
END;

CREATE TRIGGER snapshot_stats_ai AFTER INSERT ON session_snapshots BEGIN
    INSERT INTO text_stats (agent_id, docs, tokens) VALUES (new.agent_id, 1, new.ntok)
        ON CONFLICT (agent_id) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens, version = version + 1;
END;
CREATE TRIGGER snapshot_stats_ad AFTER DELETE ON session_snapshots BEGIN
    UPDATE text_stats SET docs = docs - 1, tokens = tokens - old.ntok, version = version + 1 WHERE agent_id = old.agent_id;
END;
CREATE TRIGGER snapshot_stats_au AFTER UPDATE OF summary, key_decisions, messages, terms, ntok ON session_snapshots
WHEN old.ntok IS NOT new.ntok OR old.terms IS NOT new.terms OR old.summary IS NOT new.summary OR old.key_decisions IS NOT new.key_decisions OR old.messages IS NOT new.messages BEGIN
    UPDATE text_stats SET tokens = tokens - old.ntok + new.ntok, version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER snapshot_terms_au AFTER UPDATE OF summary, key_decisions, messages ON session_snapshots
WHEN new.terms IS old.terms AND (old.summary IS NOT new.summary OR old.key_decisions IS NOT new.key_decisions
    OR old.messages IS NOT new.messages) BEGIN
    UPDATE session_snapshots SET terms = NULL WHERE pk = new.pk;
END;

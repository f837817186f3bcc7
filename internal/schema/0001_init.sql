-- engram schema v1.
--
-- Every base table has an INTEGER PRIMARY KEY (pk, the rowid) that the FTS5
-- and, in Tier 2, vec0 tables key on; the public text ID is unique per
-- agent. Times are INTEGER Unix milliseconds, UTC. Tag lists are JSON arrays.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE semantic_memory (
    pk               INTEGER PRIMARY KEY,
    id               TEXT    NOT NULL,
    agent_id         TEXT    NOT NULL,
    content          TEXT    NOT NULL,
    summary          TEXT    NOT NULL,
    importance       REAL    NOT NULL CHECK (importance BETWEEN 0 AND 1),
    verified         INTEGER NOT NULL DEFAULT 0,
    tags             TEXT    NOT NULL DEFAULT '[]',
    source           TEXT    NOT NULL DEFAULT '',
    content_hash     BLOB    NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    access_count     INTEGER NOT NULL DEFAULT 0,
    last_accessed_at INTEGER NOT NULL,
    UNIQUE (agent_id, id)
);
CREATE INDEX semantic_by_rank ON semantic_memory (agent_id, importance DESC, updated_at DESC, id);
CREATE INDEX semantic_by_hash ON semantic_memory (agent_id, content_hash);

CREATE TABLE episodic_log (
    pk          INTEGER PRIMARY KEY,
    id          TEXT    NOT NULL,
    agent_id    TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    event_type  TEXT    NOT NULL,
    task_id     TEXT    NOT NULL DEFAULT '',
    session_id  TEXT    NOT NULL DEFAULT '',
    cost        REAL    NOT NULL DEFAULT 0,
    duration_ns INTEGER NOT NULL DEFAULT 0,
    metadata    TEXT    NOT NULL DEFAULT '{}',
    created_at  INTEGER NOT NULL,
    UNIQUE (agent_id, id)
);
CREATE INDEX episodic_by_time ON episodic_log (agent_id, created_at DESC, pk DESC);
CREATE INDEX episodic_by_task ON episodic_log (agent_id, task_id, created_at) WHERE task_id <> '';
CREATE INDEX episodic_by_session ON episodic_log (agent_id, session_id, created_at, pk) WHERE session_id <> '';

CREATE TABLE session_snapshots (
    pk            INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL,
    agent_id      TEXT    NOT NULL,
    session_id    TEXT    NOT NULL,
    messages      TEXT    NOT NULL DEFAULT '[]',
    summary       TEXT    NOT NULL DEFAULT '',
    key_decisions TEXT    NOT NULL DEFAULT '[]',
    task_ids      TEXT    NOT NULL DEFAULT '[]',
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER NOT NULL,
    total_cost    REAL    NOT NULL DEFAULT 0,
    total_tokens  INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    UNIQUE (agent_id, id)
);
CREATE INDEX snapshots_by_session ON session_snapshots (agent_id, session_id, ended_at DESC, pk DESC);
CREATE INDEX snapshots_by_time ON session_snapshots (agent_id, ended_at DESC, pk DESC);

CREATE TABLE procedural_memory (
    pk           INTEGER PRIMARY KEY,
    id           TEXT    NOT NULL,
    agent_id     TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    description  TEXT    NOT NULL DEFAULT '',
    pattern      TEXT    NOT NULL DEFAULT '',
    success_rate REAL    NOT NULL CHECK (success_rate BETWEEN 0 AND 1),
    use_count    INTEGER NOT NULL DEFAULT 0,
    tags         TEXT    NOT NULL DEFAULT '[]',
    disabled     INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    UNIQUE (agent_id, id),
    UNIQUE (agent_id, name)
);
CREATE INDEX procedural_by_rate ON procedural_memory (agent_id, disabled, success_rate DESC, use_count DESC, id);

-- Links belong to an agent; each end is named by its memory type and ID.
CREATE TABLE zettel_links (
    agent_id    TEXT    NOT NULL,
    source_type TEXT    NOT NULL,
    source_id   TEXT    NOT NULL,
    target_type TEXT    NOT NULL,
    target_id   TEXT    NOT NULL,
    link_type   TEXT    NOT NULL,
    strength    REAL    NOT NULL CHECK (strength BETWEEN 0 AND 1),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (agent_id, source_type, source_id, target_type, target_id, link_type)
) WITHOUT ROWID;
CREATE INDEX links_by_target ON zettel_links (agent_id, target_type, target_id);

-- Full-text indexes: external content, joined back on pk.
-- The summary is not indexed: it is a one-line digest of the content
-- (often its first line), so indexing it would double the work per write
-- for no recall.
CREATE VIRTUAL TABLE semantic_fts USING fts5(
    content, tags,
    content = 'semantic_memory', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE episodic_fts USING fts5(
    content,
    content = 'episodic_log', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE procedural_fts USING fts5(
    name, description, pattern, tags,
    content = 'procedural_memory', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);

-- Document frequencies of the indexed (stemmed) terms, which search uses to
-- leave out the most common terms of a query when they would make it score
-- a large part of the index.
CREATE VIRTUAL TABLE semantic_vocab USING fts5vocab(semantic_fts, 'row');
CREATE VIRTUAL TABLE episodic_vocab USING fts5vocab(episodic_fts, 'row');
CREATE VIRTUAL TABLE procedural_vocab USING fts5vocab(procedural_fts, 'row');

CREATE TRIGGER semantic_ai AFTER INSERT ON semantic_memory BEGIN
    INSERT INTO semantic_fts (rowid, content, tags) VALUES (new.pk, new.content, new.tags);
END;
CREATE TRIGGER semantic_ad AFTER DELETE ON semantic_memory BEGIN
    INSERT INTO semantic_fts (semantic_fts, rowid, content, tags) VALUES ('delete', old.pk, old.content, old.tags);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'semantic' AND source_id = old.id)
          OR (target_type = 'semantic' AND target_id = old.id));
END;
CREATE TRIGGER semantic_au AFTER UPDATE OF content, tags ON semantic_memory BEGIN
    INSERT INTO semantic_fts (semantic_fts, rowid, content, tags) VALUES ('delete', old.pk, old.content, old.tags);
    INSERT INTO semantic_fts (rowid, content, tags) VALUES (new.pk, new.content, new.tags);
END;

CREATE TRIGGER episodic_ai AFTER INSERT ON episodic_log BEGIN
    INSERT INTO episodic_fts (rowid, content) VALUES (new.pk, new.content);
END;
CREATE TRIGGER episodic_ad AFTER DELETE ON episodic_log BEGIN
    INSERT INTO episodic_fts (episodic_fts, rowid, content) VALUES ('delete', old.pk, old.content);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'episodic' AND source_id = old.id)
          OR (target_type = 'episodic' AND target_id = old.id));
END;
CREATE TRIGGER episodic_au AFTER UPDATE OF content ON episodic_log BEGIN
    INSERT INTO episodic_fts (episodic_fts, rowid, content) VALUES ('delete', old.pk, old.content);
    INSERT INTO episodic_fts (rowid, content) VALUES (new.pk, new.content);
END;

CREATE TRIGGER procedural_ai AFTER INSERT ON procedural_memory BEGIN
    INSERT INTO procedural_fts (rowid, name, description, pattern, tags)
    VALUES (new.pk, new.name, new.description, new.pattern, new.tags);
END;
CREATE TRIGGER procedural_ad AFTER DELETE ON procedural_memory BEGIN
    INSERT INTO procedural_fts (procedural_fts, rowid, name, description, pattern, tags)
    VALUES ('delete', old.pk, old.name, old.description, old.pattern, old.tags);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'procedural' AND source_id = old.id)
          OR (target_type = 'procedural' AND target_id = old.id));
END;
CREATE TRIGGER procedural_au AFTER UPDATE OF name, description, pattern, tags ON procedural_memory BEGIN
    INSERT INTO procedural_fts (procedural_fts, rowid, name, description, pattern, tags)
    VALUES ('delete', old.pk, old.name, old.description, old.pattern, old.tags);
    INSERT INTO procedural_fts (rowid, name, description, pattern, tags)
    VALUES (new.pk, new.name, new.description, new.pattern, new.tags);
END;

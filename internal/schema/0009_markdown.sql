-- engram schema v9: memory.md both ways, and markdown documents.
--
-- markdown_lines holds, per agent, the lines engram last wrote to
-- memory.md, one row per entry or fact (kind 'entry' or 'fact', its ID
-- and the line's text), and
-- markdown_files the file's hash and size as written: an import compares
-- the file now, what engram wrote and the database now (a three-way
-- comparison) to tell a person's edits from changes in the database.
CREATE TABLE markdown_files (
    agent_id   TEXT    PRIMARY KEY,
    path       TEXT    NOT NULL,
    hash       BLOB    NOT NULL,
    written_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE markdown_lines (
    agent_id TEXT    NOT NULL,
    kind     TEXT    NOT NULL,
    id       TEXT    NOT NULL,
    line     TEXT    NOT NULL,
    PRIMARY KEY (agent_id, kind, id)
) WITHOUT ROWID;

-- A document chunk: a section of a markdown document that Ingest read,
-- with where it was found (source: a path relative to what was ingested,
-- heading: the chunk's heading path, chunk: its index in the file) and
-- the other places the same or nearly the same text was found (sources,
-- a JSON list of {source, heading, chunk}). title and tags come from the
-- document's frontmatter.
CREATE TABLE document_chunks (
    pk           INTEGER PRIMARY KEY,
    id           TEXT    NOT NULL,
    agent_id     TEXT    NOT NULL,
    source       TEXT    NOT NULL,
    heading      TEXT    NOT NULL DEFAULT '',
    chunk        INTEGER NOT NULL DEFAULT 0,
    title        TEXT    NOT NULL DEFAULT '',
    tags         TEXT    NOT NULL DEFAULT '[]',
    content      TEXT    NOT NULL,
    content_hash BLOB    NOT NULL,
    sources      TEXT    NOT NULL DEFAULT '[]',
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    retrievals   INTEGER NOT NULL DEFAULT 0,
    terms        BLOB,
    ntok         INTEGER NOT NULL DEFAULT 0,
    agent_tok    TEXT GENERATED ALWAYS AS ('x' || lower(hex(agent_id)) || '0') VIRTUAL,
    UNIQUE (agent_id, id)
);
CREATE INDEX document_chunks_by_source ON document_chunks (agent_id, source, chunk);
CREATE INDEX document_chunks_by_hash ON document_chunks (agent_id, content_hash);

CREATE VIRTUAL TABLE document_fts USING fts5(
    title, heading, content, tags, agent_tok,
    content = 'document_chunks', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE document_vocab USING fts5vocab(document_fts, 'row');
-- A deleted chunk's terms leave the index (see 0008_history.sql).
INSERT INTO document_fts (document_fts, rank) VALUES ('secure-delete', 1);

CREATE TRIGGER document_ai AFTER INSERT ON document_chunks BEGIN
    INSERT INTO document_fts (rowid, title, heading, content, tags, agent_tok)
        VALUES (new.pk, new.title, new.heading, new.content, new.tags, new.agent_tok);
END;
CREATE TRIGGER document_ad AFTER DELETE ON document_chunks BEGIN
    INSERT INTO document_fts (document_fts, rowid, title, heading, content, tags, agent_tok)
        VALUES ('delete', old.pk, old.title, old.heading, old.content, old.tags, old.agent_tok);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'document' AND source_id = old.id)
          OR (target_type = 'document' AND target_id = old.id));
END;
CREATE TRIGGER document_au AFTER UPDATE OF title, heading, content, tags ON document_chunks BEGIN
    INSERT INTO document_fts (document_fts, rowid, title, heading, content, tags, agent_tok)
        VALUES ('delete', old.pk, old.title, old.heading, old.content, old.tags, old.agent_tok);
    INSERT INTO document_fts (rowid, title, heading, content, tags, agent_tok)
        VALUES (new.pk, new.title, new.heading, new.content, new.tags, new.agent_tok);
END;

CREATE TRIGGER document_stats_ai AFTER INSERT ON document_chunks BEGIN
    INSERT INTO text_stats (agent_id, docs, tokens) VALUES (new.agent_id, 1, new.ntok)
        ON CONFLICT (agent_id) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens, version = version + 1;
END;
CREATE TRIGGER document_stats_ad AFTER DELETE ON document_chunks BEGIN
    UPDATE text_stats SET docs = docs - 1, tokens = tokens - old.ntok, version = version + 1 WHERE agent_id = old.agent_id;
END;
CREATE TRIGGER document_stats_au AFTER UPDATE OF title, heading, content, tags, terms, ntok ON document_chunks
WHEN old.ntok IS NOT new.ntok OR old.terms IS NOT new.terms OR old.title IS NOT new.title
    OR old.heading IS NOT new.heading OR old.content IS NOT new.content OR old.tags IS NOT new.tags BEGIN
    UPDATE text_stats SET tokens = tokens - old.ntok + new.ntok, version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER document_terms_au AFTER UPDATE OF title, heading, content, tags ON document_chunks
WHEN new.terms IS old.terms AND (old.title IS NOT new.title OR old.heading IS NOT new.heading
    OR old.content IS NOT new.content OR old.tags IS NOT new.tags) BEGIN
    UPDATE document_chunks SET terms = NULL WHERE pk = new.pk;
END;

-- engram schema v4: every full-text index knows each row's agent.
--
-- A shared file holds several agents' memories in one FTS5 index per kind.
-- Search must look only at its agent's documents inside FTS5 (a filter
-- applied after FTS5 has picked its matches lets one agent's data crowd
-- another's out, and makes one agent's searches as slow as the other's
-- data is large), so each index gets a column holding one token per agent:
-- 'x', the agent ID in hex, and '0' (the digit at the end keeps the Porter
-- stemmer off it; hex keeps it one token, distinct for every agent). Search
-- weighs the column 0 in bm25().

ALTER TABLE semantic_memory ADD COLUMN agent_tok TEXT GENERATED ALWAYS AS ('x' || lower(hex(agent_id)) || '0') VIRTUAL;
ALTER TABLE episodic_log ADD COLUMN agent_tok TEXT GENERATED ALWAYS AS ('x' || lower(hex(agent_id)) || '0') VIRTUAL;
ALTER TABLE procedural_memory ADD COLUMN agent_tok TEXT GENERATED ALWAYS AS ('x' || lower(hex(agent_id)) || '0') VIRTUAL;

DROP TRIGGER semantic_ai;
DROP TRIGGER semantic_ad;
DROP TRIGGER semantic_au;
DROP TRIGGER episodic_ai;
DROP TRIGGER episodic_ad;
DROP TRIGGER episodic_au;
DROP TRIGGER procedural_ai;
DROP TRIGGER procedural_ad;
DROP TRIGGER procedural_au;
DROP TABLE semantic_vocab;
DROP TABLE episodic_vocab;
DROP TABLE procedural_vocab;
DROP TABLE semantic_fts;
DROP TABLE episodic_fts;
DROP TABLE procedural_fts;

CREATE VIRTUAL TABLE semantic_fts USING fts5(
    content, tags, agent_tok,
    content = 'semantic_memory', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE episodic_fts USING fts5(
    content, agent_tok,
    content = 'episodic_log', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE procedural_fts USING fts5(
    name, description, pattern, tags, agent_tok,
    content = 'procedural_memory', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE semantic_vocab USING fts5vocab(semantic_fts, 'row');
CREATE VIRTUAL TABLE episodic_vocab USING fts5vocab(episodic_fts, 'row');
CREATE VIRTUAL TABLE procedural_vocab USING fts5vocab(procedural_fts, 'row');

CREATE TRIGGER semantic_ai AFTER INSERT ON semantic_memory BEGIN
    INSERT INTO semantic_fts (rowid, content, tags, agent_tok) VALUES (new.pk, new.content, new.tags, new.agent_tok);
END;
CREATE TRIGGER semantic_ad AFTER DELETE ON semantic_memory BEGIN
    INSERT INTO semantic_fts (semantic_fts, rowid, content, tags, agent_tok) VALUES ('delete', old.pk, old.content, old.tags, old.agent_tok);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'semantic' AND source_id = old.id)
          OR (target_type = 'semantic' AND target_id = old.id));
END;
CREATE TRIGGER semantic_au AFTER UPDATE OF content, tags ON semantic_memory BEGIN
    INSERT INTO semantic_fts (semantic_fts, rowid, content, tags, agent_tok) VALUES ('delete', old.pk, old.content, old.tags, old.agent_tok);
    INSERT INTO semantic_fts (rowid, content, tags, agent_tok) VALUES (new.pk, new.content, new.tags, new.agent_tok);
END;

CREATE TRIGGER episodic_ai AFTER INSERT ON episodic_log BEGIN
    INSERT INTO episodic_fts (rowid, content, agent_tok) VALUES (new.pk, new.content, new.agent_tok);
END;
CREATE TRIGGER episodic_ad AFTER DELETE ON episodic_log BEGIN
    INSERT INTO episodic_fts (episodic_fts, rowid, content, agent_tok) VALUES ('delete', old.pk, old.content, old.agent_tok);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'episodic' AND source_id = old.id)
          OR (target_type = 'episodic' AND target_id = old.id));
END;
CREATE TRIGGER episodic_au AFTER UPDATE OF content ON episodic_log BEGIN
    INSERT INTO episodic_fts (episodic_fts, rowid, content, agent_tok) VALUES ('delete', old.pk, old.content, old.agent_tok);
    INSERT INTO episodic_fts (rowid, content, agent_tok) VALUES (new.pk, new.content, new.agent_tok);
END;

CREATE TRIGGER procedural_ai AFTER INSERT ON procedural_memory BEGIN
    INSERT INTO procedural_fts (rowid, name, description, pattern, tags, agent_tok)
    VALUES (new.pk, new.name, new.description, new.pattern, new.tags, new.agent_tok);
END;
CREATE TRIGGER procedural_ad AFTER DELETE ON procedural_memory BEGIN
    INSERT INTO procedural_fts (procedural_fts, rowid, name, description, pattern, tags, agent_tok)
    VALUES ('delete', old.pk, old.name, old.description, old.pattern, old.tags, old.agent_tok);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'procedural' AND source_id = old.id)
          OR (target_type = 'procedural' AND target_id = old.id));
END;
CREATE TRIGGER procedural_au AFTER UPDATE OF name, description, pattern, tags ON procedural_memory BEGIN
    INSERT INTO procedural_fts (procedural_fts, rowid, name, description, pattern, tags, agent_tok)
    VALUES ('delete', old.pk, old.name, old.description, old.pattern, old.tags, old.agent_tok);
    INSERT INTO procedural_fts (rowid, name, description, pattern, tags, agent_tok)
    VALUES (new.pk, new.name, new.description, new.pattern, new.tags, new.agent_tok);
END;

INSERT INTO semantic_fts (semantic_fts) VALUES ('rebuild');
INSERT INTO episodic_fts (episodic_fts) VALUES ('rebuild');
INSERT INTO procedural_fts (procedural_fts) VALUES ('rebuild');

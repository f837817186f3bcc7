-- engram schema v7: facts.
--
-- A fact is a subject–predicate–object triple with two times: when it is
-- true in the world ([valid_from, valid_to), valid_to NULL while it still
-- holds) and when engram learned it (created_at) and retired it
-- (expired_at, NULL while it is current). A fact that stops being true
-- keeps its row: history and what was true at a date are read from it.
--
-- subject_key and object_key name entities as they are matched (lower
-- case, spaces collapsed, aliases resolved: see fact_aliases);
-- predicate_key is the predicate as it is matched (normalised, stemmed,
-- synonyms resolved). The texts keep the words as they were given.

CREATE TABLE facts (
    pk            INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL,
    agent_id      TEXT    NOT NULL,
    subject       TEXT    NOT NULL,
    predicate     TEXT    NOT NULL,
    object        TEXT    NOT NULL,
    subject_key   TEXT    NOT NULL,
    predicate_key TEXT    NOT NULL,
    object_key    TEXT    NOT NULL,
    valid_from    INTEGER NOT NULL,
    valid_to      INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    expired_at    INTEGER,
    strength      REAL    NOT NULL CHECK (strength > 0),
    sources       TEXT    NOT NULL DEFAULT '[]',
    metadata      TEXT    NOT NULL DEFAULT '{}',
    retrievals    INTEGER NOT NULL DEFAULT 0,
    terms         BLOB,
    ntok          INTEGER NOT NULL DEFAULT 0,
    agent_tok     TEXT GENERATED ALWAYS AS ('x' || lower(hex(agent_id)) || '0') VIRTUAL,
    UNIQUE (agent_id, id),
    CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
-- A slot (subject and predicate) by object, with when each fact ends so
-- that an assertion passes over the slot's history in the index, and the
-- edges out of and into an entity, with what graph queries read of them.
CREATE INDEX facts_by_slot ON facts (agent_id, subject_key, predicate_key, object_key, valid_to);
CREATE INDEX facts_out ON facts (agent_id, subject_key, object_key, valid_from, valid_to);
CREATE INDEX facts_in ON facts (agent_id, object_key, subject_key, valid_from, valid_to);
CREATE INDEX facts_by_time ON facts (agent_id, created_at);

-- Another name of an entity: facts that name alias_key are stored and
-- matched under entity_key.
CREATE TABLE fact_aliases (
    agent_id   TEXT NOT NULL,
    alias_key  TEXT NOT NULL,
    entity_key TEXT NOT NULL,
    alias      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (agent_id, alias_key)
) WITHOUT ROWID;
CREATE INDEX fact_aliases_by_entity ON fact_aliases (agent_id, entity_key);

CREATE VIRTUAL TABLE fact_fts USING fts5(
    subject, predicate, object, agent_tok,
    content = 'facts', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE fact_vocab USING fts5vocab(fact_fts, 'row');

CREATE TRIGGER fact_ai AFTER INSERT ON facts BEGIN
    INSERT INTO fact_fts (rowid, subject, predicate, object, agent_tok) VALUES (new.pk, new.subject, new.predicate, new.object, new.agent_tok);
END;
CREATE TRIGGER fact_ad AFTER DELETE ON facts BEGIN
    INSERT INTO fact_fts (fact_fts, rowid, subject, predicate, object, agent_tok) VALUES ('delete', old.pk, old.subject, old.predicate, old.object, old.agent_tok);
    DELETE FROM zettel_links WHERE agent_id = old.agent_id
        AND ((source_type = 'fact' AND source_id = old.id)
          OR (target_type = 'fact' AND target_id = old.id));
END;
CREATE TRIGGER fact_au AFTER UPDATE OF subject, predicate, object ON facts BEGIN
    INSERT INTO fact_fts (fact_fts, rowid, subject, predicate, object, agent_tok) VALUES ('delete', old.pk, old.subject, old.predicate, old.object, old.agent_tok);
    INSERT INTO fact_fts (rowid, subject, predicate, object, agent_tok) VALUES (new.pk, new.subject, new.predicate, new.object, new.agent_tok);
END;

-- The agent's text statistics count facts as they count every searchable
-- row (see migration 0005).
CREATE TRIGGER fact_stats_ai AFTER INSERT ON facts BEGIN
    INSERT INTO text_stats (agent_id, docs, tokens) VALUES (new.agent_id, 1, new.ntok)
        ON CONFLICT (agent_id) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens, version = version + 1;
END;
CREATE TRIGGER fact_stats_ad AFTER DELETE ON facts BEGIN
    UPDATE text_stats SET docs = docs - 1, tokens = tokens - old.ntok, version = version + 1 WHERE agent_id = old.agent_id;
END;
CREATE TRIGGER fact_stats_au AFTER UPDATE OF subject, predicate, object, terms, ntok ON facts
WHEN old.ntok IS NOT new.ntok OR old.terms IS NOT new.terms OR old.subject IS NOT new.subject
    OR old.predicate IS NOT new.predicate OR old.object IS NOT new.object BEGIN
    UPDATE text_stats SET tokens = tokens - old.ntok + new.ntok, version = version + 1 WHERE agent_id = new.agent_id;
END;
CREATE TRIGGER fact_terms_au AFTER UPDATE OF subject, predicate, object ON facts
WHEN new.terms IS old.terms AND (old.subject IS NOT new.subject OR old.predicate IS NOT new.predicate
    OR old.object IS NOT new.object) BEGIN
    UPDATE facts SET terms = NULL WHERE pk = new.pk;
END;

-- Tier 2: the embedding of each predicate the agent's facts use, by the
-- model that made it, so that a new predicate is matched to a subject's
-- known one by cosine (see Facts.Assert). A predicate embedded by another
-- model is embedded again when it is next needed.
CREATE TABLE fact_predicates (
    agent_id      TEXT NOT NULL,
    predicate_key TEXT NOT NULL,
    model         TEXT NOT NULL,
    embedding     BLOB NOT NULL,
    PRIMARY KEY (agent_id, predicate_key)
) WITHOUT ROWID;

-- An extraction rule of memory_type 'fact' makes a fact of every match:
-- subject, predicate and object are templates expanded from the match's
-- groups ($name, ${name}), empty when the part comes from the group of
-- its name ((?P<object>…)) or, for the subject, is the user entity.
ALTER TABLE extraction_rules ADD COLUMN subject   TEXT NOT NULL DEFAULT '';
ALTER TABLE extraction_rules ADD COLUMN predicate TEXT NOT NULL DEFAULT '';
ALTER TABLE extraction_rules ADD COLUMN object    TEXT NOT NULL DEFAULT '';

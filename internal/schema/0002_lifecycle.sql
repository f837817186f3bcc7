-- engram schema v2: what keeps memory healthy as it grows.
--
-- Resonance (seed 003) is a memory's relevance after decay, in [0, 1];
-- Decay recomputes it and search ranking uses it. Compaction never deletes:
-- what leaves a table goes to the archive, from where Restore brings it
-- back and PurgeArchive deletes it for good.

ALTER TABLE semantic_memory ADD COLUMN resonance REAL NOT NULL DEFAULT 1 CHECK (resonance BETWEEN 0 AND 1);
-- IDs of the near-duplicates merged into this entry, a JSON array.
ALTER TABLE semantic_memory ADD COLUMN merged_from TEXT NOT NULL DEFAULT '[]';
-- access_count when consolidation last promoted the entry.
ALTER TABLE semantic_memory ADD COLUMN promoted_at_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE episodic_log ADD COLUMN resonance REAL NOT NULL DEFAULT 1 CHECK (resonance BETWEEN 0 AND 1);
ALTER TABLE procedural_memory ADD COLUMN resonance REAL NOT NULL DEFAULT 1 CHECK (resonance BETWEEN 0 AND 1);

-- One archived memory: its row and the links it had, as JSON, and why it
-- left ('count', 'time', 'semantic', 'decay').
CREATE TABLE archive (
    pk          INTEGER PRIMARY KEY,
    agent_id    TEXT    NOT NULL,
    memory_type TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    row         TEXT    NOT NULL,
    links       TEXT    NOT NULL DEFAULT '[]',
    reason      TEXT    NOT NULL,
    merged_into TEXT    NOT NULL DEFAULT '',
    archived_at INTEGER NOT NULL,
    UNIQUE (agent_id, memory_type, id)
);
CREATE INDEX archive_by_time ON archive (agent_id, archived_at);

-- Rule-based extraction (seed 003): a regular expression applied to user
-- messages, and what a match becomes.
CREATE TABLE extraction_rules (
    pk          INTEGER PRIMARY KEY,
    agent_id    TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    pattern     TEXT    NOT NULL,
    memory_type TEXT    NOT NULL,
    importance  REAL    NOT NULL CHECK (importance BETWEEN 0 AND 1),
    tags        TEXT    NOT NULL DEFAULT '[]',
    active      INTEGER NOT NULL DEFAULT 1,
    created_at  INTEGER NOT NULL,
    UNIQUE (agent_id, name)
);

-- A counter per agent that every change to a semantic entry's existence or
-- content moves on, whichever connection makes it: an in-process index of
-- the agent's entries (auto-linking, near-duplicate merging) is current
-- exactly when the counter is where it left it.
CREATE TRIGGER semantic_version_ai AFTER INSERT ON semantic_memory BEGIN
    INSERT INTO meta (key, value) VALUES ('semantic.version:' || new.agent_id, '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER semantic_version_ad AFTER DELETE ON semantic_memory BEGIN
    INSERT INTO meta (key, value) VALUES ('semantic.version:' || old.agent_id, '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER semantic_version_au AFTER UPDATE OF content ON semantic_memory
WHEN old.content IS NOT new.content BEGIN
    INSERT INTO meta (key, value) VALUES ('semantic.version:' || new.agent_id, '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

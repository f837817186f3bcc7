-- engram schema v14: a lighter file still.
--
-- The full-text indexes keep no column sizes. FTS5 keeps, beside each
-- index, the number of tokens of every column of every row (its _docsize
-- table, columnsize=1), for its bm25() and the auxiliary functions.
-- engram reads neither: it scores with its own BM25 over the rows' term
-- vectors (see 0005), and asks FTS5 only which rows match. So the
-- external-content indexes are made anew with columnsize=0 and rebuilt
-- from their tables (what they hold and match is the same), with
-- secure-delete on as 0008 set it. snapshot_fts, contentless with
-- deletes, keeps its sizes. The vocabulary tables are made again over the
-- new indexes; the triggers that keep the indexes name them by name and
-- stay.
DROP TABLE semantic_vocab;
DROP TABLE episodic_vocab;
DROP TABLE procedural_vocab;
DROP TABLE fact_vocab;
DROP TABLE document_vocab;
DROP TABLE semantic_fts;
DROP TABLE episodic_fts;
DROP TABLE procedural_fts;
DROP TABLE fact_fts;
DROP TABLE document_fts;

CREATE VIRTUAL TABLE semantic_fts USING fts5(
    content, tags, agent_tok,
    content = 'semantic_memory', content_rowid = 'pk',
    tokenize = 'porter unicode61', columnsize = 0
);
CREATE VIRTUAL TABLE episodic_fts USING fts5(
    content, agent_tok,
    content = 'episodic_log', content_rowid = 'pk',
    tokenize = 'porter unicode61', columnsize = 0
);
CREATE VIRTUAL TABLE procedural_fts USING fts5(
    name, description, pattern, tags, agent_tok,
    content = 'procedural_memory', content_rowid = 'pk',
    tokenize = 'porter unicode61', columnsize = 0
);
CREATE VIRTUAL TABLE fact_fts USING fts5(
    subject, predicate, object, agent_tok,
    content = 'facts', content_rowid = 'pk',
    tokenize = 'porter unicode61', columnsize = 0
);
CREATE VIRTUAL TABLE document_fts USING fts5(
    title, heading, content, tags, agent_tok,
    content = 'document_chunks', content_rowid = 'pk',
    tokenize = 'porter unicode61', columnsize = 0
);
CREATE VIRTUAL TABLE semantic_vocab USING fts5vocab(semantic_fts, 'row');
CREATE VIRTUAL TABLE episodic_vocab USING fts5vocab(episodic_fts, 'row');
CREATE VIRTUAL TABLE procedural_vocab USING fts5vocab(procedural_fts, 'row');
CREATE VIRTUAL TABLE fact_vocab USING fts5vocab(fact_fts, 'row');
CREATE VIRTUAL TABLE document_vocab USING fts5vocab(document_fts, 'row');

INSERT INTO semantic_fts (semantic_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO episodic_fts (episodic_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO procedural_fts (procedural_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO fact_fts (fact_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO document_fts (document_fts, rank) VALUES ('secure-delete', 1);

INSERT INTO semantic_fts (semantic_fts) VALUES ('rebuild');
INSERT INTO episodic_fts (episodic_fts) VALUES ('rebuild');
INSERT INTO procedural_fts (procedural_fts) VALUES ('rebuild');
INSERT INTO fact_fts (fact_fts) VALUES ('rebuild');
INSERT INTO document_fts (document_fts) VALUES ('rebuild');

-- A semantic entry's content_hash takes 8 bytes, not 16 (see
-- store.ContentHash): it only finds the entries that may hold a text
-- already, which are then compared by content. The rows and the archived
-- copies keep the first 8 bytes of the hash they had, which is the new
-- hash of their content. Document chunks and the embedding cache keep
-- 16-byte hashes. No trigger watches content_hash.
UPDATE semantic_memory SET content_hash = substr(content_hash, 1, 8) WHERE length(content_hash) > 8;
UPDATE archive SET row = json_set(row, '$.content_hash', substr(row ->> '$.content_hash', 1, 16))
    WHERE memory_type = 'semantic' AND length(row ->> '$.content_hash') > 16;

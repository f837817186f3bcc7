-- engram schema v6: the embedding cache holds a memory's vector once.
--
-- Until v5 each entry of the embedding cache held a copy of its vector,
-- which the memory's vec0 row holds too: at Tier 2 that was most of the
-- file. An entry now names the row whose vector is the text's embedding
-- (memory_type, memory_pk) and its vector is empty; it holds a vector of
-- its own only while no row does: when its memory went to the archive,
-- from where Restore may bring it back. The Tier 2 schema's triggers keep
-- the names in step with the rows (tier2/0002), and a file's first
-- opening at Tier 2 since this step turns its copies into names.

ALTER TABLE embedding_cache ADD COLUMN memory_type TEXT;
ALTER TABLE embedding_cache ADD COLUMN memory_pk INTEGER
    CHECK ((memory_pk IS NULL) = (memory_type IS NULL) AND (memory_pk IS NULL) = (length(vector) > 0));
CREATE INDEX embedding_cache_by_row ON embedding_cache (memory_type, memory_pk);

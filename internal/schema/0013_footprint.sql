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

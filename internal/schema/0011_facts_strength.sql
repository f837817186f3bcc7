-- engram schema v11: the facts that hold, strongest first.
--
-- memory.md and Context show an agent's strongest facts that hold now
-- (Facts.strongest): through this index SQLite reads them in that order
-- and stops at the limit, where it read and sorted all of the agent's
-- facts, on every Context call of an agent's loop.
CREATE INDEX facts_by_strength ON facts (agent_id, strength DESC, updated_at DESC, id);

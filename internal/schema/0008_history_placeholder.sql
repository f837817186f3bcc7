-- Placeholder for migration 0008 (history), which is being written on main
-- concurrently: the markdown branch takes 0009 and needs an 0008 to run.
-- Drop this file when merging 0008_history.sql.
SELECT 1;

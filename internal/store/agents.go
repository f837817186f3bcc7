package store

import (
	"slices"
)

// AgentTables returns the names of the tables of the file that have an
// agent_id column (virtual tables aside: their rows are kept by
// triggers), sorted. The caller checks the names before it passes them to
// the functions that take a table. It returns the driver's errors
// unchanged.
func AgentTables(q Querier) ([]string, error) {
	if Postgres(q) {
		rows, err := q.Query(PG(`SELECT c.relname::text FROM pg_class c
			JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'agent_id' AND NOT a.attisdropped
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
			ORDER BY c.relname COLLATE "C"`))
		if err != nil {
			return nil, err
		}
		return ScanAll(rows, scanAgentString)
	}
	rows, err := q.Query(`SELECT s.name FROM sqlite_schema s
		WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite\_%' ESCAPE '\' AND s.sql NOT LIKE 'CREATE VIRTUAL%'
			AND EXISTS (SELECT 1 FROM pragma_table_info(s.name) c WHERE c.name = 'agent_id')
		ORDER BY s.name`)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanAgentString)
}

func scanAgentString(r Scanner) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

// AgentsIn returns the agents with rows in the tables (names AgentTables
// returned), sorted: each table is walked from agent to agent (a seek per
// agent in the index that starts with agent_id, which every such table
// has), not row by row. It returns the driver's errors unchanged.
func AgentsIn(q Querier, tables []string) ([]string, error) {
	seen := map[string]bool{}
	for _, t := range tables {
		rows, err := q.Query(`WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "` + t + `"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "` + t + `" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL`)
		if err != nil {
			return nil, err
		}
		ids, err := ScanAll(rows, scanAgentString)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			seen[id] = true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}

// AgentRows returns the tables, of those given (names AgentTables
// returned), that hold rows of agent, and "meta" when an entry of meta is
// the agent's. It returns the driver's errors unchanged.
func AgentRows(q Querier, tables []string, agent string) ([]string, error) {
	var out []string
	for _, t := range tables {
		var has bool
		if err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM "`+t+`" WHERE agent_id = ?)`, []any{agent}, &has); err != nil {
			return nil, err
		}
		if has {
			out = append(out, t)
		}
	}
	var meta bool
	if err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM meta WHERE `+agentKey+`)`, []any{agent}, &meta); err != nil {
		return nil, err
	}
	if meta {
		out = append(out, "meta")
	}
	return out, nil
}

package store

import (
	"encoding/json"
	"time"
)

// memory.md: the counts its header shows, and engram's record of what it
// last wrote there (markdown_files: the file's path and hash, one row per
// agent; markdown_lines: each entry's and fact's line, by kind and ID),
// by which reading the file back tells a person's edits from engram's
// own lines.

// MarkdownLine is a line of memory.md as engram wrote it: an entry's or a
// fact's (Kind "entry" or "fact"), by ID.
type MarkdownLine struct {
	Kind string `json:"k"`
	ID   string `json:"i"`
	Line string `json:"l"`
}

// MarkdownCounts returns how many semantic entries the agent has and how
// many of its facts hold at now. It returns the driver's error.
func MarkdownCounts(q Querier, agent string, now time.Time) (entries, facts int, err error) {
	err = q.QueryRow(`SELECT (SELECT count(*) FROM semantic_memory WHERE agent_id = ?1),
			(SELECT count(*) FROM facts f WHERE agent_id = ?1 AND `+Fact.LiveAt("f", "?2")+`)`,
		[]any{agent, MS(now)}, &entries, &facts)
	return entries, facts, err
}

// MarkdownHash returns the hash of the memory.md engram last wrote for
// the agent, and whether it has a record of one. It returns the driver's
// error.
func MarkdownHash(q Querier, agent string) ([]byte, bool, error) {
	var hash []byte
	err := q.QueryRow(`SELECT hash FROM markdown_files WHERE agent_id = ?`, []any{agent}, &hash)
	return noRow(hash, err)
}

// EachMarkdownLine calls fn with each line engram last wrote to the
// agent's memory.md, in no particular order, streaming. It returns the
// driver's error or fn's.
func EachMarkdownLine(q Querier, agent string, fn func(MarkdownLine) error) error {
	rows, err := q.Query(`SELECT kind, id, line FROM markdown_lines WHERE agent_id = ?`, agent)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var l MarkdownLine
		if err := rows.Scan(&l.Kind, &l.ID, &l.Line); err != nil {
			return err
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// RecordMarkdown records that engram wrote the agent's memory.md at path,
// with the given hash and lines, at the time at: the record replaces the
// agent's last one (of two lines with the same kind and ID, the first is
// kept). It returns the driver's error, or an error when the lines cannot
// be encoded.
func RecordMarkdown(q Querier, agent, path string, hash []byte, lines []MarkdownLine, at time.Time) error {
	if lines == nil {
		lines = []MarkdownLine{}
	}
	b, err := json.Marshal(lines)
	if err != nil {
		return err
	}
	if _, err := q.Exec(`DELETE FROM markdown_lines WHERE agent_id = ?`, agent); err != nil {
		return err
	}
	if _, err := q.Exec(`INSERT INTO markdown_lines (agent_id, kind, id, line)
			SELECT ?1, j.value ->> '$.k', j.value ->> '$.i', j.value ->> '$.l' FROM json_each(?2) j
			WHERE true ON CONFLICT DO NOTHING`, agent, string(b)); err != nil {
		return err
	}
	_, err = q.Exec(`INSERT INTO markdown_files (agent_id, path, hash, written_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (agent_id) DO UPDATE SET path = excluded.path, hash = excluded.hash, written_at = excluded.written_at`,
		agent, path, hash, MS(at))
	return err
}

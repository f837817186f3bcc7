package benchdata

import "fmt"

// The bare driver, the yardstick engram's stores are measured against:
// what engram's semantic table needs at the least (the row, its rank
// index and its FTS5 index, optionally a vec0 table), through
// database/sql and modernc.org/sqlite, with engram's pragmas.

// BaselineDSN is what follows a bare-driver database's path in its DSN:
// engram's pragmas.
const BaselineDSN = "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=cache_size(-65536)"

// BaselineDDL returns the bare driver's schema: a table t with the
// columns, rank index and FTS5 trigger of engram's semantic table and,
// with vectors, a vec0 table t_vec of dims dimensions laid out as Tier
// 2's.
func BaselineDDL(vectors bool, dims int) []string {
	ddl := []string{
		`CREATE TABLE t (pk INTEGER PRIMARY KEY, id TEXT NOT NULL, agent_id TEXT NOT NULL, content TEXT NOT NULL,
				summary TEXT NOT NULL, importance REAL NOT NULL, tags TEXT NOT NULL, created_at INTEGER NOT NULL,
				UNIQUE (agent_id, id))`,
		`CREATE INDEX t_rank ON t (agent_id, importance DESC, created_at DESC, id)`,
		`CREATE VIRTUAL TABLE t_fts USING fts5(content, tags, content='t', content_rowid='pk', tokenize='porter unicode61')`,
		`CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN
				INSERT INTO t_fts (rowid, content, tags) VALUES (new.pk, new.content, new.tags); END`,
	}
	if vectors {
		ddl = append(ddl, fmt.Sprintf(`CREATE VIRTUAL TABLE t_vec USING vec0(embedding float[%d] distance_metric=cosine, chunk_size=64)`, dims))
	}
	return ddl
}

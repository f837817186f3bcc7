package postgres

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// HistoryContextSQL turns history on for a session (a connection): it
// makes the temporary table history_ctx, whose presence schema.sql's
// history triggers look for, with its one row, as the first two of
// store.HistoryStatements do on a SQLite connection; store.BeginChanges,
// SetHistoryContext and HistoryContext then read and write it (as
// pg_temp.history_ctx). It is one script for one simple-protocol Exec, and
// leaves a session that has the table as it is.
const HistoryContextSQL = `CREATE TEMP TABLE IF NOT EXISTS history_ctx (
	one    integer PRIMARY KEY CHECK (one = 1),
	op     text,
	actor  text    NOT NULL,
	reason text    NOT NULL,
	at     bigint  NOT NULL);
INSERT INTO pg_temp.history_ctx (one, op, actor, reason, at) VALUES (1, NULL, '', '', 0) ON CONFLICT (one) DO NOTHING`

// The operations schema.sql's history triggers record when the context
// names none: the root package's OpCreate, OpUpdate, OpDelete and OpDecay.
const (
	HistoryCreate = "create"
	HistoryUpdate = "update"
	HistoryDelete = "delete"
	HistoryDecay  = "decay"
)

// HistoryKinds returns the kinds, and their columns, whose changes
// schema.sql's history triggers record, as store.HistoryStatements takes
// them: they must be the root package's (a test there checks), and the
// triggers must record what SQLite's made of them do (a test here checks).
// Each call returns a new slice.
func HistoryKinds() []store.HistoryKind {
	return []store.HistoryKind{
		historyKind("semantic", "semantic_memory", "id content summary importance verified tags source created_at updated_at merged_from user_id session_id metadata",
			"tags merged_from metadata", "summary:summary_own", true),
		historyKind("episodic", "episodic_log", "id content event_type task_id session_id cost duration_ns metadata created_at user_id",
			"metadata", "", true),
		historyKind("procedural", "procedural_memory", "id name description pattern success_rate use_count tags disabled created_at updated_at user_id session_id metadata",
			"tags metadata", "", true),
		historyKind("snapshot", "session_snapshots", "id session_id messages summary key_decisions task_ids started_at ended_at total_cost total_tokens created_at",
			"messages key_decisions task_ids", "", false),
		historyKind("fact", "facts", "id subject predicate object subject_key predicate_key object_key valid_from valid_to created_at updated_at expired_at strength sources metadata",
			"sources metadata", "", false),
		historyKind("document", "document_chunks", "id source heading chunk title tags content sources created_at updated_at",
			"tags sources", "", false),
	}
}

// historyKind makes a HistoryKind from its recorded columns, those of
// them that hold JSON, and the columns written in place of generated ones
// ("generated:written"), all space-separated.
func historyKind(typ, table, recorded, jsonCols, writeAs string, decay bool) store.HistoryKind {
	isJSON := map[string]bool{}
	for _, c := range strings.Fields(jsonCols) {
		isJSON[c] = true
	}
	written := map[string]string{}
	for _, p := range strings.Fields(writeAs) {
		gen, w, _ := strings.Cut(p, ":")
		written[gen] = w
	}
	k := store.HistoryKind{Type: typ, Table: table, Decay: decay}
	for _, c := range strings.Fields(recorded) {
		k.Recorded = append(k.Recorded, store.HistoryColumn{Name: c, JSON: isJSON[c]})
		k.Written = append(k.Written, cmp.Or(written[c], c))
	}
	return k
}

// StartHistory makes the database's write transactions record history:
// from now on, the first agent a write locks (see Tx.LockAgent) makes the
// session's history context (HistoryContextSQL), which schema.sql's
// triggers record for. The triggers are the schema's: they record what
// HistoryKinds says, which must be h's kinds (a test of the root package
// checks it). It returns an error when h asks for a kind the triggers do
// not record.
func (s *DB) StartHistory(ctx context.Context, h store.HistorySpec) error {
	have := map[string]bool{}
	for _, k := range HistoryKinds() {
		have[k.Type] = true
	}
	for _, k := range h.Kinds {
		if !have[k.Type] {
			return s.fail("open", fmt.Errorf("the PostgreSQL schema records no history of %q", k.Type))
		}
	}
	if h.CreateOp != HistoryCreate || h.UpdateOp != HistoryUpdate || h.DeleteOp != HistoryDelete || h.DecayOp != HistoryDecay {
		return s.fail("open", fmt.Errorf("the PostgreSQL schema records the operations %s, %s, %s and %s, not %s, %s, %s and %s",
			HistoryCreate, HistoryUpdate, HistoryDelete, HistoryDecay, h.CreateOp, h.UpdateOp, h.DeleteOp, h.DecayOp))
	}
	s.history.Store(true)
	return nil
}

// History reports whether history was started (see StartHistory).
func (s *DB) History() bool { return s.history.Load() }

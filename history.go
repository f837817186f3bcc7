package engram

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/store"
)

// History is every change to a memory or a fact, kept in the database
// (table history) in the transaction that made it. Nothing that writes a
// row has to remember it: triggers on the writer connection of a Memory
// that records history, made from the registry of kinds (see store.Kind.Cols),
// append an entry for every insert, every change of a recorded field and
// every delete of a memory row, whatever statement made it. (A Memory
// with history off, or a program writing the file without engram,
// records nothing.) What the trigger cannot know (the operation, when it
// is more than create, update or delete; the actor; the reason) it reads
// from temp.history_ctx, a one-row table on the writer connection that
// Memory.write fills at the start of each transaction and steps of larger
// operations relabel (see dbtx.recordAs).
//
// Recorded fields are a row's columns less the bookkeeping that reads
// change (access counts, retrievals), that is derived from other fields
// (term vectors, content hashes) or that decay recomputes (resonance): a
// search is not a change. Decay is recorded apart, once each time a
// memory's resonance falls into a lower tenth: not at every run of decay,
// which moves it a little.

// HistoryOp is what a change did to a memory.
type HistoryOp string

// The operations history records.
const (
	OpCreate    HistoryOp = "create"    // stored
	OpUpdate    HistoryOp = "update"    // a recorded field changed
	OpDelete    HistoryOp = "delete"    // deleted (by the caller, or a session's oldest snapshot by engram)
	OpArchive   HistoryOp = "archive"   // moved to the archive (compaction, decay, a removed memory.md line)
	OpRestore   HistoryOp = "restore"   // brought back from the archive
	OpMerge     HistoryOp = "merge"     // merged with a near-duplicate, or a fact asserted again
	OpSupersede HistoryOp = "supersede" // a fact replaced by a newer value
	OpDecay     HistoryOp = "decay"     // resonance fell into a lower tenth
	OpImport    HistoryOp = "import"    // written by Import
	OpForget    HistoryOp = "forget"    // forgotten: the entry that remains, without content
)

// historyOps are the operations history records.
var historyOps = []HistoryOp{OpCreate, OpUpdate, OpDelete, OpArchive, OpRestore, OpMerge, OpSupersede, OpDecay, OpImport, OpForget}

// HistoryEntry is one change to one memory or fact.
type HistoryEntry struct {
	// Seq orders the agent's history: a later change has a higher Seq.
	Seq  int64
	Op   HistoryOp
	Type MemoryType
	ID   string
	// Before and After are the memory's recorded fields as a JSON object,
	// before and after the change: Before is nil when the memory comes
	// into being (a creation, a restore, the import of a new memory),
	// After when it leaves (a deletion, an archive). Decay records
	// {"resonance": …} only. A forget entry has neither.
	Before, After json.RawMessage
	// Actor is who made the change: the actor of the call's context (see
	// [ContextWithActor]), else the Memory's ([WithActor]), else the
	// agent's ID.
	Actor string
	// Reason is why: the call context's reason (see
	// [ContextWithReason]), or what engram says of its own operations
	// ("count", "time", "decay", "semantic" for compaction's archiving).
	Reason string
	At     time.Time
}

// HistoryConfig configures the history of changes.
type HistoryConfig struct {
	// Enabled records every change; default true. A Memory without
	// history records nothing, though History and Changes still read what
	// was recorded before.
	Enabled bool
	// Retention is how long entries are kept: [Memory.Compact] deletes
	// older ones. Default 365 days.
	Retention time.Duration
}

// maxActorBytes bounds an actor's and a reason's size.
const maxActorBytes = 1 << 10

type actorKey struct{}
type reasonKey struct{}

// ContextWithActor returns a copy of ctx under which the changes engram
// makes are recorded in history as made by actor (a user, a tool, a
// service). It overrides [WithActor] for the calls that use the context.
// An actor that is not a line of valid UTF-8 of at most 1 KiB makes those
// calls fail with an error matching [ErrInvalid].
func ContextWithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ContextWithReason returns a copy of ctx under which the changes engram
// makes are recorded in history with reason (why they were made). A reason
// that is not valid UTF-8 of at most 1 KiB makes those calls fail with an
// error matching [ErrInvalid].
func ContextWithReason(ctx context.Context, reason string) context.Context {
	return context.WithValue(ctx, reasonKey{}, reason)
}

// WithActor records the changes the Memory makes in history as made by
// actor, unless a call's context says otherwise (see [ContextWithActor]).
// Without it the actor is the agent's ID.
func WithActor(actor string) Option {
	return func(s *settings) {
		if err := validateActor("WithActor", actor, true); err != nil {
			s.fail(err)
		}
		s.actor = actor
	}
}

// validateActor checks an actor (one line) or a reason.
func validateActor(field, s string, line bool) error {
	switch {
	case len(s) > maxActorBytes:
		return invalid(field, "is %d bytes, over the limit of %d", len(s), maxActorBytes)
	case !utf8.ValidString(s):
		return invalid(field, "is not valid UTF-8")
	case strings.IndexByte(s, 0) >= 0:
		return invalid(field, "contains a NUL byte")
	case line && strings.ContainsAny(s, "\r\n"):
		return invalid(field, "must be one line")
	}
	return nil
}

// changeContext returns the actor and the reason the changes made under
// ctx are recorded with, or an error matching ErrInvalid.
func (m *Memory) changeContext(ctx context.Context) (actor, reason string, err error) {
	actor = m.actor
	if a, ok := ctx.Value(actorKey{}).(string); ok {
		if err := validateActor("context actor", a, true); err != nil {
			return "", "", err
		}
		actor = a
	}
	if actor == "" {
		actor = m.agent
	}
	if r, ok := ctx.Value(reasonKey{}).(string); ok {
		if err := validateActor("context reason", r, false); err != nil {
			return "", "", err
		}
		reason = r
	}
	return actor, reason, nil
}

// History returns the changes recorded of the memory or fact with the
// given ID, oldest first; none for an ID the agent never had or whose
// changes were recorded by no Memory with history. It returns an error
// matching [ErrInvalid] for a malformed ID, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (m *Memory) History(ctx context.Context, id string) ([]HistoryEntry, error) {
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	var out []HistoryEntry
	err := m.read(ctx, "history", func(q *dbtx) error {
		rows, err := q.query(`SELECT `+historyRowCols+` FROM history INDEXED BY history_by_memory
			WHERE agent_id = ? AND id = ? ORDER BY pk`, m.agent, id)
		if err != nil {
			return err
		}
		hs, err := store.ScanAll(rows, scanHistoryRow)
		if err != nil {
			return err
		}
		out, err = q.historyEntries(m.agent, hs)
		return err
	})
	return out, err
}

// ChangeQuery selects entries of the agent's history for [Memory.Changes].
type ChangeQuery struct {
	// Since is the earliest time of the entries returned; zero for all.
	Since time.Time
	// AfterSeq, with Since, skips the entries at Since whose Seq is at
	// most AfterSeq: to read the next page, pass the last entry's At as
	// Since and its Seq as AfterSeq.
	AfterSeq int64
	// Limit is the most entries returned: default 100, at most 10000.
	Limit int
	// Newest returns the newest Limit entries from Since on, newest
	// first, instead of the oldest, oldest first: the latest changes
	// without knowing when they were made. It takes no AfterSeq.
	Newest bool
	// Until is the latest time of the entries returned; zero for no
	// bound. BeforeSeq, with Until, skips the entries at Until whose Seq
	// is at least BeforeSeq: to read the page before a page read with
	// Newest, pass its last entry's At as Until and its Seq as BeforeSeq.
	Until     time.Time
	BeforeSeq int64
	// Actor keeps the entries of that actor only; "" keeps every actor's.
	Actor string
}

// maxChanges bounds one page of Changes.
const maxChanges = 10_000

// Changes returns the agent's changes from q.Since on, by time and then
// Seq (the newest first with q.Newest): a feed of what happened to its
// memory. It returns an error matching [ErrInvalid] for a negative
// AfterSeq, an AfterSeq with Newest, a Limit outside [0, 10000], a
// negative BeforeSeq or one without Until, or an Actor of two lines,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails.
func (m *Memory) Changes(ctx context.Context, cq ChangeQuery) ([]HistoryEntry, error) {
	switch {
	case cq.AfterSeq < 0:
		return nil, invalid("ChangeQuery.AfterSeq", "%d is negative", cq.AfterSeq)
	case cq.AfterSeq != 0 && cq.Newest:
		return nil, invalid("ChangeQuery.AfterSeq", "%d with Newest: Newest reads back from the latest change", cq.AfterSeq)
	case cq.Limit < 0 || cq.Limit > maxChanges:
		return nil, invalid("ChangeQuery.Limit", "%d is outside [0, %d]", cq.Limit, maxChanges)
	case cq.BeforeSeq < 0:
		return nil, invalid("ChangeQuery.BeforeSeq", "%d is negative", cq.BeforeSeq)
	case cq.BeforeSeq != 0 && cq.Until.IsZero():
		return nil, invalid("ChangeQuery.BeforeSeq", "%d without Until: it counts among the entries at Until", cq.BeforeSeq)
	}
	if err := validateActor("ChangeQuery.Actor", cq.Actor, true); err != nil {
		return nil, err
	}
	limit := cmp.Or(cq.Limit, 100)
	since, until, before := int64(minTime), int64(math.MaxInt64), int64(math.MaxInt64)
	if !cq.Since.IsZero() {
		since = ms(cq.Since)
	}
	if !cq.Until.IsZero() {
		until = ms(cq.Until)
	}
	if cq.BeforeSeq != 0 {
		before = cq.BeforeSeq
	}
	var out []HistoryEntry
	err := m.read(ctx, "history.changes", func(q *dbtx) error {
		order := "at, pk"
		if cq.Newest {
			order = "at DESC, pk DESC"
		}
		rows, err := q.query(`SELECT `+historyRowCols+` FROM history INDEXED BY history_by_time
			WHERE agent_id = ?1 AND (at > ?2 OR (at = ?2 AND pk > ?3)) AND (at < ?5 OR (at = ?5 AND pk < ?6))
				AND (?7 = '' OR actor = ?7)
			ORDER BY `+order+` LIMIT ?4`,
			m.agent, since, cq.AfterSeq, limit, until, before, cq.Actor)
		if err != nil {
			return err
		}
		hs, err := store.ScanAll(rows, scanHistoryRow)
		if err != nil {
			return err
		}
		out, err = q.historyEntries(m.agent, hs)
		return err
	})
	return out, err
}

// minTime is the earliest time Changes reads from without a Since.
const minTime = -1 << 62

const historyCols = `pk, op, memory_type, id, before, after, actor, reason, at`

// pruneHistory deletes the agent's entries older than the retention.
func (m *Memory) pruneHistory(q *dbtx, now time.Time) (int, error) {
	res, err := q.exec(`DELETE FROM history WHERE agent_id = ? AND at < ?`, m.agent, ms(now.Add(-m.cfg.History.Retention)))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// The columns history leaves out of a row: see the comment at the top.
var unrecorded = map[string]bool{
	"terms": true, "ntok": true, "content_hash": true, "retrievals": true,
	"access_count": true, "last_accessed_at": true, "promoted_at_count": true, "resonance": true,
}

// jsonColumns are the columns that hold JSON, which history keeps as JSON
// rather than as strings.
var jsonColumns = map[string]bool{
	"tags": true, "merged_from": true, "metadata": true, "sources": true,
	"messages": true, "key_decisions": true, "task_ids": true,
}

// recorded returns the kind's columns history records.
func (k *kind) recorded() []string {
	return slices.DeleteFunc(slices.Clone(k.Cols), func(c string) bool { return unrecorded[c] })
}

// recordedJSON is the SQL expression of the recorded fields of the row
// named alias as a JSON object.
func (k *kind) recordedJSON(alias string) string {
	var parts []string
	for _, c := range k.recorded() {
		v := alias + "." + c
		if jsonColumns[c] {
			v = "CASE WHEN json_valid(" + v + ") THEN json(" + v + ") ELSE " + v + " END"
		}
		parts = append(parts, "'"+c+"'", v)
	}
	return "json_object(" + strings.Join(parts, ", ") + ")"
}

// historyStatements returns what startHistory runs on the writer
// connection: the context table and the triggers of every kind.
func historyStatements() []string {
	stmts := []string{
		`CREATE TEMP TABLE IF NOT EXISTS history_ctx (
			one INTEGER PRIMARY KEY CHECK (one = 1), op TEXT, actor TEXT NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL)`,
		`INSERT OR IGNORE INTO temp.history_ctx (one, op, actor, reason, at) VALUES (1, NULL, '', '', 0)`,
	}
	insert := func(k *kind, alias, op, before, after, form string) string {
		return `INSERT INTO main.history (agent_id, memory_type, id, op, before, after, form, actor, reason, at)
			SELECT ` + alias + `.agent_id, '` + string(k.typ) + `', ` + alias + `.id, coalesce(c.op, '` + op + `'), ` +
			before + `, ` + after + `, ` + form + `, c.actor, c.reason, c.at FROM temp.history_ctx c;`
	}
	for _, k := range kinds {
		name := "history_" + k.Table
		stmts = append(stmts,
			`CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_insert AFTER INSERT ON main.`+k.Table+` BEGIN `+
				insert(k, "new", string(OpCreate), "NULL", "NULL", strconv.Itoa(formCreate))+` END`,
			`CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_delete AFTER DELETE ON main.`+k.Table+` BEGIN `+
				insert(k, "old", string(OpDelete), k.recordedJSON("old"), "NULL", "NULL")+` END`)
		var changed, same []string
		for _, c := range k.recorded() {
			if c != "updated_at" {
				changed = append(changed, "old."+c+" IS NOT new."+c)
			}
			same = append(same, "CASE WHEN old."+c+" IS new."+c+" THEN '$."+c+"' ELSE '$."+noField+"' END")
		}
		// An update keeps the old values of the fields it changed.
		stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_update AFTER UPDATE OF `+strings.Join(k.WrittenCols(k.recorded()), ", ")+
			` ON main.`+k.Table+` WHEN `+strings.Join(changed, " OR ")+` BEGIN `+
			insert(k, "new", string(OpUpdate), "json_remove("+k.recordedJSON("old")+", "+strings.Join(same, ", ")+")", "NULL", strconv.Itoa(formUpdate))+` END`)
		if slices.Contains(k.recorded(), "updated_at") {
			// A write that moves updated_at alone is no change (nothing
			// is recorded of it), but the row no longer holds the fields
			// the memory's last entry that knows them (not a decay's)
			// left: that entry keeps them.
			stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_touch AFTER UPDATE OF updated_at ON main.`+k.Table+
				` WHEN old.updated_at IS NOT new.updated_at AND NOT (`+strings.Join(changed, " OR ")+`) BEGIN
				UPDATE main.history SET after = `+k.recordedJSON("old")+` WHERE pk = (SELECT max(pk) FROM main.history
					WHERE agent_id = old.agent_id AND id = old.id AND memory_type = '`+string(k.typ)+`'
						AND (form IS NOT NULL OR json_type(before, '$.id') IS NOT NULL)) AND form IS NOT NULL AND after IS NULL; END`)
		}
		if k.Decay != nil {
			stmts = append(stmts, `CREATE TEMP TRIGGER IF NOT EXISTS `+name+`_decay AFTER UPDATE OF resonance ON main.`+k.Table+
				` WHEN CAST(old.resonance * 10 AS INTEGER) > CAST(new.resonance * 10 AS INTEGER) BEGIN `+
				insert(k, "new", string(OpDecay), "json_object('resonance', old.resonance)", "json_object('resonance', new.resonance)", "NULL")+` END`)
		}
	}
	return stmts
}

// startHistory makes the history's context table and triggers on the
// writer connection, when the Memory records history. It is called once,
// when the Memory opens.
func (s *database) startHistory(ctx context.Context) error {
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if s.history {
		return nil // another agent's Memory on the database started it
	}
	if err := s.installHistory(ctx); err != nil {
		return &DatabaseError{Op: "open", Err: err}
	}
	s.history = true
	return nil
}

// installHistory makes the history's table and triggers on the writer
// connection. The writer lock is held.
func (s *database) installHistory(ctx context.Context) error {
	for _, stmt := range historyStatements() {
		if _, err := s.wconn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// beginChanges fills the history's context for a write transaction: who
// makes its changes, why and when.
func (q *dbtx) beginChanges(actor, reason string, at time.Time) error {
	_, err := q.exec(`UPDATE temp.history_ctx SET op = NULL, actor = ?, reason = ?, at = ?`, actor, reason, ms(at))
	return err
}

// recordAs runs fn with the changes it makes recorded in history as op
// (when op is "", as they are: a creation as create, a change as update),
// with reason when it is not "" (else the call's reason), and puts the
// context back as it was after: a step of a larger operation (an archive
// inside compaction, a supersede inside an assertion, an edit read back
// from memory.md) names itself.
func (q *dbtx) recordAs(op HistoryOp, reason string, fn func() error) error {
	if !q.tx.s.history {
		return fn()
	}
	var prevOp *string
	var prevReason string
	if err := q.queryRow(`SELECT op, reason FROM temp.history_ctx`, nil, &prevOp, &prevReason); err != nil {
		return err
	}
	if reason == "" {
		reason = prevReason
	}
	newOp := any(string(op))
	if op == "" {
		newOp = prevOp // the reason alone: creations and changes stay what they are
	}
	if _, err := q.exec(`UPDATE temp.history_ctx SET op = ?, reason = ?`, newOp, reason); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	_, err := q.exec(`UPDATE temp.history_ctx SET op = ?, reason = ?`, prevOp, prevReason)
	return err
}

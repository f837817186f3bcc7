package engram

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/store"
)

// History is every change to a memory or a fact, kept in the database
// (table history) in the transaction that made it. Nothing that writes a
// row has to remember it: triggers on the writer connection of a Memory
// that records history, made from the registry of kinds (see kind.cols),
// append an entry for every insert, every change of a recorded field and
// every delete of a memory row, whatever statement made it. (A Memory
// with history off, or a program writing the file without engram,
// records nothing.) What the trigger cannot know (the operation, when it
// is more than create, update or delete; the actor; the reason) it reads
// from temp.history_ctx, a one-row table on the writer connection that
// Memory.write fills at the start of each transaction and steps of larger
// operations relabel (see recordAs).
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
	err := m.read(ctx, "history", func(q store.Tx) error {
		rows, err := store.History(q, m.agent, id)
		if err != nil {
			return err
		}
		out, err = historyEntries(q, m.agent, rows)
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
	var out []HistoryEntry
	err := m.read(ctx, "history.changes", func(q store.Tx) error {
		rows, err := store.Changes(q, m.agent, store.ChangeSelect{
			Since: cq.Since, Until: cq.Until, AfterSeq: cq.AfterSeq, BeforeSeq: cq.BeforeSeq,
			Limit: cmp.Or(cq.Limit, 100), Newest: cq.Newest, Actor: cq.Actor,
		})
		if err != nil {
			return err
		}
		out, err = historyEntries(q, m.agent, rows)
		return err
	})
	return out, err
}

// pruneHistory deletes the agent's entries older than the retention.
func (m *Memory) pruneHistory(q store.Tx, now time.Time) (int, error) {
	n, err := store.PruneHistory(q, m.agent, now.Add(-m.cfg.History.Retention))
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

// historyKind is what the store needs of k to record its history.
func (k *kind) historyKind() store.HistoryKind {
	rec := k.recorded()
	hk := store.HistoryKind{Type: string(k.typ), Table: k.Table, Written: k.WrittenCols(rec), Decay: k.Decay != nil}
	for _, c := range rec {
		hk.Recorded = append(hk.Recorded, store.HistoryColumn{Name: c, JSON: jsonColumns[c]})
	}
	return hk
}

// historyKinds are the kinds' historyKind, by type.
var historyKinds = sync.OnceValue(func() map[MemoryType]store.HistoryKind {
	out := make(map[MemoryType]store.HistoryKind, len(kinds))
	for _, k := range kinds {
		out[k.typ] = k.historyKind()
	}
	return out
})

// historySpec returns what the engine's StartHistory needs to record
// the history of every kind.
func historySpec() store.HistorySpec {
	hks := make([]store.HistoryKind, len(kinds))
	for i, k := range kinds {
		hks[i] = historyKinds()[k.typ]
	}
	return store.HistorySpec{Kinds: hks, CreateOp: string(OpCreate), UpdateOp: string(OpUpdate), DeleteOp: string(OpDelete), DecayOp: string(OpDecay)}
}

// beginChanges fills the history's context for a write transaction: who
// makes its changes, why and when.
func beginChanges(q store.Tx, actor, reason string, at time.Time) error {
	return store.BeginChanges(q, actor, reason, at)
}

// recordAs runs fn with the changes it makes recorded in history as op
// (when op is "", as they are: a creation as create, a change as update),
// with reason when it is not "" (else the call's reason), and puts the
// context back as it was after: a step of a larger operation (an archive
// inside compaction, a supersede inside an assertion, an edit read back
// from memory.md) names itself.
func recordAs(q store.Tx, op HistoryOp, reason string, fn func() error) error {
	if !q.History() {
		return fn()
	}
	prevOp, prevReason, err := store.HistoryContext(q)
	if err != nil {
		return err
	}
	if reason == "" {
		reason = prevReason
	}
	newOp := prevOp // the reason alone: creations and changes stay what they are
	if op != "" {
		o := string(op)
		newOp = &o
	}
	if err := store.SetHistoryContext(q, newOp, reason); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	return store.SetHistoryContext(q, prevOp, prevReason)
}

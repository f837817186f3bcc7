package store

import "context"

// Tx is one transaction of an engine, as the root package sees it: a
// write transaction on the writer, or a read transaction on a reader. It
// runs the statements of this package (it is a [Querier]) in the context
// of the operation, and, in a write, keeps what runs when the transaction
// ends and hands the transaction's changes to the in-memory state that
// follows the rows (see [Follower]). An engine (internal/store/sqlite)
// implements it; the root package speaks to nothing else of it inside a
// transaction. What is the same on every engine, an engine reuses: the
// callbacks and savepoints of a write are a [WriteState]'s, and its
// change log is a [ChangeLog].
//
// The methods that register callbacks, open savepoints or hand out
// changes are for write transactions only: in a read they panic, as a
// write's callbacks would never run.
type Tx interface {
	Querier
	// Context returns the context of the operation the transaction runs.
	Context() context.Context
	// Background returns the transaction running its statements without
	// its context, for what must run whatever the context says (the end
	// of a savepoint, a setting put back).
	Background() Tx
	// Write identifies the write transaction: the same comparable value
	// for every Tx of one write transaction (Background's too), another
	// for each write transaction, nil in a read. In-memory state records
	// it to know the transaction it was last brought in step in.
	Write() any
	// BeforeCommit runs f just before the transaction commits, after the
	// followers have the transaction's last changes; an error rolls the
	// transaction back. Unlike the other callbacks, a savepoint that
	// rolls back keeps it: it must check what is left to do.
	BeforeCommit(f func(q Tx) error)
	// OnCommit runs f after the transaction commits (with the writer lock
	// still held). A savepoint that rolls back drops the callbacks
	// registered in it.
	OnCommit(f func())
	// OnRollback runs f if the transaction, or the savepoint open when f
	// was registered, rolls back: in-memory state that followed the
	// transaction's writes is dropped with them. Callbacks run last
	// registered first, with the writer lock held.
	OnRollback(f func())
	// OnRollbackIn registers the callback undo makes, as OnRollback does,
	// unless s says one is registered already in the innermost savepoint
	// open (in the transaction, outside any savepoint), and records in s
	// where it is. In-memory state that follows the transaction's writes
	// calls it before each change it makes, so that the rollback of the
	// transaction, or of any savepoint, undoes what was done in it: one
	// callback per transaction and savepoint it changed in. undo is
	// called only when a callback is registered, so it may capture the
	// state to restore.
	OnRollbackIn(s *RollbackScope, undo func() func())
	// Savepoint runs fn inside a savepoint of the write transaction, so
	// that one operation can run another inside its transaction and
	// recover from its failure: when fn returns an error (or panics),
	// what fn wrote is rolled back, the OnRollback callbacks registered
	// in it run (the followers forget what they applied in it, and the
	// change log hands out again what it handed out in it of the changes
	// made before) and its OnCommit callbacks are dropped, while the
	// enclosing transaction goes on. It returns fn's error, joined with
	// the engine's when the rollback fails.
	Savepoint(fn func(q Tx) error) error
	// Changes hands the changes made so far in the write transaction to
	// every follower of the agents they change (see [Follower]). A
	// follower that must be current in the middle of a transaction calls
	// it before it looks. It returns the first follower's error, or the
	// engine's.
	Changes() error
	// KnowTerms tells the change log the term vector of text, which the
	// write made already, so that an insert of text handed out in the
	// transaction carries it (see [Change] Terms) instead of having it
	// made again.
	KnowTerms(text string, terms map[string]uint32)
	// History reports whether the transaction's changes are recorded in
	// history (the database's history was started: see
	// internal/store/sqlite's DB.StartHistory).
	History() bool
	// LockAgent serialises the write transaction with every other that
	// locks agent, in this process and in others, until it ends: a write
	// that changes an agent's rows locks the agent before its first
	// statement. It returns ctx's error when ctx ends while it waits, and
	// the engine's error.
	LockAgent(agent string) error
	// ExecScript runs script, which may hold several statements (a step
	// of a migration), in the write transaction. It returns the engine's
	// error.
	ExecScript(script string) error
}

// RollbackScope records where in a write transaction the rollback
// callback of some in-memory state is registered (see
// [Tx.OnRollbackIn]). Its zero value is no callback; its fields are the
// engine's.
type RollbackScope struct {
	Tx any // the write transaction (see Tx.Write)
	At int // the callback's place among the transaction's
}

// Change is one change to a memory row: the statement of this package
// that made it reports it to its transaction (see [Querier]'s Changed),
// and the engine's change log hands it to the followers that watch it.
type Change struct {
	Kind  string // the kind's Name
	PK    int64
	Agent string
	ID    string
	Op    byte // ChangeInsert, ChangeText or ChangeDelete
	// Text is an insert's text (the kind's), for watches that ask for
	// it. A change of text carries none: the table holds the new one.
	Text string
	// Terms is Text's term vector, when the write that inserted it made
	// it (see Tx.KnowTerms) or a follower did; nil until then.
	Terms map[string]uint32
}

// Change log operations.
const (
	ChangeInsert = 'i'
	ChangeText   = 'u' // the kind's text (see Kind.Text) changed
	ChangeDelete = 'd'
)

// Follower is in-memory state kept in step with the rows of one agent by
// the change log of an engine.
type Follower interface {
	// Watches says which changes the follower needs now, or, when all is
	// set, every change it may ever need (the log prepares for those when
	// the Memory opens). A follower whose needs change (an index built,
	// or thrown away) asks the engine to refresh the log.
	Watches(all bool) []Watch
	// Follow applies a batch of the changes of q's write transaction, or
	// forgets what it holds when it cannot. Inserts and deletes come in
	// the order they happened; a change of text is better read from the
	// table, which holds the row's latest text. Before it changes
	// anything, it registers with q.OnRollbackIn what undoes it, so that
	// the rollback of the transaction or of the savepoint it is in takes
	// it back. Every follower sees every batch that changes a row of its
	// agent, once, whatever it watches, except that a savepoint that
	// rolls back hands out again the changes from before it that it
	// handed out.
	Follow(q Tx, cs []Change) error
}

// Watch asks the change log for the operations Ops (of "iud") on rows of
// one kind (its Name), inserts with their text when Text is set.
type Watch struct {
	Kind string
	Ops  string
	Text bool
}

// OwnChanges counts the changes of cs to agent's rows of the kind named
// kind.
func OwnChanges(cs []Change, agent, kind string) int {
	n := 0
	for _, c := range cs {
		if c.Agent == agent && c.Kind == kind {
			n++
		}
	}
	return n
}

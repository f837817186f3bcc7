package engram

import (
	"context"

	"github.com/engram-go/engram/internal/store"
)

// ForgetUser erases every memory of one user of the agent (see
// [Filter].User), as [Memory.Forget] erases one memory: the user's
// semantic entries, episodes and procedures, current or archived, with
// everything derived from them (full-text entries, vectors and cached
// embeddings, links, memory.md's lines, the copies Recall put in the
// working set) and their history, in one transaction, with secure delete
// and a checkpoint that truncates the write-ahead log (see the comment at
// the top of forget.go). The history keeps, for each memory erased, one
// entry of operation [OpForget] without content. Memories of no user, and
// the agent's facts, snapshots and documents, which have no user, stay:
// so do the facts asserted from the user's memories (their MemoryID; only
// the link goes), which are the agent's; erase those with [Memory.Forget]
// by ID.
// It returns how many memories it erased (0 when the user had none).
//
// It returns an error matching [ErrInvalid] for an invalid user ID or an
// invalid actor or reason in ctx, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails; on these errors nothing was erased.
// Once the memories are erased, a failure to write memory.md again or to
// checkpoint is returned as a [*DatabaseError] about what was left to do,
// with the count.
func (m *Memory) ForgetUser(ctx context.Context, user string) (int, error) {
	if err := validateUser("user", user); err != nil {
		return 0, err
	}
	scoped := kindsWith(func(k *kind) bool { return k.UserCol != "" })
	var forgotten []typedID
	err := m.write(ctx, "forget.user", func(q store.Tx) error {
		var err error
		forgotten, err = m.eraseUser(q, user, scoped)
		return err
	})
	if err != nil {
		return 0, err
	}
	return m.finishForget(ctx, forgotten)
}

// finishForget finishes erasing the memories of forgotten, which a
// transaction deleted: the copies Recall put in the working set go, then
// memory.md and the log (see afterForget). It returns how many there
// were, with afterForget's error.
func (m *Memory) finishForget(ctx context.Context, forgotten []typedID) (int, error) {
	for _, f := range forgotten {
		_ = m.working.Remove(RecalledID(f.Type, f.ID)) // ErrNotFound: none
	}
	if len(forgotten) == 0 {
		return 0, nil
	}
	return len(forgotten), m.afterForget(ctx)
}

// typedID names a memory: its kind and ID.
type typedID struct {
	Type MemoryType
	ID   string
}

// eraseUser deletes, in q's transaction, the user's memories of the kinds
// scoped (those with a user) and everything derived from them, and
// returns them, once each.
func (m *Memory) eraseUser(q store.Tx, user string, scoped []*kind) ([]typedID, error) {
	types := make([]string, len(scoped))
	for i, k := range scoped {
		types[i] = string(k.typ)
	}
	seen := map[typedID]bool{}
	var out []typedID
	add := func(rows []store.TypedID) {
		for _, r := range rows {
			t := typedID{MemoryType(r.Type), r.ID}
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	// The archive first (see Forget), then the rows: their triggers take
	// their full-text entries, vectors and links.
	got, err := store.ArchivedOfUser(q, m.agent, types, user)
	if err != nil {
		return nil, err
	}
	add(got)
	if _, err := m.forgetArchived(q, store.ArchiveSelect{Types: types, User: user}); err != nil {
		return nil, err
	}
	for _, k := range scoped {
		got, err := store.DeleteUserRows(q, k.Kind, string(k.typ), m.agent, user)
		if err != nil {
			return nil, err
		}
		if len(got) > 0 {
			if err := purgeTombstones(q, k); err != nil {
				return nil, err
			}
		}
		add(got)
	}
	// Memories of the user deleted before, whose history still holds
	// their content.
	got, err = store.HistoryOfUser(q, m.agent, types, user)
	if err != nil {
		return nil, err
	}
	add(got)
	if len(out) == 0 {
		return nil, nil
	}
	refs := refsOf(out)
	if err := store.DeleteRefsTraces(q, m.agent, refs); err != nil {
		return nil, err
	}
	if q.History() {
		if err := store.RecordForgotten(q, m.agent, string(OpForget), refs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refsOf returns the store's names of the memories ids.
func refsOf(ids []typedID) []store.TypedID {
	out := make([]store.TypedID, len(ids))
	for i, t := range ids {
		out[i] = store.TypedID{Type: string(t.Type), ID: t.ID}
	}
	return out
}

// ForgetMatching erases every memory the filter matches, as
// [Memory.Forget] erases one (current ones, each with its archive entry,
// links, memory.md's line, history and the copy Recall put in the working
// set), in one transaction, and returns how many. It matches what
// [Memory.List] with the same filter lists: semantic entries, episodes,
// procedures, facts, snapshots and document chunks, current; to erase a
// user's archived memories and the history of those deleted before too,
// use [Memory.ForgetUser]. An empty filter, which would match every
// memory, is refused: [Memory.ForgetAgent] erases an agent.
//
// It returns an error matching [ErrInvalid] for an invalid or empty
// filter or an invalid actor or reason in ctx, [ErrClosed] after Close
// and a [*DatabaseError] when SQLite fails; on these errors nothing was
// erased. Once the memories are erased, a failure to write memory.md
// again or to checkpoint is returned as a [*DatabaseError] about what was
// left to do, with the count.
func (m *Memory) ForgetMatching(ctx context.Context, f Filter) (int, error) {
	if f.IsZero() {
		return 0, invalid("Filter", "is empty: it matches every memory (ForgetAgent erases an agent)")
	}
	sc, err := m.listScope(&f)
	if err != nil {
		return 0, err
	}
	var forgotten []typedID
	err = m.write(ctx, "forget.matching", func(q store.Tx) error {
		var ids []typedID
		for _, k := range listed {
			typ := k.typ
			if !sc.admitsKind(k) {
				continue
			}
			// Every row of the kind in the scope.
			got, err := store.IDsSelected(q, k.Kind, m.agent, store.AllRows.Select(k.Kind, sc.storedOrNil()))
			if err != nil {
				return err
			}
			for _, id := range got {
				ids = append(ids, typedID{typ, id})
			}
		}
		// Each of its own kind alone: another kind's memory of the same
		// ID, which the filter may not match, stays.
		purge := map[*kind]bool{}
		for _, t := range ids {
			types, ks, err := m.eraseID(q, t.ID, t.Type)
			if err != nil {
				return err
			}
			if len(types) > 0 {
				forgotten = append(forgotten, t)
			}
			for _, k := range ks {
				purge[k] = true
			}
		}
		// Once a kind, not once a memory: a purge rewrites the index.
		for _, k := range kinds {
			if purge[k] {
				if err := purgeTombstones(q, k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return m.finishForget(ctx, forgotten)
}

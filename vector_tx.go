package engram

import (
	"maps"

	"github.com/engram-go/engram/internal/store"
)

// How the vectors a write transaction writes and drops reach the
// in-memory index: noted as they happen (put, follow), applied just
// before COMMIT (finish), taken back with a rollback (undoer).

// put writes the vector of a row in q's transaction (replacing any it
// had), clears its pending mark, and names the row in the embedding cache
// as holding the embedding of its text, unless the cache names another
// already: an entry that held the vector itself (its memory archived)
// gives it up. The agent's vector counter moves on, and the index
// follows, when the transaction commits (see finish).
func (v *vectors) put(q store.Tx, typ MemoryType, pk int64, e embedded, replace bool) error {
	if err := store.PutVector(q, kindOf(typ).Vec, string(typ), v.m.agent, pk, e.vec, replace); err != nil {
		return err
	}
	if e.hash != nil && !e.named {
		if err := store.NameCachedRow(q, v.model, e.hash, v.m.now(), string(typ), pk); err != nil {
			return err
		}
	}
	v.begin(q)
	v.puts[vectorKey{typ, pk}] = e.vec
	v.written++
	if x := v.putIdx[typ]; x != nil {
		x.Put(pk, e.vec)
	}
	v.own++
	return nil
}

// begin is called before v's transaction state changes: it makes that
// state q's, registering finish, the first time q's transaction touches
// the agent's vectors, and the rollback of what is about to change in
// the transaction, or in the savepoint open in it, the first time either
// does. The writer lock is held.
func (v *vectors) begin(q store.Tx) {
	if v.tx != q.Write() {
		v.tx = q.Write()
		clear(v.puts)
		clear(v.drops)
		v.own, v.written, v.touched, v.putIdx = 0, 0, false, nil
		q.BeforeCommit(v.finish)
	}
	if v.undoerFn == nil {
		// Made once: a method value handed to an interface's method
		// escapes, and one made per call would cost an allocation.
		v.undoerFn = v.undoer
	}
	q.OnRollbackIn(&v.undo, v.undoerFn)
}

// undoer returns the rollback callback of a transaction or savepoint
// about to change v's transaction state: it puts that state back as it is
// now, and drops the index if the transaction loaded or changed it (the
// savepoint may have: the index would hold what the rollback took back).
// It is loaded again on its next use. (Most rollbacks are of bad input,
// found before anything reached the index.)
func (v *vectors) undoer() func() {
	// Copies sized to what they hold: maps.Clone would copy the room of
	// maps once large (a Reindex) at every transaction.
	tx, puts, drops, own, written := v.tx, maps.Collect(maps.All(v.puts)), maps.Collect(maps.All(v.drops)), v.own, v.written
	return func() {
		v.tx, v.puts, v.drops, v.own, v.written, v.putIdx = tx, puts, drops, own, written, nil
		if v.touched {
			v.mu.Lock()
			v.built = false
			v.mu.Unlock()
			v.touched = false
		}
	}
}

// Watches asks the change log for the rows whose vector a trigger drops:
// a delete, a change of the embedded text. (The triggers themselves keep
// the embedding cache in step.)
func (v *vectors) Watches(bool) []store.Watch {
	var ws []store.Watch
	for _, vk := range vectorKinds {
		ws = append(ws, store.Watch{Kind: string(vk.typ), Ops: "ud"})
	}
	return ws
}

// Follow notes the agent's vectors dropped by the changes cs.
func (v *vectors) Follow(q store.Tx, cs []store.Change) error {
	for _, c := range cs {
		typ := MemoryType(c.Kind)
		if c.Op == store.ChangeInsert || kindOf(typ).Vec == "" || c.Agent != v.m.agent {
			continue
		}
		v.begin(q)
		v.drops[vectorKey{typ, c.PK}] = true
		v.own++
	}
	return nil
}

// finish applies what the transaction did to the agent's vectors (puts
// and drops) to the index, just before COMMIT, if the index is built and
// the agent's counter moved on by exactly as much; otherwise the index is
// loaded again on its next use. The writer lock is held.
func (v *vectors) finish(q store.Tx) error {
	if v.written > 0 {
		if err := store.BumpCounter(q, metaVectorVersion+v.m.agent, v.written); err != nil {
			return err
		}
		v.written = 0
	}
	// A row both written and dropped (stored then deleted, or written
	// again after its text changed): the table knows which came last.
	for key := range v.puts {
		if !v.drops[key] {
			continue
		}
		has, err := store.HasVector(q, kindOf(key.typ).Vec, v.m.agent, key.pk)
		if err != nil {
			return err
		}
		if !has {
			delete(v.puts, key)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.built {
		return nil
	}
	v.touched = true
	ver, err := store.Counter(q, metaVectorVersion+v.m.agent)
	if err != nil {
		return err
	}
	if ver != v.version+int64(v.own) {
		v.built = false // another connection changed them too: load again
		return nil
	}
	for key := range v.drops {
		v.idx[key.typ].Remove(key.pk)
	}
	for key, vec := range v.puts {
		v.idx[key.typ].Put(key.pk, vec)
	}
	v.version = ver
	return nil
}

package engram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// Forgetting erases, where archiving keeps. Forget erases one memory and
// ForgetAgent all of an agent's, from every table that holds them or
// anything made of them: the rows, their full-text entries, vectors and
// cached embeddings, links, archive entries and history, then memory.md.
// The writer connection runs with secure_delete, which overwrites what a
// delete frees with zeros, and the full-text indexes with FTS5's
// secure-delete, which takes a deleted row's terms out of the index
// instead of marking them (the snapshots' index, which keeps no texts and
// cannot, is merged instead: see kind.tombstones); both then checkpoint
// the write-ahead log into the database and truncate it, so that once
// they return the forgotten text is in neither file. Other connections,
// of this process or another, can hold the truncation up for a while;
// Forget and ForgetAgent wait for it (see the engine's DB.Checkpoint) and return
// an error matching [ErrBusy] if it could not be done. They also remove
// the temporary copies that a Backup killed half-way left (see
// backup_temp.go): each a full copy of the file, forgotten text included.

// Forget erases the memory or fact with the given ID, current or archived,
// with everything derived from it (see above), the copy Recall put in the
// working set, and a memory.md.kept that an import of memory.md left. Its
// history keeps one entry of operation [OpForget] without content, which
// says that it was forgotten and when.
//
// It returns [ErrNotFound] if the agent has no memory, archived memory or
// history with that ID (a memory forgotten already has none), an error
// matching [ErrInvalid] for a malformed ID or an invalid actor or reason
// in ctx, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails; on these errors nothing was erased.
// Once the memory is erased, a failure to write memory.md again or to
// checkpoint is returned as a [*DatabaseError] about what was left to do.
func (m *Memory) Forget(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	err := m.write(ctx, "forget", func(q store.Tx) error {
		types, purge, err := m.eraseID(q, id, "")
		if err != nil {
			return err
		}
		if len(types) == 0 {
			return notFound("memory", id)
		}
		for _, k := range purge {
			if err := purgeTombstones(q, k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The working set's copy of it, if Recall put one there.
	for _, k := range kinds {
		_ = m.working.Remove(RecalledID(k.typ, id)) // ErrNotFound: none
	}
	return m.afterForget(ctx)
}

// eraseID deletes, in q's transaction, the memory or fact id (of the kind
// only, or of any kind when only is ""), current or archived, with its
// links, memory.md's line and history, and writes the history entry that
// says it was forgotten; it returns the kinds it was found as (none: not
// found, and nothing written) and the kinds whose full-text index keeps
// tombstones of what it deleted, for the caller to purge (see
// purgeTombstones).
func (m *Memory) eraseID(q store.Tx, id string, only MemoryType) (types []MemoryType, purge []*kind, err error) {
	// The archive first: a row deleted while its archive entry exists
	// leaves its cached embedding behind for Restore.
	types, err = m.forgetArchived(q, store.ArchiveSelect{ID: id, Type: string(only)})
	if err != nil {
		return nil, nil, err
	}
	for _, k := range kinds {
		if only != "" && k.typ != only {
			continue
		}
		found, err := store.DeleteMemoryRow(q, k.Table, m.agent, id)
		if err != nil {
			return nil, nil, err
		}
		if found {
			if k.Tombstones {
				purge = append(purge, k)
			}
			types = append(types, k.typ)
		}
	}
	if err := store.DeleteLinksOf(q, m.agent, id, string(only)); err != nil {
		return nil, nil, err
	}
	// The line memory.md last showed of it (see markdown_import.go).
	if err := store.DeleteMarkdownLine(q, m.agent, id); err != nil {
		return nil, nil, err
	}
	// Its history, but for the entries of an earlier Forget: a memory
	// forgotten already is not found again, and its entry stays.
	got, err := store.DeleteHistoryOf(q, m.agent, id, string(only), string(OpForget))
	if err != nil {
		return nil, nil, err
	}
	types = appendTypes(types, got)
	if len(types) == 0 || !q.History() {
		return types, purge, nil
	}
	err = store.RecordForgotten(q, m.agent, string(OpForget), []store.TypedID{{Type: string(types[0]), ID: id}})
	return types, purge, err
}

// appendTypes appends the kinds named by names to types.
func appendTypes(types []MemoryType, names []string) []MemoryType {
	for _, n := range names {
		types = append(types, MemoryType(n))
	}
	return types
}

// purgeTombstones merges the full-text index of a kind whose deletes
// leave the terms in it (see kind.tombstones), so that they leave for
// good. It rewrites the whole index: snapshots, the one such kind, are few.
func purgeTombstones(q store.Tx, k *kind) error {
	if !k.Tombstones || store.Postgres(q) { // PostgreSQL has no full-text index to merge
		return nil
	}
	return store.PurgeTombstones(q, k.FTS)
}

func scanMemoryType(r store.Scanner) (MemoryType, error) {
	var t MemoryType
	err := r.Scan(&t)
	return t, err
}

// forgetArchived deletes the agent's archive entries that sel selects, and
// the copies of their embeddings the embedding cache keeps for Restore,
// whatever the model; it returns the entries' types. Forget, ForgetAgent
// and PurgeArchive delete from the archive through it. The cache is shared
// by the file's agents and keyed by text: another agent's archived memory
// of the same text loses its copy too, and is embedded again if it is
// restored.
func (m *Memory) forgetArchived(q store.Tx, sel store.ArchiveSelect) ([]MemoryType, error) {
	var hashes [][]byte
	for _, k := range kinds {
		if k.Vec == "" {
			continue
		}
		texts, err := store.ArchivedTexts(q, m.agent, string(k.typ), store.OverJSON(k.Text, "row"), sel)
		if err != nil {
			return nil, err
		}
		for _, t := range texts {
			hashes = append(hashes, textHash(t))
		}
	}
	if len(hashes) > 0 {
		if err := store.DeleteCachedTexts(q, hashes); err != nil {
			return nil, err
		}
	}
	got, err := store.DeleteArchived(q, m.agent, sel)
	if err != nil {
		return nil, err
	}
	return appendTypes(nil, got), nil
}

// afterForget writes memory.md again without what was forgotten (and
// removes the copy of it an import kept, memory.md.kept, which may show
// it) and the stale temporary copies of backups, then checkpoints the
// write-ahead log into the database and truncates it.
func (m *Memory) afterForget(ctx context.Context) error {
	var errs []error
	if m.mdPath != "" {
		_, err := m.writeMarkdown(ctx)
		errs = append(errs, err, removeIfExists(m.mdPath+keptSuffix))
	}
	errs = append(errs, sweepRecordedBackups(ctx, m.db), m.db.Scrub(ctx))
	return dbErr("forget", errors.Join(errs...))
}

// ForgetAgent erases every memory of m's agent and everything engram keeps
// about it, then closes m: every row of the agent in every table of the
// file (memories of every kind, archive, links, facts and aliases,
// extraction rules, pending embeddings, statistics, history, memory.md's
// record, its meta entries) and the embeddings cached for its archived
// texts, all in one transaction, then its memory.md (and memory.md.kept).
// In the directory layout (a base directory, see [WithDir]) the agent's
// database files go too, unless another agent has rows in them, and its
// directory when that leaves it empty; a file given by [WithPath] stays,
// without a trace of the agent (see the comment at the top of forget.go),
// since other agents may use it.
//
// Close every other Memory of the agent first, in this process and in
// others: one left open would keep what it holds in memory, and write it
// back. One still open in this process is refused with an error matching
// [ErrInvalid]; don't use m while ForgetAgent runs.
//
// It returns [ErrClosed] after Close, an error matching [ErrInvalid] for
// an invalid actor or reason in ctx or another open Memory of the agent, a
// [*DatabaseError] when SQLite fails; on these errors nothing was erased
// and m stays open. Once the rows are erased m is closed, and an error
// after that (a checkpoint, a file that cannot be removed) is a
// [*DatabaseError] about what was left to do.
func (m *Memory) ForgetAgent(ctx context.Context) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if n := openAgents.get(m); n > 1 {
		return invalid("ForgetAgent", "%d other Memories of agent %q are open on %s in this process: close them first", n-1, m.agent, m.dbPath)
	}
	var others bool
	err := m.write(ctx, "forget.agent", func(q store.Tx) (err error) {
		others, err = m.eraseAgent(q)
		return err
	})
	if err != nil {
		return err
	}
	// The notes of accesses not written are of rows that are gone:
	// writing them would bring the agent's access counter back.
	errs := []error{sweepRecordedBackups(ctx, m.db), m.db.Scrub(ctx), m.close(true)}
	if m.mdPath != "" {
		errs = append(errs, removeIfExists(m.mdPath), removeIfExists(m.mdPath+keptSuffix))
	}
	if m.agentDir != "" && !others {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			errs = append(errs, removeIfExists(m.dbPath+suffix))
		}
		// Only when empty: a directory holding anything else stays.
		if left, err := os.ReadDir(m.agentDir); err == nil && len(left) == 0 {
			errs = append(errs, removeIfExists(m.agentDir))
		}
	}
	return dbErr("forget.agent", errors.Join(errs...))
}

// eraseAgent deletes every row of m's agent (see ForgetAgent), checks
// that none is left in any table, and reports whether other agents have
// rows in the file.
func (m *Memory) eraseAgent(q store.Tx) (others bool, err error) {
	if _, err := m.forgetArchived(q, store.ArchiveSelect{Every: true}); err != nil {
		return false, err
	}
	// The embeddings that name the agent's rows go with them, by the Tier
	// 2 triggers (the archive is empty now).
	for _, k := range kinds {
		if n, err := store.DeleteAgentRows(q, k.Table, m.agent); err != nil {
			return false, err
		} else if n > 0 {
			if err := purgeTombstones(q, k); err != nil {
				return false, err
			}
		}
	}
	tables, err := agentTables(q)
	if err != nil {
		return false, err
	}
	// The kinds' triggers wrote history, statistics and meta counters of
	// those deletes: everything else goes after them.
	for _, t := range tables {
		if _, err := store.DeleteAgentRows(q, t, m.agent); err != nil {
			return false, err
		}
	}
	if err := store.DeleteAgentMeta(q, m.agent); err != nil {
		return false, err
	}
	left, err := agentRows(q, tables, m.agent)
	if err != nil {
		return false, err
	}
	if len(left) > 0 {
		return false, fmt.Errorf("engram: forget agent %q: rows remain in %s", m.agent, strings.Join(left, ", "))
	}
	agents, err := agentsOf(q, tables)
	return len(agents) > 0, err
}

// removeIfExists removes the file at path, if there is one.
func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

package engram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// Backup writes a consistent copy of the database file to dst, a new
// file, while the Memory (and any other process) goes on reading and
// writing: every write acknowledged before Backup was called is in the
// copy. Copying memory.db with cp is not a backup: the writes of the last
// moments live in memory.db-wal until a checkpoint moves them into
// memory.db, and a copy without them, or with a -wal of another moment,
// loses them or is damaged.
//
// The copy is the whole file: in a file shared by several agents (see
// [WithPath]) it holds every agent's memory, not only the Memory's own
// (an agent's memory alone is what an export is for). It is made by
// SQLite's VACUUM INTO in one read transaction, which no writer waits
// for, so it is also compacted: it holds no free pages. It is written to a
// temporary file beside dst (mode 0600, like every file engram makes),
// synced, opened read-only and checked as [Memory.CheckIntegrity] checks
// a database (SQLite's integrity check, which covers the full-text
// indexes, and the data derived from the rows), and only then renamed to
// dst and its directory synced; on any failure the temporary file is
// removed and dst is not made. The copy is a plain SQLite file (not in
// WAL mode until opened by engram): [New] with [WithPath] opens it. An
// in-memory database is backed up the same way, to a file.
//
// Backup returns an error matching [ErrUnsupported], making nothing, on
// PostgreSQL ([WithPostgres]), whose database is copied by its own tools
// (pg_dump, point-in-time recovery; [Memory.BackupAgent] copies one
// agent); an error matching [ErrInvalid] when dst is empty, is the
// database's own file (or one of SQLite's files beside it), or its
// directory does not exist; [ErrExists] when dst exists already;
// [ErrClosed] after Close; a [*DatabaseError] when SQLite fails, one
// matching [ErrCorrupt] when the copy fails the check, and an
// [*fs.PathError] when the file system does. A cancelled ctx interrupts
// the copy and returns its error.
func (m *Memory) Backup(ctx context.Context, dst string) error {
	return m.backup(ctx, dst, false)
}

// BackupAgent writes a copy of the agent's own memory to dst, a new
// engram database file that holds no row of any other agent: what a
// service may hand to a client allowed this agent only, where Backup of a
// shared file would hand it every agent's memory (httpapi's POST
// /v1/backup calls it). Where the database is the agent's alone (its
// file under a base directory, see [WithDir], or a database in memory
// from [New]), the copy is the whole database, as Backup makes it. Where
// other agents may share it (a file given by [WithPath], or the file or
// memory of a [Store]), the copy is built from the agent's rows alone:
// its export (see [Memory.Export]), with its history and, in Tier 2, its
// vectors, is imported into a new database, in which no other agent's
// text is ever written. That copy holds what an export holds and what
// engram derives from it; what an export leaves out (statistics, caches
// of embeddings, memory.md's record) engram makes again when it needs
// it, and memories that wait to be embedded wait in the copy too (no
// model is called). Either way the copy is written to a temporary file
// beside dst, synced, checked as Backup checks its copy and checked to
// hold no other agent's rows, and only then moved to dst; on any failure
// the temporary file is removed and dst is not made. [New] with
// [WithPath] and [WithAgent] opens the copy (in Tier 2 with an embedder of
// the same model and dimension).
//
// BackupAgent returns the errors Backup returns, and an error matching
// [ErrInvalid] for a dst holding '?' (see [WithPath]); an export of the agent
// that does not import again, or a copy that holds another agent's rows,
// is a [*DatabaseError] matching [ErrCorrupt].
func (m *Memory) BackupAgent(ctx context.Context, dst string) error {
	return m.backup(ctx, dst, true)
}

// backup is Backup, and with agentOnly BackupAgent.
func (m *Memory) backup(ctx context.Context, dst string, agentOnly bool) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := m.db.(store.Copier); !ok && !agentOnly {
		return fmt.Errorf("engram: backup: the %s engine copies no whole database to a file (BackupAgent or Export copies one agent; the engine's own tools copy the database): %w", m.db.Engine(), ErrUnsupported)
	}
	abs, err := m.checkBackupPath(dst)
	if err != nil {
		return err
	}
	if agentOnly && strings.ContainsRune(abs, '?') {
		// An agent's copy is opened as a Memory, by WithPath.
		return invalid("dst", "%q must not contain '?', as no path engram opens may", dst)
	}
	// A copy a killed Backup left here holds data Forget may have erased
	// since: it goes first (see backup_temp.go).
	if err := sweepBackupTemps(abs); err != nil {
		m.log.Warn("engram: backup: a stale temporary copy could not be removed", "backup", abs, "err", err)
	}
	tmp, err := newBackupTemp(abs)
	if err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	recorded, err := recordBackup(ctx, m.db, tmp.path)
	if err != nil {
		tmp.remove()
		return err
	}
	// VACUUM INTO and the check make no file beside the copy; a failure
	// half-way through might, and so may building an agent's copy (its
	// write-ahead log): tmp.remove takes them too.
	err = m.backupTo(ctx, tmp.path, abs, agentOnly)
	if err != nil {
		tmp.remove()
	} else {
		tmp.release()
	}
	if recorded {
		// The copy is gone or in place: its record goes whatever ctx says.
		if uerr := unrecordBackup(context.WithoutCancel(ctx), m.db, tmp.path); uerr != nil {
			m.log.Warn("engram: backup: its record could not be removed; the next open removes it", "err", uerr)
		}
	}
	if err != nil {
		return err
	}
	m.log.Debug("engram: backup written", "agent", m.agent, "db", m.dbPath, "backup", abs, "agent_only", agentOnly)
	return nil
}

// backupTo copies the database to the empty file tmp (with agentOnly, the
// agent's rows alone: see BackupAgent), syncs and checks it, and moves it
// to dst.
func (m *Memory) backupTo(ctx context.Context, tmp, dst string, agentOnly bool) error {
	cp, copies := m.db.(store.Copier)
	rebuild := agentOnly && (m.mayShare() || !copies)
	if !rebuild {
		if err := cp.VacuumInto(ctx, tmp); err != nil {
			return err
		}
		if err := cp.UnrecordInCopy(ctx, tmp, pendingBackupKey); err != nil {
			return err
		}
		if err := syncFile(tmp); err != nil {
			return fmt.Errorf("engram: backup: %w", err)
		}
		if err := sqlite.CheckCopy(ctx, tmp, engineConfig(m.cfg.Storage), checkDerived); err != nil {
			return err
		}
		if agentOnly {
			// An agent's own file may still hold another's rows, written
			// by a Memory opened on it with WithPath: then the copy is
			// built as for a shared file.
			others, err := otherAgents(ctx, tmp, m.agent)
			if err != nil {
				return err
			}
			if rebuild = len(others) > 0; rebuild {
				// Emptied, not removed: the file is the one locked as
				// in progress (see backup_temp.go).
				if err := emptyCopy(tmp); err != nil {
					return fmt.Errorf("engram: backup: %w", err)
				}
			}
		}
	}
	if rebuild {
		if err := m.copyAgent(ctx, tmp); err != nil {
			return err
		}
		if err := syncFile(tmp); err != nil {
			return fmt.Errorf("engram: backup: %w", err)
		}
		if err := sqlite.CheckCopy(ctx, tmp, engineConfig(m.cfg.Storage), checkDerived); err != nil {
			return err
		}
		others, err := otherAgents(ctx, tmp, m.agent)
		if err != nil {
			return err
		}
		if len(others) > 0 {
			return &DatabaseError{Op: "backup", Err: fmt.Errorf("the copy of agent %q holds rows of agents %q: %w", m.agent, others, ErrCorrupt)}
		}
	}
	if err := placeNew(tmp, dst); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	return nil
}

// mayShare reports whether other agents may have rows in m's database: a
// file given by WithPath may be shared, and a Store's file or memory is
// shared by all its agents; an agent's file under a base directory, and a
// database in memory from New, are its own.
func (m *Memory) mayShare() bool {
	if m.dbPath == "" {
		return m.owner != nil || m.postgres != ""
	}
	return m.agentDir == ""
}

// copyAgent builds in path, an empty file, a database of m's agent alone:
// a new database of the agent, with m's tier, configuration and embedder,
// into which the agent's export (history and vectors too) is imported,
// then taken out of WAL mode so that it is one file, as VACUUM INTO makes
// a copy. An export that the import refuses is a bug or damage, not the
// caller's bad input: it is a *DatabaseError matching ErrCorrupt.
func (m *Memory) copyAgent(ctx context.Context, path string) error {
	opts := []Option{WithPath(path), WithAgent(m.agent), WithConfig(m.cfg), WithClock(m.now), WithLogger(m.log)}
	if m.vectors != nil {
		opts = append(opts, WithEmbedder(m.vectors.emb))
	}
	c, err := New(m.tier, opts...)
	if err != nil {
		return err
	}
	err = m.exportInto(ctx, c)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	var ie *ImportError
	if errors.As(err, &ie) {
		return &DatabaseError{Op: "backup", Err: fmt.Errorf("the agent's export does not import again: %v: %w", ie, ErrCorrupt)}
	}
	if err != nil {
		return err
	}
	return sqlite.OneFile(ctx, path, engineConfig(m.cfg.Storage))
}

// errCopyEnded ends an export whose import into the copy stopped.
var errCopyEnded = errors.New("engram: backup: the copy's import ended")

// exportInto streams m's export, with history and vectors, into c's
// import. It returns the export's error first: the import's, when the
// export failed, is only the export's failure as its reader saw it.
func (m *Memory) exportInto(ctx context.Context, c *Memory) error {
	pr, pw := io.Pipe()
	exported := make(chan error, 1)
	go func() {
		err := m.Export(ctx, pw, ExportOptions{Vectors: true, History: true})
		pw.CloseWithError(err) // nil: the import reads io.EOF
		exported <- err
	}()
	_, err := c.importRecords(ctx, pr, ImportOptions{})
	pr.CloseWithError(errCopyEnded) // an export still writing stops
	if xerr := <-exported; xerr != nil && !errors.Is(xerr, errCopyEnded) {
		return xerr
	}
	return err
}

// checkBackupPath returns dst made absolute, or the error Backup returns
// for it.
func (m *Memory) checkBackupPath(dst string) (string, error) {
	if dst == "" {
		return "", invalid("dst", "empty path")
	}
	abs, err := filepath.Abs(dst)
	if err != nil {
		return "", invalid("dst", "%v", err)
	}
	if m.dbPath != "" {
		db, err := filepath.Abs(m.dbPath)
		if err != nil {
			return "", invalid("dst", "%v", err)
		}
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if abs == db+suffix {
				return "", invalid("dst", "%q is the database's own file %q", dst, m.dbPath+suffix)
			}
		}
	}
	dir := filepath.Dir(abs)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", invalid("dst", "directory %q does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("engram: backup: %w", err)
	case !st.IsDir():
		return "", invalid("dst", "%q is not a directory", dir)
	}
	if _, err := os.Lstat(abs); err == nil {
		return "", fmt.Errorf("engram: backup: %q: %w", dst, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("engram: backup: %w", err)
	}
	return abs, nil
}

// otherAgents returns the agents other than agent that have rows in the
// copy at path, which the engine's CheckCopy checked, opening it
// read-only.
func otherAgents(ctx context.Context, path, agent string) ([]string, error) {
	agents, err := agentsInFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(agents, func(a string) bool { return a == agent }), nil
}

// placeNew moves the file tmp to dst, which must not exist: a hard link
// cannot replace a file made meanwhile, as a rename would; where the file
// system has no hard links, the rename follows a last look.
func placeNew(tmp, dst string) error {
	err := os.Link(tmp, dst)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("engram: backup: %q: %w", dst, ErrExists)
	}
	if _, serr := os.Lstat(dst); serr == nil {
		return fmt.Errorf("engram: backup: %q: %w", dst, ErrExists)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("engram: backup: %w", err)
	}
	return nil
}

// syncFile flushes the file at path to stable storage.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// syncDir flushes a directory's entries, so that a rename in it
// survives a crash. Some systems cannot sync a directory; that is no
// error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	cerr := d.Close()
	if err != nil && (errors.Is(err, fs.ErrInvalid) || errors.Is(err, fs.ErrPermission)) {
		err = nil
	}
	return errors.Join(err, cerr)
}

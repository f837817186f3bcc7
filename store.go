package engram

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// Store is the memory of many agents in one place: a base directory
// ([WithDir]; each agent's file in its own directory under it), one file
// they share ([WithPath]) or one database in memory ([InMemory]). Open it
// once per process and get each agent's [Memory] from [Store.Agent]: the
// agents of a shared file or of memory share the store's writer, its
// reader connections and their page cache; over a base directory the store
// keeps at most [StorageConfig].OpenFiles agents' files open at once,
// closing the connections of those least recently used while they are
// idle (what each agent's Memory holds in process stays) and opening them
// again on their next use. However many agents it serves, a Store uses a
// bounded number of connections and file descriptors.
//
// Every agent of a Store has the store's configuration, tier, embedder,
// clock, logger, LLM and actor. Store is safe for concurrent use.
type Store struct {
	tier Tier
	set  settings
	// base is the base directory of the directory layout, "" for a
	// shared file or memory, which shared is the database of.
	base   string
	shared store.DB

	mu     sync.Mutex // guards closed and agents
	closed bool
	agents map[string]*agentSlot

	// files are the agents' databases over a base directory that have
	// connections open (see balance).
	filesMu sync.Mutex
	files   map[*sqlite.DB]bool
}

// agentSlot is an agent's Memory once it is open; ready is closed when
// opening it ended, with m or err set.
type agentSlot struct {
	ready chan struct{}
	m     *Memory
	err   error
}

// Open opens a store of many agents' memories: under a base directory
// ([WithDir], or [DefaultDir] without a location option), in one file
// ([WithPath], created when needed) or in memory ([InMemory]). It takes
// the options of [New] that apply to every agent (configuration,
// embedder, clock, logger, LLM, actor, [WithReadOnly]); [WithAgent] and
// [WithMarkdownPath] are refused, since the store serves every agent and
// each agent's memory.md lives in its own directory. Nothing is created
// under a base directory until [Store.Agent] opens an agent there.
//
// It returns an error matching [ErrInvalid] for a bad option or
// configuration (before any file is created), and for a file the errors
// [New] returns for one: [ErrSchemaTooNew], [ErrNotEngram], a
// [*DatabaseError] matching [ErrCorrupt], a [*DatabaseError] when SQLite
// or the file system fails.
func Open(tier Tier, opts ...Option) (*Store, error) {
	s := settings{agent: DefaultAgent, cfg: DefaultConfig(), clock: time.Now}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	if s.bad == nil && s.agentSet {
		s.bad = invalid("WithAgent", "a Store serves every agent: pass the ID to Store.Agent")
	}
	if s.bad == nil && s.mdPath != "" {
		s.bad = invalid("WithMarkdownPath", "a Store's agents each write memory.md in their own directory under WithDir")
	}
	if err := s.validate(tier); err != nil {
		return nil, err
	}
	st := &Store{tier: tier, set: s, agents: map[string]*agentSlot{}, files: map[*sqlite.DB]bool{}}
	switch {
	case s.inMemory, s.postgres != "":
	case s.path == "":
		st.base = cmp.Or(s.dir, DefaultDir)
		return st, nil
	}
	db, err := openDB(context.Background(), s.path, &s)
	if err != nil {
		return nil, err
	}
	sweepBackups(context.Background(), db, s.path, s.logger)
	st.shared = db
	return st, nil
}

// Agent returns the Memory of the agent id, opening it on the first call
// for the ID; later calls return the same Memory until it is closed (its
// Close releases the agent; the store stays open). Over a base directory
// the agent's directory and database are created when needed. Opening one
// agent does not hold up calls for others.
//
// It returns an error matching [ErrInvalid] for an invalid ID (see
// [ValidateAgentID]) and in Tier 2 for an embedder that does not match
// the agent's vectors, [ErrClosed] after [Store.Close], and the errors
// [New] returns for the agent's file.
func (st *Store) Agent(id string) (*Memory, error) {
	if err := ValidateAgentID(id); err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return nil, ErrClosed
	}
	slot := st.agents[id]
	if slot != nil {
		st.mu.Unlock()
		<-slot.ready
		return slot.m, slot.err
	}
	slot = &agentSlot{ready: make(chan struct{})}
	st.agents[id] = slot
	st.mu.Unlock()

	slot.m, slot.err = st.open(id)
	if slot.err != nil {
		st.mu.Lock()
		delete(st.agents, id) // the next call tries again
		st.mu.Unlock()
	}
	close(slot.ready)
	return slot.m, slot.err
}

// Lookup returns the Memory of the agent id, as [Store.Agent] does, but
// only when the agent has memory in the store (it is one of
// [Store.Agents]) or its Memory is open: it never creates anything, so a
// read for an agent nobody has written for can answer "nothing" without
// leaving a trace. It returns an error matching [ErrNotFound] for an
// agent without memory, and the errors of Agent.
func (st *Store) Lookup(ctx context.Context, id string) (*Memory, error) {
	if err := ValidateAgentID(id); err != nil {
		return nil, err
	}
	st.mu.Lock()
	closed, slot := st.closed, st.agents[id]
	st.mu.Unlock()
	switch {
	case closed:
		return nil, ErrClosed
	case slot != nil:
		return st.Agent(id)
	}
	has, err := st.Has(ctx, id)
	if err != nil {
		return nil, err
	}
	if !has {
		return nil, notFound("agent", id)
	}
	return st.Agent(id)
}

// Has reports whether the agent id has memory in the store (it is one of
// [Store.Agents]): a database in its directory, or rows in the shared
// database. It reads without writing, and returns an error matching
// [ErrInvalid] for an invalid ID, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite or the file system fails.
func (st *Store) Has(ctx context.Context, id string) (bool, error) {
	if err := ValidateAgentID(id); err != nil {
		return false, err
	}
	if st.isClosed() {
		return false, ErrClosed
	}
	if st.base != "" {
		return hasDatabase(filepath.Join(st.base, agentDirName(id)))
	}
	var has bool
	err := st.shared.Read(ctx, "agents", func(q store.Tx) error {
		tables, err := agentTables(q)
		if err != nil {
			return err
		}
		in, err := agentRows(q, tables, id)
		has = slices.ContainsFunc(in, func(t string) bool { return t != "meta" })
		return err
	})
	return has, err
}

// open opens the Memory of agent id on the store's database, or over a
// base directory on the agent's own.
func (st *Store) open(id string) (*Memory, error) {
	s := st.set
	s.agent = id
	m := newMemory(st.tier, s)
	m.owner = st
	db := st.shared
	var file *sqlite.DB // the agent's own, over a base directory
	if st.base != "" {
		m.agentDir = filepath.Join(st.base, agentDirName(id))
		m.dbPath = filepath.Join(m.agentDir, "memory.db")
		m.mdPath = filepath.Join(m.agentDir, "memory.md")
		var err error
		if file, err = openStorage(context.Background(), m.dbPath, &s); err != nil {
			return nil, err
		}
		file.SetOnWake(st.woke)
		sweepBackups(context.Background(), file, m.dbPath, m.log)
		db = file
	} else {
		m.dbPath = s.path
	}
	m.db = db
	if err := m.open(s); err != nil {
		if st.base != "" {
			_ = db.Close()
		} else {
			db.Unfollow(id, m.followers...)
		}
		return nil, err
	}
	if file != nil {
		st.woke(file)
	}
	openAgents.add(m, 1)
	m.log.Debug("engram: opened", "agent", m.agent, "tier", m.tier, "db", m.dbPath, "markdown", m.mdPath)
	return m, nil
}

// release lets go of m's agent when m closes: it is no longer the
// agent's Memory, its followers leave the database's change log, and
// over a base directory the agent's database closes.
func (st *Store) release(m *Memory) error {
	st.mu.Lock()
	if slot := st.agents[m.agent]; slot != nil && slot.m == m {
		delete(st.agents, m.agent)
	}
	st.mu.Unlock()
	if st.base == "" {
		m.db.Unfollow(m.agent, m.followers...)
		return nil
	}
	st.filesMu.Lock()
	delete(st.files, m.db.(*sqlite.DB)) // over a base directory, an agent's file
	st.filesMu.Unlock()
	return m.db.Close()
}

// woke notes that db, an agent's database over a base directory, has
// connections open, and parks the least recently used others while more
// than Storage.OpenFiles are open. A database busy with a read or a write
// is passed over: the count comes down as they finish and others wake.
func (st *Store) woke(db *sqlite.DB) {
	st.filesMu.Lock()
	defer st.filesMu.Unlock()
	if db.Closed() {
		return
	}
	st.files[db] = true
	over := len(st.files) - st.set.cfg.Storage.OpenFiles
	if over <= 0 {
		return
	}
	idle := make([]*sqlite.DB, 0, len(st.files))
	for f := range st.files {
		if f != db {
			idle = append(idle, f)
		}
	}
	slices.SortFunc(idle, func(a, b *sqlite.DB) int { return cmp.Compare(a.LastUse(), b.LastUse()) })
	for _, f := range idle {
		if over == 0 {
			break
		}
		if f.Park() {
			delete(st.files, f)
			over--
		}
	}
}

// Agents returns the IDs of the agents with memory in the store, sorted,
// as [ListAgents] does for its location (in memory, the agents with rows).
// It returns [ErrClosed] after Close and a [*DatabaseError] when SQLite or
// the file system fails.
func (st *Store) Agents(ctx context.Context) ([]string, error) {
	if st.isClosed() {
		return nil, ErrClosed
	}
	if st.base != "" {
		return ListAgents(ctx, WithDir(st.base))
	}
	var out []string
	err := st.shared.Read(ctx, "agents", func(q store.Tx) (err error) {
		out, err = agentsIn(q)
		return err
	})
	return out, err
}

// isClosed reports whether Close was called.
func (st *Store) isClosed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.closed
}

// Close closes every agent's Memory the store handed out (as
// [Memory.Close] does: the working sets are discarded) and then the
// store's database. It waits for agents being opened and for running
// writes. Close is idempotent; every method returns [ErrClosed]
// afterwards, and so do the Memories it handed out.
func (st *Store) Close() error {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return nil
	}
	st.closed = true
	slots := make([]*agentSlot, 0, len(st.agents))
	for _, slot := range st.agents {
		slots = append(slots, slot)
	}
	st.mu.Unlock()
	var errs []error
	for _, slot := range slots {
		<-slot.ready
		if slot.m != nil {
			errs = append(errs, slot.m.Close())
		}
	}
	if st.shared != nil {
		errs = append(errs, st.shared.Close())
	}
	return errors.Join(errs...)
}

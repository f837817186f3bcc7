package engram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/engram-go/engram/internal/facts"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
	"github.com/engram-go/engram/internal/ulid"
)

// Memory is an agent's memory: a working set in process and semantic,
// episodic and procedural memory in one SQLite file, with links between
// memories and a memory.md projection of what the agent knows.
//
// A Memory is bound to one agent; nothing it does can read or change
// another agent's memories, even by ID. Memory is safe for concurrent use by
// many goroutines. Writes are serialised inside the process and each is one
// transaction: it happens completely or not at all.
type Memory struct {
	tier   Tier
	agent  string
	actor  string // who history says makes changes (WithActor); "" for the agent
	cfg    Config
	now    func() time.Time
	log    *slog.Logger
	ids    *ulid.Generator
	db     store.DB
	dbPath string // "" in memory and on PostgreSQL
	// postgres is the DSN of the PostgreSQL database (WithPostgres), ""
	// on SQLite.
	postgres string
	mdPath   string // "" when no memory.md is written
	// agentDir is the agent's own directory under a base directory, ""
	// for a file given by WithPath or in memory.
	agentDir string

	mdMu     sync.Mutex // serialises rendering, writing and importing memory.md
	ingestMu sync.Mutex // serialises Ingest, whose index of chunks spans its transactions
	dfs      dfCache    // document frequencies for search
	text     textIndex  // text search's postings, once it has searched
	// fullText says text search may ask SQLite's full-text indexes
	// (FTS5). Without, every search, filtered or Advanced, and
	// auto-linking answer from the in-memory indexes alone, built in the
	// read that first needs them, whatever Search.IndexMax says: what a
	// store without FTS5 (PostgreSQL) does, with the same results.
	fullText bool
	stems    stemIndex    // auto-linking's and merging's candidates; the writer lock guards it
	access   accessLog    // searches' accesses and recalls' retrievals not yet written
	noise    *noiseSource // Recall's noise
	// summary keeps the last Summary while the database is unchanged;
	// writes counts the Memory's write transactions (see summaryKey).
	summary summaryCache
	writes  atomic.Uint64

	closeOnce sync.Once
	closeErr  error
	closed    atomic.Bool // set by Close: every method returns ErrClosed

	working    *Working
	semantic   *Semantic
	episodic   *Episodic
	procedural *Procedural
	links      *Links
	facts      *Facts
	preds      *facts.Predicates // how facts' predicates are matched
	rules      *Rules
	llm        LLM      // nil without WithLLM
	vectors    *vectors // nil in Tier 1
	// followers are the Memory's in-memory state that the database's
	// change log keeps in step (see internal/store/sqlite's changelog.go).
	followers []store.Follower
	// owner is the Store that handed the Memory out, nil for one from
	// New.
	owner *Store
}

// New opens the memory of one agent, creating its database when needed.
//
// Without options, New opens agent [DefaultAgent] under [DefaultDir] with
// [DefaultConfig]. It returns an error matching [ErrInvalid] for a bad
// option, configuration or agent ID (before any file or directory is
// created), including Tier2 without [WithEmbedder] and a database whose
// vectors have another dimension than the embedder's (without
// [WithDimensionChange]) and a markdown path that is the database's own
// file, [ErrSchemaTooNew] for a database written by a newer engram,
// [ErrNotEngram] for another program's SQLite file (left untouched),
// a [*DatabaseError] matching [ErrCorrupt] for a file that is damaged or
// not a database, and a [*DatabaseError] when SQLite fails or the
// database's directory or file cannot be made. New directories are made
// 0700 and a new database file 0600.
//
// A database that exists and that the process cannot write (its file or
// directory is read-only, or the file system is) is opened for reading
// only, as [WithReadOnly] asks (see [Memory.ReadOnly]); then New also
// returns an error matching [ErrReadOnly] for a database written by an
// older engram, which it cannot bring up to date, and, with WithReadOnly,
// one matching [ErrNotFound] for a database that does not exist.
func New(tier Tier, opts ...Option) (*Memory, error) {
	s := settings{agent: DefaultAgent, cfg: DefaultConfig(), clock: time.Now}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	if err := s.validate(tier); err != nil {
		return nil, err
	}
	m := newMemory(tier, s)
	m.dbPath, m.mdPath = s.paths()
	if m.dbPath != "" && s.path == "" {
		m.agentDir = filepath.Dir(m.dbPath)
	}
	if err := checkMarkdownPath(m.mdPath, m.dbPath); err != nil {
		return nil, err
	}
	db, err := openDB(context.Background(), m.dbPath, &s)
	if err != nil {
		return nil, err
	}
	m.db = db
	if err := m.open(s); err != nil {
		_ = db.Close()
		return nil, err
	}
	sweepBackups(context.Background(), db, m.dbPath, m.log)
	openAgents.add(m, 1)
	m.log.Debug("engram: opened", "agent", m.agent, "tier", tier, "db", m.dbPath, "markdown", m.mdPath)
	return m, nil
}

// newMemory returns a Memory of s's agent, not open yet.
func newMemory(tier Tier, s settings) *Memory {
	m := &Memory{
		tier:  tier,
		agent: s.agent,
		actor: s.actor,
		cfg:   s.cfg.clone(), // the caller keeps its slices
		now:   s.clock,
		log:   s.logger,
		ids:   ulid.NewGenerator(),
		llm:   s.llm,

		postgres: s.postgres,
		// open turns it off on an engine without FTS5; the tests may
		// turn it off on SQLite too (see fullTextDefault).
		fullText: s.fullText > 0 || s.fullText == 0 && fullTextDefault,
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	return m
}

// fullTextDefault is a new Memory's fullText: true, but in the root
// package's tests run with ENGRAM_TEST_NOFTS=1 (see the TestMain of
// search_bench_test.go and export_test.go's SearchWithoutFTS), which
// search as a store without FTS5 does.
var fullTextDefault = true

// openAgents counts the Memories open in the process by file and agent,
// for ForgetAgent, which must be the agent's only one.
var openAgents = agentCount{n: map[string]int{}}

type agentCount struct {
	mu sync.Mutex
	n  map[string]int
}

// key is m's database and agent; "" in memory, where no other Memory
// shares the database.
func (c *agentCount) key(m *Memory) string {
	if m.postgres != "" {
		return "postgres\x00" + m.postgres + "\x00" + m.agent
	}
	if m.dbPath == "" {
		return ""
	}
	abs, err := filepath.Abs(m.dbPath)
	if err != nil {
		abs = m.dbPath
	}
	return abs + "\x00" + m.agent
}

func (c *agentCount) add(m *Memory, d int) {
	k := c.key(m)
	if k == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[k] += d; c.n[k] <= 0 {
		delete(c.n, k)
	}
}

func (c *agentCount) get(m *Memory) int {
	k := c.key(m)
	if k == "" {
		return 1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[k]
}

// open makes the Memory's parts on its open store: the stores of each
// kind, the vectors in Tier 2, and the change log their in-memory state
// follows.
// dialect is the SQL dialect of m's engine, which the conditions of a
// filter are made in (see store.Scope).
func (m *Memory) dialect() store.Dialect {
	if m.db.Engine() == "postgres" {
		return store.DialectPostgres
	}
	return store.DialectSQLite
}

func (m *Memory) open(s settings) error {
	m.fullText = m.fullText && m.db.FullText()
	m.working = newWorking(m)
	m.semantic = &Semantic{m: m}
	m.episodic = &Episodic{m: m}
	m.procedural = &Procedural{m: m}
	m.links = &Links{m: m}
	m.facts = &Facts{m: m}
	var err error
	if m.preds, err = m.cfg.Facts.predicates(); err != nil {
		return invalid("config Facts", "%v", err) // Validate checked it
	}
	m.rules = &Rules{m: m}
	m.stems.agent = m.agent
	m.noise = newNoiseSource(m.cfg.Recall.NoiseSeed)
	followers := []store.Follower{&m.stems, &textFollower{m: m}}
	if m.tier == Tier2 {
		if err := m.openVectors(context.Background(), s.embedder, s.newDims, s.newDims || s.newModel, s.existing); err != nil {
			return err
		}
		followers = append(followers, m.vectors)
	}
	if err := m.db.Follow(context.Background(), m.agent, followers...); err != nil {
		return err
	}
	m.followers = followers
	// A read-only Memory makes no change for history to record.
	if m.cfg.History.Enabled && !m.db.ReadOnly() {
		if err := m.db.StartHistory(context.Background(), historySpec()); err != nil {
			return err
		}
	}
	m.stems.log = m.db
	if m.db.Pooled() && m.fullText {
		// Builds in the background on a reader, auto-linking asking
		// FTS5 meanwhile; without FTS5 it is built at once.
		m.stems.db = m.db
	}
	m.stems.link = m.links.linkDeferred
	if m.cfg.Zettelkasten.Enabled && !m.db.ReadOnly() {
		if err := m.db.Read(context.Background(), "open", m.stems.loadDeferred); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the database. It waits for a running write to finish.
// Close is idempotent: later calls return the first call's result, and
// every other method returns [ErrClosed] afterwards. The working set is
// discarded; call [Memory.Flush] first to keep what matters. A Memory
// from [Store.Agent] releases the agent instead: the store's connections
// stay open for its other agents, and the next Agent call for the same ID
// opens a new Memory.
//
// Close writes the access counts searches noted and no write has written
// yet, and the similar links of the entries stored while auto-linking's
// index was still being built (see [Semantic.Store]). When it cannot (a
// read-only or full disk, another process holding the write lock past
// the busy timeout), it logs them as lost at warn level and still
// closes: bookkeeping never makes Close fail.
func (m *Memory) Close() error { return m.close(false) }

// close is Close; with discard, the access counts not written are dropped
// instead (see ForgetAgent).
func (m *Memory) close(discard bool) error {
	m.closeOnce.Do(func() {
		m.access.stop()
		m.stems.stop()
		m.text.stop()
		if !discard {
			m.linkDeferred()
		}
		if discard {
			m.access.discard()
		} else if err := m.flushAccess(context.Background()); err != nil {
			m.log.Warn("engram: access counts lost at close", "agent", m.agent, "entries", m.access.count(), "err", err)
		}
		m.closed.Store(true)
		if m.owner != nil {
			m.closeErr = m.owner.release(m)
		} else {
			m.closeErr = m.db.Close()
		}
		m.working.clearOnClose()
		openAgents.add(m, -1)
	})
	return m.closeErr
}

// AgentID returns the agent the Memory is bound to.
func (m *Memory) AgentID() string { return m.agent }

// Tier returns the Memory's tier.
func (m *Memory) Tier() Tier { return m.tier }

// Config returns a copy of the Memory's configuration.
func (m *Memory) Config() Config { return m.cfg.clone() }

// Path returns the database file, or "" for a database in memory or on
// PostgreSQL.
func (m *Memory) Path() string { return m.dbPath }

// MarkdownPath returns where memory.md is written, or "" when it is not.
func (m *Memory) MarkdownPath() string { return m.mdPath }

// ReadOnly reports whether the Memory only reads its database: opened
// with [WithReadOnly], or on storage that [New] found it cannot write.
// Its writes then return an error matching [ErrReadOnly].
func (m *Memory) ReadOnly() bool { return m.db.ReadOnly() }

// Working returns the in-process working set.
func (m *Memory) Working() *Working { return m.working }

// Semantic returns semantic memory: long-term knowledge.
func (m *Memory) Semantic() *Semantic { return m.semantic }

// Episodic returns episodic memory: events and session snapshots.
func (m *Memory) Episodic() *Episodic { return m.episodic }

// Procedural returns procedural memory: learned workflows.
func (m *Memory) Procedural() *Procedural { return m.procedural }

// Links returns the links between memories.
func (m *Memory) Links() *Links { return m.links }

// Bootstrap loads what an agent needs at the start of a session: the text of
// memory.md (regenerated from the database when the file is missing), the
// most recent episodes, the active procedures and the working set. With
// [MarkdownSync] (the default) it first reads a person's edits to
// memory.md back, as [Memory.ImportMarkdown] does, and writes the file
// again when it had changed; [BootstrapResult].MarkdownImport says what
// the import did. A read-only Memory (see [Memory.ReadOnly]) imports and
// writes nothing: its context is memory.md as it is, or, without one,
// the text memory.md would hold.
//
// It returns [ErrClosed] after Close, a [*DatabaseError] when SQLite
// fails and an [*fs.PathError] when memory.md cannot be read or written.
func (m *Memory) Bootstrap(ctx context.Context) (*BootstrapResult, error) {
	now := m.now()
	var imported *MarkdownReport
	var err error
	if !m.db.ReadOnly() {
		if imported, err = m.syncMarkdown(ctx); err != nil {
			return nil, err
		}
	}
	if imported != nil {
		if _, err := m.writeMarkdown(ctx); err != nil {
			return nil, err
		}
	}
	text, err := m.loadContext(ctx)
	if err != nil {
		return nil, err
	}
	res := &BootstrapResult{
		AgentID:         m.agent,
		Tier:            m.tier,
		SemanticContext: text,
		BootstrappedAt:  now,
		MarkdownImport:  imported,
	}
	err = m.read(ctx, "bootstrap", func(q store.Tx) error {
		var err error
		if res.RecentEpisodes, err = m.episodic.recent(q, m.cfg.Bootstrap.RecentEpisodes, nil); err != nil {
			return err
		}
		res.ActiveProcedures, err = m.procedural.active(q, m.cfg.Bootstrap.ActiveProcedures, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.Working, err = m.working.Items(); err != nil {
		return nil, err
	}
	return res, nil
}

// loadContext returns memory.md, regenerating it when it is missing (with
// MarkdownExport, or in a read-only Memory, the text is made and the file
// not written).
func (m *Memory) loadContext(ctx context.Context) (string, error) {
	if m.mdPath != "" {
		b, err := os.ReadFile(m.mdPath)
		if err == nil {
			return string(b), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("engram: bootstrap: %w", err)
		}
	}
	if m.cfg.Markdown.Mode == MarkdownExport || m.db.ReadOnly() {
		text, _, err := m.renderMarkdown(ctx)
		return string(text), err
	}
	return m.writeMarkdown(ctx)
}

// Flush ends a stretch of work: it keeps every working item whose
// importance reaches [SemanticConfig.ImportanceThreshold] in semantic memory
// (once: an item already kept, or whose content semantic memory already
// holds, is not stored again; an item kept earlier and changed since is
// updated; an item [Memory.Recall] brought from memory is there already),
// writes the access and retrieval counts searches noted, runs [Memory.Compact] when [CompactionConfig.Interval] has
// passed since compaction last ran, in Tier 2 embeds the memories still
// waiting for their vectors (see [Stats].PendingEmbeddings), then rewrites
// memory.md if its content changed. With [MarkdownSync] (the default) it
// first reads a person's edits to memory.md back, as
// [Memory.ImportMarkdown] does, logging at warn level what it could not
// import; with [MarkdownExport] it neither reads nor writes memory.md.
//
// The semantic writes are one transaction. It returns [ErrClosed] after
// Close, a [*DatabaseError] when SQLite fails, an [*fs.PathError] when
// memory.md cannot be written, and an error matching [ErrEmbedding] when
// the embedder fails, after doing everything else: the memories it could
// not embed stay pending, found by text meanwhile.
//
// A read-only Memory (see [Memory.ReadOnly]) writes nothing: Flush
// returns an error matching [ErrReadOnly] when working items are due to
// be kept, and nil otherwise.
func (m *Memory) Flush(ctx context.Context) error {
	items, err := m.working.Items()
	if err != nil {
		return err
	}
	if m.db.ReadOnly() {
		return m.flushReadOnly(items)
	}
	if _, err := m.syncMarkdown(ctx); err != nil {
		return err
	}
	if err := m.flushAccess(ctx); err != nil {
		return err
	}
	now := m.now()
	var keep []SemanticEntry
	for _, it := range items {
		if m.keeps(it) {
			keep = append(keep, SemanticEntry{
				ID:         it.ID,
				Content:    it.Content,
				Importance: it.Importance,
				Tags:       it.Tags,
				Source:     it.Source,
				CreatedAt:  it.AddedAt,
			})
		}
	}
	if len(keep) > 0 {
		err := m.write(ctx, "flush", func(q store.Tx) error {
			for i := range keep {
				if err := m.semantic.promote(q, &keep[i], now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	due, err := m.compactDue(ctx)
	if err != nil {
		return err
	}
	if due {
		if _, err := m.Compact(ctx); err != nil {
			return err
		}
	}
	var embedErr error
	if m.vectors != nil {
		if _, embedErr = m.vectors.embedPending(ctx, -1, nil); embedErr != nil && !errors.Is(embedErr, ErrEmbedding) {
			return embedErr
		}
	}
	if m.cfg.Markdown.Mode == MarkdownExport {
		return embedErr
	}
	_, err = m.writeMarkdown(ctx)
	return errors.Join(err, embedErr)
}

// keeps reports whether Flush keeps the working item it in semantic
// memory: it is important enough, and not brought by Recall from memory.
func (m *Memory) keeps(it WorkingItem) bool {
	return it.Recalled == "" && it.Importance >= m.cfg.Semantic.ImportanceThreshold
}

// flushReadOnly is Flush for a read-only Memory: it refuses to drop the
// working items that Flush would keep.
func (m *Memory) flushReadOnly(items []WorkingItem) error {
	for _, it := range items {
		if m.keeps(it) {
			return fmt.Errorf("engram: flush: working item %q is due to be kept: %w", it.ID, ErrReadOnly)
		}
	}
	return nil
}

// Snapshot stores a snapshot of the session that is ending; see
// [Episodic.SaveSnapshot].
func (m *Memory) Snapshot(ctx context.Context, snap SessionSnapshot) error {
	_, err := m.episodic.SaveSnapshot(ctx, snap)
	return err
}

// Stats counts the memories of the Memory's agent. It returns [ErrClosed]
// after Close and a [*DatabaseError] when SQLite fails.
func (m *Memory) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := m.read(ctx, "stats", func(q store.Tx) error {
		return countStats(q, m.agent, &st)
	})
	if err != nil {
		return Stats{}, err
	}
	st.Working = m.working.Len()
	return st, nil
}

// statsCounter counts, for an agent, the rows of each kind, then its
// links, archived memories and pending embeddings (see statsInto).
var statsCounter = func() store.RowCounter {
	var tables []string
	for _, k := range kinds {
		tables = append(tables, k.Table)
	}
	return store.NewRowCounter(append(tables, "zettel_links", "archive", "vector_pending"))
}()

// countStats counts the agent's memories into st, but for the working
// set.
func countStats(q store.Tx, agent string, st *Stats) error {
	return statsCounter.Count(q, agent, statsInto(st)...)
}

// statsInto returns where statsCounter's counts go in st.
func statsInto(st *Stats) []any {
	var dest []any
	for _, k := range kinds {
		dest = append(dest, k.count(st))
	}
	return append(dest, &st.Links, &st.Archived, &st.PendingEmbeddings)
}

// CheckIntegrity runs SQLite's integrity check and the FTS5 integrity check
// of every full-text index, checks the data derived from the rows (term
// vectors and statistics, vectors, the embedding cache) against them, and
// returns an error describing any problem. It checks the whole file,
// every agent's memory in it, and holds the file's write lock while SQLite
// checks: it is meant for tests and for tools, not for an agent's hot
// path.
func (m *Memory) CheckIntegrity(ctx context.Context) error {
	if m.closed.Load() {
		return ErrClosed
	}
	return m.db.IntegrityCheck(ctx, checkDerived)
}

// read runs fn in a read transaction of the Memory's database (see
// the engine's DB.Read); it returns ErrClosed after Close.
func (m *Memory) read(ctx context.Context, op string, fn func(q store.Tx) error) error {
	if m.closed.Load() {
		return ErrClosed
	}
	return m.db.Read(ctx, op, fn)
}

// newID returns a new time-ordered ID.
func (m *Memory) newID(now time.Time) string { return m.ids.New(now) }

// createPrivate makes the directories of a new database readable by their
// owner only (0700), and the file itself (0600, as a copy of the empty
// database of the current schema: see the engine's CreateFile) before SQLite opens
// it: SQLite gives the -wal and -shm files it makes the database file's
// permissions. Memory is personal data. An existing file or directory
// keeps its permissions.
func createPrivate(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		return nil // SQLite opens it as it can (read-only, say)
	}
	return sqlite.CreateFile(path)
}

// checkMarkdownPath refuses a memory.md path that would overwrite the
// database or one of SQLite's files beside it.
func checkMarkdownPath(md, db string) error {
	if md == "" || db == "" {
		return nil
	}
	absMD, err1 := filepath.Abs(md)
	absDB, err2 := filepath.Abs(db)
	if err := errors.Join(err1, err2); err != nil {
		return invalid("WithMarkdownPath", "%v", err)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if absMD == absDB+suffix {
			return invalid("WithMarkdownPath", "%q is the database's own file %q", md, db+suffix)
		}
	}
	return nil
}

package engram

import (
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// DefaultDir is the base directory [New] uses when neither [WithDir] nor
// [WithPath] nor [InMemory] is given: each agent's files live in
// DefaultDir/{agentID}/.
const DefaultDir = ".engram/memory"

// DefaultAgent is the agent a Memory is bound to without [WithAgent].
const DefaultAgent = "default"

// Option configures [New]. Later options override earlier ones.
type Option func(*settings)

type settings struct {
	// fullText, set by tests only, is 1 for a Memory that searches with
	// FTS5 and -1 for one without, whatever fullTextDefault says.
	fullText int8
	agent    string
	agentSet bool   // WithAgent was given
	actor    string // WithActor
	dir      string
	path     string
	inMemory bool
	postgres string // WithPostgres's DSN
	mdPath   string
	cfg      Config
	clock    func() time.Time
	logger   *slog.Logger
	llm      LLM
	embedder Embedder
	newDims  bool  // WithDimensionChange
	newModel bool  // WithModelChange
	existing bool  // WithExistingVectors
	readOnly bool  // WithReadOnly
	bad      error // the first invalid option, reported by New
}

// validate returns the first problem of the options for a Memory of the
// given tier, an error matching ErrInvalid, or nil.
func (s *settings) validate(tier Tier) error {
	if s.bad != nil {
		return s.bad
	}
	if err := tier.Validate(); err != nil {
		return err
	}
	if tier == Tier2 && s.embedder == nil {
		return invalid("WithEmbedder", "Tier2 needs an embedder (NewHashingEmbedder works offline)")
	}
	if tier == Tier1 {
		for _, o := range []struct {
			set        bool
			name, what string
		}{
			{s.embedder != nil, "WithEmbedder", "an embedder is for Tier2; Tier1 searches by full text only"},
			{s.newDims, "WithDimensionChange", "is for Tier2; Tier1 stores no vectors"},
			{s.newModel, "WithModelChange", "is for Tier2; Tier1 stores no vectors"},
			{s.existing, "WithExistingVectors", "is for Tier2; Tier1 stores no vectors"},
		} {
			if o.set {
				return invalid(o.name, "%s", o.what)
			}
		}
	}
	if s.existing && (s.newDims || s.newModel) {
		return invalid("WithExistingVectors", "uses the vectors as they are: it excludes WithDimensionChange and WithModelChange")
	}
	if err := ValidateAgentID(s.agent); err != nil {
		return err
	}
	if err := s.cfg.Validate(); err != nil {
		return err
	}
	return s.validateWhere()
}

// validateWhere checks the options that say where the memory lives.
func (s *settings) validateWhere() error {
	if s.postgres != "" && (s.inMemory || s.path != "" || s.dir != "") {
		return invalid("options", "WithPostgres cannot be combined with InMemory, WithPath or WithDir: the memory lives in the PostgreSQL database")
	}
	if s.inMemory && (s.path != "" || s.dir != "") {
		return invalid("options", "InMemory cannot be combined with WithPath or WithDir")
	}
	if s.path != "" && s.dir != "" {
		return invalid("options", "WithPath and WithDir are exclusive")
	}
	if s.inMemory && s.readOnly {
		return invalid("options", "InMemory cannot be combined with WithReadOnly: a new database in memory is empty")
	}
	return nil
}

// paths returns where the database and memory.md go: "" for the database
// in memory, and for no memory.md.
func (s *settings) paths() (db, md string) {
	switch {
	case s.inMemory, s.postgres != "":
		return "", s.mdPath
	case s.path != "":
		return s.path, s.mdPath
	}
	base := s.dir
	if base == "" {
		base = DefaultDir
	}
	agentDir := filepath.Join(base, agentDirName(s.agent))
	md = s.mdPath
	if md == "" {
		md = filepath.Join(agentDir, "memory.md")
	}
	return filepath.Join(agentDir, "memory.db"), md
}

func (s *settings) fail(err error) {
	if s.bad == nil {
		s.bad = err
	}
}

// WithAgent binds the Memory to an agent. Every read and write is scoped to
// it. The ID must satisfy [ValidateAgentID]; the default is [DefaultAgent].
func WithAgent(id string) Option { return func(s *settings) { s.agent, s.agentSet = id, true } }

// WithDir sets the base directory: the database is {base}/{dir}/memory.db
// and the projection {base}/{dir}/memory.md, where {dir} is the agent ID
// itself when it has no uppercase letter ("support-bot",
// "ada@example.com"), and otherwise "~" and the ID in lowercase base32
// (so that IDs differing only in case never share a directory on a
// case-insensitive file system). The default is [DefaultDir].
func WithDir(base string) Option {
	return func(s *settings) {
		switch {
		case base == "":
			s.fail(invalid("WithDir", "directory must not be empty"))
		case strings.Contains(base, "?"):
			s.fail(invalid("WithDir", "directory %q must not contain '?'", base))
		}
		s.dir = base
	}
}

// WithPath stores the database in the file at path instead of under a base
// directory. Several agents may share one file. No memory.md is written
// unless [WithMarkdownPath] is also given.
func WithPath(path string) Option {
	return func(s *settings) {
		switch {
		case path == "":
			s.fail(invalid("WithPath", "path must not be empty"))
		case strings.Contains(path, "?"):
			// The path becomes a SQLite DSN, where '?' starts the options.
			s.fail(invalid("WithPath", "path %q must not contain '?'", path))
		}
		s.path = path
	}
}

// WithPostgres stores the memory in the PostgreSQL database (version 15
// or newer) that dsn names, instead of a SQLite file: a URL
// ("postgres://user:pass@host:5432/db?sslmode=disable") or key=value
// pairs ("host=/run/postgresql dbname=engram"), as pgx reads them. Many
// processes, on many machines, may open the same agents there at once:
// writes to one agent are serialised across them, reads never wait for
// writes, and each process's in-memory indexes follow the others'
// writes. New and [Open] create engram's tables when the database has
// none (in the schema the DSN's search_path names first), and bring an
// older schema up to date; several processes starting together migrate
// it once.
//
// Search, recall and every other operation give the same answers as on
// SQLite. What is SQLite's alone returns an error matching
// [ErrUnsupported]: [Memory.Backup] of the whole database (use
// [Memory.BackupAgent], [Memory.Export], or pg_dump); a forget deletes
// the rows and vacuums the tables, but PostgreSQL keeps no promise like
// SQLite's secure_delete that the bytes are gone from its files at once
// (see docs/scale.md). No memory.md is written unless
// [WithMarkdownPath] is also given. It cannot be combined with
// [InMemory], [WithPath] or [WithDir]: an error matching [ErrInvalid].
func WithPostgres(dsn string) Option {
	return func(s *settings) {
		if dsn == "" {
			s.fail(invalid("WithPostgres", "the DSN must not be empty"))
		}
		s.postgres = dsn
	}
}

// WithReadOnly opens an existing database for reading only, as [New]
// does by itself when the file or its directory cannot be written (a
// read-only mount, an immutable file, a directory without write
// permission). Every read works; every write (a store, an update, a
// delete, compaction, an import, [Memory.Flush] with working items to
// keep, [Memory.ImportMarkdown], [Memory.ExportMarkdown]) returns an
// error matching [ErrReadOnly] and changes nothing. The Memory writes
// nothing behind the caller's back either: searches and recalls note no
// access counts, [Memory.Bootstrap] imports no edit of memory.md and
// writes none, and Close writes nothing. Not a byte of the database file
// changes, and SQLite adds nothing to its write-ahead log; in a directory
// it may write, SQLite may make the -wal and -shm files beside it that
// every reader of a database in WAL mode needs. Where it may not, and no
// -wal holds writes, SQLite reads the file without the locks that need
// the -shm: another process that may write the database must then not
// write it while the Memory is open.
//
// New then creates nothing: a database that does not exist is an error
// matching [ErrNotFound], and one written by an older engram, whose
// schema would have to be brought up to date, an error matching
// [ErrReadOnly]. With [InMemory] it is an error matching [ErrInvalid].
func WithReadOnly() Option { return func(s *settings) { s.readOnly = true } }

// InMemory keeps the database in memory; it is gone after [Memory.Close].
// No memory.md is written unless [WithMarkdownPath] is also given. Reads
// and writes share the database's one connection, so a write waits for a
// running read (on a file, reads run beside the writer on snapshots).
func InMemory() Option { return func(s *settings) { s.inMemory = true } }

// WithMarkdownPath writes the memory.md projection to path (mode 0600).
// [New] refuses the database's own file and its -wal, -shm and -journal
// files.
func WithMarkdownPath(path string) Option {
	return func(s *settings) {
		if path == "" {
			s.fail(invalid("WithMarkdownPath", "path must not be empty"))
		}
		s.mdPath = path
	}
}

// WithWorkingCapacity sets how many items the working set holds (default 7).
func WithWorkingCapacity(n int) Option { return func(s *settings) { s.cfg.Working.Capacity = n } }

// WithEviction sets the working set's eviction policy (default [EvictLRU]).
func WithEviction(p EvictionPolicy) Option { return func(s *settings) { s.cfg.Working.Eviction = p } }

// WithClock sets the clock engram reads, once per operation, for every
// timestamp it makes. Tests use it to make time deterministic.
func WithClock(now func() time.Time) Option {
	return func(s *settings) {
		if now == nil {
			s.fail(invalid("WithClock", "clock must not be nil"))
			return
		}
		s.clock = now
	}
}

// WithLogger sets where engram logs what it does (at debug level) and what
// it could not do but recovered from (at warn level). The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) {
		if l == nil {
			s.fail(invalid("WithLogger", "logger must not be nil"))
			return
		}
		s.logger = l
	}
}

// WithConfig replaces the whole configuration; start from [DefaultConfig].
// Options after it, such as [WithWorkingCapacity], still apply.
func WithConfig(c Config) Option { return func(s *settings) { s.cfg = c } }

// WithLLM gives the Memory a language model, which [Memory.Extract] then
// uses beside the extraction rules. engram never calls a model unless this
// option is given; see the packages openai (an OpenAI-compatible chat,
// which also reaches Ollama) and gemini for clients.
func WithLLM(llm LLM) Option {
	return func(s *settings) {
		if llm == nil {
			s.fail(invalid("WithLLM", "the LLM is nil"))
		}
		s.llm = llm
	}
}

// WithEmbedder gives a Tier 2 Memory the embedder that turns its memories
// and queries into vectors; Tier 2 needs one and Tier 1 takes none.
// [NewHashingEmbedder] works offline with no model; the embedders of the
// packages openai, ollama and gemini call a model's API. A database
// remembers the dimension and model of its vectors: opening it with an
// embedder of another dimension is an error (unless
// [WithDimensionChange]), and with another model of the same dimension
// every memory is embedded again (see [Memory.Reindex]).
func WithEmbedder(e Embedder) Option {
	return func(s *settings) {
		if e == nil {
			s.fail(invalid("WithEmbedder", "the embedder is nil"))
		}
		s.embedder = e
	}
}

// WithDimensionChange lets a Tier 2 Memory open a database whose vectors
// have another dimension than its embedder's, as after a move to another
// embedding model: the stored vectors, of every agent in the file, are
// dropped, and every memory is marked pending, to be embedded again by
// [Memory.Reindex] or [Memory.Flush]; text search finds them meanwhile.
// Other handles still open on the file with the old embedder fail to
// search by vector or write until they are reopened with the new one.
// Without a change of dimension it does nothing. It implies
// [WithModelChange].
func WithDimensionChange() Option { return func(s *settings) { s.newDims = true } }

// WithModelChange lets a Tier 2 Memory open a file shared with other
// agents that hold vectors of another embedding model (of the same
// dimension): the stored vectors, of every agent in the file, are dropped,
// and every memory is marked pending, to be embedded again by each agent's
// [Memory.Reindex] or [Memory.Flush]. A file holds the vectors of one
// model, so without this option [New] refuses another model while another
// agent has vectors in the file (an error matching [ErrInvalid]) and
// touches nothing; an agent alone with its vectors changes model freely.
func WithModelChange() Option { return func(s *settings) { s.newModel = true } }

// WithExistingVectors makes a Tier 2 Memory use the vectors its database
// holds as they are, for a caller that only reads: opening records no
// embedder in the database, makes no vector tables and drops no vectors
// (it still brings an older Tier 2 schema up to date, as [New] does the
// rest of the schema). [New] returns [ErrNoVectors] for a database that
// holds no vectors yet (open it at Tier 1, or without this option to set
// its vectors up) and a [*VectorMismatchError] for vectors of another
// dimension or model than the embedder's. It excludes
// [WithDimensionChange] and [WithModelChange].
func WithExistingVectors() Option { return func(s *settings) { s.existing = true } }

package engram

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/bm25"
)

// MemoryType names one of the four kinds of memory.
type MemoryType string

// The kinds of memory.
const (
	TypeSemantic   MemoryType = "semantic"   // long-term knowledge, projected to memory.md
	TypeEpisodic   MemoryType = "episodic"   // events of the agent's days
	TypeProcedural MemoryType = "procedural" // learned workflows
	TypeWorking    MemoryType = "working"    // the small in-process working set
	// TypeSnapshot is a session snapshot (see [Episodic.SaveSnapshot]):
	// search finds snapshots by their summary, decisions and messages.
	TypeSnapshot MemoryType = "snapshot"
	// TypeFact is a subject–predicate–object fact (see [Facts]): search
	// finds the facts that hold now.
	TypeFact MemoryType = "fact"
	// TypeDocument is a chunk of a markdown document (see [Memory.Ingest]):
	// search finds chunks by their title, heading path, text and tags,
	// and a result names where the chunk was found (see [Result].Source).
	TypeDocument MemoryType = "document"
)

// memoryTypes lists every memory type, in the order messages list them
// (the one list of their names, see [MemoryTypes]): the stored kinds in
// the registry's order (see kinds.go), the working set after the first
// three; memoryTypeAliases are the other names [ParseMemoryType] takes
// for them, from the registry too: plurals, and the nouns people type for
// a kind.
var memoryTypes, memoryTypeAliases = func() ([]MemoryType, map[string]MemoryType) {
	types := []MemoryType{}
	aliases := map[string]MemoryType{}
	for _, k := range kinds {
		types = append(types, k.typ)
		for _, a := range k.aliases {
			aliases[a] = k.typ
		}
	}
	return slices.Insert(types, 3, TypeWorking), aliases
}()

// MemoryTypes returns every memory type, a new slice on each call.
func MemoryTypes() []MemoryType { return slices.Clone(memoryTypes) }

// ParseMemoryType returns the memory type s names: its own name
// ("procedural"), its plural or the noun of one ("procedures",
// "procedure"; "note", "episode", "facts", "triple", "docs", "chunk" …), in any
// case and with spaces around it ignored. It returns an
// [*InvalidError] matching [ErrInvalid], which lists the valid names, for
// anything else.
func ParseMemoryType(s string) (MemoryType, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if t := MemoryType(name); slices.Contains(memoryTypes, t) {
		return t, nil
	}
	if t, ok := memoryTypeAliases[name]; ok {
		return t, nil
	}
	return "", unknownMemoryType("memory type", s)
}

// unknownMemoryType is the error for a memory type named s that is none,
// naming field and listing the valid names.
func unknownMemoryType(field, s string) error {
	names := make([]string, len(memoryTypes))
	for i, t := range memoryTypes {
		names[i] = string(t)
	}
	return invalid(field, "unknown memory type %q: use %s or %s", s,
		strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Validate returns an error matching [ErrInvalid], which lists the valid
// names, unless t is a known type (by its own name: see
// [ParseMemoryType] for the others).
func (t MemoryType) Validate() error {
	if slices.Contains(memoryTypes, t) {
		return nil
	}
	return unknownMemoryType("memory type", string(t))
}

// EvictionPolicy decides which working item leaves when the working set is
// full.
type EvictionPolicy string

// Eviction policies.
const (
	// EvictFIFO evicts the item added longest ago.
	EvictFIFO EvictionPolicy = "fifo"
	// EvictLRU evicts the item used longest ago. Adding an item, looking it
	// up with [Working.Get] and matching it with [Working.Find] count as use.
	EvictLRU EvictionPolicy = "lru"
	// EvictImportance evicts the least important item, the oldest among
	// equals.
	EvictImportance EvictionPolicy = "importance"
)

// Validate returns an error matching [ErrInvalid] unless p is a known policy.
func (p EvictionPolicy) Validate() error {
	switch p {
	case EvictFIFO, EvictLRU, EvictImportance:
		return nil
	}
	return invalid("eviction policy", "unknown eviction policy %q", string(p))
}

// EventType classifies an episode.
type EventType string

// Event types, as in the seed's daily log.
const (
	EventTaskStarted      EventType = "task-started"
	EventTaskCompleted    EventType = "task-completed"
	EventTaskFailed       EventType = "task-failed"
	EventDecisionMade     EventType = "decision-made"
	EventErrorEncountered EventType = "error-encountered"
	EventUserFeedback     EventType = "user-feedback"
	EventToolCall         EventType = "tool-call"
	EventObservation      EventType = "observation"
	// EventDigest is a day of older episodes rolled into one by time-based
	// compaction (see [Memory.Compact]).
	EventDigest EventType = "digest"
)

// Validate returns an error matching [ErrInvalid] unless e is a known event
// type.
func (e EventType) Validate() error {
	switch e {
	case EventTaskStarted, EventTaskCompleted, EventTaskFailed, EventDecisionMade,
		EventErrorEncountered, EventUserFeedback, EventToolCall, EventObservation, EventDigest:
		return nil
	}
	return invalid("event type", "unknown event type %q", string(e))
}

// LinkType is the relation a [Link] expresses.
type LinkType string

// Link types, as in the seed's Zettelkasten.
const (
	LinkSimilar     LinkType = "similar"
	LinkSequential  LinkType = "sequential"
	LinkCausal      LinkType = "causal"
	LinkContradicts LinkType = "contradicts"
	LinkSupports    LinkType = "supports"
	LinkElaborates  LinkType = "elaborates"
)

// Validate returns an error matching [ErrInvalid] unless l is a known link
// type.
func (l LinkType) Validate() error {
	switch l {
	case LinkSimilar, LinkSequential, LinkCausal, LinkContradicts, LinkSupports, LinkElaborates:
		return nil
	}
	return invalid("link type", "unknown link type %q", string(l))
}

// CompactionStrategy selects how compaction keeps memory within bounds.
type CompactionStrategy string

// Compaction strategies, as in the seed.
const (
	CompactCount       CompactionStrategy = "count"       // keep each type under MaxEntries
	CompactTime        CompactionStrategy = "time"        // retire old episodes on a schedule
	CompactSemantic    CompactionStrategy = "semantic"    // merge near-duplicates
	CompactProgressive CompactionStrategy = "progressive" // count, then time, then semantic, then decay
)

// Validate returns an error matching [ErrInvalid] unless s is a known
// strategy.
func (s CompactionStrategy) Validate() error {
	switch s {
	case CompactCount, CompactTime, CompactSemantic, CompactProgressive:
		return nil
	}
	return invalid("compaction strategy", "unknown compaction strategy %q", string(s))
}

// SemanticEntry is a piece of long-term knowledge.
//
// When storing, an empty ID gets a new time-ordered ID, a zero CreatedAt
// gets the clock's now, and an empty Summary is derived from Content.
// UpdatedAt, AccessCount and LastAccessedAt are maintained by engram.
type SemanticEntry struct {
	ID      string
	Content string
	Summary string // one line for memory.md; derived from Content when empty
	// Importance is in [0, 1]; 0 means unset and is stored as
	// [DefaultImportance]. (A memory that matters least gets a small
	// positive importance, such as 0.01: decay archives memories of
	// importance under 0.5 that fade from use.)
	Importance     float64
	Verified       bool
	Tags           []string
	Source         string // who or what produced it: "agent", "user", "tool", …
	CreatedAt      time.Time
	UpdatedAt      time.Time
	AccessCount    int
	LastAccessedAt time.Time
	// Resonance is the entry's relevance after decay, in [0, 1]: set when
	// stored to what decay gives a memory of its importance at age 0
	// (0.3 + 0.3 × importance; see [DecayConfig]), so that new and decayed
	// memories rank on one scale, and recomputed by [Memory.Decay]. Store
	// ignores it.
	Resonance float64
	// MergedFrom names the near-duplicates compaction merged into this
	// entry (see [Memory.Compact]). Store ignores it.
	MergedFrom []string
	// Retrievals counts how often [Memory.Recall] admitted the memory into
	// the working set; engram maintains it (Store ignores it), as for
	// every kind of memory.
	Retrievals int
	// UserID and SessionID, when set, are the user and the session of the
	// agent the entry belongs to (see [Filter] and [ValidateUserID]; a
	// session ID is as an ID). They are set when the entry is stored and
	// Update leaves them.
	UserID, SessionID string
	// Metadata is the entry's metadata, which a [Filter] can select on:
	// at most 64 top-level keys, each 1 to 64 letters, digits and _ - . :,
	// values nested at most [MaxMetadataDepth] deep, at most
	// [MaxMetadataBytes] as JSON (see [MetaCond] for what it holds).
	// Read back, numbers are float64, lists []any and objects
	// map[string]any.
	Metadata map[string]any
}

// SemanticPatch changes some fields of a [SemanticEntry]; nil fields are
// left alone. With Go 1.26, new(expr) makes the pointers:
//
//	m.Semantic().Update(ctx, id, engram.SemanticPatch{Importance: new(0.9)})
type SemanticPatch struct {
	Content    *string
	Summary    *string
	Importance *float64
	Verified   *bool
	Tags       *[]string
}

// ListOptions pages through a listing. The zero value lists the first 100.
type ListOptions struct {
	Limit  int // at most this many; 0 means 100
	Offset int // skip this many first
	// Filter, when not nil, lists only the memories it keeps (see
	// [Filter]).
	Filter *Filter
}

// Episode is one event in the agent's episodic log (the seed's
// DailyLogEntry). Its day is the UTC date of CreatedAt.
type Episode struct {
	ID        string
	Content   string
	Type      EventType // the zero value is EventObservation
	TaskID    string
	SessionID string
	Cost      float64       // what the event cost, in the caller's unit
	Duration  time.Duration // how long it took
	Metadata  map[string]string
	CreatedAt time.Time
	// Retrievals counts how often [Memory.Recall] admitted the episode
	// into the working set; Log ignores it.
	Retrievals int
	// UserID, when set, is the user of the agent the episode belongs to
	// (see [Filter] and [ValidateUserID]).
	UserID string
}

// Day returns the UTC date of the episode, as YYYY-MM-DD.
func (e Episode) Day() string { return e.CreatedAt.UTC().Format(time.DateOnly) }

// Message is one message of a conversation.
type Message struct {
	Role    string    `json:"role"` // "user", "assistant", "system", "tool", …
	Content string    `json:"content"`
	Time    time.Time `json:"time,omitzero"`
}

// SessionSnapshot records how a session went: its messages, a summary and
// the decisions taken. A session may have several snapshots; engram keeps
// the newest [EpisodicConfig.MaxSnapshotsPerSession] of them.
type SessionSnapshot struct {
	ID           string // the snapshot's own ID; generated when empty
	SessionID    string // required
	Messages     []Message
	Summary      string
	KeyDecisions []string
	TaskIDs      []string
	StartedAt    time.Time
	EndedAt      time.Time // the zero value means the clock's now
	TotalCost    float64
	TotalTokens  int
	CreatedAt    time.Time
	// Retrievals counts how often [Memory.Recall] admitted the snapshot
	// into the working set; SaveSnapshot ignores it.
	Retrievals int
}

// Procedure is a learned workflow with its track record.
type Procedure struct {
	ID          string
	Name        string // unique per agent
	Description string
	Pattern     string  // the steps or template, in whatever form the agent uses
	SuccessRate float64 // in [0, 1]; the prior before any outcome is recorded
	UseCount    int
	Tags        []string
	Disabled    bool // disabled procedures are not listed as active
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// Retrievals counts how often [Memory.Recall] admitted the procedure
	// into the working set; Store ignores it.
	Retrievals int
	// UserID, SessionID and Metadata are as a [SemanticEntry]'s, set when
	// the procedure is stored; Update leaves them. A procedure's Name is
	// unique in its agent, whatever its user.
	UserID, SessionID string
	Metadata          map[string]any
}

// WorkingItem is an entry of the in-process working set.
type WorkingItem struct {
	ID         string // generated when empty
	Content    string
	Importance float64 // in [0, 1]
	Source     string
	Tags       []string
	AddedAt    time.Time // the clock's now when zero
	// Recalled is the kind of stored memory the item was recalled from
	// (see [Memory.Recall]; its ID is then [RecalledID] of the kind and
	// the memory's ID), or "" for an item the agent added. [Memory.Flush] does not store a recalled item again, and a
	// search returns the stored memory rather than its copy.
	Recalled MemoryType
}

// Link is a directed, typed edge between two memories of the same agent.
type Link struct {
	SourceID   string
	TargetID   string
	Type       LinkType
	Strength   float64    // in [0, 1]; the zero value means 1
	SourceType MemoryType // filled in by engram
	TargetType MemoryType // filled in by engram
	CreatedAt  time.Time
}

// LinkedMemory is a memory reached by [Links.Traverse].
type LinkedMemory struct {
	ID    string
	Type  MemoryType
	Depth int // the number of links on the shortest path from the start
}

// BootstrapResult is what an agent needs at the start of a session.
type BootstrapResult struct {
	AgentID string
	Tier    Tier
	// SemanticContext is the text of memory.md: the most important things
	// the agent knows.
	SemanticContext  string
	RecentEpisodes   []Episode   // newest first
	ActiveProcedures []Procedure // best success rate first
	Working          []WorkingItem
	BootstrappedAt   time.Time
	// MarkdownImport is what reading memory.md back did (see
	// [Memory.ImportMarkdown]), or nil when the file had not changed
	// since engram wrote it (or with [MarkdownExport]).
	MarkdownImport *MarkdownReport
}

// Stats counts what a Memory holds.
type Stats struct {
	Semantic   int
	Episodes   int
	Snapshots  int
	Procedures int
	Facts      int // every fact, current or not
	Documents  int // document chunks (see [Memory.Ingest])
	Links      int
	Working    int
	Archived   int // memories compaction archived (see [Memory.Restore])
	// PendingEmbeddings counts memories waiting for their vectors (Tier 2):
	// stored while the embedder failed, changed since they were embedded,
	// or not yet reached by a [Memory.Reindex]. [Memory.Flush] embeds them.
	PendingEmbeddings int
}

// Record is one memory of any kind (see [Memory.Get], [Memory.List] and
// [Memory.AddAll]): Type names the kind, and the field of that kind holds
// it (Semantic for [TypeSemantic], Episode for [TypeEpisodic], Procedure
// for [TypeProcedural], Fact for [TypeFact], Snapshot for [TypeSnapshot],
// Document for [TypeDocument]); the others are nil. A kind's field is
// here, beside its type and its count in [Stats].
type Record struct {
	Type      MemoryType
	Semantic  *SemanticEntry
	Episode   *Episode
	Procedure *Procedure
	Fact      *Fact
	Snapshot  *SessionSnapshot
	Document  *DocumentChunk
}

// Synchronous is the durability setting for commits.
type Synchronous string

// Durability settings. In WAL mode, SyncNormal never corrupts the database
// but may lose the last transactions on power loss; SyncFull does not.
// PostgreSQL ([WithPostgres]) keeps its own setting, synchronous_commit,
// which the database's administrator chooses (on by default: every
// commit waits for the flush of the write-ahead log; off makes SQLite's
// SyncNormal promise, ALTER DATABASE … SET synchronous_commit = off, or
// synchronous_commit=off in the DSN).
const (
	SyncNormal Synchronous = "normal"
	SyncFull   Synchronous = "full"
)

// Config holds every setting of a Memory. Start from [DefaultConfig] and
// change what you need; [New] validates it.
type Config struct {
	Working    WorkingConfig
	Semantic   SemanticConfig
	Episodic   EpisodicConfig
	Compaction CompactionConfig
	Decay      DecayConfig
	// NeverDecayTags protects memories carrying any of these tags: no
	// compaction, merge or decay ever archives them. Empty by default.
	NeverDecayTags []string
	Consolidation  ConsolidationConfig
	Extraction     ExtractionConfig
	Facts          FactsConfig
	Zettelkasten   ZettelkastenConfig
	Bootstrap      BootstrapConfig
	Search         SearchConfig
	Recall         RecallConfig
	Limits         Limits
	Storage        StorageConfig
	History        HistoryConfig
	Markdown       MarkdownConfig
}

// WorkingConfig configures the working set.
type WorkingConfig struct {
	Capacity int            // default 7
	Eviction EvictionPolicy // default EvictLRU
}

// SemanticConfig configures semantic memory and its memory.md projection.
type SemanticConfig struct {
	// MaxMarkdownLines caps memory.md, header included. Default 200.
	MaxMarkdownLines int
	// ImportanceThreshold is the importance a working item needs for
	// [Memory.Flush] to keep it in semantic memory. Default 0.7.
	ImportanceThreshold float64
}

// MarkdownMode says when memory.md is written and read back.
type MarkdownMode string

// Markdown modes, as in the seed.
const (
	// MarkdownSync (the seed's Mode A, the default) writes memory.md
	// whenever the database changes what it shows ([Memory.Flush],
	// [Memory.Bootstrap]) and reads a person's edits back first: at
	// Bootstrap, at Flush and on [Memory.ImportMarkdown].
	MarkdownSync MarkdownMode = "sync"
	// MarkdownExport (Mode B) writes memory.md only when asked
	// ([Memory.ExportMarkdown]) and never reads it back by itself;
	// [Memory.ImportMarkdown] still reads edits when called.
	MarkdownExport MarkdownMode = "export"
)

// MarkdownConfig configures memory.md and document ingestion.
type MarkdownConfig struct {
	// Mode is MarkdownSync (default) or MarkdownExport.
	Mode MarkdownMode
	// MaxFileBytes bounds a markdown file that ImportMarkdown or Ingest
	// reads; a larger one is reported and not read. Default 4 MiB.
	MaxFileBytes int
}

// EpisodicConfig configures episodic memory.
type EpisodicConfig struct {
	RetainDays             int // how long episodes are worth keeping; default 30
	MaxSnapshotsPerSession int // default 3
}

// CompactionConfig configures compaction, as in the seed; see
// [Memory.Compact] for what each strategy does.
type CompactionConfig struct {
	Strategy            CompactionStrategy // default CompactProgressive
	MaxEntries          int                // per memory type; default 1000
	Interval            time.Duration      // between time-based runs and Flush's runs; default 24h
	SimilarityThreshold float64            // near-duplicate similarity; default 0.92
}

// DecayConfig configures decay (seed 003). A memory's resonance is
// e^(−rate × days since last access) × (0.3 + 0.4 × min(1, accesses/10) +
// 0.3 × importance), with the rate of its type; see [Memory.Decay].
type DecayConfig struct {
	SemanticRate   float64 // per day; default 0.02 (facts fade slowly)
	EpisodicRate   float64 // per day; default 0.05
	ProceduralRate float64 // per day; default 0.01
	// MinResonance is the resonance below which a memory of importance
	// under 0.5 is archived. Default 0.1.
	MinResonance float64
}

// ConsolidationConfig configures promotion by [Memory.Consolidate].
type ConsolidationConfig struct {
	// A semantic entry retrieved PromoteEvery more times since it was last
	// promoted gains PromoteStep importance, up to PromoteMax. Defaults
	// 5, 0.05 and 0.9.
	PromoteEvery int
	PromoteStep  float64
	PromoteMax   float64
	// RecurDays is on how many different days the same event must occur
	// to become a semantic fact. Default 3.
	RecurDays int
}

// ExtractionConfig bounds LLM-based extraction (see [Memory.Extract]).
type ExtractionConfig struct {
	// MaxPromptBytes bounds the conversation text of one LLM call; a
	// longer conversation is sent in several calls. Default 16 KiB.
	MaxPromptBytes int
	// MaxResponseBytes bounds an LLM's answer; a longer one is an error.
	// Default 64 KiB.
	MaxResponseBytes int
}

// ZettelkastenConfig configures links between memories.
type ZettelkastenConfig struct {
	Enabled          bool    // default true
	LinkingThreshold float64 // minimum similarity to link; default 0.85
	MaxLinksPerEntry int     // default 10
}

// BootstrapConfig sizes what [Memory.Bootstrap] loads.
type BootstrapConfig struct {
	RecentEpisodes   int // default 20
	ActiveProcedures int // default 20
}

// Limits bound the size of what callers store.
type Limits struct {
	MaxContentBytes int // default 64 KiB
	MaxTags         int // default 32
	MaxTagBytes     int // default 64
	// MaxFactBytes bounds each part of a fact (subject, predicate,
	// object) and each of its sources; default 1 KiB.
	MaxFactBytes int
}

// StorageConfig configures the SQLite file.
type StorageConfig struct {
	Synchronous Synchronous   // default SyncNormal
	BusyTimeout time.Duration // wait for other processes' locks; default 5s
	// CacheMiB is the page cache of each connection, filled as needed
	// (the writer's is at most 8: see internal/store/sqlite). Default 2,
	// SQLite's own: the pages a search reads are few and the operating
	// system keeps the file's pages cached anyway, while 64 MiB per
	// reader held more than half of a process's resident memory at 100K
	// memories without making searches faster (BENCHMARKS.md, session 18).
	CacheMiB  int
	ReadConns int // reader connections; default 4
	// OpenFiles is how many agents' database files a [Store] over a base
	// directory keeps connections open to at once; the others' are
	// closed while idle and opened again by their next use. Default 16.
	OpenFiles int
}

// DefaultConfig returns the default configuration, with the seed's values.
// Each call returns a new value.
func DefaultConfig() Config {
	return Config{
		Working:  WorkingConfig{Capacity: 7, Eviction: EvictLRU},
		Semantic: SemanticConfig{MaxMarkdownLines: 200, ImportanceThreshold: 0.7},
		Episodic: EpisodicConfig{RetainDays: 30, MaxSnapshotsPerSession: 3},
		Compaction: CompactionConfig{
			Strategy:            CompactProgressive,
			MaxEntries:          1000,
			Interval:            24 * time.Hour,
			SimilarityThreshold: 0.92,
		},
		Decay:         DecayConfig{SemanticRate: 0.02, EpisodicRate: 0.05, ProceduralRate: 0.01, MinResonance: 0.1},
		Consolidation: ConsolidationConfig{PromoteEvery: 5, PromoteStep: 0.05, PromoteMax: 0.9, RecurDays: 3},
		Extraction:    ExtractionConfig{MaxPromptBytes: 16 << 10, MaxResponseBytes: 64 << 10},
		Facts:         FactsConfig{UserEntity: "User", PredicateSimilarity: 0.9},
		Zettelkasten:  ZettelkastenConfig{Enabled: true, LinkingThreshold: 0.85, MaxLinksPerEntry: 10},
		Bootstrap:     BootstrapConfig{RecentEpisodes: 20, ActiveProcedures: 20},
		Search: SearchConfig{
			TextWeight:       0.8,
			ImportanceWeight: 0.1,
			RecencyWeight:    0.1,
			RecencyHalfLife:  30 * 24 * time.Hour,
			ContextWeight:    0.7,
			DialogueWeight:   0.3,
			SessionWeight:    0.7,
			SessionSpread:    0.02,
			QuestionPenalty:  0.3,
			AnswerWeight:     1,
			Candidates:       50,
			PostingBudget:    300,
			RRFConstant:      60,
			HybridTextWeight: 1, HybridVectorWeight: 1,
			LexicalVectorWeight: 0.1,
			BM25K1:              bm25.DefaultK1, BM25B: bm25.DefaultB,
			IndexMax: 2_000_000,
		},
		Recall: RecallConfig{
			RelevanceWeight: 1, ExpectedValueWeight: 0.4, ControlWeight: 0.05, Control: 0.3,
			NoiseWeight: 0.02, NoiseStdDev: 0.05, NoiseSeed: 1, RetrievalSoftcap: 10,
			Threshold: 0.5, PerKind: 5,
		},
		Limits:   Limits{MaxContentBytes: 64 << 10, MaxTags: 32, MaxTagBytes: 64, MaxFactBytes: 1 << 10},
		Storage:  StorageConfig{Synchronous: SyncNormal, BusyTimeout: 5 * time.Second, CacheMiB: 2, ReadConns: 4, OpenFiles: 16},
		History:  HistoryConfig{Enabled: true, Retention: 365 * day},
		Markdown: MarkdownConfig{Mode: MarkdownSync, MaxFileBytes: 4 << 20},
	}
}

// clone returns a copy of c that shares no slice with it.
func (c Config) clone() Config {
	c.NeverDecayTags = slices.Clone(c.NeverDecayTags)
	c.Facts = c.Facts.clone()
	return c
}

// Validate returns an error matching [ErrInvalid] that names the first bad
// setting, or nil. Every numeric setting has a range, and NaN is in none:
//
//   - weights, rates, thresholds, importances and resonances: [0, 1]
//     (search weights: [0, 1000], not all zero)
//   - Working.Capacity [1, 1000]; Semantic.MaxMarkdownLines [10, 100000]
//   - Episodic.RetainDays [1, MaxDays]; Episodic.MaxSnapshotsPerSession
//     [1, 10000]
//   - Compaction.MaxEntries [1, 1e8]; Compaction.Interval and
//     Search.RecencyHalfLife (0, MaxDays days]
//   - Consolidation.PromoteEvery [1, 1e6]; Consolidation.RecurDays
//     [2, MaxDays]
//   - Extraction.MaxPromptBytes [256, 16 MiB]; MaxResponseBytes
//     [256, 64 MiB]
//   - Zettelkasten.MaxLinksPerEntry [0, 1000]; Bootstrap counts [0, 10000]
//   - Search.Candidates [1, 10000]; Search.PostingBudget [1, 1e8];
//     Search.IndexMax [0, 1e9];
//     Search.RRFConstant [0, 1e6]; Search.BM25K1 [0, 10]
//   - Recall weights [0, 1000]; Recall.Control [-1000, 1000];
//     Recall.NoiseStdDev [0, 10]; Recall.RetrievalSoftcap [1, 1e6];
//     Recall.Threshold [0, 1]; Recall.Cap [0, 1000]; Recall.PerKind
//     [1, 1000]
//   - Limits.MaxContentBytes [1, 16 MiB]; MaxTags [0, 1000]; MaxTagBytes
//     [1, 1024]; MaxFactBytes [1, 64 KiB]
//   - Facts.UserEntity: one line of at most MaxFactBytes; the predicates
//     of Facts.SingleValued, ManyValued and Synonyms: at least one word
//     each, and no synonym leading to another
//   - Storage.BusyTimeout [0, 1h]; CacheMiB [1, 4096]; ReadConns [1, 64]; OpenFiles [1, 10000]
//   - History.Retention (0, MaxDays days] when History.Enabled
//   - Markdown.Mode: MarkdownSync or MarkdownExport; Markdown.MaxFileBytes
//     [1 KiB, 256 MiB]
func (c Config) Validate() error {
	type check struct {
		ok    bool
		field string
		why   string
	}
	checks := []check{
		{between(c.Working.Capacity, 1, 1000), "Working.Capacity", "must be in [1, 1000]"},
		{between(c.Semantic.MaxMarkdownLines, 10, 100_000), "Semantic.MaxMarkdownLines", "must be in [10, 100000]"},
		{unit(c.Semantic.ImportanceThreshold), "Semantic.ImportanceThreshold", "must be in [0, 1]"},
		{between(c.Episodic.RetainDays, 1, MaxDays), "Episodic.RetainDays", "must be in [1, 36500]"},
		{between(c.Episodic.MaxSnapshotsPerSession, 1, 10_000), "Episodic.MaxSnapshotsPerSession", "must be in [1, 10000]"},
		{between(c.Compaction.MaxEntries, 1, 100_000_000), "Compaction.MaxEntries", "must be in [1, 100000000]"},
		{positiveUpTo(c.Compaction.Interval, MaxDays*day), "Compaction.Interval", "must be in (0, 36500 days]"},
		{unit(c.Compaction.SimilarityThreshold), "Compaction.SimilarityThreshold", "must be in [0, 1]"},
		{all(unit, c.Decay.SemanticRate, c.Decay.EpisodicRate, c.Decay.ProceduralRate), "Decay rates", "must be in [0, 1]"},
		{unit(c.Decay.MinResonance), "Decay.MinResonance", "must be in [0, 1]"},
		{between(c.Consolidation.PromoteEvery, 1, 1_000_000), "Consolidation.PromoteEvery", "must be in [1, 1000000]"},
		{unit(c.Consolidation.PromoteStep), "Consolidation.PromoteStep", "must be in [0, 1]"},
		{unit(c.Consolidation.PromoteMax), "Consolidation.PromoteMax", "must be in [0, 1]"},
		{between(c.Consolidation.RecurDays, 2, MaxDays), "Consolidation.RecurDays", "must be in [2, 36500]"},
		{between(c.Extraction.MaxPromptBytes, 256, 16<<20), "Extraction.MaxPromptBytes", "must be in [256, 16 MiB]"},
		{between(c.Extraction.MaxResponseBytes, 256, 64<<20), "Extraction.MaxResponseBytes", "must be in [256, 64 MiB]"},
		{unit(c.Zettelkasten.LinkingThreshold), "Zettelkasten.LinkingThreshold", "must be in [0, 1]"},
		{unit(c.Facts.PredicateSimilarity), "Facts.PredicateSimilarity", "must be in [0, 1]"},
		{between(c.Zettelkasten.MaxLinksPerEntry, 0, 1000), "Zettelkasten.MaxLinksPerEntry", "must be in [0, 1000]"},
		{between(c.Bootstrap.RecentEpisodes, 0, 10_000), "Bootstrap.RecentEpisodes", "must be in [0, 10000]"},
		{between(c.Bootstrap.ActiveProcedures, 0, 10_000), "Bootstrap.ActiveProcedures", "must be in [0, 10000]"},
		{all(weight, c.Search.TextWeight, c.Search.ImportanceWeight, c.Search.RecencyWeight), "Search weights", "must be in [0, 1000]"},
		{c.Search.TextWeight+c.Search.ImportanceWeight+c.Search.RecencyWeight > 0, "Search weights", "must not all be zero"},
		{positiveUpTo(c.Search.RecencyHalfLife, MaxDays*day), "Search.RecencyHalfLife", "must be in (0, 36500 days]"},
		{unit(c.Search.ContextWeight), "Search.ContextWeight", "must be in [0, 1]"},
		{unit(c.Search.DialogueWeight), "Search.DialogueWeight", "must be in [0, 1]"},
		{between(c.Search.SessionWeight, 0, 10), "Search.SessionWeight", "must be in [0, 10]"},
		{c.Search.SessionSpread >= 0 && c.Search.SessionSpread < 1, "Search.SessionSpread", "must be in [0, 1)"},
		{unit(c.Search.QuestionPenalty), "Search.QuestionPenalty", "must be in [0, 1]"},
		{unit(c.Search.AnswerWeight), "Search.AnswerWeight", "must be in [0, 1]"},
		{unit(c.Search.LexicalVectorWeight), "Search.LexicalVectorWeight", "must be in [0, 1]"},
		{between(c.Search.BM25K1, 0, 10), "Search.BM25K1", "must be in [0, 10]"},
		{unit(c.Search.BM25B), "Search.BM25B", "must be in [0, 1]"},
		{between(c.Search.Candidates, 1, 10_000), "Search.Candidates", "must be in [1, 10000]"},
		{between(c.Search.PostingBudget, 1, 100_000_000), "Search.PostingBudget", "must be in [1, 100000000]"},
		{between(c.Search.IndexMax, 0, 1_000_000_000), "Search.IndexMax", "must be in [0, 1000000000]"},
		{between(c.Search.RRFConstant, 0, 1e6), "Search.RRFConstant", "must be in [0, 1000000]"},
		{all(weight, c.Search.HybridTextWeight, c.Search.HybridVectorWeight) && c.Search.HybridTextWeight+c.Search.HybridVectorWeight > 0,
			"Search hybrid weights", "must be in [0, 1000] and not both zero"},
		{all(weight, c.Recall.RelevanceWeight, c.Recall.ExpectedValueWeight, c.Recall.ControlWeight, c.Recall.NoiseWeight), "Recall weights", "must be in [0, 1000]"},
		{between(c.Recall.Control, -1000, 1000), "Recall.Control", "must be in [-1000, 1000]"},
		{between(c.Recall.NoiseStdDev, 0, 10), "Recall.NoiseStdDev", "must be in [0, 10]"},
		{between(c.Recall.RetrievalSoftcap, 1, 1_000_000), "Recall.RetrievalSoftcap", "must be in [1, 1000000]"},
		{unit(c.Recall.Threshold), "Recall.Threshold", "must be in [0, 1]"},
		{between(c.Recall.Cap, 0, 1000), "Recall.Cap", "must be in [0, 1000] (0: the working set's capacity)"},
		{between(c.Recall.PerKind, 1, 1000), "Recall.PerKind", "must be in [1, 1000]"},
		{between(c.Limits.MaxContentBytes, 1, 16<<20), "Limits.MaxContentBytes", "must be in [1, 16 MiB]"},
		{between(c.Limits.MaxTags, 0, 1000), "Limits.MaxTags", "must be in [0, 1000]"},
		{between(c.Limits.MaxTagBytes, 1, 1024), "Limits.MaxTagBytes", "must be in [1, 1024]"},
		{between(c.Limits.MaxFactBytes, 1, 64<<10), "Limits.MaxFactBytes", "must be in [1, 64 KiB]"},
		{slices.Contains([]Synchronous{SyncNormal, SyncFull}, c.Storage.Synchronous), "Storage.Synchronous", "must be \"normal\" or \"full\""},
		{between(c.Storage.BusyTimeout, 0, time.Hour), "Storage.BusyTimeout", "must be in [0, 1h]"},
		{between(c.Storage.CacheMiB, 1, 4096), "Storage.CacheMiB", "must be in [1, 4096]"},
		{between(c.Storage.ReadConns, 1, 64), "Storage.ReadConns", "must be in [1, 64]"},
		{between(c.Storage.OpenFiles, 1, 10_000), "Storage.OpenFiles", "must be in [1, 10000]"},
		{!c.History.Enabled || positiveUpTo(c.History.Retention, MaxDays*day), "History.Retention", "must be in (0, 36500 days]"},
		{slices.Contains([]MarkdownMode{MarkdownSync, MarkdownExport}, c.Markdown.Mode), "Markdown.Mode", "must be \"sync\" or \"export\""},
		{between(c.Markdown.MaxFileBytes, 1<<10, 256<<20), "Markdown.MaxFileBytes", "must be in [1 KiB, 256 MiB]"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return invalid("config "+ch.field, "%s", ch.why)
		}
	}
	if err := c.Working.Eviction.Validate(); err != nil {
		return invalid("config Working.Eviction", "unknown eviction policy %q", string(c.Working.Eviction))
	}
	if err := c.Compaction.Strategy.Validate(); err != nil {
		return invalid("config Compaction.Strategy", "unknown strategy %q", string(c.Compaction.Strategy))
	}
	if err := validateFactPart("config Facts.UserEntity", c.Facts.UserEntity, c.Limits.MaxFactBytes); err != nil {
		return err
	}
	if _, err := c.Facts.predicates(); err != nil {
		return invalid("config Facts", "%v", err)
	}
	for i, t := range c.NeverDecayTags {
		if strings.TrimSpace(t) == "" {
			return invalid(fmt.Sprintf("config NeverDecayTags[%d]", i), "is empty")
		}
	}
	return nil
}

// DefaultImportance is the importance of a memory stored without one.
const DefaultImportance = 0.5

// MinTime and MaxTime bound the times engram stores and accepts, to the
// millisecond: from the first millisecond of year 1 to the last of year
// 9999, UTC. The zero time.Time (0001-01-01 00:00 UTC exactly) is not a
// time but "unset": where a field's doc says so it is filled in (usually
// with the clock's now), and a search bound left zero is open. The Unix
// epoch is an ordinary time.
var (
	MinTime = time.Date(1, 1, 1, 0, 0, 0, 1e6, time.UTC)
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
)

// validateTime returns an error matching ErrInvalid unless t is the zero
// time or within [MinTime, MaxTime].
func validateTime(field string, t time.Time) error {
	if t.IsZero() || !t.Before(MinTime) && !t.After(MaxTime) {
		return nil
	}
	return invalid(field, "%v is outside the supported range [%v, %v]", t, MinTime.Format(time.RFC3339Nano), MaxTime.Format(time.RFC3339Nano))
}

// between reports whether x is in [lo, hi] (NaN is not).
func between[T cmp.Ordered](x, lo, hi T) bool { return x >= lo && x <= hi }

// positiveUpTo reports whether d is in (0, hi].
func positiveUpTo(d, hi time.Duration) bool { return d > 0 && d <= hi }

// all reports whether ok holds for every x.
func all[T any](ok func(T) bool, xs ...T) bool {
	for _, x := range xs {
		if !ok(x) {
			return false
		}
	}
	return true
}

// unit reports whether f is in [0, 1] (NaN is not).
func unit(f float64) bool { return f >= 0 && f <= 1 }

// weight reports whether f is a usable weight, in [0, 1000] (NaN is not).
func weight(f float64) bool { return f >= 0 && f <= 1000 }

// MaxDays bounds every setting and argument counted in days (a century):
// far beyond any use, and far below where time arithmetic overflows.
const MaxDays = 36_500

// Input validation shared by the stores.

const maxIDBytes = 128

// validateText checks a required or optional piece of text.
func validateText(field, s string, required bool, maxBytes int) error {
	if required && strings.TrimSpace(s) == "" {
		return invalid(field, "must not be empty")
	}
	if !utf8.ValidString(s) {
		return invalid(field, "is not valid UTF-8")
	}
	if len(s) > maxBytes {
		return invalid(field, "is %d bytes, over the limit of %d", len(s), maxBytes)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalid(field, "contains a NUL byte")
	}
	return nil
}

// validateID checks an ID given by the caller. Empty IDs are allowed where
// engram generates one; the caller decides.
func validateID(field, id string) error {
	if id == "" {
		return invalid(field, "must not be empty")
	}
	if len(id) > maxIDBytes {
		return invalid(field, "is %d bytes, over the limit of %d", len(id), maxIDBytes)
	}
	if !utf8.ValidString(id) {
		return invalid(field, "is not valid UTF-8")
	}
	for _, r := range id {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return invalid(field, "contains whitespace or a control character")
		}
	}
	return nil
}

func validateImportance(field string, f float64) error {
	if math.IsNaN(f) || f < 0 || f > 1 {
		return invalid(field, "%v is outside [0, 1]", f)
	}
	return nil
}

func validateTags(field string, tags []string, lim Limits) error {
	if len(tags) > lim.MaxTags {
		return invalid(field, "has %d tags, over the limit of %d", len(tags), lim.MaxTags)
	}
	for i, t := range tags {
		f := fmt.Sprintf("%s[%d]", field, i)
		if strings.TrimSpace(t) == "" {
			return invalid(f, "must not be empty")
		}
		if err := validateText(f, t, true, lim.MaxTagBytes); err != nil {
			return err
		}
		if strings.ContainsAny(t, "\r\n") {
			return invalid(f, "must be one line")
		}
	}
	return nil
}

// cloneStrings copies s; nil stays nil.
func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

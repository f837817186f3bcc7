// Package engram gives an AI agent a memory that lasts: a small working set
// in process, and semantic, episodic and procedural memory in one SQLite
// file, with full-text search, links between memories and a human-readable
// memory.md of what the agent knows. It is pure Go (no cgo), runs in
// process and needs no server and no API key.
//
// # Getting started
//
// An agent runtime opens one [Memory] per agent, calls [Memory.Bootstrap]
// when a session starts, stores what it learns while it works and calls
// [Memory.Flush] and [Memory.Snapshot] when the session ends:
//
//	m, err := engram.New(engram.Tier1, engram.WithAgent("support-bot"))
//	if err != nil { … }
//	defer m.Close()
//
//	boot, err := m.Bootstrap(ctx)           // memory.md, recent episodes, procedures
//	m.Semantic().Store(ctx, engram.SemanticEntry{Content: "…", Importance: 0.8})
//	m.Episodic().Log(ctx, engram.Episode{Content: "…", Type: engram.EventDecisionMade})
//	m.Working().Add(engram.WorkingItem{Content: "…", Importance: 0.9})
//	m.Flush(ctx)                            // keep important working items, rewrite memory.md
//	m.Snapshot(ctx, engram.SessionSnapshot{SessionID: "…", Summary: "…"})
//
// A process serving many agents opens one [Store] instead, with [Open],
// and gets each agent's Memory from [Store.Agent]: the agents share its
// connections, and a base directory of many agents' files keeps a bounded
// number of them open.
//
// # The four kinds of memory
//
//   - [Working]: the handful of items (7 by default) the agent is thinking
//     about, in process, with FIFO, LRU or importance eviction.
//   - [Semantic]: long-term knowledge with importance, tags and access
//     counts, projected to memory.md.
//   - [Episodic]: the log of what happened, and snapshots of sessions
//     (searched like the other kinds).
//   - [Procedural]: learned workflows and how often they succeed.
//
// [Links] connect memories of any kind into a graph that
// [Links.Traverse] walks in one query.
//
// Memories of any kind, as [Record]s: [Memory.AddAll] stores entries,
// episodes, procedures and facts together in one transaction,
// [Memory.Get] finds a memory by ID whatever its kind, and [Memory.List]
// pages through every kind, newest first, by cursor.
//
// # Facts
//
// [Facts] keeps knowledge that stays true: subject–predicate–object
// triples ("Ada | lives in | London") with the times they hold in the
// world and the times engram learned and retired them. [Facts.Assert]
// consolidates in one transaction, offline: the same fact again is merged
// (its strength grows), a new value of a predicate that holds one value
// (lives in, works at, …; see [FactsConfig]) supersedes the old one, which
// ends but is never deleted, and a fact back-dated into the past slots
// into the timeline. [Facts.AsOf] answers what was true at a date,
// [Facts.KnownAt] what the agent believed then, [Facts.History] how a
// subject's predicate changed. Search, Recall, Context and memory.md show
// the facts that hold now.
//
// # Markdown both ways
//
// memory.md is written from the database and read back: a person's edits
// to its entries (text, importance, tags), new lines and removed lines
// come back into semantic memory at [Memory.Bootstrap], [Memory.Flush]
// and [Memory.ImportMarkdown], by a three-way comparison of what engram
// wrote, the file and the database; a conflict goes to the database, and
// what is not imported is reported and kept (see [MarkdownReport]).
// [Memory.Ingest] turns markdown documents into chunks of document memory
// ([TypeDocument]), split by heading and deduplicated, each citing its
// file and heading path in search results ([Result].Source).
//
// # Search
//
// [Memory.Search] finds memories of every kind from the words a person
// would use ("What did we decide about the deploy?"): any text is a valid
// query, compiled into a safe full-text expression, never passed raw to
// SQLite. Each [Result] carries its Score and the [ScoreParts] it is made
// of (text relevance, importance, recency), so a caller can see why a
// memory ranked where it did. Text relevance is BM25 with the statistics
// of the agent's whole memory, so every kind of memory ranks on one scale
// and no other agent's memories count. [Memory.Find] also says how the
// search ran. Storing a semantic entry links it to its near-duplicates
// ([Links.AutoLink]).
//
// # Users, sessions and filters
//
// One agent can serve many users: a semantic entry, an episode or a
// procedure may belong to a user and a session of its agent
// ([SemanticEntry].UserID and SessionID, [Episode].UserID) and carry
// metadata. One [Filter] type (a user, a session, kinds, tags, a time
// range, and metadata conditions built with [MetaEq], [MetaIn], [MetaGt],
// [MetaAnd], [MetaOr], [MetaNot] and the like) narrows
// [SearchOptions], [ContextOptions], [Memory.RecallWith], [MemoryQuery]
// ([Memory.List], the one listing of every kind, a page at a time),
// [ListOptions] ([Semantic.List]) and [ExportOptions]; a search
// filtered by user or session stays as fast as an unfiltered one.
// [Memory.ForgetUser] erases one user's memories as [Memory.Forget]
// erases one. Facts, snapshots (which have a session) and document
// chunks belong to the agent, not to a user: a filter by user leaves
// them out.
//
// # Recall and context
//
// [Memory.Recall] brings what memory holds about a query into the working
// set through a gate (seed 004's PBWM model, [RecallConfig]), and counts
// the retrievals; [Memory.Context] returns a token-budgeted markdown block
// for a system prompt, whose query-independent part comes first and stays
// byte-identical while memory does not change.
//
// # Tier 2: vectors
//
// [Tier2] adds vector search in the same file, with an [Embedder] given by
// [WithEmbedder]: [NewHashingEmbedder] works offline with no model; the
// packages [github.com/engram-go/engram/openai],
// [github.com/engram-go/engram/ollama] and
// [github.com/engram-go/engram/gemini] call a model's API. Each
// memory's vector is written in the memory's own transaction (sqlite-vec's
// vec0 tables); a memory the embedder could not embed is kept and embedded
// later ([Memory.Flush], [Memory.Reindex]). Searches are hybrid by
// default: full-text and vector rankings fused by reciprocal rank, or,
// with a [LexicalEmbedder] such as the hashing embedder, text's ranking
// refined by the cosines ([SearchMode]).
//
// # Staying healthy
//
// [Memory.Compact] keeps each kind of memory within its limits (count),
// rolls old days of episodes into digests (time) and merges near-duplicate
// facts (semantic); [Memory.Decay] lets unused memories fade and
// [Memory.Consolidate] promotes facts that keep being used and learns facts
// from events that recur. Nothing is deleted: what leaves goes to an
// archive, from where [Memory.Restore] brings it back. [Memory.Extract]
// turns conversation into memories and facts, by the agent's
// [ExtractionRule]s and, optionally, by an [LLM]; [Memory.ExtractWith]
// stores them as a user's and a session's.
//
// # Data the user owns
//
// Every change to a memory or a fact is appended to a history in the
// transaction that makes it, with who made it ([WithActor],
// [ContextWithActor]) and why ([ContextWithReason]): [Memory.History]
// reads one memory's, [Memory.Changes] the agent's as a feed.
// [Memory.Forget] erases one memory and [Memory.ForgetAgent] all of an
// agent's, from every table and file that held them or anything made of
// them; [ListAgents] lists the agents of a base directory or a file.
//
// # Export and import
//
// [Memory.Export] writes an agent's memory, of every kind, with its
// archive, links, fact aliases, rules and optionally vectors, as JSON
// Lines in a versioned format (docs/export-format.md); [Memory.Import]
// reads such a file into a Memory's own agent in one transaction, with a
// [Conflict] policy, refusing a malformed file with an [*ImportError]
// that names the line.
//
// # Storage
//
// Everything lives in one SQLite file in WAL mode, by default
// .engram/memory/{agent}/memory.db, beside the memory.md projection. Every
// write is one transaction: a memory, its full-text entry and its links are
// written together or not at all. Several agents may share a file
// ([WithPath]); a Memory only ever sees its own agent's rows. The schema is
// versioned, and a file written by a newer engram is refused
// ([ErrSchemaTooNew]). [Memory.Backup] copies the file while the agent
// works, and checks the copy before naming it; copying memory.db without
// its -wal loses the latest writes. [Memory.BackupAgent] copies the
// agent's memory alone, even from a shared file. [Memory.Summary] gives an overview of
// the agent's memory: counts, the newest of each kind, its common words.
//
// # Errors
//
// Errors are values to test with [errors.Is] and [errors.As]: bad input
// matches [ErrInvalid] (the concrete [*InvalidError] names the field), a
// missing memory [ErrNotFound], a duplicate ID [ErrExists], a call after
// Close [ErrClosed], and a SQLite failure is a [*DatabaseError]. A call that
// fails changes nothing.
//
// # Concurrency
//
// A Memory is safe for concurrent use by many goroutines. Writes queue
// inside the process, so concurrent writers never see "database is
// locked"; reads run beside writes.
package engram

// Package vocab is the one list of the words engram's transports name
// things by: the HTTP API's parameters and JSON properties
// (httpapi/openapi.json), the MCP tools' arguments (mcpserver) and the
// command line's flags (cmd/engram). A thing has one canonical word,
// spelled in snake_case in JSON, in query strings and in MCP
// ("known_at") and in kebab-case on the command line ("--known-at"); the
// other names some transports take for it (seed 004's camelCase
// "knownAt", the older "--task" of "--task-id") are its aliases, taken
// only beside the canonical word, never instead of it.
//
// The names of the kinds of memory and their aliases are engram's own
// list ([engram.MemoryTypes], [engram.ParseMemoryType]), not this one's.
//
// The tests of internal/vocab (HTTP, MCP) and of cmd/engram (the command
// line) fail when a transport uses a word that is not here, or an alias
// without its canonical word.
package vocab

import (
	"slices"
	"strings"
)

// Word is one canonical word and its aliases.
type Word struct {
	// Name is the canonical word, in snake_case.
	Name string
	// Aliases are the other names taken for it beside Name: camelCase
	// of seed 004, older flags.
	Aliases []string
	// HTTP is the HTTP API's spelling of the word when it is not Name
	// ("profile", seed 004's word for the agent); empty when it is.
	HTTP string
}

// words are the canonical words, grouped by what they name.
var words = []Word{
	// Whose memory.
	{Name: "agent", Aliases: []string{"profileId"}, HTTP: "profile"},
	{Name: "profiles"}, {Name: "slug"}, {Name: "agent_all"}, {Name: "agent_token"}, // slug: seed 004's path segment of a profile

	// A memory of any kind, and the fields every kind shares.
	{Name: "id"}, {Name: "ids"},
	{Name: "type", Aliases: []string{"kind"}},   // a memory's kind; a comma-separated list of kinds in a query string or flag
	{Name: "types", Aliases: []string{"kinds"}}, // a list of kinds, in JSON
	{Name: "memory"}, {Name: "memories"}, {Name: "memory_id"},
	{Name: "content"}, {Name: "tags"}, {Name: "source"}, {Name: "created_at"}, {Name: "updated_at"},
	{Name: "retrievals"}, {Name: "metadata", Aliases: []string{"meta"}},

	// The scope of a memory below its agent (a user, a session or run),
	// and the filter over it, user, session, kinds, tags, times and
	// metadata conditions (see engram.Filter and engram.MetaCond).
	{Name: "user_id", Aliases: []string{"user"}}, {Name: "session_id", Aliases: []string{"session"}},
	{Name: "filter"}, {Name: "key"}, {Name: "eq"}, {Name: "ne"}, {Name: "in"}, {Name: "gt"}, {Name: "gte"},
	{Name: "lt"}, {Name: "lte"}, {Name: "exists"}, {Name: "and"}, {Name: "or"}, {Name: "not"},

	// A semantic entry.
	{Name: "summary"}, {Name: "importance"}, {Name: "verified"}, {Name: "access_count"},
	{Name: "last_accessed_at"}, {Name: "resonance"}, {Name: "merged_from"},

	// An episode.
	{Name: "event_type"}, {Name: "task_id", Aliases: []string{"task"}},
	{Name: "cost"}, {Name: "duration"}, {Name: "duration_ms"},

	// A procedure.
	{Name: "name"}, {Name: "description"}, {Name: "pattern", Aliases: []string{"steps"}},
	{Name: "success_rate"}, {Name: "use_count"}, {Name: "disabled"},

	// A fact, and the questions asked of facts.
	{Name: "fact"}, {Name: "facts"}, {Name: "fact_id"},
	{Name: "subject"}, {Name: "predicate"}, {Name: "object"},
	{Name: "valid_from"}, {Name: "valid_to"}, {Name: "recorded_at"}, {Name: "expired_at"},
	{Name: "strength"}, {Name: "sources", Aliases: []string{"source"}},
	{Name: "action"}, {Name: "superseded"},
	{Name: "entity"}, {Name: "direction"}, {Name: "as_of", Aliases: []string{"asOf"}},
	{Name: "known_at", Aliases: []string{"knownAt"}}, {Name: "history"},

	// A session snapshot, a document chunk, messages.
	{Name: "key_decisions"}, {Name: "task_ids"}, {Name: "messages"}, {Name: "message"}, {Name: "role"}, {Name: "time"},
	{Name: "started_at"}, {Name: "ended_at"}, {Name: "total_cost"}, {Name: "total_tokens"},
	{Name: "also"}, {Name: "heading"}, {Name: "chunk"}, {Name: "chunks"}, {Name: "title"}, {Name: "documents"},
	{Name: "ext"}, {Name: "max_chunk_chars"}, {Name: "extract"},

	// Listing, searching, recalling, context.
	{Name: "limit"}, {Name: "cursor"}, {Name: "next_cursor"}, {Name: "count"},
	{Name: "since"}, {Name: "until"}, {Name: "query"}, {Name: "mode"}, {Name: "threshold"}, {Name: "advanced"},
	{Name: "recall"}, {Name: "results"}, {Name: "score"}, {Name: "snippet"}, {Name: "terms"}, {Name: "pending"},
	{Name: "per_kind"}, {Name: "working_memory"}, {Name: "admitted"}, {Name: "gate"}, {Name: "relevance"},
	{Name: "recency"}, {Name: "noise"}, {Name: "control"}, {Name: "expected_value"}, {Name: "fused"},
	{Name: "context_of"}, {Name: "dialogue"}, {Name: "dialogue_with"}, {Name: "session_match"}, {Name: "question"}, {Name: "spread"}, {Name: "vector"}, {Name: "text"},
	{Name: "max_tokens", Aliases: []string{"tokens"}}, {Name: "tokens"}, {Name: "stable"}, {Name: "sections"},
	{Name: "omitted"},

	// The summary.
	{Name: "high_importance"}, {Name: "recently_accessed"}, {Name: "recent_window_seconds"}, {Name: "recent"},
	{Name: "keywords"}, {Name: "stem"}, {Name: "last_id"}, {Name: "last_created_at"},

	// Ingesting and extraction rules.
	{Name: "reasoning"}, {Name: "feedback"}, {Name: "items"}, {Name: "item"}, {Name: "stored"}, {Name: "duplicates"},
	{Name: "rejected"}, {Name: "episodes"}, {Name: "note"}, {Name: "reason"}, {Name: "field"}, {Name: "list"},
	{Name: "index"}, {Name: "rule"}, {Name: "rules"}, {Name: "active"}, {Name: "extracted"}, {Name: "ingested"},
	{Name: "file"}, {Name: "skipped"}, {Name: "replaced"}, {Name: "linked"}, {Name: "path"}, {Name: "parts"},

	// Changes and history.
	{Name: "entries"}, {Name: "op"}, {Name: "at"}, {Name: "seq"}, {Name: "after_seq", Aliases: []string{"afterSeq"}},
	{Name: "actor"}, {Name: "before"}, {Name: "after"}, {Name: "target"},
	{Name: "before_seq", Aliases: []string{"beforeSeq"}}, {Name: "last_change"},

	// An agent's counts (GET /v1/stats) and a memory's links.
	{Name: "counts"}, {Name: "total"}, {Name: "links"}, {Name: "working"}, {Name: "pending_embeddings"},
	{Name: "other"}, {Name: "other_type"}, {Name: "source_id"}, {Name: "source_type"}, {Name: "target_id"},
	{Name: "target_type"}, {Name: "supports"},

	// The graph.
	{Name: "from"}, {Name: "to"}, {Name: "depth"}, {Name: "max_depth", Aliases: []string{"maxDepth"}},
	{Name: "max_nodes", Aliases: []string{"maxNodes"}}, {Name: "max_results", Aliases: []string{"maxResults"}},
	{Name: "include_history", Aliases: []string{"includeHistory"}}, {Name: "nodes"}, {Name: "edges"},
	{Name: "neighbors"}, {Name: "hops"}, {Name: "paths"}, {Name: "center"}, {Name: "label"}, {Name: "triples"},
	{Name: "x"}, {Name: "format"},

	// Export, import, backup, maintenance.
	{Name: "vectors"}, {Name: "conflict"}, {Name: "added"}, {Name: "archived"}, {Name: "deleted"}, {Name: "updated"},
	{Name: "bytes"}, {Name: "output"}, {Name: "backups"}, {Name: "strategy"}, {Name: "dimension_change"}, {Name: "yes"},
	{Name: "status"},

	// Errors.
	{Name: "error"}, {Name: "errors"}, {Name: "code"},

	// The command line's and the servers' own settings.
	{Name: "dir"}, {Name: "postgres"}, {Name: "tier"}, {Name: "embedder"}, {Name: "embedder_url"}, {Name: "embedder_model"}, {Name: "dims"},
	{Name: "json"}, {Name: "addr"}, {Name: "token"}, {Name: "cors_origin"}, {Name: "llm"}, {Name: "llm_url"}, {Name: "llm_model"},
}

// Words returns the canonical words and their aliases, a new slice on
// each call.
func Words() []Word {
	out := slices.Clone(words)
	for i := range out {
		out[i].Aliases = slices.Clone(out[i].Aliases)
	}
	return out
}

// Spelling returns w's word as transport spells it: "http" and "mcp"
// as JSON does (snake_case, or HTTP's own word), "cli" in kebab-case.
func (w Word) Spelling(transport string) string {
	switch transport {
	case "http":
		if w.HTTP != "" {
			return w.HTTP
		}
	case "cli":
		return Kebab(w.Name)
	}
	return w.Name
}

// Kebab returns the command line's spelling of a snake_case word:
// "known_at" is "known-at".
func Kebab(s string) string { return strings.ReplaceAll(s, "_", "-") }

// Snake returns the snake_case word of a command line flag: "known-at"
// is "known_at".
func Snake(s string) string { return strings.ReplaceAll(s, "-", "_") }

// Verdict is what Check says of a name a transport uses in one place.
type Verdict struct {
	Name string
	// Canonical is the word Name is an alias of; empty when Name is
	// canonical itself, or unknown.
	Canonical string
	// Known says Name is in the list, as a word or an alias.
	Known bool
}

// Check judges the names transport uses in one place (an operation's
// parameters, an object's properties, a tool's arguments, a command's
// flags), each spelled as transport spells words: it returns the
// verdicts of the names that are not words of the list, and of the
// aliases used without their canonical word in the same place. It
// returns nil when every name is right.
func Check(transport string, names []string) []Verdict {
	canon := map[string]bool{}
	alias := map[string]string{}
	for _, w := range words {
		canon[w.Spelling(transport)] = true
	}
	for _, w := range words {
		for _, a := range w.Aliases {
			if transport == "cli" {
				a = Kebab(a)
			}
			if !canon[a] {
				alias[a] = w.Spelling(transport)
			}
		}
	}
	var out []Verdict
	for _, n := range names {
		switch to, ok := alias[n]; {
		case canon[n]:
		case ok && slices.Contains(names, to):
		case ok:
			out = append(out, Verdict{Name: n, Canonical: to, Known: true})
		default:
			out = append(out, Verdict{Name: n})
		}
	}
	return out
}

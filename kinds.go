package engram

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// kind describes how one kind of stored memory lives in the database, once,
// for every piece of engram that works on all kinds alike: search (text and
// vector), the change log, compaction and the archive, decay, links,
// integrity checks and statistics derive their per-kind SQL from it. A new
// kind is an entry here, the kind's own file (its Go type, validation and
// methods) and the migration that makes its table, indexes and triggers.
//
// SQL fragments are templates over a row named {t}: "{t}.content" becomes
// "s.content" over a table aliased s, "new.content" in a trigger, or
// "(row ->> '$.content')" over the archive's JSON copy of a row (see over
// and overJSON).
type kind struct {
	typ   MemoryType
	noun  string // what messages call one: "semantic entry"
	table string // its rows: pk INTEGER PRIMARY KEY, id, agent_id, …
	// cols are the row's columns besides pk and agent_id (and generated
	// columns): what the archive keeps of a row (in JSON) and Restore
	// writes back, what history records of a change and what an export
	// writes.
	cols []string
	// writeAs names, for a column of cols that is generated from another
	// (which a write names instead), that other: semantic entries'
	// summary is generated from summary_own, which holds '' when the
	// summary is the content (see compactSummary).
	writeAs map[string]string
	// text is the kind's text: what a search result shows, what Tier 2
	// embeds and what the change log reports: columns joined with ||
	// and string literals. textCols are the columns it is made of, and
	// textParts the template parsed, for textFrom.
	text      string
	textCols  []string
	textParts []textPart
	textErr   error // the text is more than textFrom can make
	// tagged says the rows have a tags column (a JSON list); search's tag
	// filter leaves the other kinds out.
	tagged bool
	// importance is what a search blends in as the row's importance: its
	// importance (or what stands for it) times its resonance; compaction
	// archives the lowest first. touched is when it was last created,
	// changed or used, for recency.
	importance, touched string
	// maxImportance is the most importance can be, by the CHECK
	// constraints of its columns or as a constant: a search that reads
	// rows only to rank them skips those whose score, with this
	// importance and full recency, could not reach its results (see
	// Memory.readRanked).
	maxImportance float64
	// fts is the row's full-text index (FTS5), vocab its fts5vocab table;
	// "" when the kind is not searched by text. indexed are the texts the
	// index holds of a row, as its triggers give them to FTS5; the row's
	// term vector (its terms and ntok columns, see internal/bm25) is made
	// of the same texts, by the kind's own code when it writes the row.
	fts, vocab string
	indexed    []string
	// tombstones says the full-text index keeps no copy of the texts
	// (contentless): a delete marks the row's terms deleted and leaves
	// them in the index until its segments are merged.
	tombstones bool
	// strength is the evidence behind a row, which recall's expected
	// value weighs (see RecallConfig).
	strength string
	// vec is the kind's vec0 table in Tier 2; "" when it has no vectors.
	vec string
	// linkable says links may start or end at its rows.
	linkable bool
	// protected, when compaction may archive the kind, is the condition
	// that keeps a row whatever its value (?2 is Config.NeverDecayTags as
	// JSON); "" when compaction never archives the kind.
	protected string
	// decay says how resonance is computed; nil when the kind has none.
	decay *decayRule
	// live, when not "", is the condition that a row is found by search
	// at the time {now} (the search's clock, in Unix milliseconds): a
	// fact is found while it holds, not after it ended. See liveAt.
	live string
	// session, when not "", is the session a row was logged in: the rows
	// of a session, in (created_at, pk) order, are each other's context
	// in a search (see withContext).
	session string
	// count is where Stats counts the kind.
	count func(*Stats) *int
	// cite, when not "", is where a row was found, for a search result
	// to cite (see Result.Source).
	cite string
	// userCol, sessionCol and metaCol are the columns of a row's user,
	// session and metadata (a JSON object), "" for a kind without one: a
	// [Filter] naming a user, a session or metadata conditions leaves out
	// the kinds without the column (see filter.go).
	userCol, sessionCol, metaCol string
}

// decayRule is a kind's part of decay's formula (see DecayConfig): days
// since since, uses accesses, importance importance (all templates), at
// rate per day. archive says that rows fading below MinResonance with
// importance under 0.5 leave for the archive.
type decayRule struct {
	since, uses, importance string
	rate                    func(DecayConfig) float64
	archive                 bool
}

// The kinds of stored memory. The working set lives in process and is no
// kind of its own here.
var (
	semanticKind = &kind{
		typ: TypeSemantic, noun: "semantic entry", table: "semantic_memory",
		cols:    strings.Fields("id content summary importance verified tags source content_hash created_at updated_at access_count last_accessed_at resonance merged_from promoted_at_count retrievals terms ntok user_id session_id metadata"),
		writeAs: map[string]string{"summary": "summary_own"},
		userCol: "user_id", sessionCol: "session_id", metaCol: "metadata",
		text:          "{t}.content",
		tagged:        true,
		importance:    "{t}.importance * {t}.resonance",
		maxImportance: 1,
		touched:       "max({t}.updated_at, {t}.last_accessed_at)",
		fts:           "semantic_fts", vocab: "semantic_vocab", indexed: []string{"{t}.content", "{t}.tags"},
		strength:  "1 + json_array_length({t}.merged_from)",
		vec:       "vec_semantic",
		linkable:  true,
		protected: "({t}.verified OR " + neverDecay + ")",
		decay: &decayRule{since: "{t}.last_accessed_at", uses: "{t}.access_count", importance: "{t}.importance",
			rate: func(d DecayConfig) float64 { return d.SemanticRate }, archive: true},
		count: func(s *Stats) *int { return &s.Semantic },
	}
	episodicKind = &kind{
		typ: TypeEpisodic, noun: "episode", table: "episodic_log",
		cols:    strings.Fields("id content event_type task_id session_id cost duration_ns metadata created_at resonance retrievals terms ntok user_id"),
		userCol: "user_id", sessionCol: "session_id", metaCol: "metadata",
		text:          "{t}.content",
		importance:    fmt.Sprint(episodeImportance) + " * {t}.resonance",
		maxImportance: episodeImportance,
		session:       "{t}.session_id",
		touched:       "{t}.created_at",
		fts:           "episodic_fts", vocab: "episodic_vocab", indexed: []string{"{t}.content"},
		strength:  "1",
		vec:       "vec_episodic",
		linkable:  true,
		protected: "0",
		decay: &decayRule{since: "{t}.created_at", uses: "0", importance: fmt.Sprint(episodeImportance),
			rate: func(d DecayConfig) float64 { return d.EpisodicRate }},
		count: func(s *Stats) *int { return &s.Episodes },
	}
	proceduralKind = &kind{
		typ: TypeProcedural, noun: "procedure", table: "procedural_memory",
		cols:    strings.Fields("id name description pattern success_rate use_count tags disabled created_at updated_at resonance retrievals terms ntok user_id session_id metadata"),
		userCol: "user_id", sessionCol: "session_id", metaCol: "metadata",
		text:          "{t}.name || ': ' || {t}.description",
		tagged:        true,
		importance:    "{t}.success_rate * {t}.resonance",
		maxImportance: 1,
		touched:       "{t}.updated_at",
		fts:           "procedural_fts", vocab: "procedural_vocab",
		indexed:   []string{"{t}.name", "{t}.description", "{t}.pattern", "{t}.tags"},
		strength:  "1 + {t}.use_count * {t}.success_rate",
		vec:       "vec_procedural",
		linkable:  true,
		protected: neverDecay,
		decay: &decayRule{since: "{t}.updated_at", uses: "{t}.use_count", importance: "{t}.success_rate",
			rate: func(d DecayConfig) float64 { return d.ProceduralRate }, archive: true},
		count: func(s *Stats) *int { return &s.Procedures },
	}
	snapshotKind = &kind{
		typ: TypeSnapshot, noun: "snapshot", table: "session_snapshots",
		cols:       strings.Fields("id session_id messages summary key_decisions task_ids started_at ended_at total_cost total_tokens created_at retrievals terms ntok"),
		sessionCol: "session_id",
		// The summary and the decisions; a snapshot with neither shows
		// its messages.
		text: `coalesce(nullif(trim({t}.summary || coalesce(' Decisions: ' || (SELECT group_concat(value, '; ') FROM json_each({t}.key_decisions)), '')), ''),
			(SELECT group_concat((value ->> '$.role') || ': ' || (value ->> '$.content'), ' / ') FROM json_each({t}.messages)), '')`,
		importance:    fmt.Sprint(snapshotImportance),
		maxImportance: snapshotImportance,
		touched:       "{t}.ended_at",
		fts:           "snapshot_fts", vocab: "snapshot_vocab", tombstones: true,
		indexed: []string{"{t}.summary", `(SELECT group_concat(value, ' ') FROM json_each({t}.key_decisions))`,
			`(SELECT group_concat(value ->> '$.content', ' ') FROM json_each({t}.messages))`},
		strength: "1",
		count:    func(s *Stats) *int { return &s.Snapshots },
	}
)

// factKind is the facts' kind: see facts.go. A fact is searched by its
// three parts, the subject, predicate and object, while it holds.
var factKind = &kind{
	typ: TypeFact, noun: "fact", table: "facts",
	cols:          strings.Fields("id subject predicate object subject_key predicate_key object_key valid_from valid_to created_at updated_at expired_at strength sources metadata retrievals terms ntok"),
	metaCol:       "metadata",
	text:          "{t}.subject || ' ' || {t}.predicate || ' ' || {t}.object",
	importance:    fmt.Sprint(factImportance),
	maxImportance: factImportance,
	touched:       "{t}.updated_at",
	fts:           "fact_fts", vocab: "fact_vocab", indexed: []string{"{t}.subject", "{t}.predicate", "{t}.object"},
	strength: "{t}.strength",
	linkable: true,
	live:     "{t}.valid_from <= {now} AND ({t}.valid_to IS NULL OR {t}.valid_to > {now})",
	count:    func(s *Stats) *int { return &s.Facts },
}

// documentKind is the document chunks' kind: see ingest.go. Chunks are
// archivable (Ingest archives the chunks that left their file, and
// Restore brings them back) but always protected: compaction and decay
// never archive a document's text.
var documentKind = &kind{
	typ: TypeDocument, noun: "document chunk", table: "document_chunks",
	cols:          strings.Fields("id source heading chunk title tags content content_hash sources created_at updated_at retrievals terms ntok"),
	text:          "{t}.content",
	tagged:        true,
	importance:    fmt.Sprint(documentImportance),
	maxImportance: documentImportance,
	touched:       "{t}.updated_at",
	fts:           "document_fts", vocab: "document_vocab",
	indexed:   []string{"{t}.title", "{t}.heading", "{t}.content", "{t}.tags"},
	strength:  "1 + json_array_length({t}.sources)",
	linkable:  true,
	protected: "1",
	count:     func(s *Stats) *int { return &s.Documents },
	vec:       "vec_document",
	cite:      "{t}.source || CASE WHEN {t}.heading = '' THEN '' ELSE ' > ' || {t}.heading END",
}

// documentImportance is what a search blends in as a document chunk's
// importance: a document has none of its own.
const documentImportance = 0.5

// factImportance is what a search blends in as a fact's importance: its
// evidence counts in recall instead (see kind.strength).
const factImportance = 0.5

// snapshotImportance is what a search blends in as a snapshot's
// importance: it has none of its own (and, like an episode, no decay).
const snapshotImportance = 0.5

// kinds lists every kind, in the order engram works through them.
var kinds = []*kind{semanticKind, episodicKind, proceduralKind, snapshotKind, factKind, documentKind}

// neverDecay is the SQL condition that a row's tags hold one of the
// never-decay tags, given as JSON in ?2.
var neverDecay = tagsIn("{t}", "?2")

// tagsIn is the SQL condition that the tags of the row named alias hold
// one of those of the JSON list param.
func tagsIn(alias, param string) string {
	return "EXISTS (SELECT 1 FROM json_each(" + alias + ".tags) g WHERE g.value IN (SELECT value FROM json_each(" + param + ")))"
}

func init() {
	for _, k := range kinds {
		k.textCols = columnsOf(k.text)
		k.textParts, k.textErr = parseText(k.text, k.textCols)
	}
}

// textPart is a piece of a kind's text: the column textCols[col], or a
// string literal.
type textPart struct {
	isCol bool
	col   int
	lit   string
}

// parseText parses a text template that joins columns ({t}.name) and
// SQL string literals ('…') with ||, as the change log needs to make a
// row's text in Go (see textFrom). A template that is anything else is an
// error: its kind cannot be watched with its text.
func parseText(tpl string, cols []string) ([]textPart, error) {
	var parts []textPart
	for _, p := range strings.Split(tpl, "||") {
		p = strings.TrimSpace(p)
		switch {
		case strings.HasPrefix(p, "{t}.") && slices.Contains(cols, strings.TrimPrefix(p, "{t}.")):
			parts = append(parts, textPart{isCol: true, col: slices.Index(cols, strings.TrimPrefix(p, "{t}."))})
		case len(p) >= 2 && p[0] == '\'' && p[len(p)-1] == '\'' && !strings.Contains(p[1:len(p)-1], "'"):
			parts = append(parts, textPart{lit: p[1 : len(p)-1]})
		default:
			return nil, fmt.Errorf("text template %q: %q is neither a column nor a string", tpl, p)
		}
	}
	return parts, nil
}

// textFrom is the kind's text, as its SQL template makes it, from the
// values of its text columns (col(i) is textCols[i]'s).
func (k *kind) textFrom(col func(i int) string) string {
	if len(k.textParts) == 1 && k.textParts[0].isCol {
		return col(k.textParts[0].col)
	}
	var b strings.Builder
	for _, p := range k.textParts {
		if p.isCol {
			b.WriteString(col(p.col))
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// written returns the column a write names for column c of the kind's
// rows (see kind.writeAs).
func (k *kind) written(c string) string {
	if w, ok := k.writeAs[c]; ok {
		return w
	}
	return c
}

// writtenCols returns the columns a write of cols names.
func (k *kind) writtenCols(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = k.written(c)
	}
	return out
}

// kindOf returns the kind of stored memory t names, or nil.
func kindOf(t MemoryType) *kind {
	for _, k := range kinds {
		if k.typ == t {
			return k
		}
	}
	return nil
}

// kindsWith returns the kinds for which has is true, in order.
func kindsWith(has func(*kind) bool) []*kind {
	var out []*kind
	for _, k := range kinds {
		if has(k) {
			out = append(out, k)
		}
	}
	return out
}

var templateColumn = regexp.MustCompile(`\{t\}\.(\w+)`)

// over returns the template tpl over the row named alias ("s", "new").
func over(tpl, alias string) string { return strings.ReplaceAll(tpl, "{t}", alias) }

// overJSON returns the template tpl over the JSON copy of a row in the
// SQL expression j (the archive's row column).
func overJSON(tpl, j string) string {
	return templateColumn.ReplaceAllString(tpl, "("+j+" ->> '$.$1')")
}

// columnsOf returns the columns a template names, in order, once each.
func columnsOf(tpl string) []string {
	var out []string
	for _, m := range templateColumn.FindAllStringSubmatch(tpl, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// liveAt is the condition that the row named alias is found by a search
// at the time the SQL expression now gives: "1" for a kind whose rows are
// always found.
func (k *kind) liveAt(alias, now string) string {
	if k.live == "" {
		return "1"
	}
	return strings.ReplaceAll(over(k.live, alias), "{now}", now)
}

// citeOver is where the row named alias was found, or the empty string.
func (k *kind) citeOver(alias string) string {
	if k.cite == "" {
		return "''"
	}
	return over(k.cite, alias)
}

// textOver is the kind's text over the row named alias.
func (k *kind) textOver(alias string) string { return over(k.text, alias) }

// indexedOver is the SQL list of the kind's indexed texts over the row
// named alias, NULL read as the empty string: what its term vector is made
// of (see bm25.Vector). textsDest scans them.
func (k *kind) indexedOver(alias string) string {
	fields := make([]string, len(k.indexed))
	for i, x := range k.indexed {
		fields[i] = "coalesce(" + over(x, alias) + ", '')"
	}
	return strings.Join(fields, ", ")
}

// textsDest returns the scan destinations of a row whose columns head
// are followed by texts (see indexedOver).
func textsDest(texts []string, head ...any) []any {
	for i := range texts {
		head = append(head, &texts[i])
	}
	return head
}

// textChanged is the trigger condition that an UPDATE changed the kind's
// text.
func (k *kind) textChanged() string {
	var parts []string
	for _, c := range k.textCols {
		parts = append(parts, "old."+c+" IS NOT new."+c)
	}
	return strings.Join(parts, " OR ")
}

// tagsOver is the row's tags as JSON, or an empty list for an untagged
// kind.
func (k *kind) tagsOver(alias string) string {
	if k.tagged {
		return alias + ".tags"
	}
	return "'[]'"
}

// tagFilter is the SQL condition that the row named alias carries one of
// the tags in param (a JSON list, or the empty string for no filter); an
// untagged kind passes only when there is no filter.
func (k *kind) tagFilter(alias, param string) string {
	if !k.tagged {
		return param + " = ''"
	}
	return "(" + param + " = '' OR " + tagsIn(alias, param) + ")"
}

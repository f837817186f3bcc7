package store

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Kind describes how one kind of stored memory lives in the database, once,
// for every statement that works on all kinds alike: search (text and
// vector), the change log, compaction and the archive, decay, links,
// integrity checks and statistics derive their per-kind SQL from it. A new
// kind is an entry here, the root package's entry that names it (its
// public type and what it counts in Stats), and the migration that makes
// its table, indexes and triggers.
//
// SQL fragments are templates over a row named {t}: "{t}.content" becomes
// "s.content" over a table aliased s, "new.content" in a trigger, or
// "(row ->> '$.content')" over the archive's JSON copy of a row (see Over
// and OverJSON).
type Kind struct {
	Name  string // the memory type's name: "semantic", "fact", …
	Noun  string // what messages call one: "semantic entry"
	Table string // its rows: pk INTEGER PRIMARY KEY, id, agent_id, …
	// Cols are the row's columns besides pk and agent_id (and generated
	// columns): what the archive keeps of a row (in JSON) and Restore
	// writes back, what history records of a change and what an export
	// writes.
	Cols []string
	// WriteAs names, for a column of Cols that is generated from another
	// (which a write names instead), that other: semantic entries'
	// summary is generated from summary_own, which holds '' when the
	// summary is the content.
	WriteAs map[string]string
	// Text is the kind's text: what a search result shows, what Tier 2
	// embeds and what the change log reports: columns joined with ||
	// and string literals. TextCols are the columns it is made of.
	Text      string
	TextCols  []string
	textParts []textPart
	// TextErr says the text is more than TextFrom can make.
	TextErr error
	// Tagged says the rows have a tags column (a JSON list); search's tag
	// filter leaves the other kinds out.
	Tagged bool
	// Importance is what a search blends in as the row's importance: its
	// importance (or what stands for it) times its resonance; compaction
	// archives the lowest first. Touched is when it was last created,
	// changed or used, for recency.
	Importance, Touched string
	// MaxImportance is the most Importance can be, by the CHECK
	// constraints of its columns or as a constant: a search that reads
	// rows only to rank them skips those whose score could not reach its
	// results.
	MaxImportance float64
	// FTS is the row's full-text index (FTS5), Vocab its fts5vocab table;
	// "" when the kind is not searched by text. Indexed are the texts the
	// index holds of a row, as its triggers give them to FTS5; the row's
	// term vector (its terms and ntok columns, see internal/bm25) is made
	// of the same texts.
	FTS, Vocab string
	Indexed    []string
	// IndexedCols are the names of the full-text index's columns that
	// hold Indexed, in the same order; its last column, agent_tok,
	// holds the agent's token (see migration 0004).
	IndexedCols []string
	// Tombstones says the full-text index keeps no copy of the texts
	// (contentless): a delete marks the row's terms deleted and leaves
	// them in the index until its segments are merged.
	Tombstones bool
	// Strength is the evidence behind a row, which recall's expected
	// value weighs.
	Strength string
	// Vec is the kind's vec0 table in Tier 2; "" when it has no vectors.
	Vec string
	// Linkable says links may start or end at its rows.
	Linkable bool
	// Protected, when compaction may archive the kind, is the condition
	// that keeps a row whatever its value (?2 is the never-decay tags as
	// JSON); "" when compaction never archives the kind.
	Protected string
	// Decay says how resonance is computed; nil when the kind has none.
	Decay *Decay
	// Live, when not "", is the condition that a row is found by search
	// at the time {now} (the search's clock, in Unix milliseconds): a
	// fact is found while it holds, not after it ended. See LiveAt.
	Live string
	// Session, when not "", is the session a row was logged in: the rows
	// of a session, in (created_at, pk) order, are each other's context
	// in a search.
	Session string
	// Cite, when not "", is where a row was found, for a search result
	// to cite.
	Cite string
	// UserCol, SessionCol and MetaCol are the columns of a row's user,
	// session and metadata (a JSON object), "" for a kind without one.
	UserCol, SessionCol, MetaCol string
}

// Decay is a kind's part of decay's formula: days since Since, uses
// Uses, importance Importance (all templates). Archive says that rows
// fading below the least resonance with importance under 0.5 leave for
// the archive.
type Decay struct {
	Since, Uses, Importance string
	Archive                 bool
}

// What a search blends in as the importance of the kinds that have none
// of their own.
const (
	EpisodeImportance  = 0.5
	DocumentImportance = 0.5
	FactImportance     = 0.5
	SnapshotImportance = 0.5
)

// The kinds of stored memory. The working set lives in process and is no
// kind of its own here. They are shared by every Memory of the process
// and read only: statements are made from them once, keyed by the
// *Kind (a copy of one finds no statement).
var (
	Semantic = &Kind{
		Name: "semantic", Noun: "semantic entry", Table: "semantic_memory",
		Cols:    strings.Fields("id content summary importance verified tags source content_hash created_at updated_at access_count last_accessed_at resonance merged_from promoted_at_count retrievals terms ntok user_id session_id metadata"),
		WriteAs: map[string]string{"summary": "summary_own"},
		UserCol: "user_id", SessionCol: "session_id", MetaCol: "metadata",
		Text:          "{t}.content",
		Tagged:        true,
		Importance:    "{t}.importance * {t}.resonance",
		MaxImportance: 1,
		Touched:       "max({t}.updated_at, {t}.last_accessed_at)",
		FTS:           "semantic_fts", Vocab: "semantic_vocab", Indexed: []string{"{t}.content", "{t}.tags"},
		IndexedCols: []string{"content", "tags"},
		Strength:    "1 + json_array_length({t}.merged_from)",
		Vec:         "vec_semantic",
		Linkable:    true,
		Protected:   "({t}.verified <> 0 OR " + NeverDecay + ")",
		Decay:       &Decay{Since: "{t}.last_accessed_at", Uses: "{t}.access_count", Importance: "{t}.importance", Archive: true},
	}
	Episodic = &Kind{
		Name: "episodic", Noun: "episode", Table: "episodic_log",
		Cols:    strings.Fields("id content event_type task_id session_id cost duration_ns metadata created_at resonance retrievals terms ntok user_id"),
		UserCol: "user_id", SessionCol: "session_id", MetaCol: "metadata",
		Text:          "{t}.content",
		Importance:    fmt.Sprint(EpisodeImportance) + " * {t}.resonance",
		MaxImportance: EpisodeImportance,
		Session:       "{t}.session_id",
		Touched:       "{t}.created_at",
		FTS:           "episodic_fts", Vocab: "episodic_vocab", Indexed: []string{"{t}.content"},
		IndexedCols: []string{"content"},
		Strength:    "1",
		Vec:         "vec_episodic",
		Linkable:    true,
		Protected:   "0",
		Decay:       &Decay{Since: "{t}.created_at", Uses: "0", Importance: fmt.Sprint(EpisodeImportance)},
	}
	Procedural = &Kind{
		Name: "procedural", Noun: "procedure", Table: "procedural_memory",
		Cols:    strings.Fields("id name description pattern success_rate use_count tags disabled created_at updated_at resonance retrievals terms ntok user_id session_id metadata"),
		UserCol: "user_id", SessionCol: "session_id", MetaCol: "metadata",
		Text:          "{t}.name || ': ' || {t}.description",
		Tagged:        true,
		Importance:    "{t}.success_rate * {t}.resonance",
		MaxImportance: 1,
		Touched:       "{t}.updated_at",
		FTS:           "procedural_fts", Vocab: "procedural_vocab",
		Indexed:     []string{"{t}.name", "{t}.description", "{t}.pattern", "{t}.tags"},
		IndexedCols: []string{"name", "description", "pattern", "tags"},
		Strength:    "1 + {t}.use_count * {t}.success_rate",
		Vec:         "vec_procedural",
		Linkable:    true,
		Protected:   NeverDecay,
		Decay:       &Decay{Since: "{t}.updated_at", Uses: "{t}.use_count", Importance: "{t}.success_rate", Archive: true},
	}
	Snapshot = &Kind{
		Name: "snapshot", Noun: "snapshot", Table: "session_snapshots",
		Cols:       strings.Fields("id session_id messages summary key_decisions task_ids started_at ended_at total_cost total_tokens created_at retrievals terms ntok"),
		SessionCol: "session_id",
		// The summary and the decisions; a snapshot with neither shows
		// its messages.
		Text: `coalesce(nullif(trim({t}.summary || coalesce(' Decisions: ' || (SELECT group_concat(value, '; ') FROM json_each({t}.key_decisions)), '')), ''),
			(SELECT group_concat((value ->> '$.role') || ': ' || (value ->> '$.content'), ' / ') FROM json_each({t}.messages)), '')`,
		Importance:    fmt.Sprint(SnapshotImportance),
		MaxImportance: SnapshotImportance,
		Touched:       "{t}.ended_at",
		FTS:           "snapshot_fts", Vocab: "snapshot_vocab", Tombstones: true,
		Indexed: []string{"{t}.summary", `(SELECT group_concat(value, ' ') FROM json_each({t}.key_decisions))`,
			`(SELECT group_concat(value ->> '$.content', ' ') FROM json_each({t}.messages))`},
		IndexedCols: []string{"summary", "decisions", "messages"},
		Strength:    "1",
	}
	// Fact is searched by its three parts, the subject, predicate and
	// object, while it holds.
	Fact = &Kind{
		Name: "fact", Noun: "fact", Table: "facts",
		Cols:          strings.Fields("id subject predicate object subject_key predicate_key object_key valid_from valid_to created_at updated_at expired_at strength sources metadata retrievals terms ntok"),
		MetaCol:       "metadata",
		Text:          "{t}.subject || ' ' || {t}.predicate || ' ' || {t}.object",
		Importance:    fmt.Sprint(FactImportance),
		MaxImportance: FactImportance,
		Touched:       "{t}.updated_at",
		FTS:           "fact_fts", Vocab: "fact_vocab", Indexed: []string{"{t}.subject", "{t}.predicate", "{t}.object"},
		IndexedCols: []string{"subject", "predicate", "object"},
		Strength:    "{t}.strength",
		Linkable:    true,
		Live:        "{t}.valid_from <= {now} AND ({t}.valid_to IS NULL OR {t}.valid_to > {now})",
	}
	// Document is a document's chunks. Chunks are archivable (Ingest
	// archives the chunks that left their file, and Restore brings them
	// back) but always protected: compaction and decay never archive a
	// document's text.
	Document = &Kind{
		Name: "document", Noun: "document chunk", Table: "document_chunks",
		Cols:          strings.Fields("id source heading chunk title tags content content_hash sources created_at updated_at retrievals terms ntok"),
		Text:          "{t}.content",
		Tagged:        true,
		Importance:    fmt.Sprint(DocumentImportance),
		MaxImportance: DocumentImportance,
		Touched:       "{t}.updated_at",
		FTS:           "document_fts", Vocab: "document_vocab",
		Indexed:     []string{"{t}.title", "{t}.heading", "{t}.content", "{t}.tags"},
		IndexedCols: []string{"title", "heading", "content", "tags"},
		Strength:    "1 + json_array_length({t}.sources)",
		Linkable:    true,
		Protected:   "1",
		Vec:         "vec_document",
		Cite:        "{t}.source || CASE WHEN {t}.heading = '' THEN '' ELSE ' > ' || {t}.heading END",
	}
)

// Kinds lists every kind, in the order engram works through them: these
// six, then those their own files register (see Register).
var Kinds = []*Kind{Semantic, Episodic, Procedural, Snapshot, Fact, Document}

// made says the statements made from Kinds are made (see makeStatements).
var made bool

// Register adds k to Kinds, after the kinds there, and returns it: a
// kind's own file registers it as it declares it,
//
//	var Preference = Register(&Kind{Name: "preference", …})
//
// in the package's variable initialisation, before any statement is made
// from the kinds (the package's init makes them, once every kind is
// registered). It panics when called later, or for a kind whose name or
// table another kind has.
func Register(k *Kind) *Kind {
	if made {
		panic("store: kind " + k.Name + " registered after the statements were made from the kinds")
	}
	for _, o := range Kinds {
		if o.Name == k.Name || o.Table == k.Table {
			panic("store: kind " + k.Name + " has the name or the table of kind " + o.Name)
		}
	}
	Kinds = append(Kinds, k)
	return k
}

// NeverDecay is the SQL condition that a row's tags hold one of the
// never-decay tags, given as JSON in ?2.
var NeverDecay = TagsIn("{t}", "?2")

// TagsIn is the SQL condition that the tags of the row named alias hold
// one of those of the JSON list param.
func TagsIn(alias, param string) string {
	return "EXISTS (SELECT 1 FROM json_each(" + alias + ".tags) g WHERE g.value IN (SELECT value FROM json_each(" + param + ")))"
}

func init() {
	for _, k := range Kinds {
		k.TextCols = ColumnsOf(k.Text)
		k.textParts, k.TextErr = parseText(k.Text, k.TextCols)
	}
	makeStatements()
}

// makeStatements makes the statements made from every kind, in an order
// in which each is made after those it is made from. It runs once, in
// the package's init: after the variables are initialised, so after every
// kind's own file registered it, whatever the files' order.
func makeStatements() {
	TextKinds = makeTextKinds()
	textAfterTexts = makeTextAfterTexts()
	TextAfterSQL, TextLastSQL = makeTextAfterSQL(), makeTextLastSQL()
	TextRowsSQL, TextScanSQL = makeTextRowsSQL(), makeTextScanSQL()
	TextBestSQL, TextWindowSQL, textIndexedSQL = makeTextBestSQL(), makeTextWindowSQL(), makeTextIndexedSQL()
	contentSQL, rowReadSQL = makeContentSQL(), makeRowReadSQL()
	made = true
}

// textPart is a piece of a kind's text: the column TextCols[col], or a
// string literal.
type textPart struct {
	isCol bool
	col   int
	lit   string
}

// parseText parses a text template that joins columns ({t}.name) and
// SQL string literals ('…') with ||, as the change log needs to make a
// row's text in Go (see TextFrom). A template that is anything else is an
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

// TextFrom is the kind's text, as its SQL template makes it, from the
// values of its text columns (col(i) is TextCols[i]'s). It is only
// meaningful when TextErr is nil.
func (k *Kind) TextFrom(col func(i int) string) string {
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

// Written returns the column a write names for column c of the kind's
// rows (see Kind.WriteAs).
func (k *Kind) Written(c string) string {
	if w, ok := k.WriteAs[c]; ok {
		return w
	}
	return c
}

// WrittenCols returns the columns a write of cols names.
func (k *Kind) WrittenCols(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = k.Written(c)
	}
	return out
}

// KindNamed returns the kind with the given name, or nil.
func KindNamed(name string) *Kind {
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

var templateColumn = regexp.MustCompile(`\{t\}\.(\w+)`)

// Over returns the template tpl over the row named alias ("s", "new").
func Over(tpl, alias string) string { return strings.ReplaceAll(tpl, "{t}", alias) }

// OverJSON returns the template tpl over the JSON copy of a row in the
// SQL expression j (the archive's row column). A number column is read
// as its type: SQLite's ->> gives a JSON number as one, PostgreSQL's
// gives text.
func OverJSON(tpl, j string) string {
	return templateColumn.ReplaceAllStringFunc(tpl, func(m string) string {
		c := templateColumn.FindStringSubmatch(m)[1]
		v := "(" + j + " ->> '$." + c + "')"
		if t, ok := numberColumns[c]; ok {
			v = "CAST(" + v + " AS " + t + ")"
		}
		return v
	})
}

// numberColumns are the columns of the kinds' tables that hold numbers,
// with their types.
var numberColumns = map[string]string{
	"created_at": "INTEGER", "updated_at": "INTEGER", "last_accessed_at": "INTEGER", "access_count": "INTEGER",
	"use_count": "INTEGER", "verified": "INTEGER", "disabled": "INTEGER", "valid_from": "INTEGER",
	"valid_to": "INTEGER", "expired_at": "INTEGER", "started_at": "INTEGER", "ended_at": "INTEGER",
	"importance": "REAL", "resonance": "REAL", "success_rate": "REAL", "strength": "REAL", "cost": "REAL",
}

// ColumnsOf returns the columns a template names, in order, once each.
func ColumnsOf(tpl string) []string {
	var out []string
	for _, m := range templateColumn.FindAllStringSubmatch(tpl, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// LiveAt is the condition that the row named alias is found by a search
// at the time the SQL expression now gives: "1" for a kind whose rows are
// always found.
func (k *Kind) LiveAt(alias, now string) string {
	if k.Live == "" {
		return "1"
	}
	return strings.ReplaceAll(Over(k.Live, alias), "{now}", now)
}

// CiteOver is where the row named alias was found, or the empty string.
func (k *Kind) CiteOver(alias string) string {
	if k.Cite == "" {
		return "''"
	}
	return Over(k.Cite, alias)
}

// TextOver is the kind's text over the row named alias.
func (k *Kind) TextOver(alias string) string { return Over(k.Text, alias) }

// IndexedOver is the SQL list of the kind's indexed texts over the row
// named alias, NULL read as the empty string: what its term vector is made
// of (see bm25.Vector). TextsDest scans them.
func (k *Kind) IndexedOver(alias string) string {
	fields := make([]string, len(k.Indexed))
	for i, x := range k.Indexed {
		fields[i] = "coalesce(" + Over(x, alias) + ", '')"
	}
	return strings.Join(fields, ", ")
}

// AsksOver is the SQL integer, 1 or 0, that the row named alias of a kind
// with sessions (the episodic log) asks a question, as Asks says; 0 for a
// kind without sessions.
func (k *Kind) AsksOver(alias string) string {
	if k.Session == "" {
		return "0"
	}
	return "CASE WHEN rtrim(" + Over(k.Indexed[0], alias) + ") LIKE '%?' THEN 1 ELSE 0 END"
}

// Asks reports whether text asks a question: whether it ends in a
// question mark, trailing spaces aside (what Kind.AsksOver says in SQL).
func Asks(text string) bool { return strings.HasSuffix(strings.TrimRight(text, " "), "?") }

// TextsDest returns the scan destinations of a row whose columns head
// are followed by texts (see IndexedOver).
func TextsDest(texts []string, head ...any) []any {
	for i := range texts {
		head = append(head, &texts[i])
	}
	return head
}

// TextChanged is the trigger condition that an UPDATE changed the kind's
// text.
func (k *Kind) TextChanged() string {
	var parts []string
	for _, c := range k.TextCols {
		parts = append(parts, "old."+c+" IS NOT new."+c)
	}
	return strings.Join(parts, " OR ")
}

// TagsOver is the row's tags as JSON, or an empty list for an untagged
// kind.
func (k *Kind) TagsOver(alias string) string {
	if k.Tagged {
		return alias + ".tags"
	}
	return "'[]'"
}

// TagFilter is the SQL condition that the row named alias carries one of
// the tags in param (a JSON list, or the empty string for no filter); an
// untagged kind passes only when there is no filter.
func (k *Kind) TagFilter(alias, param string) string {
	if !k.Tagged {
		return param + " = ''"
	}
	return "(" + param + " = '' OR " + TagsIn(alias, param) + ")"
}

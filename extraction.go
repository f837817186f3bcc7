package engram

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/facts"
	"github.com/engram-go/engram/internal/rules"
	"github.com/engram-go/engram/internal/store"
)

// ExtractionRule turns what users say into memories with no model at all
// (seed 003): every match of Pattern in a user message becomes a memory of
// Type with the rule's Importance and Tags, or, for Type [TypeFact], a
// fact (see [Facts]):
//
//	ExtractionRule{Name: "employer", Pattern: `\bI work (?:at|for) (?P<object>[^,]+)`,
//		Type: TypeFact, Predicate: "works at", Active: true}
//
// turns "I work at Acme, since May" into (User, works at, Acme).
type ExtractionRule struct {
	Name string // unique per agent
	// Pattern is a regular expression in Go's RE2 syntax, matched without
	// regard to case against each sentence of each user message. The
	// whole match, trimmed, becomes the memory's content.
	Pattern    string
	Type       MemoryType // semantic, episodic, procedural or fact
	Importance float64    // in [0, 1]; a procedure's success-rate prior; facts ignore it
	Tags       []string   // facts ignore them
	Active     bool       // inactive rules are kept but not applied
	CreatedAt  time.Time
	// Subject, Predicate and Object are, for a fact rule, templates of
	// the fact's parts, expanded from the match as [regexp.Regexp.Expand]
	// does: $name or ${name} is the text of the group of that name (or
	// number), $$ a dollar sign; other text stands for itself. An empty
	// template takes the part from the group of its name: (?P<subject>…),
	// (?P<predicate>…), (?P<object>…). A subject that is still empty, and
	// a subject or object that is only "I", "me", "my", "myself" or
	// "mine" (in any case), is the user entity ([FactsConfig] UserEntity,
	// "User" by default). Parts are trimmed of spaces and of trailing
	// commas, semicolons and colons. Other rules leave them empty.
	Subject, Predicate, Object string
}

// ExtractionResult says what [Memory.Extract] stored.
type ExtractionResult struct {
	Items []ExtractedItem
	// Facts are the facts asserted, in the order found, each with what
	// its assertion did.
	Facts []ExtractedFact
	// Duplicates counts what was found but already known: in memory, or
	// earlier in the same messages (a fact found twice is asserted once).
	Duplicates int
	// Rejected lists what was found but could not be used, and why: the
	// invalid items of a model's answer (its valid ones are stored) and
	// the facts of rules whose parts came out empty or too long.
	Rejected []RejectedItem
}

// ExtractedItem is one memory [Memory.Extract] stored.
type ExtractedItem struct {
	Type    MemoryType
	ID      string
	Content string
	// Source is "rule:<name>" or "llm-extraction". Semantic entries
	// carry it in their Source, episodes in Metadata["source"].
	Source string
}

// Rules are the agent's extraction rules, stored in SQLite. Get them from
// [Memory.Rules]; they are safe for concurrent use.
type Rules struct {
	m *Memory

	// matcher compiles the rules' patterns once.
	matcher rules.Cache

	mu sync.Mutex // guards the fields below
	// active caches the active rules as of version, the counter every
	// change to the agent's rules bumps in meta (whichever process makes
	// it), so that Extract reads one value instead of every rule.
	active  []ExtractionRule
	version string
}

// metaRulesVersion is the meta key of an agent's rules version.
const metaRulesVersion = "rules.version:"

// bumpVersion marks the agent's rules changed, in q's transaction.
func (r *Rules) bumpVersion(q store.Tx) error {
	return store.BumpCounter(q, metaRulesVersion+r.m.agent, 1)
}

// activeRules returns the agent's active rules, from the cache when no
// rule changed since it was filled.
func (r *Rules) activeRules(ctx context.Context) ([]ExtractionRule, error) {
	var active []ExtractionRule
	err := r.m.read(ctx, "extract.rules", func(q store.Tx) error {
		v, set, err := store.Meta(q, metaRulesVersion+r.m.agent)
		if err != nil || !set {
			return err // unset: no rule was ever added
		}
		r.mu.Lock()
		if v == r.version {
			active = r.active
			r.mu.Unlock()
			return nil
		}
		r.mu.Unlock()
		if active, err = listRules(q, r.m.agent, true); err != nil {
			return err
		}
		r.mu.Lock()
		r.active, r.version = active, v
		r.mu.Unlock()
		return nil
	})
	return active, err
}

// Rules returns the agent's extraction rules.
func (m *Memory) Rules() *Rules { return m.rules }

// HasLLM reports whether the Memory was opened [WithLLM]: whether
// [Memory.Extract] asks a model, besides applying the agent's rules.
func (m *Memory) HasLLM() bool { return m.llm != nil }

func (r *Rules) validate(rule *ExtractionRule) error {
	if err := validateID("Name", rule.Name); err != nil {
		return err
	}
	if strings.TrimSpace(rule.Pattern) == "" {
		return invalid("Pattern", "is empty")
	}
	if len(rule.Pattern) > 4096 {
		return invalid("Pattern", "is %d bytes, more than 4096", len(rule.Pattern))
	}
	if _, err := rules.Compile(rule.Pattern); err != nil {
		return invalid("Pattern", "%v", err)
	}
	switch rule.Type {
	case TypeSemantic, TypeEpisodic, TypeProcedural:
		for _, t := range []struct{ name, s string }{{"Subject", rule.Subject}, {"Predicate", rule.Predicate}, {"Object", rule.Object}} {
			if t.s != "" {
				return invalid(t.name, "is set, but only a fact rule (Type %q) makes a fact, not a %s rule", TypeFact, rule.Type)
			}
		}
	case TypeFact:
		if err := r.validateFactRule(rule); err != nil {
			return err
		}
	default:
		return invalid("Type", "must be semantic, episodic, procedural or fact, not %q", string(rule.Type))
	}
	if err := validateImportance("Importance", rule.Importance); err != nil {
		return err
	}
	return validateTags("Tags", rule.Tags, r.m.cfg.Limits)
}

// Add stores a new rule. A zero CreatedAt gets the clock's now. It returns
// an error matching [ErrInvalid] for a bad rule (a pattern that does not
// compile; a fact rule with no way to a predicate or an object, or with a
// template that names no group of the pattern, ends in a lone $, or
// spans lines; fact templates on another rule), and then stores nothing;
// [ErrExists] if the agent has a rule with that name, [ErrClosed] after
// Close and a [*DatabaseError] when SQLite fails.
func (r *Rules) Add(ctx context.Context, rule ExtractionRule) error {
	if err := r.validate(&rule); err != nil {
		return err
	}
	if err := validateTime("CreatedAt", rule.CreatedAt); err != nil {
		return err
	}
	if rule.CreatedAt.IsZero() {
		rule.CreatedAt = r.m.now()
	}
	return r.m.write(ctx, "rules.add", func(q store.Tx) error {
		err := store.InsertRule(q, r.m.agent, store.RuleRow{
			Name: rule.Name, Pattern: rule.Pattern, Type: string(rule.Type), Importance: rule.Importance,
			Tags: rule.Tags, Active: rule.Active, CreatedAt: rule.CreatedAt,
			Subject: rule.Subject, Predicate: rule.Predicate, Object: rule.Object,
		})
		if store.IsUniqueViolation(err) {
			return fmt.Errorf("engram: rule %q: %w", rule.Name, ErrExists)
		}
		if err != nil {
			return err
		}
		return r.bumpVersion(q)
	})
}

// SetActive turns the named rule on or off. It returns [ErrNotFound] if
// the agent has no such rule; other errors are as for [Rules.Add].
func (r *Rules) SetActive(ctx context.Context, name string, active bool) error {
	if err := validateID("name", name); err != nil {
		return err
	}
	return r.m.write(ctx, "rules.set_active", func(q store.Tx) error {
		if found, err := store.SetRuleActive(q, r.m.agent, name, active); err != nil || !found {
			return cmp.Or(err, notFound("rule", name))
		}
		return r.bumpVersion(q)
	})
}

// Remove deletes the named rule. It returns [ErrNotFound] if the agent has
// no such rule; other errors are as for [Rules.Add].
func (r *Rules) Remove(ctx context.Context, name string) error {
	if err := validateID("name", name); err != nil {
		return err
	}
	return r.m.write(ctx, "rules.remove", func(q store.Tx) error {
		if found, err := store.DeleteRule(q, r.m.agent, name); err != nil || !found {
			return cmp.Or(err, notFound("rule", name))
		}
		return r.bumpVersion(q)
	})
}

// List returns the agent's rules by name. It returns [ErrClosed] after
// Close and a [*DatabaseError] when SQLite fails.
func (r *Rules) List(ctx context.Context) ([]ExtractionRule, error) {
	var out []ExtractionRule
	err := r.m.read(ctx, "rules.list", func(q store.Tx) error {
		var err error
		out, err = listRules(q, r.m.agent, false)
		return err
	})
	return out, err
}

// listRules returns the agent's rules (only the active ones with
// activeOnly) by name, in q's transaction.
func listRules(q store.Tx, agent string, activeOnly bool) ([]ExtractionRule, error) {
	rows, err := store.Rules(q, agent, activeOnly)
	if len(rows) == 0 {
		return nil, err
	}
	out := make([]ExtractionRule, len(rows))
	for i, r := range rows {
		out[i] = ExtractionRule{
			Name: r.Name, Pattern: r.Pattern, Type: MemoryType(r.Type), Importance: r.Importance,
			Tags: r.Tags, Active: r.Active, CreatedAt: r.CreatedAt,
			Subject: r.Subject, Predicate: r.Predicate, Object: r.Object,
		}
	}
	return out, err
}

// found is a memory extraction wants to store.
type found struct {
	typ        MemoryType
	content    string
	importance float64
	tags       []string
	source     string
	// for episodes and procedures
	event       EventType
	name, steps string
	// for facts
	subject, predicate, object string
	// for rule hits: the indexes of the message and of the sentence in
	// it that the item came from (an LLM's items leave them 0)
	message, sentence int
	// for an LLM's triples: the list of the answer and the index in it
	list  string
	index int
}

// fromRule reports whether a rule found the item.
func (it found) fromRule() bool { return strings.HasPrefix(it.source, "rule:") }

// reject says why the item cannot be used.
func (it found) reject(field, reason string) RejectedItem {
	r := RejectedItem{Source: it.source, List: "messages", Index: it.message, Field: field, Reason: reason,
		Item: truncateUTF8(it.content, maxRejectedItemBytes)}
	if it.list != "" {
		r.List, r.Index = it.list, it.index
	}
	return r
}

// apply returns every match of the rules in the user messages, sentence
// by sentence, in message, sentence and rule order (see
// [rules.Scanner]).
func (r *Rules) apply(list []ExtractionRule, messages []Message) ([]found, error) {
	plain := make([]rules.Rule, len(list))
	for i, rule := range list {
		plain[i] = rules.Rule{Name: rule.Name, Pattern: rule.Pattern, Type: string(rule.Type),
			Subject: rule.Subject, Predicate: rule.Predicate, Object: rule.Object}
	}
	user := "User"
	if r.m != nil {
		user = r.m.cfg.Facts.UserEntity
	}
	sc, err := r.matcher.Scanner(plain, user)
	if err != nil {
		return nil, err
	}
	for mi, msg := range messages {
		if msg.Role == "user" {
			sc.Scan(mi, msg.Content)
		}
	}
	hits := sc.Hits()
	out := make([]found, len(hits))
	sources := make([]string, len(list)) // per rule: "rule:<name>", once it matches
	for i, h := range hits {
		rule := &list[h.Rule]
		if sources[h.Rule] == "" {
			sources[h.Rule] = "rule:" + rule.Name
		}
		if rule.Type == TypeFact {
			out[i] = found{typ: TypeFact, content: h.Content, source: sources[h.Rule], message: h.Message, sentence: h.Sentence,
				subject: h.Subject, predicate: h.Predicate, object: h.Object}
			continue
		}
		out[i] = found{typ: rule.Type, content: h.Content, importance: rule.Importance, tags: rule.Tags,
			source: sources[h.Rule], event: EventObservation, name: h.Content, steps: h.Text,
			message: h.Message, sentence: h.Sentence}
	}
	return out, nil
}

// RuleMatch is what an extraction rule found in a message.
type RuleMatch struct {
	Rule    string // the rule's name
	Type    MemoryType
	Content string // what would be stored; for a fact, "subject predicate object"
	Message int    // the index of the message it was found in
	// Fact is, for a fact rule, the fact that would be asserted: its
	// Subject, Predicate and Object.
	Fact Fact
}

// Match applies the agent's active rules to the user messages, as
// [Memory.Extract] does, and returns what they find without storing
// anything: a way to try rules out. Facts whose parts come out invalid,
// which Extract rejects, are left out. It returns an error matching
// [ErrInvalid] for bad messages, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (r *Rules) Match(ctx context.Context, messages []Message) ([]RuleMatch, error) {
	if err := r.m.validateMessages(messages); err != nil {
		return nil, err
	}
	active, err := r.activeRules(ctx)
	if err != nil {
		return nil, err
	}
	items, err := r.apply(active, messages)
	if err != nil {
		return nil, err
	}
	out := make([]RuleMatch, 0, len(items))
	for _, it := range items {
		rm := RuleMatch{Rule: strings.TrimPrefix(it.source, "rule:"), Type: it.typ, Content: it.content, Message: it.message}
		if it.typ == TypeFact {
			if r.m.checkTriple(it.subject, it.predicate, it.object) != nil {
				continue
			}
			rm.Fact = Fact{Subject: it.subject, Predicate: it.predicate, Object: it.object}
			rm.Content = rm.Fact.String()
		}
		out = append(out, rm)
	}
	return out, nil
}

func (m *Memory) validateMessages(messages []Message) error {
	for i, msg := range messages {
		if err := validateText(fmt.Sprintf("messages[%d].Role", i), msg.Role, true, m.cfg.Limits.MaxTagBytes); err != nil {
			return err
		}
		if err := validateText(fmt.Sprintf("messages[%d].Content", i), msg.Content, false, m.cfg.Limits.MaxContentBytes); err != nil {
			return err
		}
	}
	return nil
}

// Extract turns conversation into memories and facts. The agent's active
// [ExtractionRule]s are applied to the user messages, with no model call;
// when the Memory has an [LLM] ([WithLLM]), the conversation is also sent
// to it, in calls of at most [ExtractionConfig.MaxPromptBytes], asking for
// facts, triples, episodes and procedures as JSON that follows a JSON
// Schema (passed as the [Prompt]'s Schema, which the provider packages
// send as structured output).
//
// What is found is deduplicated against the agent's memories (a semantic
// entry with the same content, an episode with the same content, a
// procedure with the same name) and within the messages, then stored in one
// transaction, each item recording its source ("rule:<name>" or
// "llm-extraction"). Semantic entries are auto-linked as by Store. Facts
// (subject–predicate–object triples from fact rules and from the model)
// are asserted in the same transaction, consolidated as by
// [Facts.AssertAll] (a fact known already is merged into, a new value of a
// single-valued predicate supersedes the old one), with the source among
// their Sources; a fact a rule found in a sentence that another rule
// stored a memory from has that memory as its MemoryID, which links the
// memory to the fact.
//
// A model's answer may come in a ```json fence or amid prose; its invalid
// items (a field missing or out of range, a triple with an empty part)
// are reported in [ExtractionResult] Rejected, with the reason, and its
// valid items stored. It returns an error matching [ErrInvalid] for bad
// messages, [ErrBadAnswer] when an answer cannot be used at all (no JSON
// object in it, none of the lists asked for, or over
// [ExtractionConfig.MaxResponseBytes]: then nothing is stored), the LLM's
// own error when a call fails (an [*APIError] from the provider packages'
// chats), the context's error when it is cancelled, [ErrClosed] after
// Close and a [*DatabaseError] when SQLite fails.
func (m *Memory) Extract(ctx context.Context, messages []Message) (ExtractionResult, error) {
	return m.ExtractWith(ctx, messages, ExtractOptions{})
}

// ExtractOptions scope what [Memory.ExtractWith] stores below the agent.
type ExtractOptions struct {
	// UserID and SessionID, when given, are the user and the session of
	// every semantic entry, episode and procedure stored (see
	// [SemanticEntry].UserID); what a user's memories hold already is not
	// stored again for that user, whatever other users hold. Facts are the
	// agent's and take neither.
	UserID, SessionID string
}

// ExtractWith is [Memory.Extract] with its memories scoped to a user and
// a session (see [ExtractOptions]). It returns the errors Extract returns,
// and an error matching [ErrInvalid] for an invalid user or session.
func (m *Memory) ExtractWith(ctx context.Context, messages []Message, opts ExtractOptions) (ExtractionResult, error) {
	if err := validateScope("ExtractOptions", opts.UserID, opts.SessionID); err != nil {
		return ExtractionResult{}, err
	}
	if err := m.validateMessages(messages); err != nil {
		return ExtractionResult{}, err
	}
	active, err := m.rules.activeRules(ctx)
	if err != nil {
		return ExtractionResult{}, err
	}
	items, err := m.rules.apply(active, messages)
	if err != nil {
		return ExtractionResult{}, err
	}
	var rejected []RejectedItem
	if m.llm != nil {
		more, bad, err := m.extractLLM(ctx, messages)
		if err != nil {
			return ExtractionResult{}, err
		}
		items, rejected = append(items, more...), bad
	}
	if len(items) == 0 {
		return ExtractionResult{Rejected: rejected}, nil
	}
	return m.storeFound(ctx, items, rejected, opts)
}

// storeFound stores what extraction found that memory does not hold yet,
// and asserts the facts found; rejected are the rejects so far. One read
// weeds out what memory holds already, so that extraction that finds
// nothing new writes nothing; the write checks again.
func (m *Memory) storeFound(ctx context.Context, items []found, rejected []RejectedItem, scope ExtractOptions) (ExtractionResult, error) {
	res := ExtractionResult{Rejected: rejected}
	seen := map[string]bool{}
	fresh := items[:0:0]
	var triples []found
	for _, it := range items {
		if it.typ == TypeFact {
			if bad := m.checkTriple(it.subject, it.predicate, it.object); bad != nil {
				res.Rejected = append(res.Rejected, it.reject(bad.Field, bad.Reason))
				continue
			}
			key := "fact\x00" + facts.EntityKey(it.subject) + "\x00" + m.preds.Key(it.predicate) + "\x00" + facts.EntityKey(it.object)
			if seen[key] {
				res.Duplicates++
				continue
			}
			seen[key] = true
			triples = append(triples, it)
			continue
		}
		key := string(it.typ) + "\x00" + strings.ToLower(it.key())
		if seen[key] {
			res.Duplicates++
			continue
		}
		seen[key] = true
		fresh = append(fresh, it)
	}
	known, err := m.known(ctx, fresh, scope.UserID)
	if err != nil {
		return ExtractionResult{}, err
	}
	items = fresh[:0]
	for _, it := range fresh {
		if known[it.typ][it.key()] {
			res.Duplicates++
		} else {
			items = append(items, it)
		}
	}
	if len(items) == 0 && len(triples) == 0 {
		return res, nil
	}
	now := m.now()
	prepared := make([]preparedFact, len(triples))
	for i, it := range triples {
		fact := Fact{Subject: it.subject, Predicate: it.predicate, Object: it.object, Sources: []string{it.source}}
		if prepared[i], err = m.facts.prepare("extracted fact", fact, now); err != nil {
			return ExtractionResult{}, err
		}
	}
	vecs, err := m.facts.predicateVectors(ctx, prepared)
	if err != nil {
		return ExtractionResult{}, err
	}
	dups, rejects := res.Duplicates, res.Rejected
	err = m.write(ctx, "extract.store", func(q store.Tx) error {
		res = ExtractionResult{Duplicates: dups, Rejected: rejects}
		// The memory a rule stored first from each sentence, by message
		// and sentence: the memory the facts found there came from.
		from := map[[2]int]string{}
		for _, it := range items {
			id, err := m.storeOne(q, it, now, scope)
			if err != nil {
				return err
			}
			if id == "" {
				res.Duplicates++
				continue
			}
			res.Items = append(res.Items, ExtractedItem{Type: it.typ, ID: id, Content: it.content, Source: it.source})
			if at := [2]int{it.message, it.sentence}; it.fromRule() && from[at] == "" {
				from[at] = id
			}
		}
		for i, it := range triples {
			p := prepared[i]
			if id := from[[2]int{it.message, it.sentence}]; it.fromRule() && id != "" {
				p.MemoryID, p.Sources = id, append(slices.Clip(p.Sources), id)
			}
			a, err := m.facts.assert(q, p, vecs[p.predicateKey], now)
			if err != nil {
				return err
			}
			res.Facts = append(res.Facts, ExtractedFact{Assertion: a, Source: it.source})
		}
		return nil
	})
	if err != nil {
		return ExtractionResult{}, err
	}
	m.embedSoon(ctx)
	return res, nil
}

// key is what identifies the item's memory: a procedure's name, another
// memory's content.
func (it found) key() string {
	if it.typ == TypeProcedural {
		return truncateUTF8(it.name, 200)
	}
	return it.content
}

// known returns, per type, the keys of the items that memory holds.
func (m *Memory) known(ctx context.Context, items []found, user string) (map[MemoryType]map[string]bool, error) {
	keys := map[MemoryType][]string{}
	for _, it := range items {
		keys[it.typ] = append(keys[it.typ], it.key())
	}
	out := map[MemoryType]map[string]bool{}
	err := m.read(ctx, "extract.known", func(q store.Tx) error {
		for typ, ks := range keys {
			var err error
			switch typ {
			case TypeSemantic:
				out[typ], err = m.semantic.holding(q, ks, user)
			case TypeEpisodic:
				out[typ], err = m.episodic.holding(q, ks, user)
			default:
				out[typ], err = m.procedural.named(q, ks)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// storeOne stores one found item, in scope, unless memory holds it
// already, and returns its ID ("" for a duplicate).
func (m *Memory) storeOne(q store.Tx, it found, now time.Time, scope ExtractOptions) (string, error) {
	field := "extracted " + string(it.typ)
	switch it.typ {
	case TypeSemantic:
		row, err := m.semantic.prepare(field, SemanticEntry{Content: it.content, Importance: it.importance,
			Tags: it.tags, Source: it.source, UserID: scope.UserID, SessionID: scope.SessionID}, now)
		if err != nil {
			return "", err
		}
		added, err := m.semantic.insertNew(q, row, now)
		if err != nil || !added {
			return "", err
		}
		return row.ID, nil
	case TypeEpisodic:
		row, err := m.episodic.prepare(field, Episode{Content: it.content, Type: it.event,
			Metadata: map[string]string{"source": it.source}, UserID: scope.UserID, SessionID: scope.SessionID}, now)
		if err != nil {
			return "", err
		}
		added, err := m.episodic.logNew(q, row)
		if err != nil || !added {
			return "", err
		}
		return row.ID, nil
	default:
		p := Procedure{Name: truncateUTF8(it.name, 200), Description: it.content, Pattern: it.steps,
			SuccessRate: it.importance, Tags: it.tags, UserID: scope.UserID, SessionID: scope.SessionID}
		row, err := m.procedural.prepare(field, p, now)
		if err != nil {
			return "", err
		}
		added, err := m.procedural.storeNew(q, row)
		if err != nil || !added {
			return "", err
		}
		return row.ID, nil
	}
}

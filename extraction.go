package engram

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/facts"
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

	mu       sync.Mutex // guards the fields below
	compiled map[string]compiledRule
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
	var rules []ExtractionRule
	err := r.m.read(ctx, "extract.rules", func(q store.Tx) error {
		v, set, err := store.Meta(q, metaRulesVersion+r.m.agent)
		if err != nil || !set {
			return err // unset: no rule was ever added
		}
		r.mu.Lock()
		if v == r.version {
			rules = r.active
			r.mu.Unlock()
			return nil
		}
		r.mu.Unlock()
		if rules, err = listRules(q, r.m.agent, true); err != nil {
			return err
		}
		r.mu.Lock()
		r.active, r.version = rules, v
		r.mu.Unlock()
		return nil
	})
	return rules, err
}

// compiledRule is a rule's regular expression and, when it can tell, the
// lowercase ASCII strings one of which every match contains: a sentence
// holding none of them is skipped without running the expression.
type compiledRule struct {
	re       *regexp.Regexp
	required []string
	// leading says every match starts with one of required (after \b
	// assertions). Then matches are only tried where one occurs, with
	// at0 (the expression anchored at the start) at the start of a
	// sentence and with after1 (anchored one rune further, its first
	// group the match) elsewhere, so that a word boundary is judged with
	// the rune before in view.
	leading     bool
	at0, after1 *regexp.Regexp
	// wordStart says, for a leading rule, that a \b comes before each of
	// required and each begins with a word character, so that matches
	// start only where a word does. There at0 decides alone, since \b
	// holds at the start of a string as it does at the start of a word,
	// and the rule's literals are found by one pass over the words.
	wordStart bool
}

// Rules returns the agent's extraction rules.
func (m *Memory) Rules() *Rules { return m.rules }

// HasLLM reports whether the Memory was opened [WithLLM]: whether
// [Memory.Extract] asks a model, besides applying the agent's rules.
func (m *Memory) HasLLM() bool { return m.llm != nil }

// minExtractedRunes is the shortest match worth keeping, as in the seed.
const minExtractedRunes = 6

// compilePattern compiles a rule's pattern as rules match: case-insensitively.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile("(?i)" + pattern)
}

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
	if _, err := compilePattern(rule.Pattern); err != nil {
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

// compile returns the compiled rule, compiling it once.
func (r *Rules) compile(rule ExtractionRule) (compiledRule, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.compiled[rule.Pattern]; ok {
		return c, nil
	}
	re, err := compilePattern(rule.Pattern)
	if err != nil {
		return compiledRule{}, err
	}
	c := compiledRule{re: re}
	if sre, err := syntax.Parse("(?i)"+rule.Pattern, syntax.Perl); err == nil {
		sre = sre.Simplify()
		c.required = requiredLiterals(sre)
		if lead, wordStart := leadingLiterals(sre); lead != nil {
			at0, err0 := regexp.Compile(`^(?:(?i)` + rule.Pattern + `)`)
			after1, err1 := regexp.Compile(`^(?s:.)((?i)` + rule.Pattern + `)`)
			if err0 == nil && err1 == nil {
				c.required, c.leading, c.at0, c.after1, c.wordStart = lead, true, at0, after1, wordStart
			}
		}
	}
	if r.compiled == nil || len(r.compiled) > 1024 {
		r.compiled = make(map[string]compiledRule)
	}
	r.compiled[rule.Pattern] = c
	return c, nil
}

// requiredLiterals returns lowercase ASCII strings one of which every
// match of re contains, or nil when it cannot tell.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		for _, c := range s {
			if c >= utf8.RuneSelf {
				return nil
			}
		}
		return []string{strings.ToLower(s)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any part's strings are required; the set whose shortest string
		// is longest filters best.
		var best []string
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

// leadingLiterals returns lowercase ASCII strings one of which every match
// of re starts with, after any word-boundary assertions, or nil when it
// cannot tell. wordStart says a \b comes before each string and each
// begins with a word character.
func leadingLiterals(re *syntax.Regexp) (lits []string, wordStart bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpLiteral:
		return requiredLiterals(re), false
	case syntax.OpAlternate:
		wordStart = true
		for _, sub := range re.Sub {
			l, ws := leadingLiterals(sub)
			if l == nil {
				return nil, false
			}
			lits, wordStart = append(lits, l...), wordStart && ws
		}
		return lits, wordStart
	case syntax.OpConcat:
		boundary := false
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary:
				boundary = true
				continue
			case syntax.OpNoWordBoundary:
				continue
			}
			lits, wordStart = leadingLiterals(sub)
			if boundary && lits != nil {
				wordStart = true
				for _, l := range lits {
					wordStart = wordStart && isWordByte(l[0])
				}
			}
			return lits, wordStart
		}
	}
	return nil, false
}

// isWordByte reports whether c is an ASCII word character, as \b judges.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func shortest(ss []string) int {
	n := -1
	for _, s := range ss {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// sentenceSpans returns the byte ranges of the sentences of text, trimmed
// of surrounding space: a sentence ends at '.', '!' or '?' followed by a
// space or the end, and at a line break.
func sentenceSpans(text string) [][2]int {
	var out [][2]int
	add := func(start, end int) {
		for start < end && isSpace(text[start]) {
			start++
		}
		for end > start && isSpace(text[end-1]) {
			end--
		}
		if start < end {
			out = append(out, [2]int{start, end})
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := c == '\n'
		if c == '.' || c == '!' || c == '?' {
			end = i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '\t'
		}
		if end {
			add(start, i)
			start = i + 1
		}
	}
	add(start, len(text))
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// ruleHit is a match before it becomes a found item, with where it was,
// so that matches come out in message, sentence, rule order.
type ruleHit struct {
	message, sentence, rule, order int
	found
}

// apply returns every match of the rules in the user messages, sentence
// by sentence, in message, sentence and rule order.
//
// A rule whose matches must contain one of some literal strings only runs
// on the sentences holding one; when its matches start with one, it runs
// only where one occurs. The literals that must start a word are found by
// one pass over the words of a message, the others by one scan of the
// message per literal. In a message outside ASCII, where case folding can
// match other bytes, the expressions run on every sentence.
func (r *Rules) apply(rules []ExtractionRule, messages []Message) ([]found, error) {
	sc, err := r.newRuleScan(rules)
	if err != nil {
		return nil, err
	}
	for mi, msg := range messages {
		if msg.Role == "user" {
			sc.message(mi, msg.Content)
		}
	}
	slices.SortFunc(sc.hits, func(a, b ruleHit) int {
		return cmp.Or(cmp.Compare(a.message, b.message), cmp.Compare(a.sentence, b.sentence),
			cmp.Compare(a.rule, b.rule), cmp.Compare(a.order, b.order))
	})
	out := make([]found, len(sc.hits))
	for i, h := range sc.hits {
		out[i] = h.found
	}
	return out, nil
}

// ruleScan is one run of apply: the compiled rules, and buffers reused
// from message to message.
type ruleScan struct {
	rules    []ExtractionRule
	compiled []compiledRule
	// byFirst lists the word-start literals by their first byte: for
	// each, its rule's index and the literal.
	byFirst [128][]ruleLiteral
	hits    []ruleHit
	from    []int    // per sentence: where to start, or -1 to skip it
	starts  [][]int  // per sentence, for a leading rule: where matches may start
	at      [][]int  // per rule: wordStarts' finds in a message
	sources []string // per rule: "rule:<name>", once it matches
	user    string   // the user entity, for fact rules

	// The message being scanned.
	index   int
	text    string
	lowered string // text in lower case, made when first needed
	spans   [][2]int
	ascii   bool
}

func (r *Rules) newRuleScan(rules []ExtractionRule) (*ruleScan, error) {
	sc := &ruleScan{rules: rules, compiled: make([]compiledRule, len(rules)),
		at: make([][]int, len(rules)), sources: make([]string, len(rules)), user: "User"}
	if r.m != nil {
		sc.user = r.m.cfg.Facts.UserEntity
	}
	for i, rule := range rules {
		c, err := r.compile(rule)
		if err != nil {
			return nil, err
		}
		sc.compiled[i] = c
		if c.wordStart {
			for _, lit := range c.required {
				sc.byFirst[lit[0]] = append(sc.byFirst[lit[0]], ruleLiteral{i, lit})
			}
		}
	}
	return sc, nil
}

// message runs every rule on the sentences of the message with index mi.
func (sc *ruleScan) message(mi int, text string) {
	sc.index, sc.text, sc.lowered = mi, text, ""
	sc.spans = sentenceSpans(text)
	sc.ascii = isASCII(text)
	if sc.ascii {
		for ri := range sc.at {
			sc.at[ri] = sc.at[ri][:0]
		}
		wordStarts(text, &sc.byFirst, sc.at)
	}
	for ri, c := range sc.compiled {
		leading := sc.locate(ri, c)
		for k, sp := range sc.spans {
			if sc.from[k] >= 0 {
				sc.match(ri, c, k, sc.text[sp[0]:sp[1]], leading)
			}
		}
	}
}

// locate decides which sentences rule ri runs on (from) and, for a rule
// whose matches start with a literal, where in them (starts), and reports
// whether starts applies.
func (sc *ruleScan) locate(ri int, c compiledRule) (leading bool) {
	n := len(sc.spans)
	sc.from = slices.Grow(sc.from[:0], n)[:n]
	fill := 0
	if sc.ascii && c.required != nil {
		fill = -1
	}
	for k := range sc.from {
		sc.from[k] = fill
	}
	leading = fill < 0 && c.leading
	if leading {
		sc.starts = slices.Grow(sc.starts[:0], n)[:n]
		for k := range sc.starts {
			sc.starts[k] = sc.starts[k][:0]
		}
	}
	switch {
	case fill < 0 && c.wordStart:
		for _, p := range sc.at[ri] {
			sc.mark(p&(1<<32-1), p>>32, leading)
		}
	case fill < 0:
		if sc.lowered == "" {
			sc.lowered = strings.ToLower(sc.text)
		}
		for _, lit := range c.required {
			for off := 0; ; {
				i := strings.Index(sc.lowered[off:], lit)
				if i < 0 {
					break
				}
				sc.mark(off+i, len(lit), leading)
				off += i + 1
			}
		}
	}
	return leading
}

// mark lets the rule run on the sentence holding the literal found at
// pos, n bytes long, and there, when leading.
func (sc *ruleScan) mark(pos, n int, leading bool) {
	spans := sc.spans
	k, _ := slices.BinarySearchFunc(spans, pos, func(sp [2]int, p int) int {
		if sp[1] <= p {
			return -1
		}
		if sp[0] > p {
			return 1
		}
		return 0
	})
	if k == len(spans) || pos < spans[k][0] || pos+n > spans[k][1] {
		return // across a sentence end: not in one sentence
	}
	sc.from[k] = 0
	if leading {
		sc.starts[k] = append(sc.starts[k], pos-spans[k][0])
	}
}

// match runs rule ri on sentence k and keeps what it finds.
func (sc *ruleScan) match(ri int, c compiledRule, k int, sentence string, leading bool) {
	if sc.rules[ri].Type == TypeFact {
		sc.matchFacts(ri, c, k, sentence)
		return
	}
	var matches []string
	if leading {
		matches = c.matchAt(sentence, sc.starts[k])
	} else {
		matches = c.re.FindAllString(sentence, -1)
	}
	for n, match := range matches {
		content := strings.TrimSpace(strings.TrimRight(match, " ,;:"))
		if utf8.RuneCountInString(content) < minExtractedRunes {
			continue
		}
		rule := sc.rules[ri]
		if sc.sources[ri] == "" {
			sc.sources[ri] = "rule:" + rule.Name
		}
		sc.hits = append(sc.hits, ruleHit{sc.index, k, ri, n, found{typ: rule.Type, content: content,
			importance: rule.Importance, tags: rule.Tags, source: sc.sources[ri],
			event: EventObservation, name: content, steps: sentence, message: sc.index, sentence: k}})
	}
}

// matchFacts runs the fact rule ri on sentence k and keeps the facts it
// makes. It needs the groups of every match, so it runs the expression
// on the whole sentence; like any rule, it runs only on the sentences
// holding one of its required literals.
func (sc *ruleScan) matchFacts(ri int, c compiledRule, k int, sentence string) {
	rule := &sc.rules[ri]
	for n, loc := range c.re.FindAllStringSubmatchIndex(sentence, -1) {
		if sc.sources[ri] == "" {
			sc.sources[ri] = "rule:" + rule.Name
		}
		it := found{typ: TypeFact, content: strings.TrimSpace(sentence[loc[0]:loc[1]]), source: sc.sources[ri],
			message: sc.index, sentence: k}
		it.subject, it.predicate, it.object = factParts(rule, c.re, sentence, loc, sc.user)
		sc.hits = append(sc.hits, ruleHit{sc.index, k, ri, n, it})
	}
}

// ruleLiteral is a word-start literal of the rule at index rule.
type ruleLiteral struct {
	rule int
	lit  string
}

// wordStarts finds, at the start of every word of the ASCII text, the
// literals of byFirst the word starts with, regardless of case, and
// appends each one's offset and length (offset | length<<32) to at[rule].
func wordStarts(text string, byFirst *[128][]ruleLiteral, at [][]int) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !isWordByte(c) || i > 0 && isWordByte(text[i-1]) {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
	next:
		for _, rl := range byFirst[c] {
			if len(text)-i < len(rl.lit) {
				continue
			}
			for j := 1; j < len(rl.lit); j++ {
				b := text[i+j]
				if 'A' <= b && b <= 'Z' {
					b += 'a' - 'A'
				}
				if b != rl.lit[j] {
					continue next
				}
			}
			at[rl.rule] = append(at[rl.rule], i|len(rl.lit)<<32)
		}
	}
}

// matchAt returns what re.FindAllString(sentence, -1) returns, for a
// leading rule whose matches can only start at the given offsets: at0
// tries the start of the sentence and, for a word-start rule, every
// offset; after1 tries the others with the byte before in view.
func (c compiledRule) matchAt(sentence string, starts []int) []string {
	slices.Sort(starts)
	var out []string
	end := 0
	for i, p := range starts {
		if p < end || i > 0 && p == starts[i-1] {
			continue
		}
		var lo, hi int
		if p == 0 || c.wordStart {
			loc := c.at0.FindStringIndex(sentence[p:])
			if loc == nil {
				continue
			}
			lo, hi = p+loc[0], p+loc[1]
		} else {
			loc := c.after1.FindStringSubmatchIndex(sentence[p-1:])
			if loc == nil {
				continue
			}
			lo, hi = p-1+loc[2], p-1+loc[3]
		}
		out = append(out, sentence[lo:hi])
		end = max(hi, lo+1)
	}
	return out
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
	rules, err := r.activeRules(ctx)
	if err != nil {
		return nil, err
	}
	items, err := r.apply(rules, messages)
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
	rules, err := m.rules.activeRules(ctx)
	if err != nil {
		return ExtractionResult{}, err
	}
	items, err := m.rules.apply(rules, messages)
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

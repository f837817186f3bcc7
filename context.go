package engram

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/store"
)

// ContextOptions says what [Memory.Context] puts in its block.
type ContextOptions struct {
	// Query is what the agent is about to work on, in its own words;
	// the memories recalled for it come last. Optional: without it the
	// block holds only what does not depend on a query.
	Query string
	// MaxTokens bounds the block, as Tokens counts; 0 means
	// DefaultContextTokens. At most 1,000,000.
	MaxTokens int
	// Tokens counts the tokens of a text; nil means [EstimateTokens].
	// Give the model's tokenizer for an exact count.
	Tokens func(string) int
	// Filter, when not nil, keeps in every section only the memories it
	// keeps (see [Filter]): the block of one user, say. A section of a
	// kind the filter leaves out is empty.
	Filter *Filter
}

// DefaultContextTokens is the budget of [Memory.Context] when
// ContextOptions.MaxTokens is 0.
const DefaultContextTokens = 2000

// maxContextTokens bounds ContextOptions.MaxTokens.
const maxContextTokens = 1_000_000

// ContextBlock is a block of markdown for a system prompt (see
// [Memory.Context]).
type ContextBlock struct {
	// Text is the block.
	Text string
	// Tokens is its size, as ContextOptions.Tokens counts.
	Tokens int
	// Stable is how many bytes of Text do not depend on the query: the
	// prefix that stays byte-identical between calls while memory does
	// not change, which providers' prompt caches can reuse.
	Stable int
	// Sections says what each section of the block holds.
	Sections []ContextSection
}

// ContextSection is one section of a [ContextBlock].
type ContextSection struct {
	Title string
	Type  MemoryType // the kind of its memories; "" for recalled ones, of any kind
	IDs   []string   // the memories shown, in order
	// Omitted is how many of the memories next in line did not fit: a
	// section considers as many as its share could hold at three tokens a
	// line (the recalled memories: every candidate), so it is more than 0
	// when the budget cut the section.
	Omitted int
	Tokens  int // the section's tokens, title included
}

// The shares of the budget each section may use, in order; what a section
// leaves unused passes to the next ones. The sections before the recalled
// memories never depend on the query, so their share is fixed.
const (
	shareFacts      = 0.30
	shareTriples    = 0.10
	shareProcedures = 0.15
	shareRecent     = 0.15
)

// contextRecalled is how many candidates of each kind Context scores for
// its last section, at least.
const contextRecalled = 20

// Line caps: a long memory is cut (with "…") so that one memory cannot
// take a section's whole share.
const (
	maxFactRunes     = 300
	maxEpisodeRunes  = 300
	maxRecalledRunes = 500
)

// EstimateTokens estimates how many tokens a language model's tokenizer
// makes of s: a quarter of its ASCII bytes, rounded up, plus one per
// character beyond ASCII (which tokenizers often spend a token or more
// on). It errs on the side of more tokens for English text, and costs a
// pass over the bytes.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
		other++
	}
	return (ascii+3)/4 + other
}

// Context returns a block of markdown ready for a system prompt, within
// a budget of tokens: the agent's most important facts (semantic entries,
// most important first), the facts that hold now (see [Facts], strongest
// first), its active procedures (best success rate first), its most
// recent episodes, and last the memories recalled for the query (scored
// as [Memory.Recall] scores them, best gate first, leaving out those
// already shown). The sections before the recalled memories do not
// depend on the query, and each has a fixed share of the budget (30%,
// 10%, 15% and 15%; a share left unused passes on), so the block's prefix (its
// Stable bytes) is byte-identical between calls while memory does not
// change, and providers' prompt caching works. The block carries no IDs;
// its Sections name the memories it shows. For the same data, query and
// clock the block is the same.
//
// Context changes nothing: unlike Search and Recall it counts no access
// or retrieval and leaves the working set alone.
//
// It returns an error matching [ErrInvalid] for bad options (an invalid
// query, a MaxTokens outside [0, 1000000]), [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (m *Memory) Context(ctx context.Context, opts ContextOptions) (ContextBlock, error) {
	if err := validateText("Query", opts.Query, false, m.cfg.Limits.MaxContentBytes); err != nil {
		return ContextBlock{}, err
	}
	if opts.MaxTokens < 0 || opts.MaxTokens > maxContextTokens {
		return ContextBlock{}, invalid("MaxTokens", "%d is outside [0, %d]", opts.MaxTokens, maxContextTokens)
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultContextTokens
	}
	if opts.Tokens == nil {
		opts.Tokens = EstimateTokens
	}
	var sc *scope
	if opts.Filter != nil {
		if err := opts.Filter.validate("Filter", m.cfg.Limits); err != nil {
			return ContextBlock{}, err
		}
		f := opts.Filter.clone()
		opts.Filter = &f
		s := newScope(f, m.dialect())
		sc = &s
	}
	b := &contextBuilder{budget: opts.MaxTokens, tokens: opts.Tokens, shown: map[noteKey]bool{}}
	b.line("# Memory of "+m.agent, false)
	if err := m.contextStable(ctx, b, sc); err != nil {
		return ContextBlock{}, err
	}
	b.stable = b.size()
	if strings.TrimSpace(opts.Query) != "" {
		if err := m.contextRecalled(ctx, b, opts.Query, opts.Filter); err != nil {
			return ContextBlock{}, err
		}
	}
	return b.finish(), nil
}

// contextStable writes the sections that do not depend on the query.
func (m *Memory) contextStable(ctx context.Context, b *contextBuilder, sc *scope) error {
	var facts []SemanticEntry
	var triples []Fact
	var procs []Procedure
	var recent []Episode
	// Enough rows to fill each section at three tokens a line, with the
	// shares the sections before may leave it.
	rows := func(share float64) int { return min(10_000, int(share*float64(b.budget))/3+1) }
	err := m.read(ctx, "context", func(q store.Tx) error {
		var err error
		if sc.admitsKind(semanticKind) {
			if facts, err = m.semantic.best(q, sc, rows(shareFacts), 0); err != nil {
				return err
			}
		}
		if triples, err = m.facts.strongest(q, rows(shareFacts+shareTriples), sc); err != nil {
			return err
		}
		if procs, err = m.procedural.active(q, rows(shareFacts+shareTriples+shareProcedures), sc); err != nil {
			return err
		}
		recent, err = m.episodic.recent(q, rows(shareFacts+shareTriples+shareProcedures+shareRecent), sc)
		return err
	})
	if err != nil {
		return err
	}
	b.section("What I know", TypeSemantic, shareFacts, len(facts), func(i int) (noteKey, string) {
		e := facts[i]
		line := oneLine(e.Summary, maxFactRunes)
		if len(e.Tags) > 0 {
			line += " [" + strings.Join(e.Tags, ", ") + "]"
		}
		return noteKey{TypeSemantic, e.ID}, "- " + line
	})
	b.section("Facts", TypeFact, shareTriples, len(triples), func(i int) (noteKey, string) {
		f := triples[i]
		return noteKey{TypeFact, f.ID}, "- " + oneLine(f.String(), maxFactRunes) + " (since " + f.ValidFrom.Format(time.DateOnly) + ")"
	})
	b.section("How I work", TypeProcedural, shareProcedures, len(procs), func(i int) (noteKey, string) {
		p := procs[i]
		line := oneLine(p.Name+": "+p.Description, maxFactRunes)
		return noteKey{TypeProcedural, p.ID}, fmt.Sprintf("- %s (succeeds %d%%)", line, int(p.SuccessRate*100+0.5))
	})
	b.section("Recently", TypeEpisodic, shareRecent, len(recent), func(i int) (noteKey, string) {
		e := recent[i]
		return noteKey{TypeEpisodic, e.ID}, "- " + e.CreatedAt.UTC().Format("2006-01-02 15:04") + " " + oneLine(e.Content, maxEpisodeRunes)
	})
	return nil
}

// contextRecalled writes the memories recalled for query that the block
// does not show yet, best gate first, in what is left of the budget.
func (m *Memory) contextRecalled(ctx context.Context, b *contextBuilder, query string, f *Filter) error {
	// More candidates than Recall scores: the sections before may show
	// some already.
	res, err := m.recall(ctx, RecallOptions{Query: query, Filter: f}, true, max(m.cfg.Recall.PerKind, contextRecalled))
	if err != nil {
		return err
	}
	var all []Recalled
	for _, list := range res.ByKind {
		all = append(all, list...)
	}
	slices.SortStableFunc(all, byGate)
	all = slices.DeleteFunc(all, func(r Recalled) bool { return b.shown[noteKey{r.Type, r.ID}] })
	b.section("Relevant to "+strconv.Quote(oneLine(query, 80)), "", 1, len(all), func(i int) (noteKey, string) {
		r := all[i]
		label := string(r.Type)
		if r.Type == TypeEpisodic || r.Type == TypeSnapshot {
			label += " " + r.CreatedAt.UTC().Format(time.DateOnly)
		}
		if r.Source != "" {
			label += ", " + oneLine(r.Source, maxRecalledRunes/2) // a document cites its place
		}
		return noteKey{r.Type, r.ID}, "- (" + label + ") " + oneLine(r.Content, maxRecalledRunes)
	})
	return nil
}

// contextBuilder writes a block line by line within its budget.
type contextBuilder struct {
	budget, used int
	shares       float64 // the shares of the sections so far, with this one's
	tokens       func(string) int
	lines        []contextLine
	stable       int // bytes of the lines that do not depend on the query
	sections     []ContextSection
	shown        map[noteKey]bool
}

// contextLine is a line of the block: a memory's (item) or a title.
type contextLine struct {
	text   string // without its newline
	tokens int
	item   bool // a memory's line, the last of the last section's IDs
}

// size is the length in bytes of the lines so far, with their newlines.
func (b *contextBuilder) size() int {
	n := 0
	for _, l := range b.lines {
		n += len(l.text) + 1
	}
	return n
}

// line adds one line if it fits, and reports whether it did.
func (b *contextBuilder) line(s string, item bool) bool {
	n := b.tokens(s + "\n")
	if b.used+n > b.budget {
		return false
	}
	b.lines = append(b.lines, contextLine{text: s, tokens: n, item: item})
	b.used += n
	return true
}

// section adds a titled section of up to n memories (item(i) names the
// i-th and makes its line), within share of the whole budget plus what
// the sections before it left (the block so far stays within the sum of
// their shares); it adds nothing when no memory fits.
func (b *contextBuilder) section(title string, typ MemoryType, share float64, n int, item func(i int) (noteKey, string)) {
	b.shares += share
	if n == 0 {
		return
	}
	limit := min(b.budget, int(b.shares*float64(b.budget)))
	sec := ContextSection{Title: title, Type: typ}
	start, startLines := b.used, len(b.lines)
	saved := b.budget
	b.budget = min(b.budget, limit)
	defer func() { b.budget = saved }()
	if !b.line("\n## "+title, false) {
		return
	}
	for i := range n {
		key, line := item(i)
		if !b.line(line, true) {
			sec.Omitted = n - i
			break
		}
		sec.IDs = append(sec.IDs, key.id)
		b.shown[key] = true
	}
	if len(sec.IDs) == 0 { // a title alone says nothing
		b.used, b.lines = start, b.lines[:startLines]
		return
	}
	sec.Tokens = b.used - start
	b.sections = append(b.sections, sec)
}

// finish returns the block, making sure the whole text is within the
// budget even for a tokenizer that counts a text as more than its lines:
// lines are dropped from the end until it is, and the sections say so.
func (b *contextBuilder) finish() ContextBlock {
	var text strings.Builder
	for _, l := range b.lines {
		text.WriteString(l.text)
		text.WriteByte('\n')
	}
	n := b.tokens(text.String())
	for n > b.budget && len(b.lines) > 0 {
		last := b.lines[len(b.lines)-1]
		b.lines = b.lines[:len(b.lines)-1]
		if last.item {
			sec := &b.sections[len(b.sections)-1]
			sec.IDs = sec.IDs[:len(sec.IDs)-1]
			sec.Omitted++
			sec.Tokens -= last.tokens
			if len(sec.IDs) == 0 { // its title goes too
				b.lines = b.lines[:len(b.lines)-1]
				b.sections = b.sections[:len(b.sections)-1]
			}
		}
		s := text.String()[:b.size()]
		text.Reset()
		text.WriteString(s)
		n = b.tokens(s)
	}
	return ContextBlock{Text: text.String(), Tokens: n, Stable: min(b.stable, text.Len()), Sections: b.sections}
}

package rules

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Hit is what a rule found in a sentence.
type Hit struct {
	Rule     int // the rule's index in the rules given to [Cache.Scanner]
	Message  int // the message's index, as given to [Scanner.Scan]
	Sentence int // the sentence's index in the message
	// Content is the match trimmed of spaces (and, for a rule other than a
	// fact rule, of trailing commas, semicolons and colons).
	Content string
	// Text is the sentence the match was found in, trimmed of spaces.
	Text string
	// Subject, Predicate and Object are, for a fact rule, the parts of its
	// fact (see [Rule]), trimmed of spaces and of trailing commas,
	// semicolons and colons; a subject that is empty, and a subject or
	// object that is a first-person pronoun, is the user entity (see
	// [UserEntity]).
	Subject, Predicate, Object string
}

// Scanner finds the matches of a set of rules in messages, one message
// at a time. Get one from [Cache.Scanner]; it reuses its buffers from
// message to message and is not safe for concurrent use.
type Scanner struct {
	rules    []Rule
	compiled []compiled
	// byFirst lists the word-start literals by their first byte: for
	// each, its rule's index and the literal.
	byFirst [128][]ruleLiteral
	hits    []Hit
	from    []int   // per sentence: where to start, or -1 to skip it
	starts  [][]int // per sentence, for a leading rule: where matches may start
	at      [][]int // per rule: wordStarts' finds in a message
	user    string  // the user entity, for fact rules

	// The message being scanned.
	index   int
	text    string
	lowered string // text in lower case, made when first needed
	spans   [][2]int
	ascii   bool
}

// ruleLiteral is a word-start literal of the rule at index rule.
type ruleLiteral struct {
	rule int
	lit  string
}

// Scanner compiles the rules (each pattern once in c's life) and returns
// a Scanner of them; user is the user entity that fact rules put for a
// first-person subject or object. It returns the error of [Compile] for
// a rule whose pattern does not compile.
func (c *Cache) Scanner(rules []Rule, user string) (*Scanner, error) {
	sc := &Scanner{rules: rules, compiled: make([]compiled, len(rules)), at: make([][]int, len(rules)), user: user}
	for i, rule := range rules {
		cr, err := c.compile(rule.Pattern)
		if err != nil {
			return nil, err
		}
		sc.compiled[i] = cr
		if cr.wordStart {
			for _, lit := range cr.required {
				sc.byFirst[lit[0]] = append(sc.byFirst[lit[0]], ruleLiteral{i, lit})
			}
		}
	}
	return sc, nil
}

// Scan runs every rule on the sentences of text (see [Sentences]), the
// message with the given index, and keeps what they find for
// [Scanner.Hits].
//
// A rule whose matches must contain one of some literal strings only runs
// on the sentences holding one; when its matches start with one, it runs
// only where one occurs. The literals that must start a word are found by
// one pass over the words of a message, the others by one scan of the
// message per literal. In a message outside ASCII, where case folding can
// match other bytes, the expressions run on every sentence.
func (sc *Scanner) Scan(index int, text string) {
	sc.index, sc.text, sc.lowered = index, text, ""
	sc.spans = Sentences(text)
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

// Hits returns what the rules found in the messages scanned so far, in
// message, sentence and rule order, a rule's matches in a sentence in
// the order they occur.
func (sc *Scanner) Hits() []Hit {
	// Stable: a rule's matches in a sentence were kept in order.
	slices.SortStableFunc(sc.hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(a.Message, b.Message), cmp.Compare(a.Sentence, b.Sentence),
			cmp.Compare(a.Rule, b.Rule))
	})
	return sc.hits
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Sentences returns the byte ranges of the sentences of text, trimmed of
// surrounding space: a sentence ends at '.', '!' or '?' followed by a
// space or the end, and at a line break.
func Sentences(text string) [][2]int {
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

// locate decides which sentences rule ri runs on (from) and, for a rule
// whose matches start with a literal, where in them (starts), and reports
// whether starts applies.
func (sc *Scanner) locate(ri int, c compiled) (leading bool) {
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
func (sc *Scanner) mark(pos, n int, leading bool) {
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
func (sc *Scanner) match(ri int, c compiled, k int, sentence string, leading bool) {
	if sc.rules[ri].Type == Fact {
		sc.matchFacts(ri, c, k, sentence)
		return
	}
	var matches []string
	if leading {
		matches = c.matchAt(sentence, sc.starts[k])
	} else {
		matches = c.re.FindAllString(sentence, -1)
	}
	for _, match := range matches {
		content := strings.TrimSpace(strings.TrimRight(match, " ,;:"))
		if utf8.RuneCountInString(content) < MinRunes {
			continue
		}
		sc.hits = append(sc.hits, Hit{Rule: ri, Message: sc.index, Sentence: k, Content: content, Text: sentence})
	}
}

// matchFacts runs the fact rule ri on sentence k and keeps the facts it
// makes. It needs the groups of every match, so it runs the expression
// on the whole sentence; like any rule, it runs only on the sentences
// holding one of its required literals.
func (sc *Scanner) matchFacts(ri int, c compiled, k int, sentence string) {
	rule := &sc.rules[ri]
	for _, loc := range c.re.FindAllStringSubmatchIndex(sentence, -1) {
		h := Hit{Rule: ri, Message: sc.index, Sentence: k, Content: strings.TrimSpace(sentence[loc[0]:loc[1]]),
			Text: sentence}
		h.Subject, h.Predicate, h.Object = factParts(rule, c.re, sentence, loc, sc.user)
		sc.hits = append(sc.hits, h)
	}
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
func (c compiled) matchAt(sentence string, starts []int) []string {
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

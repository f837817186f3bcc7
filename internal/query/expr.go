package query

import (
	"fmt"
	"strings"
)

// An FTS5 expression, parsed and matched as SQLite's FTS5 parses and
// matches it (ext/fts5/fts5parse.y and fts5_expr.c): the same grammar,
// the same errors, the same rows found, for an index tokenized by
// "porter unicode61" (Tokens, then Stem). A store without FTS5 matches
// an Advanced search's expression with it; engram checks expressions
// with it before any search.
//
// The grammar, with OR binding loosest, then AND, then NOT, each left to
// right, and phrases side by side (an implicit AND) tightest:
//
//	expr     := expr (AND|OR|NOT) expr | "(" expr ")" | colset ":" "(" expr ")" | cnearset+
//	cnearset := [colset ":"] nearset
//	colset   := ["-"] (STRING | "{" STRING+ "}")
//	nearset  := ["^"] phrase | "NEAR" "(" phrase+ ["," digits] ")"
//	phrase   := STRING ["*"] ("+" STRING ["*"])*
//
// STRING is a bareword (ASCII letters, digits, "_", byte 0x1A and any
// non-ASCII byte) or a "quoted string" with "" for a quote.

// ExprError is a malformed expression: what FTS5 says of it.
type ExprError struct{ Msg string }

// Error returns FTS5's message.
func (e *ExprError) Error() string { return e.Msg }

// Expr is a parsed FTS5 expression over an index of named columns.
type Expr struct {
	root *exprNode // nil matches nothing
	cols int       // the index's columns
}

// exprNode is a node of an expression: an operator over its kids, or a
// nearset (phrases, with its NEAR distance and columns), or nothing
// (eof: a phrase with no token, which matches no row).
type exprNode struct {
	op      int
	kids    []*exprNode
	phrases []*exprPhrase
	near    int
	cols    []int // ascending; nil for every column
}

const (
	opNear = iota // a nearset (one phrase, or NEAR of several)
	opAnd
	opOr
	opNot
	opEOF
)

// exprPhrase is a phrase: its terms, Porter stems, in order.
type exprPhrase struct {
	terms []exprTerm
}

type exprTerm struct {
	stem   string
	prefix bool // matches every stem it starts
	first  bool // only as a column's first token (^)
}

// nearDefault is NEAR's distance when none is given.
const nearDefault = 10

// stackDepth is how many symbols the parser's stack holds, as Lemon's
// parser of FTS5 (YYSTACKDEPTH) holds them: a deeper expression fails
// with a stack overflow.
const stackDepth = 100

// Expression tokens.
const (
	tEOF = iota
	tLP
	tRP
	tLCP
	tRCP
	tColon
	tComma
	tPlus
	tStar
	tMinus
	tCaret
	tString
	tAnd
	tOr
	tNot
)

type exprToken struct {
	kind int
	text string // as written (a STRING's quotes included)
}

// lexExpr splits expr into FTS5's tokens, ending with tEOF; FTS5 reads
// a string up to its first NUL.
func lexExpr(expr string) ([]exprToken, error) {
	if i := strings.IndexByte(expr, 0); i >= 0 {
		expr = expr[:i]
	}
	var out []exprToken
	for i := 0; ; {
		for i < len(expr) && (expr[i] == ' ' || expr[i] == '\t' || expr[i] == '\n' || expr[i] == '\r') {
			i++
		}
		if i == len(expr) {
			return append(out, exprToken{kind: tEOF}), nil
		}
		single := map[byte]int{'(': tLP, ')': tRP, '{': tLCP, '}': tRCP, ':': tColon, ',': tComma, '+': tPlus, '*': tStar, '-': tMinus, '^': tCaret}
		c := expr[i]
		if k, ok := single[c]; ok {
			out = append(out, exprToken{kind: k, text: expr[i : i+1]})
			i++
			continue
		}
		if c == '"' {
			j := i + 1
			for {
				if j == len(expr) {
					return nil, &ExprError{Msg: "unterminated string"}
				}
				if expr[j] == '"' {
					j++
					if j == len(expr) || expr[j] != '"' {
						break
					}
				}
				j++
			}
			out = append(out, exprToken{kind: tString, text: expr[i:j]})
			i = j
			continue
		}
		if !bareword(c) {
			return nil, &ExprError{Msg: fmt.Sprintf("fts5: syntax error near %q", expr[i:i+1])}
		}
		j := i + 1
		for j < len(expr) && bareword(expr[j]) {
			j++
		}
		t := exprToken{kind: tString, text: expr[i:j]}
		switch t.text {
		case "OR":
			t.kind = tOr
		case "AND":
			t.kind = tAnd
		case "NOT":
			t.kind = tNot
		}
		out = append(out, t)
		i = j
	}
}

// bareword reports whether FTS5 reads byte c as part of a bareword.
func bareword(c byte) bool {
	return c >= 0x80 || c == 0x1A || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// unquote returns a STRING token's text: a quoted one without its
// quotes, a doubled quote standing for one.
func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// ParseExpr parses an FTS5 expression over an index whose columns are
// named cols (in order; names match case-insensitively), as FTS5 does.
// It returns an *ExprError for what FTS5 rejects: a syntax error, an
// unterminated string, a column not in cols, a NEAR distance that is
// not an integer, an expression too deep for FTS5's parser.
func ParseExpr(expr string, cols []string) (*Expr, error) {
	toks, err := lexExpr(expr)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks, cols: cols}
	root := p.expr(0, 1)
	if p.err == nil && p.peek().kind != tEOF {
		p.fail()
	}
	if p.err != nil {
		return nil, p.err
	}
	return &Expr{root: root, cols: len(cols)}, nil
}

// exprParser parses tokens by precedence climbing, which accepts what
// FTS5's LALR grammar accepts. depth tracks the symbols Lemon's parser
// would hold on its stack, to fail where it overflows.
type exprParser struct {
	toks []exprToken
	at   int
	cols []string
	err  error
}

func (p *exprParser) peek() exprToken { return p.toks[p.at] }

func (p *exprParser) peekAt(n int) exprToken {
	if p.at+n < len(p.toks) {
		return p.toks[p.at+n]
	}
	return exprToken{kind: tEOF}
}

func (p *exprParser) next() exprToken {
	t := p.toks[p.at]
	if t.kind != tEOF {
		p.at++
	}
	return t
}

// fail records a syntax error at the next token.
func (p *exprParser) fail() {
	if p.err == nil {
		p.err = &ExprError{Msg: fmt.Sprintf("fts5: syntax error near %q", p.peek().text)}
	}
}

// push notes that the parser's stack holds depth symbols.
func (p *exprParser) push(depth int) {
	if depth >= stackDepth && p.err == nil {
		p.err = &ExprError{Msg: "fts5: parser stack overflow"}
	}
}

func precedence(kind int) int {
	switch kind {
	case tOr:
		return 1
	case tAnd:
		return 2
	case tNot:
		return 3
	}
	return 0
}

// expr parses operators of at least precedence min, the first symbol
// at stack depth depth.
func (p *exprParser) expr(min, depth int) *exprNode {
	left := p.primary(depth)
	for p.err == nil {
		op := p.peek().kind
		prec := precedence(op)
		if prec == 0 || prec < min {
			return left
		}
		p.next()
		p.push(depth + 1)
		right := p.expr(prec+1, depth+2)
		left = binary(op, left, right)
	}
	return left
}

// binary returns the node op (tAnd, tOr or tNot) of left and right.
func binary(op int, left, right *exprNode) *exprNode {
	if left == nil {
		return right
	}
	if right == nil {
		return left
	}
	n := &exprNode{kids: []*exprNode{left, right}}
	switch op {
	case tAnd:
		n.op = opAnd
	case tOr:
		n.op = opOr
	default:
		n.op = opNot
	}
	return n
}

// primary parses "(" expr ")", colset ":" "(" expr ")" or a run of
// cnearsets (an implicit AND).
func (p *exprParser) primary(depth int) *exprNode {
	p.push(depth)
	if p.err != nil {
		return nil
	}
	switch t := p.peek(); {
	case t.kind == tLP:
		p.next()
		n := p.expr(0, depth+1)
		if p.err == nil && p.peek().kind != tRP {
			p.fail()
		}
		p.push(depth + 2)
		p.next()
		return n
	case p.colsetAhead():
		// A colset before "(" applies to an expression; before
		// anything else, to one nearset.
		save := p.at
		cols, d := p.colset(depth)
		if p.err != nil {
			return nil
		}
		if p.peek().kind != tColon {
			p.fail()
			return nil
		}
		p.next()
		p.push(d + 1)
		if p.peek().kind == tLP {
			p.next()
			p.push(d + 2)
			n := p.expr(0, d+3)
			if p.err == nil && p.peek().kind != tRP {
				p.fail()
			}
			p.next()
			setCols(n, cols)
			return n
		}
		p.at = save
	}
	return p.exprList(depth)
}

// colsetAhead reports whether a colset and ":" come next.
func (p *exprParser) colsetAhead() bool {
	i := 0
	if p.peekAt(i).kind == tMinus {
		i++
	}
	switch p.peekAt(i).kind {
	case tString:
		return p.peekAt(i+1).kind == tColon
	case tLCP:
		return true
	}
	return false
}

// colset parses a colset at stack depth depth and returns its columns,
// and the depth of its symbol once reduced.
func (p *exprParser) colset(depth int) ([]int, int) {
	invert := false
	d := depth
	if p.peek().kind == tMinus {
		p.next()
		invert = true
		d++
		p.push(d)
	}
	var cols []int
	switch t := p.next(); t.kind {
	case tString:
		cols = p.column(nil, t)
	case tLCP:
		p.push(d + 1)
		for n := 0; p.err == nil; n++ {
			t := p.next()
			if t.kind == tRCP && n > 0 {
				break
			}
			if t.kind != tString {
				p.at--
				p.fail()
				return nil, d
			}
			cols = p.column(cols, t)
			p.push(d + 2)
		}
	default:
		p.at--
		p.fail()
	}
	if invert && p.err == nil {
		var all []int
		for i := range p.cols {
			if !containsInt(cols, i) {
				all = append(all, i)
			}
		}
		cols = all
	}
	return cols, depth
}

// column adds the column named by token t to cols, kept ascending.
func (p *exprParser) column(cols []int, t exprToken) []int {
	name := unquote(t.text)
	for i, c := range p.cols {
		if strings.EqualFold(c, name) {
			if containsInt(cols, i) {
				return cols
			}
			at := 0
			for at < len(cols) && cols[at] < i {
				at++
			}
			cols = append(cols, 0)
			copy(cols[at+1:], cols[at:])
			cols[at] = i
			return cols
		}
	}
	if p.err == nil {
		p.err = &ExprError{Msg: "no such column: " + name}
	}
	return cols
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// exprList parses one or more cnearsets side by side.
func (p *exprParser) exprList(depth int) *exprNode {
	var list *exprNode
	for n := 0; p.err == nil; n++ {
		t := p.peek()
		if t.kind != tString && t.kind != tCaret && t.kind != tMinus && t.kind != tLCP {
			if n == 0 {
				p.fail()
			}
			return list
		}
		if n > 0 && (t.kind == tMinus || t.kind == tLCP || t.kind == tString) && p.colsetAhead() && p.colsetParen() {
			// colset ":" "(" after a cnearset: FTS5's grammar has no
			// such expression.
			p.skipColset()
			p.fail()
			return nil
		}
		d := depth
		if n > 0 {
			d = depth + 1
		}
		c := p.cnearset(d)
		if p.err != nil {
			return nil
		}
		if n == 0 {
			list = c
		} else {
			list = implicitAnd(list, c)
		}
	}
	return list
}

// colsetParen reports whether the colset ahead is followed by ":" "(".
func (p *exprParser) colsetParen() bool {
	i := 0
	if p.peekAt(i).kind == tMinus {
		i++
	}
	if p.peekAt(i).kind == tString {
		return p.peekAt(i+2).kind == tLP
	}
	for i++; p.peekAt(i).kind == tString; i++ {
	}
	return p.peekAt(i).kind == tRCP && p.peekAt(i+1).kind == tColon && p.peekAt(i+2).kind == tLP
}

// skipColset moves past the colset ahead, so that an error names what
// follows it.
func (p *exprParser) skipColset() {
	if p.peek().kind == tMinus {
		p.next()
	}
	if p.next().kind == tLCP {
		for p.peek().kind == tString {
			p.next()
		}
		p.next()
	}
	p.next() // ":"
}

// implicitAnd joins two cnearsets side by side, as
// sqlite3Fts5ParseImplicitAnd does: a nearset that matches nothing (a
// phrase with no token) is dropped.
func implicitAnd(left, right *exprNode) *exprNode {
	if right.op == opEOF {
		return left
	}
	if left.op == opAnd {
		if last := left.kids[len(left.kids)-1]; last.op == opEOF {
			left.kids[len(left.kids)-1] = right
			return left
		}
		left.kids = append(left.kids, right)
		return left
	}
	if left.op == opEOF {
		return right
	}
	return &exprNode{op: opAnd, kids: []*exprNode{left, right}}
}

// cnearset parses [colset ":"] nearset.
func (p *exprParser) cnearset(depth int) *exprNode {
	p.push(depth)
	var cols []int
	colset := false
	d := depth
	if p.colsetAhead() {
		var cd int
		cols, cd = p.colset(depth)
		if p.err != nil {
			return nil
		}
		p.next() // ":"
		p.push(cd + 1)
		colset, d = true, cd+2
	}
	n := p.nearset(d)
	if p.err != nil {
		return nil
	}
	if colset {
		setCols(n, cols)
	}
	return n
}

// nearset parses ["^"] phrase or NEAR "(" phrase+ ["," digits] ")".
func (p *exprParser) nearset(depth int) *exprNode {
	p.push(depth)
	n := &exprNode{op: opNear, near: nearDefault}
	switch t := p.peek(); {
	case t.kind == tCaret:
		p.next()
		ph := p.phrase(depth + 1)
		if ph != nil && len(ph.terms) > 0 {
			ph.terms[0].first = true
		}
		n.phrases = []*exprPhrase{ph}
	case t.kind == tString && p.peekAt(1).kind == tLP:
		p.next()
		p.next()
		if t.text != "NEAR" {
			p.err = &ExprError{Msg: fmt.Sprintf("fts5: syntax error near %q", t.text)}
			return nil
		}
		for p.err == nil && p.peek().kind == tString {
			d := depth + 3
			if len(n.phrases) == 0 {
				d = depth + 2
			}
			n.phrases = nearAdd(n.phrases, p.phrase(d))
		}
		if len(n.phrases) == 0 {
			p.fail()
			return nil
		}
		if p.peek().kind == tComma {
			p.next()
			p.push(depth + 4)
			d := p.next()
			if d.kind != tString {
				p.at--
				p.fail()
				return nil
			}
			n.near = 0
			for i := 0; i < len(d.text); i++ {
				if d.text[i] < '0' || d.text[i] > '9' {
					p.err = &ExprError{Msg: fmt.Sprintf("expected integer, got %q", d.text)}
					return nil
				}
				n.near = n.near*10 + int(d.text[i]-'0')
			}
		}
		if p.err == nil && p.peek().kind != tRP {
			p.fail()
			return nil
		}
		p.next()
	case t.kind == tString:
		n.phrases = []*exprPhrase{p.phrase(depth)}
	default:
		p.fail()
		return nil
	}
	if p.err != nil {
		return nil
	}
	for _, ph := range n.phrases {
		if len(ph.terms) == 0 {
			return &exprNode{op: opEOF}
		}
	}
	return n
}

// nearAdd adds a phrase to a NEAR group as sqlite3Fts5ParseNearset
// does: a phrase with no token is dropped, or takes the place of one.
func nearAdd(phrases []*exprPhrase, ph *exprPhrase) []*exprPhrase {
	if ph == nil {
		return phrases
	}
	if n := len(phrases); n > 0 {
		if len(ph.terms) == 0 {
			return phrases
		}
		if len(phrases[n-1].terms) == 0 {
			phrases[n-1] = ph
			return phrases
		}
	}
	return append(phrases, ph)
}

// phrase parses STRING ["*"] ("+" STRING ["*"])*: the tokens of its
// strings, stemmed, the last token of a string followed by "*" a prefix.
func (p *exprParser) phrase(depth int) *exprPhrase {
	ph := &exprPhrase{}
	for d := depth; ; d += 2 {
		t := p.next()
		if t.kind != tString {
			p.at--
			p.fail()
			return ph
		}
		p.push(d)
		p.push(d + 1) // "*", or the empty star_opt
		prefix := false
		if p.peek().kind == tStar {
			p.next()
			prefix = true
		}
		for _, tok := range Tokens(unquote(t.text)) {
			ph.terms = append(ph.terms, exprTerm{stem: Stem(tok)})
		}
		if len(ph.terms) > 0 {
			ph.terms[len(ph.terms)-1].prefix = prefix
		}
		if p.peek().kind != tPlus {
			return ph
		}
		p.next()
		p.push(d + 1)
	}
}

// setCols applies a colset to every nearset of n, as
// sqlite3Fts5ParseSetColset does: a nearset with columns of its own
// keeps those in both, and matches nothing when none is.
func setCols(n *exprNode, cols []int) {
	if n == nil {
		return
	}
	switch n.op {
	case opNear:
		if n.cols == nil {
			n.cols = append([]int(nil), cols...)
			return
		}
		var both []int
		for _, c := range n.cols {
			if containsInt(cols, c) {
				both = append(both, c)
			}
		}
		n.cols = both
		if len(both) == 0 {
			n.op, n.phrases = opEOF, nil
		}
	case opEOF:
	default:
		for _, k := range n.kids {
			setCols(k, cols)
		}
	}
}

// Match reports whether a row matches the expression: cols holds the
// stems of each of the row's columns (Tokens, then Stem), in the index's
// order.
func (e *Expr) Match(cols [][]string) bool { return e.root != nil && e.root.match(cols) }

func (n *exprNode) match(cols [][]string) bool {
	switch n.op {
	case opEOF:
		return false
	case opAnd:
		for _, k := range n.kids {
			if !k.match(cols) {
				return false
			}
		}
		return true
	case opOr:
		for _, k := range n.kids {
			if k.match(cols) {
				return true
			}
		}
		return false
	case opNot:
		return n.kids[0].match(cols) && !n.kids[1].match(cols)
	}
	for c, col := range cols {
		if (n.cols == nil || containsInt(n.cols, c)) && n.nearIn(col) {
			return true
		}
	}
	return false
}

// nearIn reports whether the nearset matches in one column: each phrase
// somewhere in it and, for several, an instance of each such that none
// starts more than its length and the NEAR distance before the last
// (fts5ExprNearIsMatch).
func (n *exprNode) nearIn(col []string) bool {
	starts := make([][]int, len(n.phrases))
	for i, ph := range n.phrases {
		if starts[i] = ph.starts(col); len(starts[i]) == 0 {
			return false
		}
	}
	if len(starts) == 1 {
		return true
	}
	at := make([]int, len(starts))
	max := starts[0][0]
	for {
		ok := true
		for i, s := range starts {
			lo := max - len(n.phrases[i].terms) - n.near
			for s[at[i]] < lo {
				if at[i]++; at[i] == len(s) {
					return false
				}
			}
			if s[at[i]] > max {
				max, ok = s[at[i]], false
			}
		}
		if ok {
			return true
		}
	}
}

// starts returns the positions in col where the phrase starts.
func (ph *exprPhrase) starts(col []string) []int {
	var out []int
	for p := 0; p+len(ph.terms) <= len(col); p++ {
		if ph.at(col, p) {
			out = append(out, p)
		}
	}
	return out
}

// at reports whether the phrase is at position p of col.
func (ph *exprPhrase) at(col []string, p int) bool {
	for j, t := range ph.terms {
		if t.first && p+j != 0 {
			return false
		}
		st := col[p+j]
		if st != t.stem && !(t.prefix && strings.HasPrefix(st, t.stem)) {
			return false
		}
	}
	return true
}

// Narrow returns the rows that may match, of a set of rows described by
// held, which returns the rows (ascending) whose stems include stem, or
// false when it cannot tell: a superset of the matches, or all true when
// it cannot narrow them (a prefix, or a stem held cannot tell of,
// stands alone).
func (e *Expr) Narrow(held func(stem string) ([]int32, bool)) (rows []int32, all bool) {
	if e.root == nil {
		return nil, false
	}
	return e.root.narrow(held)
}

func (n *exprNode) narrow(held func(stem string) ([]int32, bool)) ([]int32, bool) {
	switch n.op {
	case opEOF:
		return nil, false
	case opNot:
		return n.kids[0].narrow(held)
	case opAnd, opOr:
		var out []int32
		known := false
		for _, k := range n.kids {
			rows, all := k.narrow(held)
			switch {
			case all && n.op == opOr:
				return nil, true
			case all:
			case !known:
				out, known = rows, true
			case n.op == opAnd:
				out = IntersectRows(out, rows)
			default:
				out = unionRows(out, rows)
			}
		}
		return out, !known
	}
	var out []int32
	known := false
	for _, ph := range n.phrases {
		for _, t := range ph.terms {
			if t.prefix {
				continue
			}
			rows, ok := held(t.stem)
			if !ok {
				continue
			}
			if !known {
				out, known = rows, true
			} else {
				out = IntersectRows(out, rows)
			}
		}
	}
	return out, !known
}

// IntersectRows returns the rows in both ascending lists, ascending (the
// in-memory text index's postings use it too).
func IntersectRows(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// unionRows returns the rows in either ascending list, ascending.
func unionRows(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// ColumnStems returns text as an index's column holds it: its tokens
// (Tokens), each stemmed (Stem).
func ColumnStems(text string) []string {
	toks := Tokens(text)
	for i, t := range toks {
		toks[i] = Stem(t)
	}
	return toks
}

// Rows returns the rows the expression matches when it needs no more
// than which rows hold each stem: when each of its phrases is one word,
// not a prefix, not bound to the start of a column, nor to columns (ok
// then, false otherwise). held returns the rows (ascending) whose stems
// include stem, all every row.
func (e *Expr) Rows(held func(stem string) []int32, all []int32) (rows []int32, ok bool) {
	if e.root == nil {
		return nil, true
	}
	if !e.root.simple() {
		return nil, false
	}
	return e.root.rows(held, all), true
}

func (n *exprNode) simple() bool {
	switch n.op {
	case opEOF:
		return true
	case opNear:
		if len(n.phrases) != 1 || n.cols != nil {
			return false
		}
		ph := n.phrases[0]
		return len(ph.terms) == 1 && !ph.terms[0].prefix && !ph.terms[0].first
	}
	for _, k := range n.kids {
		if !k.simple() {
			return false
		}
	}
	return true
}

func (n *exprNode) rows(held func(stem string) []int32, all []int32) []int32 {
	switch n.op {
	case opEOF:
		return nil
	case opNear:
		return held(n.phrases[0].terms[0].stem)
	case opNot:
		return minusRows(n.kids[0].rows(held, all), n.kids[1].rows(held, all))
	}
	out := n.kids[0].rows(held, all)
	for _, k := range n.kids[1:] {
		if n.op == opAnd {
			out = IntersectRows(out, k.rows(held, all))
		} else {
			out = unionRows(out, k.rows(held, all))
		}
	}
	return out
}

// minusRows returns the rows of a not in b, both ascending.
func minusRows(a, b []int32) []int32 {
	var out []int32
	j := 0
	for _, r := range a {
		for j < len(b) && b[j] < r {
			j++
		}
		if j == len(b) || b[j] != r {
			out = append(out, r)
		}
	}
	return out
}

package postgres

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSQLiteOnly is Translate's error for a statement over what only the
// SQLite engine has: FTS5's tables and MATCH, fts5vocab's, vec0's shadow
// tables, SQLite's catalog (sqlite_schema, the pragma_* table functions,
// PRAGMA), changes of the schema (CREATE, DROP, ALTER: Tier 2 makes and
// drops vec0 tables and their triggers at run time, while PostgreSQL's
// schema is schema.sql's) and the Go functions the SQLite engine registers (engram_bm25,
// engram_bm25_text). The PostgreSQL engine never runs those: text search
// there is engram's in-memory index, vectors its own index over vec_*.
var ErrSQLiteOnly = errors.New("postgres: a statement over SQLite-only objects")

// ErrUntranslatable is Translate's error for a statement in SQLite's
// dialect that it cannot rewrite safely (a JSON path given as a
// parameter, printf, json_type, json_valid, …): the store function that
// runs it needs a statement of its own for PostgreSQL.
var ErrUntranslatable = errors.New("postgres: a statement Translate cannot rewrite")

// Translate rewrites query, a statement of internal/store in SQLite's
// dialect, into PostgreSQL's. Text inside string literals, quoted names
// and comments is never touched. The rules:
//
//   - parameters: ?N becomes $N; a bare ? the next number by SQLite's
//     rule (one more than the largest so far);
//   - JSON: x ->> '$.k' (or 'k') becomes x::jsonb ->> 'k', x ->> '$.a.b'
//     becomes x::jsonb #>> '{a,b}'; json_each(x) becomes
//     jsonb_array_elements_text(CAST(x AS jsonb)) (its column is value;
//     an alias whose key the statement reads gets it WITH ORDINALITY,
//     from 1 where SQLite's is from 0);
//     json_array_length(x) jsonb_array_length(CAST(x AS jsonb));
//     json_group_array(x) coalesce(json_agg(x), '[]'); json_object(…)
//     json_build_object(…); json_extract(x, '$.k') (CAST(x AS jsonb) ->>
//     'k'); json_remove(x, '$.a', …) (CAST(x AS jsonb) - 'a' - …)::text;
//   - functions: group_concat(x[, sep]) becomes string_agg(CAST(x AS
//     text), sep or ','); the scalar min(a, b, …) and max(a, b, …)
//     LEAST and GREATEST (an aggregate min or max, with one argument,
//     stays); unhex(x) decode(x, 'hex'); hex(x) the upper-case hex of x, or the
//     empty string for NULL as in SQLite; ifnull coalesce;
//   - CAST(x AS INTEGER) casts to bigint, AS REAL to double precision;
//   - a blob literal x'ab' becomes '\xab'::bytea;
//   - INDEXED BY name and NOT INDEXED are dropped; temp.t becomes
//     pg_temp.t, main.t t; rowid becomes pk (engram's tables name their
//     rowid pk, and vec_<kind> has pk on PostgreSQL);
//   - a IS b and a IS NOT b between values (not NULL, TRUE or FALSE)
//     become IS NOT DISTINCT FROM and IS DISTINCT FROM;
//   - x GLOB 'prefix*' (a literal prefix, nothing after the star) becomes
//     x LIKE 'prefix%' with the prefix's % and _ escaped;
//   - INSERT OR IGNORE becomes INSERT … ON CONFLICT DO NOTHING.
//
// It returns an error matching ErrSQLiteOnly for a statement over
// SQLite-only objects, and one matching ErrUntranslatable for any other
// construct it has no safe rewrite for (a JSON path or GLOB pattern given
// as a parameter, INSERT OR REPLACE, printf, json_type, json_valid,
// json(), a parameter of another form, an unterminated literal).
func Translate(query string) (string, error) {
	toks, err := lex(query)
	if err != nil {
		return "", err
	}
	if err := sqliteOnly(toks); err != nil {
		return "", err
	}
	t := &translator{toks: toks}
	if err := t.run(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(query) + len(query)/8)
	for _, tk := range t.toks {
		b.WriteString(tk.text)
	}
	return b.String(), nil
}

// tokKind is the kind of a token of a statement.
type tokKind int

const (
	tSpace  tokKind = iota // white space or a comment
	tString                // '…'
	tBlob                  // x'…'
	tQIdent                // "…"
	tNumber                // 12, 1.5e3
	tParam                 // ?, ?N
	tWord                  // a name or a keyword
	tPunct                 // an operator or punctuation
)

type token struct {
	kind tokKind
	text string
}

// lex splits query into tokens whose texts, joined, are query.
func lex(q string) ([]token, error) {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			for i < len(q) && strings.IndexByte(" \t\n\r\f", q[i]) >= 0 {
				i++
			}
			out = append(out, token{tSpace, q[start:i]})
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(q)
			}
			out = append(out, token{tSpace, q[start:i]})
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("%w: an unterminated comment", ErrUntranslatable)
			}
			i += j + 4
			out = append(out, token{tSpace, q[start:i]})
		case c == '\'':
			end, err := quoted(q, i, '\'')
			if err != nil {
				return nil, err
			}
			i = end
			out = append(out, token{tString, q[start:i]})
		case (c == 'x' || c == 'X') && i+1 < len(q) && q[i+1] == '\'':
			end, err := quoted(q, i+1, '\'')
			if err != nil {
				return nil, err
			}
			i = end
			out = append(out, token{tBlob, q[start:i]})
		case c == '"':
			end, err := quoted(q, i, '"')
			if err != nil {
				return nil, err
			}
			i = end
			out = append(out, token{tQIdent, q[start:i]})
		case c == '?':
			i++
			for i < len(q) && q[i] >= '0' && q[i] <= '9' {
				i++
			}
			out = append(out, token{tParam, q[start:i]})
		case c == ':' && i+1 < len(q) && isWordStart(q[i+1]), c == '@', c == '$':
			return nil, fmt.Errorf("%w: a parameter of a form other than ? and ?N at %q", ErrUntranslatable, q[i:min(len(q), i+20)])
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			for i < len(q) && (q[i] >= '0' && q[i] <= '9' || q[i] == '.') {
				i++
			}
			if i < len(q) && (q[i] == 'e' || q[i] == 'E') {
				i++
				if i < len(q) && (q[i] == '+' || q[i] == '-') {
					i++
				}
				for i < len(q) && q[i] >= '0' && q[i] <= '9' {
					i++
				}
			}
			out = append(out, token{tNumber, q[start:i]})
		case isWordStart(c):
			for i < len(q) && (isWordStart(q[i]) || q[i] >= '0' && q[i] <= '9' || q[i] == '$') {
				i++
			}
			out = append(out, token{tWord, q[start:i]})
		default:
			n := 1
			for _, op := range []string{"->>", "->", "||", "<=", ">=", "<>", "!=", "==", "<<", ">>", "::"} {
				if strings.HasPrefix(q[i:], op) {
					n = len(op)
					break
				}
			}
			i += n
			out = append(out, token{tPunct, q[start:i]})
		}
	}
	return out, nil
}

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// quoted returns the end of the literal quoted by quote that starts at
// q[i], a doubled quote standing for one.
func quoted(q string, i int, quote byte) (int, error) {
	for j := i + 1; j < len(q); j++ {
		if q[j] == quote {
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("%w: an unterminated literal at %q", ErrUntranslatable, q[i:min(len(q), i+20)])
}

// sqliteOnly returns an error matching ErrSQLiteOnly when toks name a
// SQLite-only object.
func sqliteOnly(toks []token) error {
	if f := firstWord(toks); f >= 0 {
		switch strings.ToLower(toks[f].text) {
		case "create", "drop", "alter":
			return fmt.Errorf("%w: a change of the schema (%s): PostgreSQL's is schema.sql's", ErrSQLiteOnly, toks[f].text)
		}
	}
	for i, tk := range toks {
		if tk.kind != tWord {
			continue
		}
		w := strings.ToLower(tk.text)
		var what string
		switch {
		case w == "match":
			what = "FTS5's MATCH"
		case strings.HasSuffix(w, "_fts") || strings.Contains(w, "_fts_"):
			what = "the FTS5 table " + tk.text
		case strings.HasSuffix(w, "_vocab"):
			what = "the fts5vocab table " + tk.text
		case strings.HasPrefix(w, "vec_") && (strings.HasSuffix(w, "_chunks") || strings.HasSuffix(w, "_rowids") ||
			strings.HasSuffix(w, "_info") || strings.Contains(w, "_vector_chunks")):
			what = "vec0's shadow table " + tk.text
		case w == "sqlite_schema" || w == "sqlite_master" || strings.HasPrefix(w, "pragma_") || w == "pragma" && firstWord(toks) == i:
			what = "SQLite's catalog (" + tk.text + ")"
		case strings.HasPrefix(w, "engram_bm25"):
			what = "the SQLite engine's function " + tk.text
		default:
			continue
		}
		return fmt.Errorf("%w: %s", ErrSQLiteOnly, what)
	}
	return nil
}

// firstWord returns the index of the first word of toks, or -1.
func firstWord(toks []token) int {
	for i, tk := range toks {
		if tk.kind == tWord {
			return i
		}
		if tk.kind != tSpace {
			return -1
		}
	}
	return -1
}

// translator rewrites a statement's tokens in place.
type translator struct {
	toks []token
}

func (t *translator) run() error {
	if err := t.params(); err != nil {
		return err
	}
	t.names()
	if err := t.insertOrIgnore(); err != nil {
		return err
	}
	if err := t.operators(); err != nil {
		return err
	}
	t.joins()
	return t.functions()
}

// clauseEnd are the words that end a join's table and its ON condition
// in the FROM clause.
var clauseEnd = map[string]bool{"join": true, "cross": true, "left": true, "inner": true, "natural": true,
	"where": true, "group": true, "order": true, "limit": true, "union": true, "except": true,
	"intersect": true, "window": true, "having": true, "on": true, "returning": true, "set": true}

// joins rewrites what SQLite's FROM clause allows and PostgreSQL's does
// not: CROSS JOIN t ON … (SQLite's CROSS JOIN only fixes the join order)
// becomes JOIN t ON …; x IN t (a table or CTE name) becomes x IN (SELECT
// * FROM t); a subquery in FROM without an alias gets one; a unary plus
// (SQLite's way to keep a column from an index) is dropped.
func (t *translator) joins() {
	alias := 0
	for i := 0; i < len(t.toks); i++ {
		switch {
		case t.word(i, "cross") && t.word(t.next(i), "join"):
			// Look for ON before the join's table ends.
			depth := 0
			for j := t.next(t.next(i)); j < len(t.toks); j++ {
				if t.punct(j, "(") {
					depth++
				} else if t.punct(j, ")") {
					if depth--; depth < 0 {
						break
					}
				} else if depth == 0 && (t.punct(j, ",") || t.toks[j].kind == tWord && clauseEnd[strings.ToLower(t.toks[j].text)]) {
					if t.word(j, "on") {
						t.drop(i, i)
					}
					break
				}
			}
		case t.word(i, "in") && t.next(i) < len(t.toks) && t.toks[t.next(i)].kind == tWord:
			n := t.next(i)
			t.toks[n].text = "(SELECT * FROM " + t.toks[n].text + ")"
		case (t.word(i, "from") || t.word(i, "join")) && t.punct(t.next(i), "(") &&
			(t.word(t.next(t.next(i)), "select") || t.word(t.next(t.next(i)), "with") || t.word(t.next(t.next(i)), "values")):
			open := t.next(i)
			c, ok := t.callAt(open - 1)
			if !ok || c.open != open {
				// callAt needs a name before the parenthesis; find the
				// close by hand.
				c = t.closeOf(open)
			}
			if c.close <= 0 {
				continue
			}
			n := t.next(c.close)
			if n >= len(t.toks) || t.punct(n, ")") || t.punct(n, ",") || t.toks[n].kind == tWord && (clauseEnd[strings.ToLower(t.toks[n].text)] || strings.EqualFold(t.toks[n].text, "cross")) {
				alias++
				t.toks[c.close].text = ") AS _s" + strconv.Itoa(alias)
			}
		case t.punct(i, "+"):
			p := t.prev(i)
			if p < 0 || t.toks[p].kind == tPunct && t.toks[p].text != ")" || t.toks[p].kind == tWord && isKeyword(t.toks[p].text) {
				t.toks[i] = token{tSpace, ""}
				if t.joinsTokens(i) {
					t.toks[i].text = " "
				}
			}
		}
	}
}

// joinsTokens reports whether the tokens before and after token i,
// were it empty, would touch and might run together into another token
// (-+-x is not --x, a comment; :+a is not :a).
func (t *translator) joinsTokens(i int) bool {
	var before, after string
	for j := i - 1; j >= 0 && before == ""; j-- {
		before = t.toks[j].text
	}
	for j := i + 1; j < len(t.toks) && after == ""; j++ {
		after = t.toks[j].text
	}
	const apart = " \t\n\r\f(),"
	return before != "" && after != "" &&
		!strings.ContainsRune(apart, rune(before[len(before)-1])) && !strings.ContainsRune(apart, rune(after[0]))
}

// isKeyword reports whether w is a keyword after which a + is unary.
func isKeyword(w string) bool {
	switch strings.ToLower(w) {
	case "select", "where", "and", "or", "not", "by", "on", "when", "then", "else", "case", "in", "is", "between", "set", "returning", "distinct":
		return true
	}
	return false
}

// closeOf returns a call whose open and close are the parenthesis at
// open and the one that closes it (close 0 when none does).
func (t *translator) closeOf(open int) call {
	depth := 0
	for j := open; j < len(t.toks); j++ {
		if t.punct(j, "(") {
			depth++
		} else if t.punct(j, ")") {
			if depth--; depth == 0 {
				return call{name: open, open: open, close: j}
			}
		}
	}
	return call{}
}

// next returns the index of the first token after i that is not space,
// or len(t.toks).
func (t *translator) next(i int) int {
	for i++; i < len(t.toks) && t.toks[i].kind == tSpace; i++ {
	}
	return i
}

// prev returns the index of the last token before i that is not space,
// or -1.
func (t *translator) prev(i int) int {
	for i--; i >= 0 && t.toks[i].kind == tSpace; i-- {
	}
	return i
}

// word reports whether token i is the keyword or name w, in any case.
func (t *translator) word(i int, w string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].kind == tWord && strings.EqualFold(t.toks[i].text, w)
}

// punct reports whether token i is the punctuation p.
func (t *translator) punct(i int, p string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].kind == tPunct && t.toks[i].text == p
}

// drop empties tokens from..to (inclusive), and the space before from.
func (t *translator) drop(from, to int) {
	to = min(to, len(t.toks)-1) // INDEXED BY at the end has no name
	if p := t.prev(from); p+1 < from {
		from = p + 1
	}
	for i := from; i <= to; i++ {
		t.toks[i] = token{tSpace, ""}
	}
}

// params numbers the parameters: ?N becomes $N, a bare ? one more than
// the largest number so far (SQLite's rule).
func (t *translator) params() error {
	largest := 0
	for i, tk := range t.toks {
		if tk.kind != tParam {
			continue
		}
		n := largest + 1
		if len(tk.text) > 1 {
			var err error
			if n, err = strconv.Atoi(tk.text[1:]); err != nil || n < 1 || n > maxParams {
				return fmt.Errorf("%w: parameter %s out of range [1, %d]", ErrUntranslatable, tk.text, maxParams)
			}
		}
		largest = max(largest, n)
		if largest > maxParams {
			return fmt.Errorf("%w: more than %d parameters", ErrUntranslatable, maxParams)
		}
		t.toks[i].text = "$" + strconv.Itoa(n)
		if i > 0 && (t.toks[i-1].kind == tWord || t.toks[i-1].kind == tNumber) {
			// In PostgreSQL a $ continues a name (a$1 is one name).
			t.toks[i].text = " " + t.toks[i].text
		}
	}
	return nil
}

// maxParams is the most parameters a PostgreSQL statement takes.
const maxParams = 65535

// names drops INDEXED BY and NOT INDEXED, and rewrites the schema
// prefixes temp. and main., rowid and CAST's SQLite type names.
func (t *translator) names() {
	for i := 0; i < len(t.toks); i++ {
		switch {
		case t.word(i, "indexed") && t.word(t.next(i), "by"):
			by := t.next(i)
			t.drop(i, t.next(by))
		case t.word(i, "not") && t.word(t.next(i), "indexed"):
			t.drop(i, t.next(i))
		case t.word(i, "temp") && t.punct(i+1, "."):
			t.toks[i].text = "pg_temp"
		case t.word(i, "main") && t.punct(i+1, ".") && !t.punct(i-1, "."):
			t.toks[i].text, t.toks[i+1].text = "", ""
		case t.word(i, "rowid"):
			t.toks[i].text = "pk"
		case t.word(i, "as") && t.word(t.next(i), "integer"):
			t.toks[t.next(i)].text = "bigint"
		case t.word(i, "as") && t.word(t.next(i), "real"):
			t.toks[t.next(i)].text = "double precision"
		case t.word(i, "as") && t.word(t.next(i), "blob"):
			t.toks[t.next(i)].text = "bytea"
		}
	}
}

// insertOrIgnore turns INSERT OR IGNORE into INSERT … ON CONFLICT DO
// NOTHING; INSERT OR REPLACE (which names no conflict target) is
// untranslatable.
func (t *translator) insertOrIgnore() error {
	for i := range t.toks {
		if !t.word(i, "insert") || !t.word(t.next(i), "or") {
			continue
		}
		or := t.next(i)
		what := t.next(or)
		if what >= len(t.toks) {
			return fmt.Errorf("%w: INSERT OR at the statement's end", ErrUntranslatable)
		}
		if !t.word(what, "ignore") {
			return fmt.Errorf("%w: INSERT OR %s names no conflict target", ErrUntranslatable, t.toks[what].text)
		}
		t.drop(or, what)
		// ON CONFLICT goes before a RETURNING at the top level, or after
		// the last token.
		at, depth := -1, 0
		for j := what + 1; j < len(t.toks) && at < 0; j++ {
			switch {
			case t.punct(j, "("):
				depth++
			case t.punct(j, ")"):
				depth--
			case depth == 0 && t.word(j, "returning"):
				at = j
			}
		}
		ins := []token{{tWord, "ON CONFLICT DO NOTHING"}, {tSpace, " "}}
		if at < 0 {
			at = t.prev(len(t.toks)) + 1
			ins = []token{{tSpace, " "}, {tWord, "ON CONFLICT DO NOTHING"}}
		}
		t.toks = append(t.toks[:at], append(ins, t.toks[at:]...)...)
		return nil
	}
	return nil
}

// operators rewrites ->>, IS, IS NOT and GLOB, and blob literals.
func (t *translator) operators() error {
	for i := 0; i < len(t.toks); i++ {
		tk := t.toks[i]
		switch {
		case tk.kind == tNumber && (tk.text == "1" || tk.text == "0") && t.boolPlace(i):
			t.toks[i].text = map[string]string{"1": "true", "0": "false"}[tk.text]
		case tk.kind == tBlob:
			t.toks[i].text = `'\x` + tk.text[2:len(tk.text)-1] + `'::bytea`
		case tk.kind == tPunct && tk.text == "->":
			return fmt.Errorf("%w: SQLite's -> (JSON text of a path)", ErrUntranslatable)
		case tk.kind == tPunct && tk.text == "->>":
			p, n := t.prev(i), t.next(i)
			if p < 0 || n >= len(t.toks) {
				return fmt.Errorf("%w: ->> without two operands", ErrUntranslatable)
			}
			if t.toks[n].kind != tString {
				return fmt.Errorf("%w: a JSON path given as %q: it has SQLite's syntax", ErrUntranslatable, t.toks[n].text)
			}
			keys, err := jsonPath(t.toks[n].text)
			if err != nil {
				return err
			}
			t.toks[p].text += "::jsonb"
			if len(keys) == 1 {
				t.toks[n].text = quoteString(keys[0])
			} else {
				t.toks[i].text = "#>>"
				t.toks[n].text = quoteString("{" + strings.Join(keys, ",") + "}")
			}
		case t.word(i, "is"):
			n := t.next(i)
			not := t.word(n, "not")
			if not {
				n = t.next(n)
			}
			if t.word(n, "null") || t.word(n, "true") || t.word(n, "false") || t.word(n, "distinct") {
				continue
			}
			if not {
				t.toks[i].text = "IS DISTINCT FROM"
				t.drop(t.next(i), t.next(i))
			} else {
				t.toks[i].text = "IS NOT DISTINCT FROM"
			}
		case t.word(i, "glob"):
			n := t.next(i)
			if n >= len(t.toks) || t.toks[n].kind != tString || t.punct(t.next(n), "||") {
				return fmt.Errorf("%w: a GLOB pattern that is not a literal", ErrUntranslatable)
			}
			lit, _ := unquote(t.toks[n].text)
			prefix, ok := strings.CutSuffix(lit, "*")
			if !ok || strings.ContainsAny(prefix, "*?[") {
				return fmt.Errorf("%w: the GLOB pattern %s is not a literal prefix and a star", ErrUntranslatable, t.toks[n].text)
			}
			esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix)
			t.toks[i].text = "LIKE"
			t.toks[n].text = quoteString(esc+"%") + ` ESCAPE '\'`
		}
	}
	return nil
}

// boolPlace reports whether token i stands where only a condition can:
// after WHERE, ON, HAVING, AND, OR or NOT (or a parenthesis after one),
// and before AND, OR, a closing parenthesis, the end or a clause.
func (t *translator) boolPlace(i int) bool { return t.boolAround(t.prev(i), t.next(i)) }

// boolAround is boolPlace for what stands between tokens p and n.
func (t *translator) boolAround(p, n int) bool {
	if t.punct(p, "(") && t.punct(n, ")") {
		return t.boolAround(t.prev(p), t.next(n))
	}
	before := p >= 0 && t.toks[p].kind == tWord
	if before {
		switch strings.ToLower(t.toks[p].text) {
		case "where", "on", "having", "and", "or", "not":
		default:
			before = false
		}
	}
	if !before {
		return false
	}
	if n >= len(t.toks) || t.punct(n, ")") || t.punct(n, ";") {
		return true
	}
	if t.toks[n].kind != tWord {
		return false
	}
	switch strings.ToLower(t.toks[n].text) {
	case "and", "or", "order", "group", "limit", "union", "except", "intersect", "returning", "on", "window", "having":
		return true
	}
	return false
}

// jsonPath returns the keys of a SQLite JSON path literal: '$.a.b',
// '$."a b"' or a bare label 'a' (which SQLite's ->> reads as '$.a').
func jsonPath(lit string) ([]string, error) {
	s, _ := unquote(lit)
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		if s == "" {
			return nil, fmt.Errorf("%w: an empty JSON path", ErrUntranslatable)
		}
		return []string{s}, nil
	}
	var keys []string
	for rest != "" {
		if rest[0] != '.' {
			return nil, fmt.Errorf("%w: the JSON path %s (arrays, or not a key)", ErrUntranslatable, lit)
		}
		rest = rest[1:]
		var key string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("%w: the JSON path %s", ErrUntranslatable, lit)
			}
			key, rest = rest[1:end+1], rest[end+2:]
		} else {
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key, rest = rest[:end], rest[end:]
		}
		if key == "" || strings.ContainsAny(key, `,{}"\`) {
			return nil, fmt.Errorf("%w: the JSON path %s", ErrUntranslatable, lit)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: the JSON path %s names the whole document", ErrUntranslatable, lit)
	}
	return keys, nil
}

// unquote returns the text of a '…' literal.
func unquote(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'"), true
}

// quoteString returns s as a '…' literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// call is a function call in the token list: the name at name, its
// parentheses at open and close, and the first token of each argument
// (args) with the commas between them.
type call struct {
	name, open, close int
	commas            []int
}

// callAt returns the call whose name is token i, if token i is a name
// followed by a parenthesis.
func (t *translator) callAt(i int) (call, bool) {
	if t.toks[i].kind != tWord {
		return call{}, false
	}
	open := t.next(i)
	if !t.punct(open, "(") {
		return call{}, false
	}
	c := call{name: i, open: open}
	depth := 0
	for j := open; j < len(t.toks); j++ {
		switch {
		case t.punct(j, "("):
			depth++
		case t.punct(j, ")"):
			depth--
			if depth == 0 {
				c.close = j
				return c, true
			}
		case depth == 1 && t.punct(j, ","):
			c.commas = append(c.commas, j)
		}
	}
	return call{}, false
}

// arg returns the text of the call's k-th argument, trimmed.
func (t *translator) arg(c call, k int) string {
	from, to := c.open, c.close
	if k > 0 {
		from = c.commas[k-1]
	}
	if k < len(c.commas) {
		to = c.commas[k]
	}
	var b strings.Builder
	for _, tk := range t.toks[from+1 : to] {
		b.WriteString(tk.text)
	}
	return strings.TrimSpace(b.String())
}

// replace puts text in place of the call.
func (t *translator) replace(c call, text string) {
	t.toks[c.name].text = text
	for j := c.name + 1; j <= c.close; j++ {
		t.toks[j] = token{tSpace, ""}
	}
}

// functions rewrites the calls of SQLite's functions, innermost last:
// a call's arguments are rewritten before the call is, since each
// rewrite keeps its arguments' tokens.
func (t *translator) functions() error {
	for i := len(t.toks) - 1; i >= 0; i-- {
		c, ok := t.callAt(i)
		if !ok {
			continue
		}
		n := len(c.commas) + 1
		args := func() []string {
			out := make([]string, n)
			for k := range out {
				out[k] = t.arg(c, k)
			}
			return out
		}
		switch strings.ToLower(t.toks[i].text) {
		case "json_each":
			if n != 1 {
				return fmt.Errorf("%w: json_each with a path", ErrUntranslatable)
			}
			fn := "jsonb_array_elements_text(CAST(" + t.arg(c, 0) + " AS jsonb))"
			// An alias whose key (the element's index) the statement
			// reads gets it from WITH ORDINALITY: from 1, where SQLite's
			// is from 0, which keeps its order.
			if a := t.next(c.close); a < len(t.toks) && t.toks[a].kind == tWord && !clauseEnd[strings.ToLower(t.toks[a].text)] &&
				!strings.EqualFold(t.toks[a].text, "as") && t.readsKey(t.toks[a].text) {
				fn += " WITH ORDINALITY AS " + t.toks[a].text + "(value, key)"
				t.drop(a, a)
			}
			t.replace(c, fn)
		case "json_array_length":
			if n != 1 {
				return fmt.Errorf("%w: json_array_length with a path", ErrUntranslatable)
			}
			t.replace(c, "jsonb_array_length(CAST("+t.arg(c, 0)+" AS jsonb))")
		case "json_group_array":
			t.replace(c, "coalesce(json_agg("+t.arg(c, 0)+"), '[]')")
		case "json_object":
			t.replace(c, "json_build_object("+strings.Join(args(), ", ")+")")
		case "json_extract":
			a := args()
			if n != 2 {
				return fmt.Errorf("%w: json_extract with %d paths", ErrUntranslatable, n-1)
			}
			keys, err := t.literalPath(c, 1)
			if err != nil {
				return err
			}
			t.replace(c, "(CAST("+a[0]+" AS jsonb) #>> "+quoteString("{"+strings.Join(keys, ",")+"}")+")")
		case "json_remove":
			a := args()
			expr := "CAST(" + a[0] + " AS jsonb)"
			for k := 1; k < n; k++ {
				keys, err := t.literalPath(c, k)
				if err != nil {
					return err
				}
				expr += " #- " + quoteString("{"+strings.Join(keys, ",")+"}")
			}
			t.replace(c, "("+expr+")::text")
		case "group_concat":
			a := args()
			sep := "','"
			if n == 2 {
				sep = a[1]
			}
			t.replace(c, "string_agg(CAST("+a[0]+" AS text), "+sep+")")
		case "min", "max":
			if n >= 2 {
				t.replace(c, map[string]string{"min": "LEAST", "max": "GREATEST"}[strings.ToLower(t.toks[i].text)]+"("+strings.Join(args(), ", ")+")")
			}
		case "unhex":
			t.replace(c, "decode("+t.arg(c, 0)+", 'hex')")
		case "hex":
			t.replace(c, "coalesce(upper(encode("+t.arg(c, 0)+", 'hex')), '')")
		case "ifnull":
			t.replace(c, "coalesce("+strings.Join(args(), ", ")+")")
		case "printf", "format", "json_type", "json_valid", "json", "json_set", "json_insert", "json_replace", "json_patch",
			"json_group_object", "json_array", "json_quote", "iif", "instr", "likelihood", "unlikely", "total", "changes", "last_insert_rowid":
			return fmt.Errorf("%w: SQLite's function %s", ErrUntranslatable, t.toks[i].text)
		}
	}
	return nil
}

// readsKey reports whether the statement reads alias.key.
func (t *translator) readsKey(alias string) bool {
	for i := range t.toks {
		if t.word(i, alias) && t.punct(i+1, ".") && t.word(i+2, "key") {
			return true
		}
	}
	return false
}

// literalPath returns the keys of the call's k-th argument, which must be
// a JSON path literal.
func (t *translator) literalPath(c call, k int) ([]string, error) {
	a := t.arg(c, k)
	if len(a) < 2 || a[0] != '\'' || a[len(a)-1] != '\'' {
		return nil, fmt.Errorf("%w: a JSON path given as %q", ErrUntranslatable, a)
	}
	return jsonPath(a)
}

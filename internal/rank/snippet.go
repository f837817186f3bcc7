package rank

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/query"
)

// SnippetWords is how many words a snippet holds, at most.
const SnippetWords = 16

// stemCache remembers the Porter stems of the tokens searches and
// snippets met: the same words come back in query after query and result
// after result, and stemming one costs ten times a lookup.
type stemCache struct {
	mu    sync.RWMutex
	stems map[string]string
}

// stemCacheMax bounds the cache; it starts again empty when full.
const stemCacheMax = 1 << 16

// stems is the process's cache of stems.
var stems stemCache

// Stem returns the Porter stem of the token tok (as query.Stem does),
// from the process's cache of stems when it is there. It is safe for
// concurrent use.
func Stem(tok string) string { return stems.of(tok) }

// ofBytes is of for a token in bytes, which it copies only when its
// stem is not cached.
func (c *stemCache) ofBytes(tok []byte) string {
	c.mu.RLock()
	st, ok := c.stems[string(tok)]
	c.mu.RUnlock()
	if ok {
		return st
	}
	return c.of(string(tok))
}

// of returns tok's Porter stem.
func (c *stemCache) of(tok string) string {
	c.mu.RLock()
	st, ok := c.stems[tok]
	c.mu.RUnlock()
	if ok {
		return st
	}
	st = query.Stem(tok)
	c.mu.Lock()
	if c.stems == nil || len(c.stems) >= stemCacheMax {
		c.stems = make(map[string]string)
	}
	c.stems[strings.Clone(tok)] = st
	c.mu.Unlock()
	return st
}

// Keys are a query's terms as snippets match them: by Porter stem, as the
// index does. Porter stemming rewrites suffixes only, so a token can share
// a term's stem only if it starts like it: first lets most tokens skip
// stemming. A Keys remembers the words past ASCII it has looked at and is
// not safe for concurrent use: a search makes its own.
type Keys struct {
	stems map[string]bool
	first [256]bool
	// heads are the starts a token holding a key must have (see
	// stemHead), one per key: a query has a few.
	heads []string
	words map[string]bool // whether a word past ASCII holds a key, once known
	// spans and hit are Snippet's scratch: where each word of a text
	// starts and ends, and whether it holds a key.
	spans [][2]int
	hit   []bool
}

// NewKeys returns the keys of the terms of Porter stems stems (as Stem
// returns them); empty stems match nothing.
func NewKeys(stems []string) *Keys {
	k := &Keys{stems: make(map[string]bool, len(stems))}
	for _, st := range stems {
		if st != "" && !k.stems[st] {
			k.first[st[0]] = true
			k.heads = append(k.heads, stemHead(st))
		}
		k.stems[st] = true
	}
	return k
}

// Has reports whether st is the Porter stem of one of the keys.
func (k *Keys) Has(st string) bool { return k.stems[st] }

// stemHead is how a token whose Porter stem is st starts: Porter keeps a
// start of the token and rewrites at most two letters at its end (biliti
// becomes ble: "sensibiliti" → "sensible"), so the token starts with st
// but for its last two letters, and always with its first.
func stemHead(st string) string { return st[:max(1, len(st)-2)] }

// Snippet returns the window of at most SnippetWords words of text (words
// as strings.Fields splits them) that holds the most words holding a key,
// the first such, with each of those words in **bold** and "…" where text
// goes on before or after it; "" when text has no words.
func (k *Keys) Snippet(text string) string {
	// The words, as strings.Fields splits them, and which hold a key.
	k.spans, k.hit = k.spans[:0], k.hit[:0]
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && asciiSpace[c] {
			i++
			continue
		} else if c >= utf8.RuneSelf {
			if n := spaceAt(text, i); n > 0 {
				i += n
				continue
			}
		}
		// maybe says a token of the word (a run of ASCII letters and
		// digits) starts with a key's first letter: a word of ASCII alone
		// without one holds no key (see asciiHolds), and is not looked
		// at again.
		j, ascii := i+1, text[i] < utf8.RuneSelf
		maybe := ascii && asciiAlnum(text[i]) && k.first[lowerASCII(text[i])]
		for j < len(text) {
			if c := text[j]; c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				if !maybe && asciiAlnum(c) && !asciiAlnum(text[j-1]) && k.first[lowerASCII(c)] {
					maybe = true
				}
			} else if spaceAt(text, j) > 0 {
				break
			} else {
				ascii = false
			}
			j++
		}
		k.spans = append(k.spans, [2]int{i, j})
		k.hit = append(k.hit, (maybe || !ascii) && k.holds(text[i:j], ascii))
		i = j
	}
	words, hit := k.spans, k.hit
	start, end := Window(hit)
	if end == start {
		return ""
	}
	var b strings.Builder
	b.Grow(words[end-1][1] - words[start][0] + 4*SnippetWords + 2*len("…"))
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		w := text[words[i][0]:words[i][1]]
		if hit[i] {
			b.WriteString("**")
			b.WriteString(w)
			b.WriteString("**")
		} else {
			b.WriteString(w)
		}
	}
	if end < len(words) {
		b.WriteString("…")
	}
	return b.String()
}

// spaceAt returns the length of the space (as unicode.IsSpace says)
// starting at text[i], a byte past ASCII, or 0 when none starts there.
func spaceAt(text string, i int) int {
	r, n := utf8.DecodeRuneInString(text[i:])
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

// asciiSpace are the ASCII bytes unicode.IsSpace takes for space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// Window returns where the snippet of a text whose words holding a key
// are those hit starts and ends (end excluded): the first run of
// SnippetWords words (or all, when fewer) holding the most keys.
func Window(hit []bool) (start, end int) {
	best, n := -1, 0
	for i := range hit {
		if hit[i] {
			n++
		}
		if i >= SnippetWords && hit[i-SnippetWords] {
			n--
		}
		if n > best {
			best, start = n, max(0, i-SnippetWords+1)
		}
	}
	return start, min(len(hit), start+SnippetWords)
}

// holds reports whether the word w holds a key: one of its tokens has a
// key's stem. A word of ASCII alone (ascii) is looked at token by token
// (see asciiHolds); another is tokenized by query.Tokens, once per
// search.
func (k *Keys) holds(w string, ascii bool) bool {
	if ascii {
		return k.asciiHolds(w)
	}
	h, known := k.words[w]
	if !known {
		for _, tok := range query.Tokens(w) {
			if k.first[tok[0]] && k.stems[stems.of(tok)] {
				h = true
				break
			}
		}
		if k.words == nil {
			k.words = map[string]bool{}
		}
		k.words[w] = h
	}
	return h
}

// asciiHolds is holds for a word of ASCII alone, whose tokens are its
// runs of letters and digits, lowercased: a token is stemmed only if it
// starts as a token holding a key does (see stemHead), and without
// query.Tokens' allocations. (Past ASCII, folding may change a token:
// holds looks at such words properly.)
func (k *Keys) asciiHolds(w string) bool {
	var scratch [64]byte
	for i := 0; i < len(w); {
		if !asciiAlnum(w[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(w) && asciiAlnum(w[j]) {
			j++
		}
		if k.startsAsKey(w[i:j]) {
			tok := scratch[:0]
			for p := i; p < j; p++ {
				tok = append(tok, lowerASCII(w[p]))
			}
			if k.stems[stems.ofBytes(tok)] {
				return true
			}
		}
		i = j
	}
	return false
}

// startsAsKey reports whether the ASCII token tok (not lowercased yet)
// starts as a token holding a key does: with the head of a key's stem.
func (k *Keys) startsAsKey(tok string) bool {
	c := lowerASCII(tok[0])
	if !k.first[c] {
		return false
	}
	for _, h := range k.heads {
		if h[0] == c && len(h) <= len(tok) && strings.EqualFold(tok[:len(h)], h) {
			return true
		}
	}
	return false
}

// asciiAlnum reports whether c is an ASCII letter or digit.
func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// lowerASCII returns c lowercased, when it is an ASCII letter.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

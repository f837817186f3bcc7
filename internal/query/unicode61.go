package query

import (
	"unicode"
	"unicode/utf8"
)

// What SQLite's unicode61 tokenizer, with its default options
// (remove_diacritics=1, categories "L* N* Co"), does with each code point
// is in unicode61_table.go, made by running the tokenizer over every code
// point (go test ./internal/query -run TestUnicode61 -update). SQLite's
// tables follow an older Unicode than Go's: unassigned code points are
// token characters to it, and it folds case and removes diacritics its own
// way ("ø" stays, "ſ" is "s", "ς" is "σ", "ạ" is "a").

// A foldRange says what the code points Lo, Lo+Stride, …, Hi fold to: all
// to To when Flat is set, otherwise each to To plus its distance from Lo.
type foldRange struct {
	Lo, Hi rune
	Stride uint16
	To     rune
	Flat   bool
}

// beyondUnicode marks a code point above unicode.MaxRune read from invalid
// UTF-8: such a code point is kept as beyondUnicode | its low 21 bits, all
// of it SQLite writes back.
const beyondUnicode = 1 << 21

// lowSeparator marks a separator in unicode61Low.
const lowSeparator = 0xFFFF

// unicode61Low is unicode61 for the code points below U+0800 (ASCII and
// the two-byte UTF-8 of Latin, Greek, Cyrillic, Hebrew and Arabic), as
// lowSeparator, 0 or the folded rune.
var unicode61Low = func() (low [0x800]uint16) {
	for r := range rune(len(low)) {
		if f := unicode61Table(r); f >= 0 {
			low[r] = uint16(f)
		} else {
			low[r] = lowSeparator
		}
	}
	return low
}()

// unicode61 returns what SQLite's unicode61 tokenizer makes of the code
// point r: -1 when r separates tokens; 0 when it is a diacritic that is
// dropped (one that continues a token without starting one); otherwise the
// token character r folds to (lowercase, without a diacritic), which is r
// itself when nothing changes.
func unicode61(r rune) rune {
	if uint32(r) < uint32(len(unicode61Low)) {
		if v := unicode61Low[r]; v != lowSeparator {
			return rune(v)
		}
		return -1
	}
	return unicode61Table(r)
}

// unicode61Table is unicode61 read from the generated tables.
func unicode61Table(r rune) rune {
	switch {
	case r > unicode.MaxRune:
		return r // SQLite makes a token character of it, unchanged
	case unicode.Is(unicode61Separators, r):
		return -1
	case unicode.Is(unicode61Removed, r):
		return 0
	}
	lo, hi := 0, len(unicode61Folds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if unicode61Folds[m].Hi < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(unicode61Folds) {
		return r
	}
	f := &unicode61Folds[lo]
	d := r - f.Lo
	switch {
	case d < 0 || d%rune(f.Stride) != 0:
		return r
	case f.Flat:
		return f.To
	}
	return f.To + d
}

// decodeRune reads the code point at the start of s, which does not start
// with an ASCII byte, as SQLite does, and its length; exact reports whether
// those bytes are the code point's UTF-8 encoding. Valid UTF-8 reads as Go
// reads it. SQLite reads invalid UTF-8 its own way: a stray continuation
// byte is the code point of its value (0x80 to 0xBF), a lead byte takes
// every continuation byte that follows, and a result that is a surrogate,
// U+FFFE, U+FFFF or overlong below U+0080 is U+FFFD.
func decodeRune(s string) (r rune, n int, exact bool) {
	r, n = utf8.DecodeRuneInString(s)
	if (r != utf8.RuneError || n > 1) && (n == len(s) || s[n]&0xC0 != 0x80) {
		return r, n, true
	}
	c, n := uint32(s[0]), 1
	if c >= 0xC0 {
		c = uint32(utf8Trans1[c-0xC0])
		for ; n < len(s) && s[n]&0xC0 == 0x80; n++ {
			c = c<<6 + uint32(s[n]&0x3F)
		}
		if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
			c = utf8.RuneError
		}
	}
	if c > unicode.MaxRune {
		return rune(c&(beyondUnicode-1) | beyondUnicode), n, false
	}
	return rune(c), n, false
}

// utf8Trans1 is SQLite's sqlite3Utf8Trans1: the bits a lead byte 0xC0 to
// 0xFF contributes to its code point.
var utf8Trans1 = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}

// appendRune appends r as SQLite writes it: UTF-8, and for a code point
// beyond Unicode the four-byte form of its low 21 bits.
func appendRune(b []byte, r rune) []byte {
	if r <= unicode.MaxRune {
		return utf8.AppendRune(b, r)
	}
	return append(b, 0xF0|byte(r>>18&0x07), 0x80|byte(r>>12&0x3F), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
}

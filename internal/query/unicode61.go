package query

import "unicode"

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

package query

// Stem returns the Porter stem of a lowercase token, as SQLite's FTS5
// "porter" tokenizer computes it (M. F. Porter, "An algorithm for suffix
// stripping", 1980): tokens shorter than 3 or longer than 64 bytes, and
// tokens that are not plain ASCII letters, are left as they are.
//
// engram uses it to look query terms up in the index's vocabulary; the
// index itself is stemmed by SQLite.
func Stem(w string) string {
	if len(w) < 3 || len(w) > 64 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	s := &stemmer{b: []byte(w)}
	s.step1ab()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	return string(s.b)
}

type stemmer struct {
	b []byte
	j int // end of the stem when a suffix was found: b[:j] is the stem
}

// cons reports whether b[i] is a consonant.
func (s *stemmer) cons(i int) bool {
	switch s.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !s.cons(i-1)
	}
	return true
}

// m measures the number of consonant-vowel sequences in b[:j]:
// [C](VC){m}[V].
func (s *stemmer) m() int {
	n, i := 0, 0
	for {
		if i >= s.j {
			return n
		}
		if !s.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i >= s.j {
				return n
			}
			if s.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i >= s.j {
				return n
			}
			if !s.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

// vowelInStem reports whether b[:j] contains a vowel.
func (s *stemmer) vowelInStem() bool {
	for i := 0; i < s.j; i++ {
		if !s.cons(i) {
			return true
		}
	}
	return false
}

// doublec reports whether b[i-1:i+1] is a double consonant.
func (s *stemmer) doublec(i int) bool {
	return i >= 1 && s.b[i] == s.b[i-1] && s.cons(i)
}

// cvc reports whether b[i-2:i+1] is consonant-vowel-consonant and the last
// consonant is not w, x or y.
func (s *stemmer) cvc(i int) bool {
	if i < 2 || !s.cons(i) || s.cons(i-1) || !s.cons(i-2) {
		return false
	}
	switch s.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b ends with suf, and sets j to where it starts.
func (s *stemmer) ends(suf string) bool {
	n := len(suf)
	if n > len(s.b) || string(s.b[len(s.b)-n:]) != suf {
		return false
	}
	s.j = len(s.b) - n
	return true
}

// setto replaces b[j:] with r.
func (s *stemmer) setto(r string) { s.b = append(s.b[:s.j], r...) }

// r replaces the suffix with rep when the stem's measure is positive.
func (s *stemmer) r(rep string) {
	if s.m() > 0 {
		s.setto(rep)
	}
}

func (s *stemmer) step1ab() {
	if s.b[len(s.b)-1] == 's' {
		switch {
		case s.ends("sses"):
			s.b = s.b[:len(s.b)-2]
		case s.ends("ies"):
			s.setto("i")
		case len(s.b) >= 2 && s.b[len(s.b)-2] != 's':
			s.b = s.b[:len(s.b)-1]
		}
	}
	if s.ends("eed") {
		if s.m() > 0 {
			s.b = s.b[:len(s.b)-1]
		}
		return
	}
	if (s.ends("ed") || s.ends("ing")) && s.vowelInStem() {
		s.b = s.b[:s.j]
		k := len(s.b) - 1
		switch {
		case s.ends("at"):
			s.setto("ate")
		case s.ends("bl"):
			s.setto("ble")
		case s.ends("iz"):
			s.setto("ize")
		case s.doublec(k):
			if c := s.b[k]; c != 'l' && c != 's' && c != 'z' {
				s.b = s.b[:k]
			}
		default:
			s.j = len(s.b)
			if s.m() == 1 && s.cvc(k) {
				s.b = append(s.b, 'e')
			}
		}
	}
}

func (s *stemmer) step1c() {
	if s.ends("y") && s.vowelInStem() {
		s.b[len(s.b)-1] = 'i'
	}
}

func (s *stemmer) step2() {
	if len(s.b) < 2 {
		return
	}
	for _, p := range [...]struct{ suf, rep string }{
		{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
		{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
		{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
		{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
		{"logi", "log"},
	} {
		if s.ends(p.suf) {
			s.r(p.rep)
			return
		}
	}
}

func (s *stemmer) step3() {
	for _, p := range [...]struct{ suf, rep string }{
		{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"},
		{"ful", ""}, {"ness", ""},
	} {
		if s.ends(p.suf) {
			s.r(p.rep)
			return
		}
	}
}

func (s *stemmer) step4() {
	for _, suf := range [...]string{
		"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
		"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
	} {
		if !s.ends(suf) {
			continue
		}
		if suf == "ion" && (s.j == 0 || (s.b[s.j-1] != 's' && s.b[s.j-1] != 't')) {
			return
		}
		if s.m() > 1 {
			s.b = s.b[:s.j]
		}
		return
	}
}

func (s *stemmer) step5() {
	s.j = len(s.b)
	k := len(s.b) - 1
	if s.b[k] == 'e' {
		s.j = k
		if a := s.m(); a > 1 || a == 1 && !s.cvc(k-1) {
			s.b = s.b[:k]
		}
	}
	k = len(s.b) - 1
	s.j = len(s.b)
	if s.b[k] == 'l' && s.doublec(k) && s.m() > 1 {
		s.b = s.b[:k]
	}
}

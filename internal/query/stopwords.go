package query

// stopwords are common English words that carry little meaning in a search:
// articles, pronouns, auxiliaries, prepositions, conjunctions, the question
// words people start questions with, and the fragments unicode61 leaves of
// contractions ("don't" → "don", "t").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
		"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
		"by", "can", "could", "d", "did", "do", "does", "doing", "don", "down", "during", "each",
		"few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
		"herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
		"itself", "just", "ll", "m", "me", "might", "more", "most", "must", "my", "myself", "no",
		"nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
		"ourselves", "out", "over", "own", "re", "s", "same", "shall", "she", "should", "so",
		"some", "such", "t", "than", "that", "the", "their", "theirs", "them", "themselves",
		"then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
		"until", "up", "ve", "very", "was", "we", "were", "what", "when", "where", "which",
		"while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours",
		"yourself", "yourselves", "also", "ever", "yet", "like", "tell", "know", "kind", "ago",
	} {
		m[w] = true
	}
	return m
}()

// IsStopword reports whether the lowercase token w is a stopword.
func IsStopword(w string) bool { return stopwords[w] }

// stopStems are the Porter stems of the stopwords.
var stopStems = func() map[string]bool {
	m := make(map[string]bool, len(stopwords))
	for w := range stopwords {
		m[Stem(w)] = true
	}
	return m
}()

// IsStopStem reports whether stem is the Porter stem of a stopword: what
// a full-text index holds of one.
func IsStopStem(stem string) bool { return stopStems[stem] }

package rank

// Sessions: in a conversation, the turns that answer a question are often
// spread over a session that is about it as a whole, while a turn
// elsewhere may share as many of its words by chance. A session's matches
// taken together say which sessions the question is about (SessionShare);
// and so that one talkative session does not fill the results, each result
// after the first of its session is taken down a little (SpreadFactors).

// SessionShare returns the score of a session for a query whose terms
// weigh weights (BM25's IDF of each, in the query's order), as a share of
// the most any session could score: counts[t] is how many of the
// session's matches hold term t, and its score is the sum, over the terms
// it holds, of the term's weight times BM25's saturation of the count,
// (k1 + 1)·n / (k1 + n), over the sum of all the terms' weights times
// k1 + 1, where the saturation tends. So the share is in [0, 1): a session
// whose matches hold each term once scores 1/(k1 + 1), one that holds the
// question's words again and again more, and one that holds only a
// common term (a name every session says) that term's small share,
// however many of its turns say it. It returns 0 when no term weighs
// anything.
func SessionShare(counts []int, weights []float64, k1 float64) float64 {
	var score, total float64
	for t, w := range weights {
		total += w
		if t < len(counts) && counts[t] > 0 {
			n := float64(counts[t])
			score += w * (k1 + 1) * n / (k1 + n)
		}
	}
	if total <= 0 {
		return 0
	}
	return score / (total * (k1 + 1))
}

// SpreadFactors returns the factor of each item of a ranking, best first,
// whose sessions are sessions (numbered from 1; 0 for none): (1 − spread)
// to the power of how many items of its session rank above it, 1 for an
// item with no session. spread is in [0, 1). Ordering the items by their
// score times their factor is taking them one by one, best first, each at
// its score times (1 − spread) for each item of its session taken before
// it: an item's place among its session's never changes.
func SpreadFactors(sessions []int32, spread float64) []float64 {
	var most int32
	for _, s := range sessions {
		most = max(most, s)
	}
	next := make([]float64, most+1) // by session: the factor of its next item
	for s := range next {
		next[s] = 1
	}
	factor := make([]float64, len(sessions))
	for i, s := range sessions {
		factor[i] = next[s]
		if s > 0 {
			next[s] *= 1 - spread
		}
	}
	return factor
}

// Package rank holds the arithmetic of engram's search ranking, apart
// from the rows it ranks: how a memory's parts (text relevance,
// importance, recency) blend into its score, the bounds on scores that let
// a search skip reading rows that cannot make its first results, the
// reciprocal-rank fusion of a hybrid search, the cap on the scores of
// session context, and the snippets of the results.
//
// It reads no database and knows no memory kind: the root package
// gathers the candidates and calls it with numbers and text.
package rank

import (
	"math"
	"time"
)

// Weights are the weights of a score's parts (see Weights.Score).
type Weights struct {
	Text, Importance, Recency float64
}

// Total returns the sum of the weights, which every score is divided by.
func (w Weights) Total() float64 { return w.Text + w.Importance + w.Recency }

// Score returns the weighted mean of a memory's relevance, importance and
// recency (each in [0, 1]), by the weights w.
func (w Weights) Score(relevance, importance, recency float64) float64 {
	return (w.Text*relevance + w.Importance*importance + w.Recency*recency) / w.Total()
}

// Bound returns the score of a memory of text score text, when the best
// text score is bestText (> 0), with importance and recency: Score with
// relevance text/bestText, but with the text weight applied before the
// division, as the bounds of a text search are computed.
func (w Weights) Bound(text, bestText, importance, recency float64) float64 {
	return (w.Text*text/bestText + w.Importance*importance + w.Recency*recency) / w.Total()
}

// ContextBound returns the most a session neighbour of a match of text
// score t can score, when a neighbour's text score is share times its
// match's and the best text score is bestText (> 0): its importance and
// recency are at most 1.
func (w Weights) ContextBound(share, t, bestText float64) float64 {
	return (w.Text*share*t/bestText + w.Importance + w.Recency) / w.Total()
}

// Recency returns 1 for a memory touched at now or later, halving every
// halfLife before now, and 0 for a memory never touched (t zero).
func Recency(now, t time.Time, halfLife time.Duration) float64 {
	if t.IsZero() {
		return 0
	}
	age := now.Sub(t)
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// Relative scales xs in place so that the largest is 1, and returns it;
// xs whose largest is not above 0 are left as they are.
func Relative(xs []float64) []float64 {
	top := 0.0
	for _, x := range xs {
		top = max(top, x)
	}
	if top > 0 {
		for i := range xs {
			xs[i] /= top
		}
	}
	return xs
}

// AddReciprocalRanks adds to out, at each index of order (the indexes of
// a ranking, best first), its share of a reciprocal-rank fusion: weight
// divided by k plus its place in order, from 1.
func AddReciprocalRanks(out []float64, order []int, k, weight float64) {
	for r, i := range order {
		out[i] += weight / (k + float64(r+1))
	}
}

// Nth returns what sorting xs in increasing order would put at index n
// (0 ≤ n < len(xs)), reordering xs (Hoare's selection, with the middle
// as pivot).
func Nth(xs []float64, n int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		pivot := xs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i, j = i+1, j-1
			}
		}
		switch {
		case n <= j:
			hi = j
		case n >= i:
			lo = i
		default:
			return xs[n]
		}
	}
	return xs[n]
}

// BestBounds returns, of the indexes at (into bounds), the need with the
// best bounds: those above the need-th best, in the order of at, then
// enough of those equal to it, in the order of at. When at holds no more
// than need, it is returned as it is.
func BestBounds(at []int, bounds []float64, need int) []int {
	if len(at) <= need {
		return at
	}
	bs := make([]float64, len(at))
	for j, i := range at {
		bs[j] = bounds[i]
	}
	kth := Nth(bs, len(bs)-need)
	first := make([]int, 0, need+1)
	for _, i := range at {
		if bounds[i] > kth {
			first = append(first, i)
		}
	}
	for _, i := range at {
		if len(first) < need && bounds[i] == kth {
			first = append(first, i)
		}
	}
	return first
}

// Floor returns the need-th best of scores (need > 0), or threshold when
// that is higher or scores holds fewer than need: no candidate scoring
// below it can be among the first need. It reorders scores.
func Floor(scores []float64, threshold float64, need int) float64 {
	floor := threshold
	if len(scores) >= need {
		floor = max(floor, Nth(scores, len(scores)-need))
	}
	return floor
}

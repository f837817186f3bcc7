package rank

import "time"

// Mode is how a search found its candidates, which says what their
// relevance is (see Scorer.Score).
type Mode int

// The modes of a search.
const (
	ByText   Mode = iota // full text: relevance is the text score relative to the best
	ByVector             // nearest neighbours: the cosine relative to the best
	Hybrid               // both: the fused relevance
)

// Item is what ranking knows of a candidate.
type Item struct {
	Text       float64   // its text score (BM25, with any Dialogue), 0 when text did not match it
	Dialogue   float64   // the part of Text the matching turn beside it added
	Session    float64   // its session's share of the query (see SessionShare), when HasSession
	HasSession bool      // whether its session was scored
	Asks       bool      // whether it asks a question (see Scorer.QuestionPenalty)
	Cosine     float64   // its vector's cosine with the query's, when HasCosine
	HasCosine  bool      // whether its vector is known
	Pending    bool      // whether it waits for its vector (a vector search ranks it by Text)
	Importance float64   // in [0, 1]
	Touched    time.Time // when it was last created, updated or used; zero if never
}

// Parts are the parts of a candidate's score, each in [0, 1]: Text,
// Dialogue, Session, Question and Vector as Scorer.Score says, Fused the
// fused relevance of a hybrid search, Importance the candidate's, Recency
// as Recency says, and Spread the factor its place among its session's
// results took its score down by (see SpreadFactors; 1 until then).
type Parts struct {
	Text, Importance, Recency, Vector, Fused, Dialogue, Session, Question, Spread float64
}

// Scorer scores the candidates of one search.
type Scorer struct {
	Weights  Weights
	HalfLife time.Duration // recency's half-life
	Now      time.Time     // when the search runs
	Mode     Mode
	// BestText and BestCos are the candidates' best text score and best
	// cosine (of those whose vector is known).
	BestText, BestCos float64
	// SessionWeight is the weight of an item's session part (its
	// Session, when HasSession) beside its relevance, as a share of
	// Weights.Text (see Blend). An item whose session was not scored has
	// its relevance as its session part: among such items the order is
	// as without the part. 0 leaves the part out.
	SessionWeight float64
	// QuestionPenalty is the share of its score an item that asks a
	// question loses (see Item.Asks).
	QuestionPenalty float64
}

// Score returns the parts, relevance and score of it, whose fused
// relevance, in a hybrid search, is fused. Text and Dialogue are relative
// to BestText (0 when it is 0), Session is it.Session (the relevance
// without HasSession), Vector is the cosine, clamped to [0, 1], Question
// is 1 − QuestionPenalty for an item that asks, 1 for another, and Spread
// is 1. Relevance is Text in a text search; Fused in a hybrid search; in
// a vector search the cosine (0 when negative) relative to BestCos, or
// Text for a pending item or when BestCos is not above 0. The score is
// Question times the Blend of relevance, Session, Importance and Recency.
func (s *Scorer) Score(it Item, fused float64) (p Parts, relevance, score float64) {
	p = Parts{Importance: it.Importance, Recency: Recency(s.Now, it.Touched, s.HalfLife), Question: 1, Spread: 1}
	if it.Asks {
		p.Question = 1 - s.QuestionPenalty
	}
	if s.BestText > 0 {
		p.Text, p.Dialogue = it.Text/s.BestText, it.Dialogue/s.BestText
	}
	if it.HasCosine {
		p.Vector = max(0, min(1, it.Cosine))
	}
	relevance = p.Text
	switch {
	case s.Mode == Hybrid:
		p.Fused = fused
		relevance = p.Fused
	case s.Mode == ByVector && !it.Pending && s.BestCos > 0:
		relevance = max(0, it.Cosine) / s.BestCos
	}
	p.Session = relevance
	if it.HasSession {
		p.Session = it.Session
	}
	return p, relevance, p.Question * Blend(s.Weights, s.SessionWeight, relevance, p.Session, p.Importance, p.Recency)
}

// Blend returns the weighted mean of a memory's relevance, session part,
// importance and recency (each in [0, 1]): relevance weighs w.Text, the
// session part sessionWeight times w.Text, and the others their weights.
// With sessionWeight 0 it is w.Score.
func Blend(w Weights, sessionWeight, relevance, session, importance, recency float64) float64 {
	if sessionWeight == 0 {
		return w.Score(relevance, importance, recency)
	}
	ws := sessionWeight * w.Text
	return (w.Text*relevance + ws*session + w.Importance*importance + w.Recency*recency) / (w.Total() + ws)
}

// Lexical returns a candidate's fused relevance in a hybrid search whose
// embedder's vectors reflect words, before scaling (see Relative): its
// text score relative to bestText, weighted 1 − weight, plus its cosine
// (0 when negative, or when hasCosine is false) relative to bestCos,
// weighted weight. A best that is not above 0 gives its part 0.
func Lexical(weight, text, bestText, cosine float64, hasCosine bool, bestCos float64) float64 {
	out := 0.0
	if bestText > 0 {
		out = (1 - weight) * text / bestText
	}
	if hasCosine && bestCos > 0 {
		out += weight * max(0, cosine) / bestCos
	}
	return out
}

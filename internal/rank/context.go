package rank

import "math"

// ContextShare is the most of a direct match's text score a session
// neighbour reached through another match may have (see ContextCaps): a
// neighbour never outranks a direct match holding the same query terms.
const ContextShare = 0.999

// ContextCaps caps the text score of a session neighbour reached through
// a match holding some query terms below every direct match holding them
// all, each cap worked out once. Its zero value has no direct matches;
// add them with Direct before calling Score.
type ContextCaps struct {
	direct []textHeld         // the direct matches
	caps   map[uint64]float64 // by the terms held
}

// textHeld is a match's text score and the query terms it holds.
type textHeld struct {
	text float64
	held uint64
}

// Direct adds a direct match of text score text holding the query terms
// held (bit i set for the i-th term).
func (cc *ContextCaps) Direct(text float64, held uint64) {
	cc.direct = append(cc.direct, textHeld{text, held})
}

// Score returns score, the text score of a neighbour reached through a
// match holding the query terms held, capped at ContextShare times every
// direct match's score that holds them all.
func (cc *ContextCaps) Score(score float64, held uint64) float64 {
	c, ok := cc.caps[held]
	if !ok {
		c = math.Inf(1)
		for _, d := range cc.direct {
			if d.held&held == held {
				c = min(c, d.text*ContextShare)
			}
		}
		if cc.caps == nil {
			cc.caps = map[uint64]float64{}
		}
		cc.caps[held] = c
	}
	return min(score, c)
}

package engram

import (
	"context"
	"slices"

	"github.com/engram-go/engram/internal/rank"
	"github.com/engram-go/engram/internal/store"
)

// Session context: in a conversation the answer is often the turn after
// the one that shares the question's words, so the episodes logged just
// before and after a matching episode, in the same session, come along.

// withContext adds the session neighbours of the episodic text matches
// among cands, in one query. A neighbour's text score is weight times its
// match's, so its Text part is weight times the match's, but never as
// much as a direct match that holds every query term its match holds: an
// episode that came along as context never outranks a direct match for
// the same words.
//
// need is how many of the ranking's first candidates the caller uses (0
// for all): in a text search, the neighbours of a match whose own score
// bounds theirs below the need-th candidate's are not looked up (see
// contextWorth). (When the in-memory text index finds the matches, it
// finds their neighbours too: see textCandidates.)
func (m *Memory) withContext(ctx context.Context, s *search, cands []candidate, weight float64, need int) ([]candidate, error) {
	worth := m.contextWorth(s, cands, weight, need)
	var hits []int64
	for _, c := range cands {
		if c.Type == TypeEpisodic && c.text > 0 && worth(c.text) {
			hits = append(hits, c.pk)
		}
	}
	if len(hits) == 0 {
		return cands, nil
	}
	var found []candidate // each with the match it came with as ContextOf
	err := m.read(ctx, "search.context", func(q store.Tx) error {
		near, err := store.SessionNeighbours(q, episodicKind.Kind, m.agent, hits, s.filter.stored())
		found = make([]candidate, len(near))
		for i, n := range near {
			found[i] = rankedCandidate(TypeEpisodic, n.RankedRow)
			found[i].ContextOf = n.Of
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m.addContext(cands, weight, found), nil
}

// addContext adds the neighbours found (each with the match it came
// with as ContextOf) to cands, scored as withContext says, and scores a
// match that is a neighbour of another match with that match (see
// SearchConfig.DialogueWeight): its own text score plus the share of the
// other's own, when that is more than what it has.
func (m *Memory) addContext(cands []candidate, weight float64, found []candidate) []candidate {
	byID := make(map[string]int, len(cands)+len(found)) // episodic candidate ID → index in cands
	for i := range cands {
		if c := &cands[i]; c.Type == TypeEpisodic && c.text > 0 {
			byID[c.ID] = i
		}
	}
	// First a match beside a match is scored with it, from the matches'
	// own scores alone, whatever order the neighbours come in; the
	// context shares below are of those scores.
	if u := m.cfg.Search.DialogueWeight; u > 0 {
		type unit struct {
			added float64
			with  string
		}
		units := map[int]unit{} // by index in cands
		for j := range found {
			n := &found[j]
			i, direct := byID[n.ID]
			if !direct {
				continue
			}
			// The better turn wins; of two alike, the smaller ID.
			added := u * cands[byID[n.ContextOf]].text
			if x, seen := units[i]; !seen || added > x.added || added == x.added && n.ContextOf < x.with {
				units[i] = unit{added, n.ContextOf}
			}
		}
		for i, x := range units {
			c := &cands[i]
			c.text, c.dialogue, c.DialogueWith = c.text+x.added, x.added, x.with
		}
	}
	var caps rank.ContextCaps
	for i := range cands {
		if c := &cands[i]; c.text > 0 {
			caps.Direct(c.text, c.held)
		}
	}
	cands = slices.Grow(cands, len(found))
	for j := range found {
		n := &found[j]
		via := &cands[byID[n.ContextOf]]
		text := caps.Score(weight*via.text, via.held)
		if i, ok := byID[n.ID]; ok {
			// The best context wins; of two alike, the match of the
			// smaller ID, whatever order they came in. A match scored
			// with the turn beside it is scored as context instead when
			// that is more.
			c := &cands[i]
			if text > c.text || text == c.text && c.ContextOf != "" && n.ContextOf < c.ContextOf {
				c.text, c.ContextOf, c.dialogue, c.DialogueWith = text, n.ContextOf, 0, ""
			}
			continue
		}
		byID[n.ID] = len(cands)
		cands = append(cands, *n)
		cands[len(cands)-1].text = text
	}
	return cands
}

// contextWorth returns whether the neighbours of an episodic match of
// text score t could be among the first need candidates of a search
// ranking cands and their neighbours (always, when matches are scored
// with the turns beside them: see SearchConfig.DialogueWeight). In a text search a neighbour's
// Text part is at most weight × t over the best text score, and its
// importance and recency at most 1, which bounds its score; the need-th
// best score of cands can only rise as neighbours come. Other searches,
// and need 0, want every match's neighbours.
func (m *Memory) contextWorth(s *search, cands []candidate, weight float64, need int) func(t float64) bool {
	all := func(float64) bool { return true }
	if need == 0 || s.opts.Mode != SearchText || m.cfg.Search.DialogueWeight > 0 {
		// A match scored with the turn beside it may become the best
		// match, which moves every score: no bound holds.
		return all
	}
	ranked := m.rank(cands, s.now, s.opts)
	if len(ranked) < need {
		return all
	}
	floor := ranked[need-1].Score
	bestText := 0.0
	for _, c := range cands {
		bestText = max(bestText, c.text)
	}
	w := m.cfg.Search.weights()
	return func(t float64) bool {
		return w.ContextBound(weight, t, bestText) >= floor-1e-9
	}
}

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
// among cands, in one query (none with weight 0). A neighbour's text
// score is weight times its match's, so its Text part is weight times the
// match's, but never as much as a direct match that holds every query
// term its match holds: an episode that came along as context never
// outranks a direct match for the same words. When the search scores
// episodes by their sessions and questions (SearchConfig.byTurns), it
// also reads the session of every episode among cands and which of them
// and of their neighbours ask questions: what the in-memory text index
// knows of the episodes it finds.
//
// need is how many of the ranking's first candidates the caller uses (0
// for all): in a text search, the neighbours of a match whose own score
// bounds theirs below the need-th candidate's are not looked up (see
// contextWorth). (When the in-memory text index finds the matches, it
// finds their neighbours too: see textCandidates.)
func (m *Memory) withContext(ctx context.Context, s *search, cands []candidate, weight float64, need int) ([]candidate, error) {
	worth := m.contextWorth(s, cands, weight, need)
	turns := m.cfg.Search.byTurns()
	var hits, all []int64 // the matches worth their neighbours; every episode found
	for _, c := range cands {
		if c.Type != TypeEpisodic {
			continue
		}
		all = append(all, c.pk)
		if c.text > 0 && worth(c.text) {
			hits = append(hits, c.pk)
		}
	}
	if len(hits) == 0 && (!turns || len(all) == 0) {
		return cands, nil // no episode: no neighbours, no sessions to score
	}
	var found []candidate // each with the match it came with as ContextOf
	err := m.read(ctx, "search.context", func(q store.Tx) error {
		if weight > 0 && len(hits) > 0 {
			near, err := store.SessionNeighbours(q, episodicKind.Kind, m.agent, hits, s.filter.stored())
			if err != nil {
				return err
			}
			found = make([]candidate, len(near))
			for i, n := range near {
				found[i] = rankedCandidate(TypeEpisodic, n.RankedRow)
				found[i].ContextOf = n.Of
			}
		}
		if !turns {
			return nil
		}
		pks := all
		for _, n := range found {
			pks = append(pks, n.pk)
		}
		traits, err := store.Traits(q, episodicKind.Kind, m.agent, pks)
		if err != nil {
			return err
		}
		for i := range cands {
			if c := &cands[i]; c.Type == TypeEpisodic {
				c.session, c.asks = traits[c.pk].Session, traits[c.pk].Asks
			}
		}
		for i := range found {
			found[i].asks = traits[found[i].pk].Asks
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m.addContext(s, cands, weight, found), nil
}

// addContext adds the neighbours found (each with the match it came
// with as ContextOf) to cands, scored as withContext says, and scores a
// match that is a neighbour of another match with that match (see
// SearchConfig.DialogueWeight): its own text score plus the share of the
// other's own, when that is more than what it has. Then it scores each
// match's session (see sessionShares); a neighbour is in its match's
// session, and the answer to a matching question (the episode after it,
// asking none) has AnswerWeight's share of it instead of weight.
func (m *Memory) addContext(s *search, cands []candidate, weight float64, found []candidate) []candidate {
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
	s.sessions = numberSessions(cands)
	m.sessionShares(s, cands, s.sessions)
	var caps rank.ContextCaps
	for i := range cands {
		if c := &cands[i]; c.text > 0 {
			caps.Direct(c.text, c.held)
		}
	}
	cands = slices.Grow(cands, len(found))
	// A neighbour's share is of its match's score as a match, not of what
	// the match may get as another's context in this loop: so the result
	// does not depend on the order the neighbours come in.
	matchText := make([]float64, len(cands))
	for i := range cands {
		matchText[i] = cands[i].text
	}
	answer := m.cfg.Search.AnswerWeight
	for j := range found {
		n := &found[j]
		at := byID[n.ContextOf]
		via := &cands[at]
		n.session, n.sessionNo, n.share, n.hasShare = via.session, via.sessionNo, via.share, via.hasShare
		share := weight
		if answer > 0 && via.asks && !n.asks && after(n, via) {
			share = answer
		}
		text := caps.Score(share*matchText[at], via.held)
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
	if need == 0 || s.opts.Mode != SearchText || m.cfg.Search.DialogueWeight > 0 || m.cfg.Search.byTurns() {
		// A match scored with the turn beside it or with its session
		// may become the best match, which moves every score, and an
		// answer may have more than weight's share: no bound holds.
		return all
	}
	ranked := m.rank(cands, s)
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

// after reports whether the episode n was logged after the episode c in
// their session: sessions are in (created_at, pk) order.
func after(n, c *candidate) bool {
	if !n.CreatedAt.Equal(c.CreatedAt) {
		return n.CreatedAt.After(c.CreatedAt)
	}
	return n.pk > c.pk
}

// numberSessions numbers the sessions of the episodes among cands, from 1
// in the order they first come, sets each one's sessionNo, and returns
// how many there are. Episodes that came as context are left to take
// their match's (see addContext).
func numberSessions(cands []candidate) int {
	var at map[string]int32
	for i := range cands {
		c := &cands[i]
		if c.Type != TypeEpisodic || c.session == "" || c.ContextOf != "" {
			continue
		}
		if at == nil {
			at = make(map[string]int32, 16)
		}
		no, seen := at[c.session]
		if !seen {
			no = int32(len(at)) + 1
			at[c.session] = no
		}
		c.sessionNo = no
	}
	return len(at)
}

// sessionShares gives each text match among cands its session's share
// of the query, and the search the weight of that part (see
// SearchConfig.SessionWeight): the matches of an episode's session (of
// the sessions numbered, of which there are sessions; see
// numberSessions) are taken together, a query term counting as often as
// they hold it (see rank.SessionShare); a match outside any session is a
// session of one. A search that found no episode in a session has no
// session part.
func (m *Memory) sessionShares(s *search, cands []candidate, sessions int) {
	sc := &m.cfg.Search
	if sc.SessionWeight == 0 || s.scorer == nil || sessions == 0 {
		return // no conversation: the ranking is the matches' alone
	}
	weights := s.scorer.Weights()
	terms := min(len(weights), 64) // held says which of the first 64
	weights = weights[:terms]
	// By session, then term: how many of the session's matches hold it.
	counts := make([]int, sessions*terms)
	for i := range cands {
		c := &cands[i]
		if c.sessionNo == 0 || c.text == 0 {
			continue
		}
		n := counts[int(c.sessionNo-1)*terms:][:terms]
		for t := range n {
			n[t] += int(c.held >> t & 1)
		}
	}
	share := make([]float64, sessions)
	for j := range share {
		share[j] = rank.SessionShare(counts[j*terms:][:terms], weights, sc.BM25K1)
	}
	s.sessionWeight = sc.SessionWeight
	var own []int
	for i := range cands {
		c := &cands[i]
		switch {
		case c.sessionNo > 0 && c.text > 0:
			c.share, c.hasShare = share[c.sessionNo-1], true
		case c.ContextOf == "" && c.held != 0:
			// A match outside any session is a session of one: its
			// share is scored as a session's, so that it weighs the
			// same against an episode that holds as much.
			if own == nil {
				own = make([]int, terms)
			}
			for t := range own {
				own[t] = int(c.held >> t & 1)
			}
			c.share, c.hasShare = rank.SessionShare(own, weights, sc.BM25K1), true
		}
	}
}

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/locomodata"
)

// searchMode is the mode questions are asked in; "" is the tier's default.
var searchMode engram.SearchMode

// wordVecPath, when not "", is a word-vector file Tier 2 embeds with
// instead of the hashing embedder (see wordVectors).
var wordVecPath string

// postgresDSN, when not "", is the PostgreSQL database the conversations'
// memories are on (see run); "" keeps them in SQLite's memory.
var postgresDSN string

// latencies, when not nil, gets the time each question's search took.
var latencies *[]time.Duration

// agentOf is the agent that holds conversation c on PostgreSQL: one per
// conversation, as each has a memory of its own in SQLite's memory.
func agentOf(c locomodata.Conversation) string {
	return "locomo-" + c.SampleID
}

// run loads each conversation of d at the indexes convs (all of them
// when nil) into a fresh memory of the tier and asks its questions. Tier
// 2 embeds with the hashing embedder (384 dimensions) and searches in
// hybrid mode, its default. The memories are SQLite's, in memory, or,
// when postgresDSN names a database, each conversation's agent's there
// (agentOf), which must have no memory when the run begins and is erased
// (Memory.ForgetAgent) once its questions are asked; an agent left with
// memories by a run that failed is an error naming it.
func run(ctx context.Context, d locomodata.Dataset, convs []int, cfg engram.Config, tier engram.Tier) (*locomodata.Report, error) {
	rep := locomodata.NewReport(fmt.Sprintf("locomo tier%d", tier))
	opts := []engram.Option{engram.InMemory(), engram.WithConfig(cfg), engram.WithAgent("locomo")}
	if postgresDSN != "" {
		opts = []engram.Option{engram.WithPostgres(postgresDSN), engram.WithConfig(cfg)}
	}
	if tier == engram.Tier2 {
		var emb engram.Embedder
		if wordVecPath != "" {
			w, err := loadWordVectors(wordVecPath)
			if err != nil {
				return nil, err
			}
			emb = w
		} else {
			h, err := engram.NewHashingEmbedder(384)
			if err != nil {
				return nil, err
			}
			emb = h
		}
		opts = append(opts, engram.WithEmbedder(emb))
	}
	if convs == nil {
		convs, _ = locomodata.ParseConvs("", len(d))
	}
	maxK := locomodata.Ks[len(locomodata.Ks)-1]
	for _, ci := range convs {
		c := d[ci]
		sessions, err := c.Sessions()
		if err != nil {
			return nil, err
		}
		eps := locomodata.Episodes(sessions)
		turns := make(map[string]bool, len(eps))
		sessionOf := make(map[string]string, len(eps))
		for _, e := range eps {
			turns[e.ID] = true
			sessionOf[e.ID] = e.SessionID
		}
		// The clock stands a day after the last session, as if the agent
		// were asked the next day.
		end := sessions[len(sessions)-1].Date.Add(24 * time.Hour)
		copts := append(opts, engram.WithClock(func() time.Time { return end }))
		if postgresDSN != "" {
			copts = append(copts, engram.WithAgent(agentOf(c)))
		}
		m, err := engram.New(tier, copts...)
		if err != nil {
			return nil, err
		}
		if postgresDSN != "" {
			if err := fresh(ctx, m); err != nil {
				m.Close()
				return nil, err
			}
		}
		if _, err := m.Episodic().LogBatch(ctx, logged(eps)); err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", c.SampleID, err)
		}
		for _, q := range c.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			ev := locomodata.NormalizeEvidence(q.Evidence, turns)
			if len(ev) == 0 {
				continue
			}
			start := time.Now()
			res, err := m.Episodic().Search(ctx, engram.SearchOptions{Query: q.Question, Limit: maxK, Mode: searchMode})
			if latencies != nil {
				*latencies = append(*latencies, time.Since(start))
			}
			if err != nil {
				m.Close()
				return nil, fmt.Errorf("%s %q: %w", c.SampleID, q.Question, err)
			}
			ids := make([]string, len(res))
			for i, r := range res {
				ids[i] = r.ID
			}
			rep.Add(q.Category, ev, ids, func(turn string) string { return sessionOf[turn] })
		}
		if postgresDSN != "" {
			if err := m.ForgetAgent(ctx); err != nil {
				return nil, fmt.Errorf("%s: erasing agent %s: %w", c.SampleID, m.AgentID(), err)
			}
			continue
		}
		if err := m.Close(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// fresh returns an error unless m's agent holds no memory: the questions
// would be asked of more than their conversation.
func fresh(ctx context.Context, m *engram.Memory) error {
	s, err := m.Stats(ctx)
	if err != nil {
		return err
	}
	if s.Episodes+s.Semantic+s.Procedures+s.Facts+s.Snapshots+s.Documents > 0 {
		return fmt.Errorf("agent %s already has memories on the database (a run that failed?): erase it or use a fresh database", m.AgentID())
	}
	return nil
}

// logged is eps as engram logs them.
func logged(eps []locomodata.Episode) []engram.Episode {
	out := make([]engram.Episode, len(eps))
	for i, e := range eps {
		out[i] = engram.Episode{ID: e.ID, Content: e.Content, SessionID: e.SessionID, CreatedAt: e.CreatedAt}
	}
	return out
}

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

// run loads each conversation of d at the indexes convs (all of them
// when nil) into a fresh memory of the tier and asks its questions. Tier
// 2 embeds with the hashing embedder (384 dimensions) and searches in
// hybrid mode, its default.
func run(ctx context.Context, d locomodata.Dataset, convs []int, cfg engram.Config, tier engram.Tier) (*locomodata.Report, error) {
	rep := locomodata.NewReport(fmt.Sprintf("locomo tier%d", tier))
	opts := []engram.Option{engram.InMemory(), engram.WithConfig(cfg), engram.WithAgent("locomo")}
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
		m, err := engram.New(tier, append(opts, engram.WithClock(func() time.Time { return end }))...)
		if err != nil {
			return nil, err
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
			res, err := m.Episodic().Search(ctx, engram.SearchOptions{Query: q.Question, Limit: maxK, Mode: searchMode})
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
		if err := m.Close(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// logged is eps as engram logs them.
func logged(eps []locomodata.Episode) []engram.Episode {
	out := make([]engram.Episode, len(eps))
	for i, e := range eps {
		out[i] = engram.Episode{ID: e.ID, Content: e.Content, SessionID: e.SessionID, CreatedAt: e.CreatedAt}
	}
	return out
}

package httpapi_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
)

// isoSeed stores, for agent, a memory of every kind whose texts all hold
// word, and returns the IDs of its semantic entry and its fact.
func isoSeed(t *testing.T, e *env, agent, word string) (semID, factID string) {
	t.Helper()
	ctx := context.Background()
	m, err := e.agents.Agent(agent)
	require.NoError(t, err)
	semID, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: word + " runs the deploy pipeline on Fridays", Importance: 0.9})
	require.NoError(t, err)
	_, err = m.Episodic().Log(ctx, engram.Episode{Content: word + " deployed the pipeline", SessionID: "s1"})
	require.NoError(t, err)
	_, err = m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Description: word + " deploy steps"})
	require.NoError(t, err)
	a, err := m.Facts().Assert(ctx, engram.Fact{Subject: "User", Predicate: "works at", Object: word + "corp"})
	require.NoError(t, err)
	require.NoError(t, m.Rules().Add(ctx, engram.ExtractionRule{Name: "employer", Type: "semantic", Pattern: word + ` (\w+)`}))
	return semID, a.Fact.ID
}

// TestAgentsAreIsolated seeds two agents with overlapping data (the same
// entity, procedure and rule names), then runs every route as agent b,
// including b asking for a's memories by their IDs: no answer holds a's
// data (no request names it: every text of a's holds the mark), and a's
// memory is as it was.
func TestAgentsAreIsolated(t *testing.T) {
	const mark = "alphamark"
	e := newEnv(t, httpapi.Options{})
	aSem, aFact := isoSeed(t, e, "a", mark)
	isoSeed(t, e, "b", "bravo")
	before := e.do("GET", "/v1/export?profile=a", nil)
	require.Equal(t, 200, before.Status)

	q := func(path string, kv ...string) string {
		v := url.Values{"profile": {"b"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return path + "?" + v.Encode()
	}
	for _, c := range []struct {
		method, path string
		body         any
		own          bool // the answer holds b's data
	}{
		{"POST", "/v1/search", map[string]any{"profile": "b", "query": "deploy pipeline"}, true},
		{"POST", "/v1/search", map[string]any{"profile": "b", "query": "deploy pipeline", "recall": false}, true},
		{"POST", "/v1/context", map[string]any{"profile": "b", "query": "deploy"}, true},
		{"GET", q("/v1/summary"), nil, true},
		{"GET", q("/v1/changes"), nil, true},
		{"GET", q("/v1/memory/" + aSem + "/history"), nil, false},
		{"GET", q("/v1/rules"), nil, true},
		{"GET", q("/v1/graph/triples"), nil, true},
		{"GET", q("/v1/graph/triples", "entity", "User"), nil, true},
		{"GET", q("/v1/graph/neighbors", "entity", "User"), nil, true},
		{"GET", q("/v1/graph/paths", "from", "User", "to", "bravocorp"), nil, true},
		{"GET", q("/v1/graph/visualization", "entity", "User"), nil, true},
		{"GET", q("/v1/export", "history", "true"), nil, true},
		{"PUT", "/v1/memory/" + aSem, map[string]any{"profile": "b", "content": "b writes over a's entry"}, false},
		{"DELETE", q("/v1/memory/" + aSem), nil, false},
		{"DELETE", q("/v1/graph/triple/" + aFact), nil, false},
	} {
		r := e.do(c.method, c.path, c.body)
		require.NotContains(t, strings.ToLower(string(r.Body)), mark, "%s %s answers with a's data", c.method, c.path)
		require.Less(t, r.Status, 500, "%s %s: %s", c.method, c.path, r.Body)
		if c.own {
			require.Contains(t, string(r.Body), "bravo", "%s %s: b's own data", c.method, c.path)
		}
	}
	after := e.do("GET", "/v1/export?profile=a", nil)
	require.Equal(t, 200, after.Status)
	// The exports differ only in their headers' time.
	strip := func(b []byte) string {
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, `"type":"header"`) {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n")
	}
	require.Equal(t, strip(before.Body), strip(after.Body), "b's calls changed a's memory")
}

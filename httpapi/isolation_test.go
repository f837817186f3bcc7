package httpapi_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
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
// entity, procedure and rule names), then runs every route with a token
// for agent b only, including b asking for a's memories by their IDs: no
// answer holds a byte of a's data (no request names it: every text of a's
// holds the mark), nor does any file a route writes (a backup, read raw),
// and a's memory is as it was. It runs in each layout of a store: in a
// shared file or in memory, a's rows are in b's database.
func TestAgentsAreIsolated(t *testing.T) {
	for _, layout := range testutil.Layouts {
		t.Run(layout, func(t *testing.T) { testAgentsAreIsolated(t, layout) })
	}
}

func testAgentsAreIsolated(t *testing.T, layout string) {
	const mark = "alphamark"
	const admin, bToken = "admin-token-0123456789abcdef", "bravo-token-0123456789abcdef"
	backups := t.TempDir()
	e := newEnvOver(t, testutil.NewAgentsIn(t, layout), httpapi.Options{
		Tokens:    []httpapi.Token{{Secret: admin}, {Secret: bToken, Agents: []string{"b"}}},
		BackupDir: backups,
	})
	e.token = admin
	aSem, aFact := isoSeed(t, e, "a", mark)
	bSem, _ := isoSeed(t, e, "b", "bravo")
	before := e.do("GET", "/v1/export?profile=a&history=true", nil)
	require.Equal(t, 200, before.Status)
	require.Contains(t, string(before.Body), mark)

	e.token = bToken
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
		{"GET", q("/v1/memory/" + bSem + "/history"), nil, true},
		{"GET", q("/v1/memory/" + aSem + "/history"), nil, false},
		{"GET", q("/v1/rules"), nil, true},
		{"GET", q("/v1/graph/triples"), nil, true},
		{"GET", q("/v1/graph/triples", "entity", "User"), nil, true},
		{"GET", q("/v1/graph/neighbors", "entity", "User"), nil, true},
		{"GET", q("/v1/graph/paths", "from", "User", "to", "bravocorp"), nil, true},
		{"GET", q("/v1/graph/visualization", "entity", "User"), nil, true},
		{"GET", q("/v1/export", "history", "true", "vectors", "true"), nil, true},
		{"POST", "/v1/backup", map[string]any{"profile": "b"}, false},
		{"PUT", "/v1/memory/" + aSem, map[string]any{"profile": "b", "content": "b writes over a's entry"}, false},
		{"DELETE", q("/v1/memory/" + aSem), nil, false},
		{"DELETE", q("/v1/graph/triple/" + aFact), nil, false},
		// The routes of memories and facts by ID, and the seed's aliases.
		{"GET", q("/v1/memories"), nil, true},
		{"GET", q("/v1/memories", "kind", "fact,semantic", "limit", "1000"), nil, true},
		{"GET", q("/v1/memories/" + bSem), nil, true},
		{"GET", q("/v1/memories/" + aSem), nil, false},
		{"GET", q("/v1/memories/" + aFact), nil, false},
		{"PATCH", "/v1/memories/" + aSem, map[string]any{"profile": "b", "content": "b writes over a's entry"}, false},
		{"DELETE", q("/v1/memories/" + aSem), nil, false},
		{"DELETE", q("/v1/memories/" + aFact), nil, false},
		{"POST", "/v1/memories", map[string]any{"profile": "b", "type": "fact", "subject": "User", "predicate": "likes", "object": "tea", "memory_id": aSem}, false},
		{"POST", "/v1/memories", map[string]any{"profile": "a", "type": "semantic", "content": "b writes into a"}, false},
		{"POST", "/v1/memories", map[string]any{"profileId": "a", "type": "semantic", "content": "b writes into a"}, false},
		{"POST", "/v1/memories?profileId=a", map[string]any{"type": "semantic", "content": "b writes into a"}, false},
		{"GET", "/v1/memories?profileId=a", nil, false},
		{"GET", "/v1/memories/" + aSem + "?profileId=a", nil, false},
		{"GET", "/v1/summary?profileId=a", nil, false},
		{"GET", q("/v1/facts", "entity", "User"), nil, true},
		{"GET", q("/v1/facts", "entity", "User", "predicate", "works at", "history", "true"), nil, true},
		{"GET", q("/v1/facts", "entity", "User", "as_of", "2100-01-01T00:00:00Z"), nil, true},
		{"GET", "/v1/facts?profileId=a&entity=User", nil, false},
		{"POST", "/v1/facts", map[string]any{"profile": "b", "subject": "User", "predicate": "works at", "object": "bravo labs"}, true},
		{"POST", "/v1/facts", map[string]any{"profileId": "a", "subject": "User", "predicate": "works at", "object": "b's choice"}, false},
		{"POST", "/v1/ingest", map[string]any{"profileId": "a", "messages": []any{map[string]any{"role": "user", "content": "b speaks for a"}}}, false},
		{"GET", "/v1/graph/triples?profileId=a&maxResults=5", nil, false},
		// The console's routes.
		{"GET", q("/v1/stats"), nil, false},
		{"GET", "/v1/stats?profile=a", nil, false},
		{"GET", q("/v1/memories/" + bSem + "/links"), nil, false},
		{"GET", q("/v1/memories/" + aSem + "/links"), nil, false},
		{"GET", q("/v1/memories/" + aFact + "/links"), nil, false},
		{"GET", q("/v1/changes", "actor", "a"), nil, false},
		{"GET", q("/v1/changes", "until", "2100-01-01T00:00:00Z", "limit", "1000"), nil, true},
		{"POST", "/v1/memories/" + aSem + "/archive", map[string]any{"profile": "b", "reason": "b archives a's"}, false},
		{"POST", "/v1/memories/" + aSem + "/restore", map[string]any{"profile": "b"}, false},
		{"POST", "/v1/memories/" + aSem + "/archive", map[string]any{"profile": "a"}, false},
	} {
		r := e.do(c.method, c.path, c.body)
		require.NotContains(t, strings.ToLower(string(r.Body)), mark, "%s %s answers with a's data", c.method, c.path)
		require.Less(t, r.Status, 500, "%s %s: %s", c.method, c.path, r.Body)
		if c.own {
			require.Contains(t, string(r.Body), "bravo", "%s %s: b's own data", c.method, c.path)
		}
	}
	// The files the routes wrote, read raw: the backup holds b's memory
	// and nothing of a's, and nothing else is left in the directory.
	files, err := os.ReadDir(backups)
	require.NoError(t, err)
	require.Len(t, files, 1, "the backup directory holds %v", files)
	raw, err := os.ReadFile(filepath.Join(backups, files[0].Name()))
	require.NoError(t, err)
	// (The raw bytes would swamp a failure's message: it gives counts.)
	require.Zero(t, strings.Count(strings.ToLower(string(raw)), mark), "times b's backup %s holds a's mark", files[0].Name())
	require.NotZero(t, strings.Count(string(raw), "bravo"), "times b's backup holds b's data")

	e.token = admin
	after := e.do("GET", "/v1/export?profile=a&history=true", nil)
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

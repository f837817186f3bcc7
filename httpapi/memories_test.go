package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
)

// count returns how many memories agent profile holds, every kind.
func count(t *testing.T, e *env, profile string) int {
	t.Helper()
	r := e.do("GET", "/v1/memories?limit=1000&profile="+profile, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return int(r.JSON(t)["count"].(float64))
}

// requireField checks that r is a 400 whose message names field.
func requireField(t *testing.T, r response, field string) {
	t.Helper()
	requireError(t, r, http.StatusBadRequest, httpapi.CodeInvalidArgument)
	assert.Contains(t, string(r.Body), field)
}

// TestAddMemories: one memory or a batch of every kind, stored all or
// none; each item's fields are its kind's, and a bad one is named.
func TestAddMemories(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	r := e.do("POST", "/v1/memories", map[string]any{"profile": "ada", "type": "semantic", "content": "Ada prefers short answers", "tags": []string{"user"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.EqualValues(t, 1, got["count"])
	noteID := got["ids"].([]any)[0].(string)
	r = e.do("GET", "/v1/memories/"+noteID+"?profile=ada", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "semantic", r.JSON(t)["type"])
	mem := r.JSON(t)["memory"].(map[string]any)
	require.Equal(t, "Ada prefers short answers", mem["content"])
	require.Equal(t, "api", mem["source"])

	// A batch of every kind; kind is type's alias, profileId profile's; a
	// fact names the note before it by the ID the batch gives it.
	r = e.do("POST", "/v1/memories", map[string]any{"profileId": "ada", "memories": []any{
		map[string]any{"kind": "semantic", "id": "note-deploy", "content": "The deploy runs on Fridays", "importance": 0.8},
		map[string]any{"type": "episodic", "content": "Deployed v2", "event_type": "decision-made", "metadata": map[string]string{"ticket": "T-1"}, "duration_ms": 1500},
		map[string]any{"type": "procedural", "name": "deploy", "pattern": "test, build, ship", "tags": []string{"ops"}},
		map[string]any{"type": "fact", "subject": "Ada", "predicate": "lives in", "object": "London", "memory_id": "note-deploy"},
		map[string]any{"type": "fact", "subject": "Ada", "predicate": "lives in", "object": "Paris"},
	}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	got = r.JSON(t)
	require.EqualValues(t, 5, got["count"])
	added := got["memories"].([]any)
	kinds := []string{}
	for _, a := range added {
		kinds = append(kinds, a.(map[string]any)["type"].(string))
	}
	require.Equal(t, []string{"semantic", "episodic", "procedural", "fact", "fact"}, kinds)
	require.Equal(t, "note-deploy", added[0].(map[string]any)["id"])
	require.Equal(t, "insert", added[3].(map[string]any)["action"])
	require.Equal(t, "supersede", added[4].(map[string]any)["action"], "a new value of lives in, in the same batch")
	require.Len(t, added[4].(map[string]any)["superseded"], 1)
	ep := e.do("GET", "/v1/memories/"+added[1].(map[string]any)["id"].(string)+"?profileId=ada", nil).JSON(t)["memory"].(map[string]any)
	require.Equal(t, "decision-made", ep["event_type"])
	require.Equal(t, map[string]any{"ticket": "T-1"}, ep["metadata"])
	require.EqualValues(t, 1500, ep["duration_ms"])
	require.Equal(t, 6, count(t, e, "ada"))

	// Bad items: nothing of the batch is stored, and the item's field is
	// named.
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{"profile": "ada", "content": "no kind"}, "type"},
		{map[string]any{"profile": "ada", "type": "working", "content": "x"}, "type"},
		{map[string]any{"profile": "ada", "type": "semantic", "kind": "episodic", "content": "x"}, "kind"},
		{map[string]any{"profile": "ada", "type": "semantic", "content": "x", "pattern": "y"}, "pattern"},
		{map[string]any{"profile": "ada", "type": "fact", "subject": "a", "predicate": "b", "object": "c", "created_at": "2026-01-01T00:00:00Z"}, "created_at"},
		{map[string]any{"profile": "ada", "type": "semantic", "content": "x", "colour": "red"}, "colour"},
		{map[string]any{"profile": "ada", "type": "semantic", "content": 5}, "content"},
		{map[string]any{"profile": "ada", "memories": []any{
			map[string]any{"type": "semantic", "content": "fine"},
			map[string]any{"type": "episodic", "content": "fine", "success_rate": 0.5},
		}}, "memories[1].success_rate"},
		{map[string]any{"profile": "ada", "memories": []any{
			map[string]any{"type": "semantic", "content": "fine"},
			map[string]any{"type": "semantic", "content": "too important", "importance": 2},
		}}, "memories[1].importance"},
		{map[string]any{"profile": "ada", "memories": []any{map[string]any{"type": "fact", "subject": "a", "predicate": "b"}}}, "memories[0].object"},
		{map[string]any{"profile": "ada", "memories": []any{map[string]any{"type": "semantic", "content": "x"}}, "content": "beside"}, "content"},
		{map[string]any{"profile": "ada", "memories": []any{}}, "memories"},
		{map[string]any{"profile": "ada", "memories": "all of them"}, "memories"},
		{map[string]any{"profile": "ada"}, "memories"},
	} {
		requireField(t, e.do("POST", "/v1/memories", c.body), c.field)
	}
	batch := make([]any, httpapi.MaxBatch+1)
	for i := range batch {
		batch[i] = map[string]any{"type": "episodic", "content": "e"}
	}
	requireField(t, e.do("POST", "/v1/memories", map[string]any{"profile": "ada", "memories": batch}), "1001")
	// A conflict found only while writing (the procedure's name is taken)
	// rolls the whole batch back, the note before it too.
	r = e.do("POST", "/v1/memories", map[string]any{"profile": "ada", "memories": []any{
		map[string]any{"type": "semantic", "content": "rolled back"},
		map[string]any{"type": "procedural", "name": "deploy"},
	}})
	requireError(t, r, http.StatusConflict, httpapi.CodeConflict)
	requireError(t, e.do("POST", "/v1/memories", map[string]any{"profile": "ada", "type": "fact", "subject": "a", "predicate": "b", "object": "c", "memory_id": "nope"}),
		http.StatusNotFound, httpapi.CodeNotFound)
	requireError(t, e.do("POST", "/v1/memories?profile=bob", map[string]any{"profile": "ada", "type": "semantic", "content": "x"}), 400, httpapi.CodeInvalidArgument)
	require.Equal(t, 6, count(t, e, "ada"), "no failed request stored anything")
}

// TestListMemories: newest first across kinds, page by page with the
// cursor, filtered by kind, tags and time.
func TestListMemories(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	var items []any
	for i := range 5 {
		at := fmt.Sprintf("2026-01-0%dT10:00:00Z", i+1)
		items = append(items,
			map[string]any{"type": "semantic", "content": fmt.Sprintf("note %d", i), "created_at": at, "tags": []string{[]string{"even", "odd"}[i%2]}},
			map[string]any{"type": "episodic", "content": fmt.Sprintf("event %d", i), "created_at": at})
	}
	r := e.do("POST", "/v1/memories", map[string]any{"profile": "l", "memories": items})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	var contents []string
	cursor, pages := "", 0
	for {
		path := "/v1/memories?profile=l&limit=3"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := e.do("GET", path, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		for _, m := range got["memories"].([]any) {
			contents = append(contents, m.(map[string]any)["content"].(string))
		}
		pages++
		next, ok := got["next_cursor"].(string)
		if !ok {
			break
		}
		cursor = next
	}
	require.Equal(t, 4, pages)
	require.Len(t, contents, 10)
	require.ElementsMatch(t, []string{"note 4", "event 4"}, contents[:2], "the newest first")
	require.ElementsMatch(t, []string{"note 0", "event 0"}, contents[8:])

	list := func(query string) []any {
		r := e.do("GET", "/v1/memories?profile=l&"+query, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)["memories"].([]any)
	}
	require.Len(t, list("kind=episodic"), 5)
	require.Len(t, list("kind=semantic,episodic&limit=1000"), 10)
	require.Len(t, list("tags=even"), 3)
	require.Len(t, list("since=2026-01-02T00:00:00Z&until=2026-01-04T00:00:00Z"), 4)
	require.Empty(t, list("kind=fact"))
	for _, q := range []string{"kind=notes", "kind=working", "limit=0", "limit=1001", "cursor=garbage", "since=yesterday",
		"since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", "order=asc"} {
		requireError(t, e.do("GET", "/v1/memories?profile=l&"+q, nil), 400, httpapi.CodeInvalidArgument)
	}
	// An agent with no memory lists nothing, and is not created.
	r = e.do("GET", "/v1/memories?profile=nobody", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Empty(t, r.JSON(t)["memories"])
	ids, err := e.agents.Agents(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"l"}, ids)
}

// addOneOfEach adds a semantic entry, a procedure, an episode and a fact
// to agent profile, and returns their IDs.
func addOneOfEach(t *testing.T, e *env, profile string) (note, proc, ep, fact string) {
	t.Helper()
	r := e.do("POST", "/v1/memories", map[string]any{"profile": profile, "memories": []any{
		map[string]any{"type": "semantic", "content": "The deploy runs on Fridays"},
		map[string]any{"type": "procedural", "name": "deploy", "pattern": "test, ship"},
		map[string]any{"type": "episodic", "content": "Deployed"},
		map[string]any{"type": "fact", "subject": "Ada", "predicate": "likes", "object": "tea"},
	}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	ids := r.JSON(t)["ids"].([]any)
	return ids[0].(string), ids[1].(string), ids[2].(string), ids[3].(string)
}

// TestChangeMemories: PATCH changes the fields the memory's kind lets
// change and names any other; DELETE erases a memory of any kind.
func TestChangeMemories(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	note, proc, ep, fact := addOneOfEach(t, e, "p")

	r := e.do("PATCH", "/v1/memories/"+note, map[string]any{"profile": "p", "content": "The deploy runs on Thursdays", "importance": 0.9, "tags": []string{"ops"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.Equal(t, "semantic", got["type"])
	require.Equal(t, "The deploy runs on Thursdays", got["memory"].(map[string]any)["content"])
	require.Equal(t, 0.9, got["memory"].(map[string]any)["importance"])
	r = e.do("PATCH", "/v1/memories/"+proc+"?profile=p", map[string]any{"pattern": "test, canary, ship", "disabled": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "test, canary, ship", r.JSON(t)["memory"].(map[string]any)["pattern"])

	requireField(t, e.do("PATCH", "/v1/memories/"+note, map[string]any{"profile": "p", "pattern": "x"}), "pattern")
	requireField(t, e.do("PATCH", "/v1/memories/"+proc, map[string]any{"profile": "p", "content": "x"}), "content")
	requireField(t, e.do("PATCH", "/v1/memories/"+ep, map[string]any{"profile": "p", "content": "x"}), "episode")
	requireField(t, e.do("PATCH", "/v1/memories/"+fact, map[string]any{"profile": "p", "tags": []string{"x"}}), "fact")
	requireField(t, e.do("PATCH", "/v1/memories/"+note, map[string]any{"profile": "p"}), "nothing to change")
	requireField(t, e.do("PATCH", "/v1/memories/"+note, map[string]any{"profile": "p", "importance": 2}), "importance")
	requireField(t, e.do("PATCH", "/v1/memories/"+note, map[string]any{"profile": "p", "subject": "x"}), "subject")
	requireError(t, e.do("PATCH", "/v1/memories/nope", map[string]any{"profile": "p", "content": "x"}), 404, httpapi.CodeNotFound)
	m, err := e.agents.Agent("p")
	require.NoError(t, err)
	e1, err := m.Semantic().Get(context.Background(), note)
	require.NoError(t, err)
	require.Equal(t, "The deploy runs on Thursdays", e1.Content, "no refused patch changed it")

	for _, id := range []string{note, proc, ep, fact} {
		require.Equal(t, http.StatusOK, e.do("DELETE", "/v1/memories/"+id+"?profile=p", nil).Status)
		requireError(t, e.do("GET", "/v1/memories/"+id+"?profile=p", nil), 404, httpapi.CodeNotFound)
	}
	require.Zero(t, count(t, e, "p"))
}

// TestPutChangesAsPatch: seed 004's PUT /v1/memory/{id} changes a memory
// as PATCH does, whatever its kind: a field the kind lacks and a kind
// that is not edited are refused by name (400, not a 404 that says the
// memory is missing), and the reason given is what history records.
func TestPutChangesAsPatch(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	note, proc, ep, fact := addOneOfEach(t, e, "p")

	requireField(t, e.do("PUT", "/v1/memory/"+proc, map[string]any{"profile": "p", "content": "x"}), "field content: memory")
	requireField(t, e.do("PUT", "/v1/memory/"+note, map[string]any{"profile": "p", "pattern": "x"}), "field pattern: memory")
	requireField(t, e.do("PUT", "/v1/memory/"+ep, map[string]any{"profile": "p", "tags": []string{"x"}}), "is an episode, which is not edited")
	requireField(t, e.do("PUT", "/v1/memory/"+fact, map[string]any{"profile": "p", "tags": []string{"x"}}), "is a fact, which is not edited")
	requireError(t, e.do("PUT", "/v1/memory/nope", map[string]any{"profile": "p", "tags": []string{"x"}}), 404, httpapi.CodeNotFound)

	r := e.do("PUT", "/v1/memory/"+note, map[string]any{"profile": "p", "importance": 0.8, "reason": "Ada said so"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"updated": true, "id": note, "type": "semantic", "profile": "p"}, r.JSON(t))
	hist := e.do("GET", "/v1/memory/"+note+"/history?profile=p", nil).JSON(t)["entries"].([]any)
	require.Len(t, hist, 2, "create and update")
	assert.Equal(t, "Ada said so", hist[1].(map[string]any)["reason"])
}

// TestFacts: assert one fact or a batch; read what holds now, what held
// at a time, what was believed then, and a slot's history.
func TestFacts(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	r := e.do("POST", "/v1/facts", map[string]any{"profile": "f", "subject": "Ada", "predicate": "lives in", "object": "London", "valid_from": "2020-01-01T00:00:00Z"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "insert", r.JSON(t)["facts"].([]any)[0].(map[string]any)["action"])
	r = e.do("POST", "/v1/facts", map[string]any{"profile": "f", "facts": []any{
		map[string]any{"subject": "Ada", "predicate": "lives in", "object": "Paris", "valid_from": "2024-01-01T00:00:00Z", "sources": []string{"chat"}},
		map[string]any{"subject": "ada", "predicate": "Likes", "object": "tea"},
		map[string]any{"subject": "Ada", "predicate": "likes", "object": "Tea"},
	}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	var actions []string
	for _, a := range r.JSON(t)["facts"].([]any) {
		actions = append(actions, a.(map[string]any)["action"].(string))
	}
	require.Equal(t, []string{"supersede", "insert", "merge"}, actions)

	objects := func(query string) []string {
		r := e.do("GET", "/v1/facts?profile=f&"+query, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var out []string
		for _, f := range r.JSON(t)["facts"].([]any) {
			out = append(out, f.(map[string]any)["object"].(string))
		}
		return out
	}
	require.ElementsMatch(t, []string{"Paris", "tea"}, objects("entity=Ada"))
	require.Equal(t, []string{"London"}, objects("entity=Ada&predicate=lives%20in&as_of=2022-06-01T00:00:00Z"))
	require.Equal(t, []string{"London"}, objects("entity=Ada&predicate=lives%20in&asOf=2022-06-01T00:00:00Z"), "the camelCase alias")
	require.Empty(t, objects("entity=Ada&known_at=2000-01-01T00:00:00Z"))
	require.Equal(t, []string{"London", "Paris"}, objects("entity=Ada&predicate=lives%20in&history=true"))
	require.Equal(t, []string{"London"}, objects("entity=Ada&predicate=lives%20in&history=true&limit=1"))
	require.Empty(t, objects("entity=Nobody"))

	for _, q := range []string{"history=true&entity=Ada", "as_of=2022-01-01T00:00:00Z&known_at=2022-01-01T00:00:00Z",
		"history=true&entity=Ada&predicate=x&as_of=2022-01-01T00:00:00Z", "as_of=soon", "limit=0", "direction=up", "asOf=2022-01-01T00:00:00Z&as_of=2023-01-01T00:00:00Z"} {
		requireError(t, e.do("GET", "/v1/facts?profile=f&"+q, nil), 400, httpapi.CodeInvalidArgument)
	}
	requireField(t, e.do("POST", "/v1/facts", map[string]any{"profile": "f", "subject": "Ada", "predicate": "likes"}), "object")
	requireField(t, e.do("POST", "/v1/facts", map[string]any{"profile": "f", "facts": []any{
		map[string]any{"subject": "Ada", "predicate": "likes", "object": "coffee"},
		map[string]any{"subject": "Ada", "predicate": "likes", "object": "cake", "valid_from": "2026-01-01T00:00:00Z", "valid_to": "2025-01-01T00:00:00Z"},
	}}), "facts[1]")
	requireField(t, e.do("POST", "/v1/facts", map[string]any{"profile": "f", "subject": "Ada", "predicate": "likes", "object": "x", "content": "y"}), "content")
	require.ElementsMatch(t, []string{"Paris", "tea"}, objects("entity=Ada"), "no refused batch asserted anything")
}

// TestIngestWithNothingToExtractWith: an agent with no active rule and no
// LLM keeps the messages as episodes, with the request's metadata, and
// says so; seed 004's reasoning and feedback are accepted. An agent whose
// rules find nothing stores nothing, and says why.
func TestIngestWithNothingToExtractWith(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	body := ingestBody("plain", "I work at Anthropic as a senior engineer.")
	body["reasoning"] = "the user shared their job"
	body["feedback"] = map[string]any{"type": "success", "value": 1}
	body["metadata"] = map[string]any{"channel": "chat", "turn": 3}
	r := e.do("POST", "/v1/ingest", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got := r.JSON(t)
	require.EqualValues(t, 2, got["stored"])
	require.EqualValues(t, 2, got["episodes"])
	require.Contains(t, got["note"], "no active extraction rules and no LLM")
	id := got["ids"].([]any)[0].(string)
	ep := e.do("GET", "/v1/memories/"+id+"?profile=plain", nil).JSON(t)["memory"].(map[string]any)
	require.Equal(t, "I work at Anthropic as a senior engineer.", ep["content"])
	require.Equal(t, map[string]any{"channel": "chat", "turn": "3", "role": "user", "source": "ingest"}, ep["metadata"])

	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("ruled", "note")).Status)
	r = e.do("POST", "/v1/ingest", ingestBody("ruled", "nothing the rule wants"))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	got = r.JSON(t)
	require.EqualValues(t, 0, got["stored"])
	require.EqualValues(t, 0, got["episodes"])
	require.Contains(t, got["note"], "found nothing")
	require.Zero(t, count(t, e, "ruled"))
	requireError(t, e.do("POST", "/v1/ingest", map[string]any{"messages": body["messages"], "metadata": "not an object"}), 400, httpapi.CodeInvalidArgument)
}

// TestSummaryRecent: the summary lists the limit newest memories.
func TestSummaryRecent(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	var items []any
	for i := range 3 {
		items = append(items, map[string]any{"type": "semantic", "content": fmt.Sprintf("note %d", i), "created_at": fmt.Sprintf("2026-01-0%dT00:00:00Z", i+1)})
	}
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/memories", map[string]any{"profile": "s", "memories": items}).Status)
	recent := e.do("GET", "/v1/summary?profile=s&limit=2", nil).JSON(t)["recent"].([]any)
	require.Len(t, recent, 2)
	require.Equal(t, "note 2", recent[0].(map[string]any)["content"])
	require.Len(t, e.do("GET", "/v1/summary?profileId=s", nil).JSON(t)["recent"], 3)
	require.Empty(t, e.do("GET", "/v1/summary?profile=s&limit=0", nil).JSON(t)["recent"])
	requireError(t, e.do("GET", "/v1/summary?profile=s&limit=-1", nil), 400, httpapi.CodeInvalidArgument)
	require.True(t, strings.HasPrefix(e.do("GET", "/v1/summary", nil).JSON(t)["profile"].(string), engram.DefaultAgent))
}

// TestIngestScopedToAUser: ingest with a user_id and session_id stores
// what it keeps as that user's and session's, the episodes of an agent
// with nothing to extract with and the memories its rules extract alike;
// the user's list holds them and another user's does not; a bad user_id
// stores nothing.
func TestIngestScopedToAUser(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	require.Equal(t, http.StatusCreated, e.do("POST", "/v1/rules", rule("ruled", "note")).Status)
	for _, profile := range []string{"plain", "ruled"} {
		body := ingestBody(profile, "note: the kayak is in the blue shed")
		body["user_id"], body["session_id"] = "ada", "s1"
		r := e.do("POST", "/v1/ingest", body)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.NotZero(t, r.JSON(t)["stored"], "%s", r.Body)
		ada := listIDs(t, e, url.Values{"profile": {profile}, "user_id": {"ada"}, "session_id": {"s1"}})
		require.Len(t, ada, int(r.JSON(t)["stored"].(float64)), profile)
		require.Empty(t, listIDs(t, e, url.Values{"profile": {profile}, "user_id": {"bob"}}), profile)
		body["user_id"] = "no spaces"
		before := count(t, e, profile)
		requireError(t, e.do("POST", "/v1/ingest", body), 400, httpapi.CodeInvalidArgument)
		require.Equal(t, before, count(t, e, profile), "nothing stored")
	}
}

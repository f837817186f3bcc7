package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/httpapi"
)

// seedUsers stores, in agent profile, for users u1 and u2, a semantic
// entry, an episode and a procedure each in session s1, with metadata,
// every text holding word and the user's name; and a fact of no user.
func seedUsers(t *testing.T, e *env, profile, word string) {
	t.Helper()
	var items []any
	for i, u := range []string{"u1", "u2"} {
		items = append(items,
			map[string]any{"type": "semantic", "id": profile + "-" + u + "-sem", "content": word + " note of " + u, "user_id": u, "session_id": "s1",
				"metadata": map[string]any{"lang": []string{"go", "rust"}[i], "rank": i + 1}},
			map[string]any{"type": "episodic", "id": profile + "-" + u + "-ep", "content": word + " event of " + u, "user_id": u, "session_id": "s1",
				"metadata": map[string]string{"lang": []string{"go", "rust"}[i]}},
			map[string]any{"type": "procedural", "id": profile + "-" + u + "-proc", "name": word + " drill of " + u, "description": word + " steps",
				"user_id": u, "session_id": "s1", "metadata": map[string]any{"lang": []string{"go", "rust"}[i]}})
	}
	items = append(items, map[string]any{"type": "fact", "id": profile + "-fact", "subject": word, "predicate": "is", "object": "shared"})
	r := e.do("POST", "/v1/memories", map[string]any{"profile": profile, "memories": items})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
}

// listIDs lists the IDs GET /v1/memories answers with the query.
func listIDs(t *testing.T, e *env, query url.Values) []string {
	t.Helper()
	r := e.do("GET", "/v1/memories?"+query.Encode(), nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var ids []string
	for _, m := range r.JSON(t)["memories"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	slices.Sort(ids)
	return ids
}

// TestMemoryScopes: a memory's user, session and metadata are stored,
// shown in every view, filter the listing, a search, a recall, a context
// block and an export, and cannot be changed; bad filters are refused by
// the name of their bad part.
func TestMemoryScopes(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	seedUsers(t, e, "ada", "kayak")

	r := e.do("GET", "/v1/memories/ada-u1-sem?profile=ada", nil)
	require.Equal(t, http.StatusOK, r.Status)
	mem := r.JSON(t)["memory"].(map[string]any)
	assert.Equal(t, "u1", mem["user_id"])
	assert.Equal(t, "s1", mem["session_id"])
	assert.Equal(t, map[string]any{"lang": "go", "rank": 1.0}, mem["metadata"])
	ep := e.do("GET", "/v1/memories/ada-u2-ep?profile=ada", nil).JSON(t)["memory"].(map[string]any)
	assert.Equal(t, "u2", ep["user_id"])
	assert.Equal(t, "s1", ep["session_id"])
	assert.Equal(t, "s1", ep["session_id"])
	pr := e.do("GET", "/v1/memories/ada-u1-proc?profile=ada", nil).JSON(t)["memory"].(map[string]any)
	assert.Equal(t, "u1", pr["user_id"])
	assert.Equal(t, map[string]any{"lang": "go"}, pr["metadata"])

	// The listing, by every part of the filter.
	for _, c := range []struct {
		query url.Values
		want  []string
	}{
		{url.Values{"user_id": {"u1"}}, []string{"ada-u1-ep", "ada-u1-proc", "ada-u1-sem"}},
		{url.Values{"user_id": {"u2"}, "type": {"semantic,procedural"}}, []string{"ada-u2-proc", "ada-u2-sem"}},
		{url.Values{"session_id": {"s1"}, "metadata": {`{"key":"lang","eq":"rust"}`}}, []string{"ada-u2-ep", "ada-u2-proc", "ada-u2-sem"}},
		{url.Values{"metadata": {`{"and":[{"key":"rank","gte":1},{"not":{"key":"lang","in":["rust"]}}]}`}}, []string{"ada-u1-sem"}},
		{url.Values{"metadata": {`{"key":"rank","exists":false}`}, "kind": {"fact,procedural"}}, []string{"ada-fact", "ada-u1-proc", "ada-u2-proc"}},
		{url.Values{"user_id": {"nobody"}}, nil},
	} {
		c.query.Set("profile", "ada")
		assert.Equal(t, c.want, listIDs(t, e, c.query), "%v", c.query)
	}
	// Pages under a filter.
	var paged []string
	cursor := ""
	for {
		q := url.Values{"profile": {"ada"}, "user_id": {"u1"}, "limit": {"2"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := e.do("GET", "/v1/memories?"+q.Encode(), nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		for _, m := range r.JSON(t)["memories"].([]any) {
			paged = append(paged, m.(map[string]any)["id"].(string))
		}
		next, _ := r.JSON(t)["next_cursor"].(string)
		if cursor = next; cursor == "" {
			break
		}
	}
	slices.Sort(paged)
	assert.Equal(t, []string{"ada-u1-ep", "ada-u1-proc", "ada-u1-sem"}, paged)

	// Search, plain and recall, and context, filtered by the body's
	// filter.
	for _, recall := range []bool{false, true} {
		r := e.do("POST", "/v1/search", map[string]any{"profile": "ada", "query": "kayak", "recall": recall,
			"filter": map[string]any{"user_id": "u2", "metadata": map[string]any{"key": "lang", "eq": "rust"}}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		body := string(r.Body)
		assert.Contains(t, body, "ada-u2-sem", "recall %v", recall)
		assert.NotContains(t, body, "of u1", "recall %v", recall)
	}
	r = e.do("POST", "/v1/context", map[string]any{"profile": "ada", "query": "kayak", "filter": map[string]any{"user_id": "u1", "types": []string{"semantic"}}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, r.JSON(t)["text"], "note of u1")
	assert.NotContains(t, r.JSON(t)["text"], "u2")

	r = e.do("GET", "/v1/export?profile=ada&user_id=u1&type=semantic", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), "ada-u1-sem")
	assert.NotContains(t, string(r.Body), "ada-u1-ep")
	assert.NotContains(t, string(r.Body), "ada-u2")

	// A memory's scope does not change: PATCH and PUT name the field.
	for _, field := range []string{"user_id", "session_id", "metadata"} {
		for _, method := range []string{"PATCH /v1/memories/", "PUT /v1/memory/"} {
			m, path, _ := strings.Cut(method, " ")
			r := e.do(m, path+"ada-u1-sem?profile=ada", map[string]any{field: "x", "importance": 0.9})
			requireField(t, r, "field "+field+":")
		}
	}
	assert.Equal(t, "u1", e.do("GET", "/v1/memories/ada-u1-sem?profile=ada", nil).JSON(t)["memory"].(map[string]any)["user_id"])
	assert.Equal(t, 0.5, e.do("GET", "/v1/memories/ada-u1-sem?profile=ada", nil).JSON(t)["memory"].(map[string]any)["importance"], "unchanged")

	// Bad input, named.
	before := count(t, e, "ada")
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{"profile": "ada", "type": "semantic", "content": "x", "user_id": "no spaces"}, "memories[0].user_id:"},
		{map[string]any{"profile": "ada", "type": "episodic", "content": "x", "session": "a"}, "unknown field session"},
		{map[string]any{"profile": "ada", "type": "episodic", "content": "x", "metadata": map[string]any{"n": 1}}, "field metadata: want an object of strings"},
		{map[string]any{"profile": "ada", "type": "semantic", "content": "x", "metadata": []int{1}}, "field metadata: want an object"},
		{map[string]any{"profile": "ada", "type": "semantic", "content": "x", "metadata": map[string]any{"bad key": 1}}, "memories[0].metadata:"},
		{map[string]any{"profile": "ada", "type": "fact", "subject": "a", "predicate": "b", "object": "c", "user_id": "u1"}, "field user_id"},
	} {
		requireField(t, e.do("POST", "/v1/memories", c.body), c.field)
	}
	assert.Equal(t, before, count(t, e, "ada"), "nothing stored")
	for _, c := range []struct {
		filter any
		field  string
	}{
		{map[string]any{"user_id": "no spaces"}, "field filter.user_id:"},
		{map[string]any{"types": []string{"notes"}}, "filter.types"},
		{map[string]any{"since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "field filter.until:"},
		{map[string]any{"metadata": map[string]any{"key": "a"}}, "field filter.metadata:"},
		{map[string]any{"metadata": map[string]any{"and": []any{map[string]any{"key": "a", "gt": true}}}}, "field filter.metadata.and[0].gt:"},
		{map[string]any{"metadata": map[string]any{"or": []any{map[string]any{"key": "a", "like": "b"}}}}, "field filter.metadata.or[0].like:"},
		{map[string]any{"metadata": map[string]any{"key": "a", "eq": 1, "ne": 2}}, "field filter.metadata:"},
		{map[string]any{"owner": "u1"}, "unknown field"},
	} {
		for _, route := range []string{"/v1/search", "/v1/context"} {
			for _, recall := range []bool{false, true} {
				body := map[string]any{"profile": "ada", "query": "kayak", "filter": c.filter}
				if route == "/v1/search" {
					body["recall"] = recall
				}
				requireField(t, e.do("POST", route, body), c.field)
			}
		}
	}
	for _, c := range []struct{ query, field string }{
		{"user_id=no%20spaces", "query parameter user_id:"},
		{"type=notes", "query parameter type:"},
		{"type=semantic&kind=fact", "kind and type are one parameter"},
		{"metadata=%7Bnot-json", "query parameter metadata: want a JSON condition tree"},
		{"metadata=" + url.QueryEscape(`{"not":{"key":"a","lt":null}}`), "query parameter metadata: metadata.not.lt:"},
		{"since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", "query parameter until:"},
	} {
		requireField(t, e.do("GET", "/v1/memories?profile=ada&"+c.query, nil), c.field)
		if !strings.Contains(c.query, "kind") {
			requireField(t, e.do("GET", "/v1/export?profile=ada&"+c.query, nil), c.field)
		}
	}
	requireField(t, e.do("DELETE", "/v1/users/no%20spaces?profile=ada", nil), "user ID")
	assert.Equal(t, before, count(t, e, "ada"), "nothing erased")
}

// TestUsersAreIsolated: in one agent, a user's memories never answer a
// listing, a search, a recall, a context block or an export scoped to
// another user; DELETE /v1/users/{user_id} erases that user's memories
// only, in that agent only.
func TestUsersAreIsolated(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	seedUsers(t, e, "ada", "kayak")
	seedUsers(t, e, "bob", "kayak")
	u2 := map[string]any{"user_id": "u2"}
	checks := []struct {
		method, path string
		body         any
	}{
		{"GET", "/v1/memories?profile=ada&user_id=u2", nil},
		{"GET", "/v1/export?profile=ada&user_id=u2", nil},
		{"POST", "/v1/search", map[string]any{"profile": "ada", "query": "kayak note event drill u1 u2", "recall": false, "filter": u2}},
		{"POST", "/v1/search", map[string]any{"profile": "ada", "query": "kayak note event drill u1 u2", "filter": u2}},
		{"POST", "/v1/context", map[string]any{"profile": "ada", "query": "kayak note event drill u1 u2", "max_tokens": 50000, "filter": u2}},
	}
	for _, c := range checks {
		r := e.do(c.method, c.path, c.body)
		require.Equal(t, http.StatusOK, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		assert.Contains(t, string(r.Body), "of u2", "%s %s", c.method, c.path)
		assert.NotContains(t, string(r.Body), "of u1", "%s %s", c.method, c.path)
		assert.NotContains(t, string(r.Body), "ada-u1", "%s %s", c.method, c.path)
	}

	r := e.do("DELETE", "/v1/users/u1?profile=ada", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"deleted": 3.0, "user_id": "u1", "profile": "ada"}, r.JSON(t))
	assert.Equal(t, []string{"ada-fact", "ada-u2-ep", "ada-u2-proc", "ada-u2-sem"}, listIDs(t, e, url.Values{"profile": {"ada"}}), "u2's and the agent's stay")
	assert.Len(t, listIDs(t, e, url.Values{"profile": {"bob"}}), 7, "another agent's u1 stays")
	assert.Len(t, listIDs(t, e, url.Values{"profile": {"bob"}, "user_id": {"u1"}}), 3)
	r = e.do("DELETE", "/v1/users/u1?profile=ada", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.EqualValues(t, 0, r.JSON(t)["deleted"], "none left")

	// A token of one agent cannot erase another's users.
	const admin, bobToken = "admin-token-0123456789abcdef", "bob-token-0123456789abcdefgh"
	e2 := newEnv(t, httpapi.Options{Tokens: []httpapi.Token{{Secret: admin}, {Secret: bobToken, Agents: []string{"bob"}}}})
	e2.token = admin
	seedUsers(t, e2, "ada", "kayak")
	e2.token = bobToken
	requireError(t, e2.do("DELETE", "/v1/users/u1?profile=ada", nil), http.StatusForbidden, httpapi.CodeForbidden)
	e2.token = admin
	assert.Len(t, listIDs(t, e2, url.Values{"profile": {"ada"}, "user_id": {"u1"}}), 3)
}

// TestDeleteMatching: DELETE /v1/memories erases what its filter matches
// and nothing else, of the profile's agent alone; without a filter, or
// with a bad one, it refuses and erases nothing.
func TestDeleteMatching(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	seedUsers(t, e, "ada", "kayak")
	seedUsers(t, e, "bob", "kayak")
	before := count(t, e, "ada")
	requireField(t, e.do("DELETE", "/v1/memories?profile=ada", nil), "takes a filter")
	requireField(t, e.do("DELETE", "/v1/memories?profile=ada&user_id=&type=semantic", nil), "query parameter user_id: is empty")
	requireField(t, e.do("GET", "/v1/memories?profile=ada&session_id=", nil), "query parameter session_id: is empty")
	requireField(t, e.do("DELETE", "/v1/memories?profile=ada&user_id=no%20spaces", nil), "query parameter user_id:")
	requireField(t, e.do("DELETE", "/v1/memories?profile=ada&metadata=%7B%22key%22%3A%22lang%22%7D", nil), "query parameter metadata")
	require.Equal(t, before, count(t, e, "ada"), "nothing erased on bad input")

	q := url.Values{"profile": {"ada"}, "session_id": {"s1"}, "metadata": {`{"key":"lang","eq":"rust"}`}}
	r := e.do("DELETE", "/v1/memories?"+q.Encode(), nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"deleted": 3.0, "profile": "ada"}, r.JSON(t))
	assert.Equal(t, []string{"ada-fact", "ada-u1-ep", "ada-u1-proc", "ada-u1-sem"}, listIDs(t, e, url.Values{"profile": {"ada"}}))
	assert.Len(t, listIDs(t, e, url.Values{"profile": {"bob"}}), before, "another agent's stay")
}

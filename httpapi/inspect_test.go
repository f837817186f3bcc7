package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
)

// TestInspectRoutes: the routes the console reads and mends a memory
// with: an agent's counts, a memory's links both ways and the facts it
// supports, archive and restore with a reason, an edit's reason, and the
// changes read back page by page and by actor; another agent's token sees
// none of it.
func TestInspectRoutes(t *testing.T) {
	all, bob := "all-agents-token-0123456789", "bob-only-token-0123456789"
	e := newEnv(t, httpapi.Options{Tokens: []httpapi.Token{{Secret: all}, {Secret: bob, Agents: []string{"bob"}}}})
	e.token = all

	st := e.do("GET", "/v1/stats?profile=p", nil).JSON(t)
	require.Equal(t, 0.0, st["total"])
	require.NotContains(t, st, "last_change", "an agent with no memory never changed")

	r := e.do("POST", "/v1/memories", map[string]any{"profile": "p", "memories": []any{
		map[string]any{"type": "semantic", "content": "Ada drinks tea every morning"},
		map[string]any{"type": "semantic", "content": "Tea is brewed at 80 degrees"},
		map[string]any{"type": "episodic", "content": "Ada asked for tea"},
	}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	ids := r.JSON(t)["ids"].([]any)
	note, other := ids[0].(string), ids[1].(string)
	r = e.do("POST", "/v1/facts", map[string]any{"profile": "p", "subject": "Ada", "predicate": "drinks", "object": "tea", "memory_id": note})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	factID := r.JSON(t)["facts"].([]any)[0].(map[string]any)["fact"].(map[string]any)["id"].(string)

	st = e.do("GET", "/v1/stats?profile=p", nil).JSON(t)
	counts := map[string]any{"semantic": 2.0, "episodic": 1.0, "fact": 1.0}
	for _, typ := range engram.MemoryTypes() { // every other stored kind: none
		if _, seeded := counts[string(typ)]; !seeded && typ != engram.TypeWorking {
			counts[string(typ)] = 0.0
		}
	}
	require.Equal(t, counts, st["counts"])
	require.Equal(t, 4.0, st["total"])
	require.NotEmpty(t, st["last_change"])

	// The fact's evidence link goes out of the note; the note's
	// neighbour, if autolink joined them, comes in or goes out too.
	l := e.do("GET", "/v1/memories/"+note+"/links?profile=p", nil).JSON(t)
	supports := l["supports"].([]any)
	require.Len(t, supports, 1)
	require.Equal(t, factID, supports[0].(map[string]any)["id"])
	var toFact map[string]any
	for _, x := range l["links"].([]any) {
		if x.(map[string]any)["other"] == factID {
			toFact = x.(map[string]any)
		}
	}
	require.NotNil(t, toFact, "the link to the fact: %v", l["links"])
	require.Equal(t, "out", toFact["direction"])
	require.Equal(t, "supports", toFact["type"])
	l = e.do("GET", "/v1/memories/"+factID+"/links?profile=p", nil).JSON(t)
	require.Equal(t, []any{}, l["supports"])
	back := l["links"].([]any)
	require.Len(t, back, 1)
	require.Equal(t, "in", back[0].(map[string]any)["direction"])
	require.Equal(t, note, back[0].(map[string]any)["other"])

	// An edit, then an archive and a restore, each with its reason.
	r = e.do("PATCH", "/v1/memories/"+other+"?profile=p", map[string]any{"content": "Tea is brewed at 85 degrees", "reason": "a person corrected it"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	requireError(t, e.do("POST", "/v1/memories/"+other+"/archive?profile=p", nil), http.StatusUnsupportedMediaType, httpapi.CodeUnsupportedMedia)
	// Another site's page cannot archive: cross-origin protection refuses
	// its request before the route reads it.
	requireError(t, e.do("POST", "/v1/memories/"+other+"/archive?profile=p", map[string]any{},
		"Origin", "https://elsewhere.example", "Sec-Fetch-Site", "cross-site"), http.StatusForbidden, httpapi.CodeForbidden)
	r = e.do("POST", "/v1/memories/"+other+"/archive?profile=p", map[string]any{"reason": "stale"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, true, r.JSON(t)["archived"])
	requireError(t, e.do("GET", "/v1/memories/"+other+"?profile=p", nil), http.StatusNotFound, httpapi.CodeNotFound)
	requireError(t, e.do("POST", "/v1/memories/"+other+"/archive?profile=p", map[string]any{}), http.StatusNotFound, httpapi.CodeNotFound)
	requireError(t, e.do("POST", "/v1/memories/"+factID+"/archive?profile=p", map[string]any{}), http.StatusBadRequest, httpapi.CodeInvalidArgument)
	requireError(t, e.do("POST", "/v1/memories/"+other+"/archive?profile=p", map[string]any{"why": "x"}), http.StatusBadRequest, httpapi.CodeInvalidArgument)
	st = e.do("GET", "/v1/stats?profile=p", nil).JSON(t)
	require.Equal(t, 1.0, st["archived"])
	r = e.do("POST", "/v1/memories/"+other+"/restore?profile=p", map[string]any{"reason": "still true"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, false, r.JSON(t)["archived"])
	require.Equal(t, http.StatusOK, e.do("GET", "/v1/memories/"+other+"?profile=p", nil).Status)
	requireError(t, e.do("POST", "/v1/memories/"+other+"/restore?profile=p", map[string]any{}), http.StatusNotFound, httpapi.CodeNotFound)

	h := e.do("GET", "/v1/memory/"+other+"/history?profile=p", nil).JSON(t)["entries"].([]any)
	var got [][2]string
	for _, x := range h {
		reason, _ := x.(map[string]any)["reason"].(string)
		got = append(got, [2]string{x.(map[string]any)["op"].(string), reason})
	}
	require.Len(t, got, 4)
	require.Equal(t, [][2]string{{"update", "a person corrected it"}, {"archive", "stale"}, {"restore", "still true"}}, got[1:])

	// Changes, newest first, two at a time, back to the first.
	var seen []string
	q := "/v1/changes?profile=p&limit=2"
	for range 10 {
		page := e.do("GET", q, nil).JSON(t)["entries"].([]any)
		if len(page) == 0 {
			break
		}
		for _, x := range page {
			seen = append(seen, x.(map[string]any)["op"].(string))
		}
		last := page[len(page)-1].(map[string]any)
		q = "/v1/changes?profile=p&limit=2&until=" + last["at"].(string) + "&before_seq=" + jsonNumber(last["seq"])
	}
	require.Equal(t, []string{"restore", "archive", "update", "create", "create", "create", "create"}, seen)
	require.Len(t, e.do("GET", "/v1/changes?profile=p&actor=p", nil).JSON(t)["entries"], 7)
	require.Len(t, e.do("GET", "/v1/changes?profile=p&actor=someone", nil).JSON(t)["entries"], 0)
	requireError(t, e.do("GET", "/v1/changes?profile=p&before_seq=3", nil), http.StatusBadRequest, httpapi.CodeInvalidArgument)

	e.token = bob
	for _, path := range []string{"/v1/stats?profile=p", "/v1/memories/" + note + "/links?profile=p"} {
		requireError(t, e.do("GET", path, nil), http.StatusForbidden, httpapi.CodeForbidden)
	}
	requireError(t, e.do("POST", "/v1/memories/"+note+"/archive?profile=p", map[string]any{}), http.StatusForbidden, httpapi.CodeForbidden)
	requireError(t, e.do("POST", "/v1/memories/"+note+"/restore?profile=p", map[string]any{}), http.StatusForbidden, httpapi.CodeForbidden)
}

// jsonNumber writes a JSON number (a float64) as an integer.
func jsonNumber(v any) string {
	return strconv.FormatInt(int64(v.(float64)), 10)
}

package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// Filters: one shape on every route that reads memories. A POST route's
// body takes "filter": {"user_id", "session_id", "types", "tags", "since",
// "until", "metadata"}; a GET route takes the same as query parameters
// (filterParams), metadata as the JSON text of its condition tree (see
// memview.ParseMeta): metadata={"key":"lang","eq":"go"}.

// filterParams are the query parameters of a filter.
var filterParams = []string{"user_id", "session_id", "type", "tags", "since", "until", "metadata"}

// filter reads the filter of a route's query parameters; q.err says
// what was wrong with them.
func (q *query) filter() memview.Filter {
	// Given empty, a scope would mean every user's (or session's): a
	// mistake (an unset variable in a script), never a wish, when the
	// request may erase what it matches.
	for _, name := range []string{"user_id", "session_id", "metadata"} {
		if q.v.Has(name) && q.v.Get(name) == "" {
			q.fail(invalidf("query parameter %s: is empty; leave it out to mean any", name))
		}
	}
	f := memview.Filter{User: q.str("user_id"), Session: q.str("session_id"), Types: listKinds(q, "type"), Tags: q.list("tags"),
		Since: q.time("since"), Until: q.time("until")}
	if m := q.str("metadata"); m != "" {
		if !json.Valid([]byte(m)) {
			q.fail(invalidf("query parameter metadata: want a JSON condition tree, such as {\"key\":\"lang\",\"eq\":\"go\"}, not %q", m))
		}
		f.Metadata = json.RawMessage(m)
	}
	return f
}

// filterOf returns the engram filter f stands for (nil for none), or an
// invalid_argument error naming its bad part: "field filter.user: …" for
// a body's (prefix "filter"), "query parameter user: …" for a query's
// (prefix "").
func filterOf(f memview.Filter, prefix string) (*engram.Filter, error) {
	out, err := f.Engram(prefix)
	return out, renamedFilter(err, prefix)
}

// listParams are the query parameters of GET /v1/memories by the
// engram.MemoryQuery fields they set.
var listParams = map[string]string{"Types": "type", "Tags": "tags", "Since": "since", "Until": "until", "Cursor": "cursor"}

// renamedFilter returns an invalid-input error about a filter (memview's,
// named by JSON path, or engram's, "Filter.Tags", checked by the agent's
// limits) as the request names it: "field filter.tags: …" in a body
// (prefix "filter"), "query parameter tags: …" in a query (prefix "",
// with GET /v1/memories's own parameters); any other error is returned
// as it is.
func renamedFilter(err error, prefix string) error {
	var ie *engram.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	field := ie.Field
	if param, ok := listParams[field]; ok && prefix == "" {
		return invalidf("query parameter %s: %s", param, ie.Reason)
	}
	if rest, ok := strings.CutPrefix(field, "Filter."); ok {
		name, _, _ := strings.Cut(rest, ".")
		name, _, _ = strings.Cut(name, "[")
		if field, ok = memview.FilterFields[name]; !ok {
			return err
		}
		if prefix != "" {
			field = prefix + "." + field
		}
	}
	if prefix != "" {
		if !strings.HasPrefix(field, prefix+".") {
			return err
		}
		return invalidf("field %s: %s", field, ie.Reason)
	}
	name, _, _ := strings.Cut(field, ".")
	name, _, _ = strings.Cut(name, "[")
	if !slices.Contains(slices.Collect(maps.Values(memview.FilterFields)), name) {
		return err
	}
	param := name
	if name == "types" {
		param = "type"
	}
	if field != name {
		return invalidf("query parameter %s: %s: %s", param, field, ie.Reason)
	}
	return invalidf("query parameter %s: %s", param, ie.Reason)
}

type deletedUserResponse struct {
	Deleted int    `json:"deleted"`
	User    string `json:"user_id"`
	Profile string `json:"profile"`
}

// deleteUser answers DELETE /v1/users/{user_id}: every memory of the user
// in the agent (the profile's) is erased, with everything made of it
// (engram.Memory.ForgetUser); other users' memories and the agent's
// own stay, as does every other agent's. The answer says how many
// memories were erased: 0 for a user with none.
func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request) error {
	if err := params(r, "profile").err; err != nil {
		return err
	}
	user := r.PathValue("user_id")
	if err := engram.ValidateUserID(user); err != nil {
		return err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	n := 0
	err = s.reg.Change(r.Context(), id, func(m *engram.Memory) error {
		n, err = m.ForgetUser(r.Context(), user)
		return err
	})
	if err != nil {
		return err
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "user forgotten", slog.String("agent", id), slog.Int("memories", n))
	writeJSON(w, http.StatusOK, deletedUserResponse{n, user, id})
	return nil
}

type deletedMatchingResponse struct {
	Deleted int    `json:"deleted"`
	Profile string `json:"profile"`
}

// deleteMatching answers DELETE /v1/memories with a filter in its query
// (user_id, session_id, type, tags, since, until, metadata): every memory
// the filter matches, erased as one is (engram.Memory.ForgetMatching).
// Without a filter it refuses: DELETE /v1/memory erases every memory of
// a profile, on purpose.
func (s *Server) deleteMatching(w http.ResponseWriter, r *http.Request) error {
	q := params(r, append([]string{"profile"}, filterParams...)...)
	f := q.filter()
	if q.err != nil {
		return q.err
	}
	ef, err := filterOf(f, "")
	if err != nil {
		return err
	}
	if ef == nil {
		return invalidf("DELETE /v1/memories takes a filter (%s); DELETE /v1/memory erases every memory of a profile", strings.Join(filterParams, ", "))
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	n := 0
	err = s.reg.Change(r.Context(), id, func(m *engram.Memory) error {
		n, err = m.ForgetMatching(r.Context(), *ef)
		return err
	})
	if err != nil {
		return err
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "memories forgotten by filter", slog.String("agent", id), slog.Int("memories", n))
	writeJSON(w, http.StatusOK, deletedMatchingResponse{n, id})
	return nil
}

package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
)

// Routes of memories of every kind by ID (add, list, get, change,
// delete) and of facts (assert, query). A memory is shown by its kind's
// view (memview), which names the kind in "type".

// MaxBatch is the most memories or facts one request adds.
const MaxBatch = 1000

// addableKinds are the kinds POST /v1/memories adds, with the fields of
// each besides type (or kind).
var addableKinds = map[engram.MemoryType][]string{
	engram.TypeSemantic:   {"id", "created_at", "content", "summary", "importance", "verified", "tags", "source", "user_id", "session_id", "metadata"},
	engram.TypeEpisodic:   {"id", "created_at", "content", "event_type", "task_id", "user_id", "session_id", "cost", "duration_ms", "metadata"},
	engram.TypeProcedural: {"id", "created_at", "name", "description", "pattern", "success_rate", "tags", "disabled", "user_id", "session_id", "metadata"},
	engram.TypeFact:       {"id", "subject", "predicate", "object", "valid_from", "valid_to", "strength", "sources", "memory_id", "metadata"},
}

// memoryItem is one memory to add: memview's item, whose type may be
// named "kind" as well. An episode's session_id is its session, by the
// name the first version of the route gave it.
type memoryItem struct {
	memview.Item
	Kind engram.MemoryType `json:"kind"`
}

// itemsOf reads a body that is one item or a batch of them under list
// ("memories", "facts"), beside the profile: the items' fields, and the
// names the items go by in errors ("memories[2]", or "" for one item).
func itemsOf(body map[string]json.RawMessage, list string) (profileFields, []map[string]json.RawMessage, []string, error) {
	var pf profileFields
	for name, dst := range map[string]*string{"profile": &pf.Profile, "profileId": &pf.ProfileID} {
		if raw, ok := body[name]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return pf, nil, nil, invalidf("field %s: want a string", name)
			}
			delete(body, name)
		}
	}
	raw, batch := body[list]
	if !batch {
		if len(body) == 0 {
			return pf, nil, nil, invalidf("the body holds nothing to add: give one item's fields, or a list of items in %s", list)
		}
		return pf, []map[string]json.RawMessage{body}, []string{""}, nil
	}
	if len(body) > 1 {
		others := slices.Sorted(func(yield func(string) bool) {
			for k := range body {
				if k != list && !yield(k) {
					return
				}
			}
		})
		return pf, nil, nil, invalidf("%s is a batch: give each item's fields inside it, not %s beside it", list, strings.Join(others, ", "))
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return pf, nil, nil, invalidf("field %s: want an array of objects", list)
	}
	if len(items) == 0 || len(items) > MaxBatch {
		return pf, nil, nil, invalidf("%s holds %d items; give 1 to %d", list, len(items), MaxBatch)
	}
	names := make([]string, len(items))
	for i, it := range items {
		if it == nil {
			return pf, nil, nil, invalidf("%s[%d] is not an object", list, i)
		}
		names[i] = fmt.Sprintf("%s[%d]", list, i)
	}
	return pf, items, names, nil
}

// at names a field of an item: "memories[2].content", or "content".
func at(item, field string) string {
	if item == "" {
		return field
	}
	return item + "." + field
}

// strictDecode decodes an item's fields into v, refusing unknown ones and
// values of the wrong type, named after the item.
func strictDecode(item string, fields map[string]json.RawMessage, v any) error {
	b, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return invalidf("field %s: want %s, not %s", at(item, typ.Field), typeName(typ.Type.String()), typ.Value)
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return invalidf("unknown field %s", at(item, strings.Trim(name, `"`)))
		}
		return invalidf("%s: %v", or(item, "the body"), err)
	}
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// recordOf reads one memory to add: its kind, then only that kind's
// fields.
func recordOf(item string, fields map[string]json.RawMessage) (engram.Record, error) {
	var kind struct {
		Type engram.MemoryType `json:"type"`
		Kind engram.MemoryType `json:"kind"`
	}
	kindFields := map[string]json.RawMessage{}
	for _, k := range []string{"type", "kind"} {
		if v, ok := fields[k]; ok {
			kindFields[k] = v
		}
	}
	if err := strictDecode(item, kindFields, &kind); err != nil {
		return engram.Record{}, err
	}
	typ := kind.Type
	switch {
	case typ != "" && kind.Kind != "" && typ != kind.Kind:
		return engram.Record{}, invalidf("%s: type %q and kind %q differ (kind is an alias of type)", or(item, "the body"), typ, kind.Kind)
	case typ == "":
		typ = kind.Kind
	}
	allowed, ok := addableKinds[typ]
	if typ == "" {
		return engram.Record{}, invalidf("field %s is required: semantic, episodic, procedural or fact", at(item, "type"))
	}
	if !ok {
		return engram.Record{}, invalidf("field %s: want semantic, episodic, procedural or fact, not %q", at(item, "type"), typ)
	}
	for name := range fields {
		if name == "type" || name == "kind" || slices.Contains(allowed, name) {
			continue
		}
		for _, other := range []engram.MemoryType{engram.TypeSemantic, engram.TypeEpisodic, engram.TypeProcedural, engram.TypeFact} {
			if slices.Contains(addableKinds[other], name) {
				return engram.Record{}, invalidf("field %s: %s has no %s (%s is a field of %s; %s takes %s)", at(item, name),
					memview.Noun(typ), name, name, memview.Noun(other), typ, strings.Join(allowed, ", "))
			}
		}
		return engram.Record{}, invalidf("unknown field %s", at(item, name))
	}
	var it memoryItem
	if err := strictDecode(item, fields, &it); err != nil {
		return engram.Record{}, err
	}
	it.Type = typ
	rec, err := it.Record("api")
	var ie *engram.InvalidError
	if errors.As(err, &ie) {
		return engram.Record{}, invalidf("field %s: %s", at(item, ie.Field), ie.Reason)
	}
	return rec, err
}

// goFields are the JSON names of the Go fields engram's errors name.
var goFields = map[string]string{
	"ID": "id", "CreatedAt": "created_at", "Content": "content", "Summary": "summary", "Importance": "importance",
	"Tags": "tags", "Source": "source", "Type": "event_type", "TaskID": "task_id", "UserID": "user_id", "SessionID": "session_id", "Cost": "cost",
	"Duration": "duration_ms", "Metadata": "metadata", "Name": "name", "Description": "description", "Pattern": "pattern",
	"SuccessRate": "success_rate", "Subject": "subject", "Predicate": "predicate", "Object": "object",
	"ValidFrom": "valid_from", "ValidTo": "valid_to", "Strength": "strength", "Sources": "sources", "MemoryID": "memory_id",
}

var goField = regexp.MustCompile(`^(?:(?:records|facts)\[(\d+)\]\.|patch\.)?([A-Za-z]+)(.*)$`)

// renamed returns engram's invalid-input error about an item's field
// named as the request names it ("records[2].Content" becomes
// "memories[2].content", "patch.Importance" "importance"), or err.
func renamed(err error, list string) error {
	var ie *engram.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	m := goField.FindStringSubmatch(ie.Field)
	if m == nil {
		return err
	}
	name, ok := goFields[m[2]]
	if !ok {
		return err
	}
	field := name + m[3]
	if m[1] != "" {
		field = list + "[" + m[1] + "]." + field
	}
	return invalidf("field %s: %s", field, ie.Reason)
}

type assertionView struct {
	Action     engram.FactAction `json:"action"`
	Fact       factView          `json:"fact"`
	Superseded []factView        `json:"superseded"`
}

func assertionOf(a engram.Assertion) assertionView {
	return assertionView{a.Action, factOf(a.Fact), factsOf(a.Superseded)}
}

type addedView struct {
	Type engram.MemoryType `json:"type"`
	ID   string            `json:"id"`
	// A fact's assertion: what it did, and the facts it superseded.
	Action     engram.FactAction `json:"action,omitempty"`
	Superseded []factView        `json:"superseded,omitempty"`
}

type addMemoriesResponse struct {
	Memories []addedView `json:"memories"`
	IDs      []string    `json:"ids"`
	Count    int         `json:"count"`
	Profile  string      `json:"profile"`
}

// addMemories answers POST /v1/memories: one memory (the body's fields)
// or a batch (the list in "memories"), of any kind each: semantic,
// episodic, procedural or fact, named in "type" (or "kind"). Every item
// is read and checked before anything is written, and the batch is
// stored in one transaction (engram.Memory.AddAll): all of it or, on any
// error, none.
func (s *Server) addMemories(w http.ResponseWriter, r *http.Request) error {
	if err := params(r, "profile").err; err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := decode(w, r, s.opts.MaxBodyBytes, &body); err != nil {
		return err
	}
	pf, items, names, err := itemsOf(body, "memories")
	if err != nil {
		return err
	}
	records := make([]engram.Record, len(items))
	for i, it := range items {
		if records[i], err = recordOf(names[i], it); err != nil {
			return err
		}
	}
	id, err := s.agentOf(r, pf)
	if err != nil {
		return err
	}
	added, err := agentreg.Value(r.Context(), id, s.reg.Write, func(m *engram.Memory) ([]engram.Added, error) {
		return m.AddAll(r.Context(), records)
	})
	if err != nil {
		return renamed(err, "memories")
	}
	out := addMemoriesResponse{Memories: []addedView{}, IDs: []string{}, Count: len(added), Profile: id}
	for _, a := range added {
		v := addedView{Type: a.Type, ID: a.ID}
		if a.Assertion != nil {
			v.Action, v.Superseded = a.Assertion.Action, factsOf(a.Assertion.Superseded)
		}
		out.Memories = append(out.Memories, v)
		out.IDs = append(out.IDs, a.ID)
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// listKinds reads a list parameter of memory kinds ("semantic,fact").
func listKinds(q *query, name string) []engram.MemoryType {
	var out []engram.MemoryType
	for k := range strings.SplitSeq(q.str(name), ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		t := engram.MemoryType(k)
		if kinds := memview.Kinds(); !slices.Contains(kinds, t) {
			q.fail(invalidf("query parameter %s: want %s, not %q", name, orList(kinds), k))
		}
		out = append(out, t)
	}
	return out
}

// orList is the kinds as a message lists them: "semantic, episodic or
// fact".
func orList(kinds []engram.MemoryType) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// list reads a comma-separated list parameter.
func (q *query) list(name string) []string {
	var out []string
	for v := range strings.SplitSeq(q.str(name), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

type listMemoriesResponse struct {
	Memories   []any  `json:"memories"`
	Count      int    `json:"count"`
	NextCursor string `json:"next_cursor,omitempty"`
	Profile    string `json:"profile"`
}

// listMemories answers GET /v1/memories: the agent's memories of every
// kind (or of type, a comma-separated list; kind is its alias), newest
// first, a page at a time (engram.Memory.List), those of a user, a
// session, tags, a time range and metadata conditions (see queryFilter)
// only when asked: the next page is asked for with the next_cursor of
// the last, and the same filter.
func (s *Server) listMemories(w http.ResponseWriter, r *http.Request) error {
	q := params(r, append([]string{"profile", "limit", "cursor"}, filterParams...)...)
	mq := engram.MemoryQuery{Types: listKinds(q, "type"), Tags: q.list("tags"), Since: q.time("since"), Until: q.time("until"),
		Limit: q.integer("limit", 50, 1, engram.MaxListPage), Cursor: q.str("cursor")}
	// The filter's user, session and metadata; its type, tags and times
	// are the query's own.
	f := q.filter()
	f.Types, f.Tags, f.Since, f.Until = nil, nil, time.Time{}, time.Time{}
	if q.err != nil {
		return q.err
	}
	var err error
	if mq.Filter, err = filterOf(f, ""); err != nil {
		return err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	page, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) (engram.MemoryPage, error) {
		return m.List(r.Context(), mq)
	})
	if err != nil {
		return renamedFilter(err, "")
	}
	writeJSON(w, http.StatusOK, listMemoriesResponse{memview.List(page.Records), len(page.Records), page.Next, id})
	return nil
}

type memoryResponse struct {
	Type    engram.MemoryType `json:"type"`
	Memory  any               `json:"memory"`
	Profile string            `json:"profile"`
}

// getMemory answers GET /v1/memories/{id}: the memory of that ID,
// whatever its kind (engram.Memory.Get), with its kind.
func (s *Server) getMemory(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	rec, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) (engram.Record, error) {
		return m.Get(r.Context(), r.PathValue("id"))
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, memoryResponse{rec.Type, memview.Of(rec), id})
	return nil
}

type patchResponse struct {
	Updated bool              `json:"updated"`
	Type    engram.MemoryType `json:"type"`
	Memory  any               `json:"memory"`
	Profile string            `json:"profile"`
}

// patchMemory answers PATCH /v1/memories/{id}: the fields of the memory
// that its kind lets change (a semantic entry's content, summary,
// importance, verified and tags; a procedure's description, pattern, tags
// and disabled) are changed. A field the memory's kind does not have is
// refused, naming it, and so are user, session and metadata, which a
// memory keeps from when it was stored; episodes, facts, snapshots and
// document chunks are
// records of what happened or was read, and are not edited (a fact's new
// value is asserted: POST /v1/facts).
func (s *Server) patchMemory(w http.ResponseWriter, r *http.Request) error {
	if err := params(r, "profile").err; err != nil {
		return err
	}
	var req updateRequest
	if err := decode(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		return err
	}
	if err := req.unchangeable(); err != nil {
		return err
	}
	if len(req.Given()) == 0 {
		return invalidf("nothing to change: give the fields to change (a semantic entry's %s; a procedure's %s)",
			strings.Join(memview.PatchFields(engram.TypeSemantic), ", "), strings.Join(memview.PatchFields(engram.TypeProcedural), ", "))
	}
	id, err := s.agentOf(r, req.profileFields)
	if err != nil {
		return err
	}
	rec, err := agentreg.Value(r.Context(), id, s.reg.Change, func(m *engram.Memory) (engram.Record, error) {
		return memview.Apply(withReason(r, req.Reason), m, r.PathValue("id"), req.Patch)
	})
	if err != nil {
		return renamed(err, "")
	}
	writeJSON(w, http.StatusOK, patchResponse{true, rec.Type, memview.Of(rec), id})
	return nil
}

type addFactsResponse struct {
	Facts   []assertionView `json:"facts"`
	Profile string          `json:"profile"`
}

// addFacts answers POST /v1/facts: one fact (the body's fields) or a
// batch (the list in "facts") is asserted, in one transaction
// (engram.Facts.AssertAll): each is inserted, merged into the same fact
// known already, or supersedes the value of a predicate that holds one.
func (s *Server) addFacts(w http.ResponseWriter, r *http.Request) error {
	if err := params(r, "profile").err; err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := decode(w, r, s.opts.MaxBodyBytes, &body); err != nil {
		return err
	}
	pf, items, names, err := itemsOf(body, "facts")
	if err != nil {
		return err
	}
	facts := make([]engram.Fact, len(items))
	for i, it := range items {
		var f memview.FactItem
		if err := strictDecode(names[i], it, &f); err != nil {
			return err
		}
		facts[i] = f.Fact()
	}
	id, err := s.agentOf(r, pf)
	if err != nil {
		return err
	}
	as, err := agentreg.Value(r.Context(), id, s.reg.Write, func(m *engram.Memory) ([]engram.Assertion, error) {
		return m.Facts().AssertAll(r.Context(), facts)
	})
	if err != nil {
		return renamed(err, "facts")
	}
	out := addFactsResponse{Facts: []assertionView{}, Profile: id}
	for _, a := range as {
		out.Facts = append(out.Facts, assertionOf(a))
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

type factsResponse struct {
	Entity    string     `json:"entity,omitempty"`
	Predicate string     `json:"predicate,omitempty"`
	AsOf      *time.Time `json:"as_of,omitempty"`
	KnownAt   *time.Time `json:"known_at,omitempty"`
	History   bool       `json:"history"`
	Facts     []factView `json:"facts"`
	Count     int        `json:"count"`
	Profile   string     `json:"profile"`
}

// getFacts answers GET /v1/facts: the facts that hold now (of an entity,
// in a direction, of a predicate: engram.Facts.Current); with as_of, those
// that held then as engram knows them now (AsOf); with known_at, what
// engram held true then (KnownAt); with history, every fact of the
// entity's predicate, current and past, in the order they started
// (History).
func (s *Server) getFacts(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "entity", "predicate", "direction", "as_of", "known_at", "history", "limit")
	fq := engram.FactQuery{Entity: q.str("entity"), Predicate: q.str("predicate"), Direction: direction(q), Limit: q.integer("limit", 100, 1, 10000)}
	asOf, knownAt, history := q.time("as_of"), q.time("known_at"), q.boolean("history")
	if q.err != nil {
		return q.err
	}
	switch {
	case !asOf.IsZero() && !knownAt.IsZero():
		return invalidf("as_of and known_at are two questions: give one")
	case history && (fq.Entity == "" || fq.Predicate == ""):
		return invalidf("history is a slot's: give entity (the subject) and predicate")
	case history && (!asOf.IsZero() || !knownAt.IsZero() || q.str("direction") != ""):
		return invalidf("history lists every time of the slot: as_of, known_at and direction do not apply")
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	facts, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.Fact, error) {
		return memview.Facts(r.Context(), m, memview.FactsAsked{Query: fq, AsOf: asOf, KnownAt: knownAt, History: history})
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, factsResponse{fq.Entity, fq.Predicate, memview.Time(asOf), memview.Time(knownAt), history, factsOf(facts), len(facts), id})
	return nil
}

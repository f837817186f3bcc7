package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
)

// Routes about memories: ingest, search, context, summary, update, delete,
// history, extraction rules.

type ingestRequest struct {
	Messages []engram.Message `json:"messages"`
	profileFields
	// Reasoning and Feedback are seed 004's, accepted and ignored, as
	// the seed does.
	Reasoning json.RawMessage `json:"reasoning"`
	Feedback  json.RawMessage `json:"feedback"`
	// Metadata is kept on the episodes stored when the agent has nothing
	// to extract with; a value that is not a string is kept as its JSON.
	Metadata map[string]json.RawMessage `json:"metadata"`
	// UserID and SessionID scope what is stored (engram.ExtractOptions):
	// the memories extracted and the episodes stored instead.
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
}

type extractedView struct {
	Type    engram.MemoryType `json:"type"`
	ID      string            `json:"id"`
	Content string            `json:"content"`
	Source  string            `json:"source"`
}

type extractedFactView struct {
	Action     engram.FactAction `json:"action"`
	Fact       factView          `json:"fact"`
	Superseded []factView        `json:"superseded"`
	Source     string            `json:"source"`
}

type rejectedView struct {
	Source string `json:"source"`
	List   string `json:"list"`
	Index  int    `json:"index"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
	Item   string `json:"item"`
}

type ingestResponse struct {
	Stored     int                 `json:"stored"`
	IDs        []string            `json:"ids"`
	Items      []extractedView     `json:"items"`
	Facts      []extractedFactView `json:"facts"`
	Duplicates int                 `json:"duplicates"`
	Rejected   []rejectedView      `json:"rejected"`
	// Episodes counts the messages stored as episodes, when the agent
	// had nothing to extract with (no active rules, no LLM).
	Episodes int `json:"episodes"`
	// Note says why nothing, or only episodes, were stored.
	Note    string `json:"note,omitempty"`
	Profile string `json:"profile"`
}

// ingest answers POST /v1/ingest: the messages go through the agent's
// extraction (its rules, and its LLM when it has one: engram.Memory.Extract)
// and what is found is stored as memories and facts. An agent with
// nothing to extract with (no active rule, no LLM) keeps the messages
// as episodes instead, and the answer says so (episodes, note). Seed
// 004's reasoning and feedback are accepted and ignored; its metadata is
// kept on those episodes (extraction's memories have no place for it).
func (s *Server) ingest(w http.ResponseWriter, r *http.Request) error {
	var req ingestRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	user := false
	for i, msg := range req.Messages {
		if msg.Role == "" {
			return invalidf("messages[%d].role is required", i)
		}
		if msg.Role == "user" && strings.TrimSpace(msg.Content) != "" {
			user = true
		}
	}
	if !user {
		return invalidf("messages must hold at least one user message with content")
	}
	meta, err := metadataOf(req.Metadata)
	if err != nil {
		return err
	}
	scope := engram.ExtractOptions{UserID: req.UserID, SessionID: req.SessionID}
	out := ingestResponse{IDs: []string{}, Items: []extractedView{}, Facts: []extractedFactView{}, Rejected: []rejectedView{}, Profile: id}
	err = s.reg.Write(r.Context(), id, func(m *engram.Memory) error {
		rules, err := m.Rules().List(r.Context())
		if err != nil {
			return err
		}
		active := 0
		for _, rule := range rules {
			if rule.Active {
				active++
			}
		}
		if active == 0 && !m.HasLLM() {
			return logMessages(r, m, req.Messages, meta, scope, &out)
		}
		res, err := m.ExtractWith(r.Context(), req.Messages, scope)
		if err != nil {
			return err
		}
		out.Duplicates = res.Duplicates
		for _, it := range res.Items {
			out.IDs = append(out.IDs, it.ID)
			out.Items = append(out.Items, extractedView{it.Type, it.ID, it.Content, it.Source})
		}
		for _, f := range res.Facts {
			if f.Action != engram.FactMerged {
				out.IDs = append(out.IDs, f.Fact.ID)
			}
			out.Facts = append(out.Facts, extractedFactView{f.Action, factOf(f.Fact), factsOf(f.Superseded), f.Source})
		}
		for _, rj := range res.Rejected {
			out.Rejected = append(out.Rejected, rejectedView{rj.Source, rj.List, rj.Index, rj.Field, rj.Reason, rj.Item})
		}
		switch {
		case len(out.IDs) > 0 || len(res.Facts) > 0:
		case res.Duplicates > 0:
			out.Note = "nothing new: what extraction found is known already"
		case m.HasLLM():
			out.Note = fmt.Sprintf("extraction found nothing in the messages (the agent's %d active rules and its LLM)", active)
		default:
			out.Note = fmt.Sprintf("extraction found nothing in the messages (the agent's %d active rules; no LLM)", active)
		}
		return nil
	})
	if err != nil {
		return err
	}
	out.Stored = len(out.IDs)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// metadataOf returns an ingest's metadata as episodes keep it: strings as
// they are, other values as their JSON.
func metadataOf(raw map[string]json.RawMessage) (map[string]string, error) {
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			out[k] = s
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, invalidf("field metadata.%s: %v", k, err)
		}
		out[k] = c.String()
	}
	return out, nil
}

// ingestNote explains an ingest that stored the messages as episodes.
const ingestNote = "the agent has no active extraction rules and no LLM, so nothing could be extracted: " +
	"the messages were stored as episodes (add rules with POST /v1/rules, or serve with an LLM, to extract memories and facts)"

// logMessages stores each message with content as an episode, in one
// transaction: what ingest keeps of a conversation when the agent has
// nothing to extract with. Each episode's metadata holds the ingest's,
// the message's role and source "ingest"; each belongs to scope's user and
// session.
func logMessages(r *http.Request, m *engram.Memory, msgs []engram.Message, meta map[string]string, scope engram.ExtractOptions, out *ingestResponse) error {
	var eps []engram.Episode
	for _, msg := range msgs {
		if strings.TrimSpace(msg.Content) == "" {
			continue
		}
		md := map[string]string{}
		maps.Copy(md, meta)
		md["role"], md["source"] = msg.Role, "ingest"
		eps = append(eps, engram.Episode{Content: msg.Content, CreatedAt: msg.Time, Metadata: md, UserID: scope.UserID, SessionID: scope.SessionID})
	}
	ids, err := m.Episodic().LogBatch(r.Context(), eps)
	if err != nil {
		return err
	}
	for i, id := range ids {
		out.IDs = append(out.IDs, id)
		out.Items = append(out.Items, extractedView{engram.TypeEpisodic, id, eps[i].Content, "ingest"})
	}
	out.Episodes, out.Note = len(ids), ingestNote
	return nil
}

type searchRequest struct {
	Query string `json:"query"`
	profileFields
	// Recall (default true) gates the results into the agent's working
	// memory, as seed 004 does; false runs a plain search with the
	// options below.
	Recall    *bool               `json:"recall"`
	Types     []engram.MemoryType `json:"types"`
	Tags      []string            `json:"tags"`
	Since     time.Time           `json:"since"`
	Until     time.Time           `json:"until"`
	Limit     int                 `json:"limit"`
	Threshold float64             `json:"threshold"`
	Mode      engram.SearchMode   `json:"mode"`
	Advanced  bool                `json:"advanced"`
	// Filter narrows a recall and a plain search alike: a user's
	// memories, a session's, … (see memview.Filter).
	Filter memview.Filter `json:"filter"`
}

type searchResponse struct {
	// WorkingMemory are the memories the gate admitted into the working
	// set (recall), best first; empty for a plain search.
	WorkingMemory []recalledView `json:"working_memory"`
	// PerKind are the candidates of each kind: recall's scored ones, or
	// a plain search's results by kind.
	PerKind map[engram.MemoryType][]recalledView `json:"per_kind"`
	// Results are a plain search's results, best first; empty for recall.
	Results []resultView      `json:"results"`
	Mode    engram.SearchMode `json:"mode,omitempty"`
	Terms   []string          `json:"terms"`
	Pending int               `json:"pending"`
	Profile string            `json:"profile"`
}

// search answers POST /v1/search. By default it recalls (engram.Memory.Recall):
// the agent's memories of every kind are searched and gated into its
// working set, as seed 004's PBWM retrieval; with "recall": false it is a
// plain search (engram.Memory.Find) that takes the search options.
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	var req searchRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Query) == "" {
		return invalidf("query is required")
	}
	filter, err := filterOf(req.Filter, "filter")
	if err != nil {
		return err
	}
	recall := req.Recall == nil || *req.Recall
	out := searchResponse{WorkingMemory: []recalledView{}, PerKind: map[engram.MemoryType][]recalledView{}, Results: []resultView{}, Terms: []string{}, Profile: id}
	if recall {
		if req.Types != nil || req.Tags != nil || !req.Since.IsZero() || !req.Until.IsZero() ||
			req.Limit != 0 || req.Threshold != 0 || req.Mode != "" || req.Advanced {
			return invalidf("types, tags, since, until, limit, threshold, mode and advanced apply to a plain search: set recall to false (a filter applies to both)")
		}
		// Recall changes the working set and counts retrievals: a write,
		// though it creates nothing for an agent with no memory.
		res, err := agentreg.Value(r.Context(), id, s.reg.Change, func(m *engram.Memory) (engram.RecallResult, error) {
			return m.RecallWith(r.Context(), engram.RecallOptions{Query: req.Query, Filter: filter})
		})
		if err != nil {
			return renamedFilter(err, "filter")
		}
		out.WorkingMemory = recalledOf(res.Admitted)
		for k, rs := range res.ByKind {
			out.PerKind[k] = recalledOf(rs)
		}
		out.Pending = res.Pending
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	opts := engram.SearchOptions{
		Query: req.Query, Advanced: req.Advanced, Types: req.Types, Tags: req.Tags,
		Since: req.Since, Until: req.Until, Limit: req.Limit, Threshold: req.Threshold, Mode: req.Mode, Filter: filter,
	}
	found, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) (engram.Found, error) {
		return m.Find(r.Context(), opts)
	})
	if err != nil {
		return renamedFilter(err, "filter")
	}
	out.Results = memview.Results(found.Results)
	for _, res := range found.Results {
		out.PerKind[res.Type] = append(out.PerKind[res.Type], recalledView{resultView: memview.ResultOf(res)})
	}
	out.Mode, out.Terms, out.Pending = found.Mode, memview.NonNil(found.Terms), found.Pending
	writeJSON(w, http.StatusOK, out)
	return nil
}

type contextRequest struct {
	Query     string `json:"query"`
	MaxTokens int    `json:"max_tokens"`
	profileFields
	// Filter narrows the memories the block shows (see memview.Filter).
	Filter memview.Filter `json:"filter"`
}

type contextResponse struct {
	memview.Context
	Profile string `json:"profile"`
}

// context answers POST /v1/context: a token-budgeted block of markdown for
// a system prompt (engram.Memory.Context). It changes nothing.
func (s *Server) context(w http.ResponseWriter, r *http.Request) error {
	var req contextRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	filter, err := filterOf(req.Filter, "filter")
	if err != nil {
		return err
	}
	b, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) (engram.ContextBlock, error) {
		return m.Context(r.Context(), engram.ContextOptions{Query: req.Query, MaxTokens: req.MaxTokens, Filter: filter})
	})
	if err != nil {
		return renamedFilter(err, "filter")
	}
	writeJSON(w, http.StatusOK, contextResponse{memview.ContextOf(b), id})
	return nil
}

type kindView struct {
	Type          engram.MemoryType `json:"type"`
	Count         int               `json:"count"`
	LastID        string            `json:"last_id,omitempty"`
	LastCreatedAt *time.Time        `json:"last_created_at,omitempty"`
}

type keywordView struct {
	Stem     string `json:"stem"`
	Memories int    `json:"memories"`
}

type summaryResponse struct {
	Summary          []kindView    `json:"summary"`
	HighImportance   int           `json:"high_importance"`
	RecentlyAccessed int           `json:"recently_accessed"`
	RecentWindowSecs int64         `json:"recent_window_seconds"`
	Keywords         []keywordView `json:"keywords"`
	// Recent are the newest memories of every kind, newest first (limit
	// of them), each in its kind's view.
	Recent  []any  `json:"recent"`
	Profile string `json:"profile"`
}

// summary answers GET /v1/summary (engram.Memory.Summary), with the limit
// newest memories (default 50; engram.Memory.List), as seed 004's does.
func (s *Server) summary(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "limit")
	limit := q.integer("limit", 50, 0, engram.MaxListPage)
	if q.err != nil {
		return q.err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	var sum engram.Summary
	var recent engram.MemoryPage
	err = s.reg.Read(r.Context(), id, func(m *engram.Memory) error {
		var err error
		if sum, err = m.Summary(r.Context()); err != nil || limit == 0 {
			return err
		}
		recent, err = m.List(r.Context(), engram.MemoryQuery{Limit: limit})
		return err
	})
	if err != nil {
		return err
	}
	out := summaryResponse{Summary: []kindView{}, Keywords: []keywordView{}, HighImportance: sum.HighImportance,
		RecentlyAccessed: sum.RecentlyAccessed, RecentWindowSecs: int64(sum.RecentWindow / time.Second),
		Recent: memview.List(recent.Records), Profile: id}
	for _, k := range sum.Kinds {
		out.Summary = append(out.Summary, kindView{k.Type, k.Count, k.LastID, memview.Time(k.LastCreatedAt)})
	}
	for _, k := range sum.Keywords {
		out.Keywords = append(out.Keywords, keywordView{k.Stem, k.Memories})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type updateRequest struct {
	profileFields
	// The fields to change: a semantic entry's content, summary,
	// importance, verified and tags; a procedure's description,
	// pattern, tags and disabled.
	memview.Patch
	// A memory's scope, which engram sets when the memory is stored and
	// does not change: read only to be refused by name (see
	// unchangeable).
	User     json.RawMessage `json:"user_id"`
	Session  json.RawMessage `json:"session_id"`
	Metadata json.RawMessage `json:"metadata"`
	// Reason is what history records of why (engram.ContextWithReason).
	Reason string `json:"reason"`
}

// withReason returns r's context carrying reason, when it is not "".
func withReason(r *http.Request, reason string) context.Context {
	if reason == "" {
		return r.Context()
	}
	return engram.ContextWithReason(r.Context(), reason)
}

// unchangeable refuses a change of a memory's user, session or metadata,
// naming the field: engram keeps them as the memory was stored.
func (u updateRequest) unchangeable() error {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"user_id", u.User}, {"session_id", u.Session}, {"metadata", u.Metadata}} {
		if f.raw != nil {
			return invalidf("field %s: a memory's user_id, session_id and metadata are set when it is stored and cannot change; "+
				"store a new memory (POST /v1/memories) and delete this one", f.name)
		}
	}
	return nil
}

type updateResponse struct {
	Updated bool              `json:"updated"`
	ID      string            `json:"id"`
	Type    engram.MemoryType `json:"type"`
	Profile string            `json:"profile"`
}

// updateMemory answers PUT /v1/memory/{id}, seed 004's route: the memory
// is changed as PATCH /v1/memories/{id} changes it (memview.Apply), whatever
// its kind, and the answer is seed 004's (updated, id, type). A field the
// memory's kind does not have, or any field of a kind that is not edited
// (an episode, a fact, a snapshot, a document chunk), is refused, naming
// it.
func (s *Server) updateMemory(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := decode(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		return err
	}
	if err := req.unchangeable(); err != nil {
		return err
	}
	id, err := s.agentOf(r, req.profileFields)
	if err != nil {
		return err
	}
	if len(req.Given()) == 0 {
		return invalidf("nothing to change: give content, summary, importance, verified, tags, description, pattern or disabled")
	}
	memID := r.PathValue("id")
	rec, err := agentreg.Value(r.Context(), id, s.reg.Change, func(m *engram.Memory) (engram.Record, error) {
		return memview.Apply(withReason(r, req.Reason), m, memID, req.Patch)
	})
	if err != nil {
		return renamed(err, "")
	}
	writeJSON(w, http.StatusOK, updateResponse{true, memID, rec.Type, id})
	return nil
}

// deleteMemory answers DELETE /v1/memory/{id}: the memory or fact of that
// ID, current or archived, is erased with everything made of it
// (engram.Memory.Forget).
func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	err = s.reg.Change(r.Context(), id, func(m *engram.Memory) error {
		return m.Forget(r.Context(), r.PathValue("id"))
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedResponse{1, id})
	return nil
}

// deleteAllMemory answers DELETE /v1/memory: every memory of the agent is
// erased (engram.Memory.ForgetAgent), the default agent's too.
func (s *Server) deleteAllMemory(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	n, err := s.forgetAgent(r, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedResponse{n, id})
	return nil
}

type historyResponse struct {
	ID      string        `json:"id"`
	Entries []historyView `json:"entries"`
	Profile string        `json:"profile"`
}

// memoryHistory answers GET /v1/memory/{id}/history (engram.Memory.History).
func (s *Server) memoryHistory(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	memID := r.PathValue("id")
	es, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.HistoryEntry, error) {
		return m.History(r.Context(), memID)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, historyResponse{memID, memview.Changes(es), id})
	return nil
}

type changesResponse struct {
	Entries []historyView `json:"entries"`
	Profile string        `json:"profile"`
}

// changes answers GET /v1/changes: the agent's history
// (engram.Memory.Changes), the newest first, back from until and
// before_seq (the last entry's at and seq of the page before); with since
// or after_seq, as a feed, oldest first from there: page with the last
// entry's at and seq as since and after_seq. actor keeps one actor's.
func (s *Server) changes(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "since", "after_seq", "until", "before_seq", "actor", "limit")
	cq := engram.ChangeQuery{Since: q.time("since"), AfterSeq: int64(q.integer("after_seq", 0, 0, 1<<62)), Limit: q.integer("limit", 0, 0, 10000),
		Until: q.time("until"), BeforeSeq: int64(q.integer("before_seq", 0, 0, 1<<62)), Actor: q.str("actor")}
	if q.err != nil {
		return q.err
	}
	// A feed read from since or after_seq goes forward, oldest first;
	// without either, a person asks what changed lately: the newest first.
	cq.Newest = cq.AfterSeq == 0 && cq.Since.IsZero()
	if cq.BeforeSeq != 0 && cq.Until.IsZero() {
		return invalidf("before_seq counts among the entries at until: give until too")
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	es, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.HistoryEntry, error) {
		return m.Changes(r.Context(), cq)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, changesResponse{memview.Changes(es), id})
	return nil
}

type rulesResponse struct {
	Rules   []ruleView `json:"rules"`
	Profile string     `json:"profile"`
}

// listRules answers GET /v1/rules: the agent's extraction rules.
func (s *Server) listRules(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	rules, err := agentreg.Value(r.Context(), id, s.reg.Read, func(m *engram.Memory) ([]engram.ExtractionRule, error) {
		return m.Rules().List(r.Context())
	})
	if err != nil {
		return err
	}
	out := rulesResponse{Rules: []ruleView{}, Profile: id}
	for _, rule := range rules {
		out.Rules = append(out.Rules, ruleOf(rule))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type ruleRequest struct {
	profileFields
	Name       string            `json:"name"`
	Pattern    string            `json:"pattern"`
	Type       engram.MemoryType `json:"type"`
	Importance float64           `json:"importance"`
	Tags       []string          `json:"tags"`
	Active     *bool             `json:"active"`
	Subject    string            `json:"subject"`
	Predicate  string            `json:"predicate"`
	Object     string            `json:"object"`
}

type ruleResponse struct {
	Rule    ruleView `json:"rule"`
	Profile string   `json:"profile"`
}

// addRule answers POST /v1/rules: a new extraction rule (engram.Rules.Add),
// active unless "active" is false.
func (s *Server) addRule(w http.ResponseWriter, r *http.Request) error {
	var req ruleRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	rule := engram.ExtractionRule{
		Name: req.Name, Pattern: req.Pattern, Type: req.Type, Importance: req.Importance, Tags: req.Tags,
		Active: req.Active == nil || *req.Active, Subject: req.Subject, Predicate: req.Predicate, Object: req.Object,
	}
	if rule.Name == "" || rule.Pattern == "" || rule.Type == "" {
		return invalidf("name, pattern and type are required")
	}
	err = s.reg.Write(r.Context(), id, func(m *engram.Memory) error {
		if err := m.Rules().Add(r.Context(), rule); err != nil {
			return err
		}
		rules, err := m.Rules().List(r.Context())
		for _, got := range rules {
			if got.Name == rule.Name {
				rule = got
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ruleResponse{ruleOf(rule), id})
	return nil
}

// deleteRule answers DELETE /v1/rules/{name} (engram.Rules.Remove).
func (s *Server) deleteRule(w http.ResponseWriter, r *http.Request) error {
	id, err := s.queryAgent(r)
	if err != nil {
		return err
	}
	err = s.reg.Change(r.Context(), id, func(m *engram.Memory) error {
		return m.Rules().Remove(r.Context(), r.PathValue("name"))
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedResponse{1, id})
	return nil
}

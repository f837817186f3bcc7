package engram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/engram-go/engram/internal/rules"
)

// extractionPrompt is the system prompt of LLM extraction; %[1]q is the
// user entity.
const extractionPrompt = `You extract long-term memories for an AI agent from a conversation.
Answer with one JSON object and nothing else, with exactly these keys:
{"facts": [{"content": "...", "importance": 0.0, "tags": ["..."]}],
 "triples": [{"subject": "...", "predicate": "...", "object": "..."}],
 "episodes": [{"content": "...", "type": "observation", "importance": 0.0}],
 "procedures": [{"name": "...", "description": "...", "steps": "...", "tags": ["..."]}]}
triples: facts that relate a thing to another or to a value, as subject, predicate and object,
for example {"subject": "Ada", "predicate": "works at", "object": "Acme"}. Personal facts about
the user (identity, relationships, work, home, likes and dislikes) are triples whose subject is
%[1]q: write %[1]q for "I", "me" and "my". Predicates are short and in the present tense
("lives in", "works at", "likes"); one object per triple.
facts: other lasting knowledge about the user, the project or the world, one per item, self-contained.
episodes: notable events of this conversation; type is one of task-started, task-completed,
task-failed, decision-made, error-encountered, user-feedback, tool-call, observation.
procedures: reusable ways of doing something that worked, with their steps.
importance is between 0 and 1. Use empty lists when there is nothing worth keeping.`

// extractionSchema is the JSON Schema of the answer extraction asks for,
// sent as structured output. It follows the rules of OpenAI's strict
// mode (every property required, no other properties), which Gemini and
// Ollama take as well.
var extractionSchema = json.RawMessage(`{
 "type": "object",
 "properties": {
  "facts": {"type": "array", "items": {"type": "object",
   "properties": {"content": {"type": "string"}, "importance": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}}},
   "required": ["content", "importance", "tags"], "additionalProperties": false}},
  "triples": {"type": "array", "items": {"type": "object",
   "properties": {"subject": {"type": "string"}, "predicate": {"type": "string"}, "object": {"type": "string"}},
   "required": ["subject", "predicate", "object"], "additionalProperties": false}},
  "episodes": {"type": "array", "items": {"type": "object",
   "properties": {"content": {"type": "string"},
    "type": {"type": "string", "enum": ["task-started", "task-completed", "task-failed", "decision-made",
     "error-encountered", "user-feedback", "tool-call", "observation"]},
    "importance": {"type": "number"}},
   "required": ["content", "type", "importance"], "additionalProperties": false}},
  "procedures": {"type": "array", "items": {"type": "object",
   "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "steps": {"type": "string"},
    "tags": {"type": "array", "items": {"type": "string"}}},
   "required": ["name", "description", "steps", "tags"], "additionalProperties": false}}
 },
 "required": ["facts", "triples", "episodes", "procedures"],
 "additionalProperties": false
}`)

// answerLists are the lists of an extraction answer, in the order their
// items are stored.
var answerLists = []string{"facts", "triples", "episodes", "procedures"}

// llmSource is the source of what LLM extraction finds.
const llmSource = "llm-extraction"

// extractLLM asks the LLM for memories and facts, one call per chunk of
// messages that fits the prompt budget, and returns the valid items of
// the answers and the invalid ones, with reasons.
func (m *Memory) extractLLM(ctx context.Context, messages []Message) ([]found, []RejectedItem, error) {
	budget := m.cfg.Extraction.MaxPromptBytes
	var chunks []string
	var b strings.Builder
	for i, msg := range messages {
		line := msg.Role + ": " + msg.Content + "\n"
		if len(line) > budget {
			return nil, nil, invalid(fmt.Sprintf("messages[%d]", i), "is %d bytes, more than the prompt budget of %d", len(line), budget)
		}
		if b.Len()+len(line) > budget {
			chunks = append(chunks, b.String())
			b.Reset()
		}
		b.WriteString(line)
	}
	if b.Len() > 0 {
		chunks = append(chunks, b.String())
	}
	system := fmt.Sprintf(extractionPrompt, m.cfg.Facts.UserEntity)
	var out []found
	var rejected []RejectedItem
	for _, chunk := range chunks {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		answer, err := m.llm.Complete(ctx, Prompt{System: system, User: "Conversation:\n" + chunk, JSON: true, Schema: extractionSchema})
		if err != nil {
			return nil, nil, fmt.Errorf("engram: extract: %w", err)
		}
		items, bad, err := m.parseAnswer(answer)
		if err != nil {
			return nil, nil, err
		}
		out, rejected = append(out, items...), append(rejected, bad...)
	}
	return out, rejected, nil
}

// parseAnswer reads an LLM answer: one JSON object, alone, in a ```json
// fence or amid prose, holding some of the lists asked for (a missing
// list is an empty one). It returns the valid items and, with reasons,
// the invalid ones and the keys it does not know. An answer over the size
// limit, with no JSON object or with none of the lists is an error
// matching ErrBadAnswer.
func (m *Memory) parseAnswer(answer string) ([]found, []RejectedItem, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadAnswer, fmt.Sprintf(format, args...))
	}
	if max := m.cfg.Extraction.MaxResponseBytes; len(answer) > max {
		return nil, nil, bad("%d bytes, more than the limit of %d", len(answer), max)
	}
	obj, err := answerObject(answer)
	if err != nil {
		return nil, nil, bad("%v", err)
	}
	var rejected []RejectedItem
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lists := 0
	for _, k := range keys {
		if slices.Contains(answerLists, k) {
			lists++
		} else {
			rejected = append(rejected, RejectedItem{Source: llmSource, List: k, Index: -1,
				Reason: "is not a list asked for", Item: truncateUTF8(string(obj[k]), maxRejectedItemBytes)})
		}
	}
	if lists == 0 {
		return nil, nil, bad(`the JSON object holds none of "facts", "triples", "episodes" and "procedures"`)
	}
	p := answerParser{m: m, rejected: rejected}
	for _, list := range answerLists {
		raw, ok := obj[list]
		if !ok {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			p.reject(list, -1, "", "is not a list", raw)
			continue
		}
		for i, item := range items {
			p.item(list, i, item)
		}
	}
	return p.out, p.rejected, nil
}

// answerObject finds the JSON object of an answer: the content of its
// first ```fence, or else the first object that one of the first
// maxObjectTries braces starts, preferring one that holds a list asked
// for. Text around it is ignored.
func answerObject(answer string) (map[string]json.RawMessage, error) {
	var first map[string]json.RawMessage
	try := func(s string) bool {
		var obj map[string]json.RawMessage
		if err := json.NewDecoder(strings.NewReader(s)).Decode(&obj); err != nil || obj == nil {
			return false
		}
		if first == nil {
			first = obj
		}
		for _, k := range answerLists {
			if _, ok := obj[k]; ok {
				return true
			}
		}
		return false
	}
	if inner, ok := fenced(answer); ok {
		if s := strings.TrimSpace(inner); strings.HasPrefix(s, "{") && try(s) {
			return first, nil
		}
	}
	rest, tries := answer, 0
	for tries < maxObjectTries {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		if try(rest[i:]) {
			return first, nil
		}
		rest, tries = rest[i+1:], tries+1
	}
	if first != nil {
		return first, nil
	}
	return nil, errors.New("no JSON object in the answer")
}

// maxObjectTries bounds the braces answerObject tries to read an object
// from, so that an answer of many stray braces costs no more than a few
// reads of it.
const maxObjectTries = 16

// fenced returns what the first ``` fence of s holds, after the fence's
// info string ("json"), and whether s has one. An unclosed fence runs to
// the end.
func fenced(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	s = s[i+3:]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], "{[") {
		s = s[nl+1:]
	}
	if j := strings.Index(s, "```"); j >= 0 {
		s = s[:j]
	}
	return s, true
}

// answerParser collects the items of one answer.
type answerParser struct {
	m        *Memory
	out      []found
	rejected []RejectedItem
}

func (p *answerParser) reject(list string, index int, field, reason string, raw json.RawMessage) {
	p.rejected = append(p.rejected, RejectedItem{Source: llmSource, List: list, Index: index, Field: field, Reason: reason,
		Item: truncateUTF8(string(raw), maxRejectedItemBytes)})
}

// rejectErr rejects an item for err, naming the field an *InvalidError
// or a *json.UnmarshalTypeError names.
func (p *answerParser) rejectErr(list string, index int, err error, raw json.RawMessage) {
	var ie *InvalidError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &ie):
		p.reject(list, index, ie.Field, ie.Reason, raw)
	case errors.As(err, &te):
		p.reject(list, index, te.Field, fmt.Sprintf("is a JSON %s, not a %s", te.Value, jsonTypeName(te.Type.String())), raw)
	default:
		p.reject(list, index, "", err.Error(), raw)
	}
}

func jsonTypeName(goType string) string {
	switch goType {
	case "string", "*string":
		return "string"
	case "float64", "*float64":
		return "number"
	case "[]string":
		return "list of strings"
	}
	return goType
}

// missing is the reason of a required field the item lacks.
const missing = "is missing"

// item checks one item of the answer's list and keeps it or rejects it.
func (p *answerParser) item(list string, i int, raw json.RawMessage) {
	if s := strings.TrimSpace(string(raw)); !strings.HasPrefix(s, "{") {
		p.reject(list, i, "", "is not a JSON object", raw)
		return
	}
	var it found
	var err error
	switch list {
	case "facts":
		it, err = p.fact(raw)
	case "triples":
		it, err = p.triple(list, i, raw)
	case "episodes":
		it, err = p.episode(raw)
	case "procedures":
		it, err = p.procedure(raw)
	default:
		return
	}
	if err != nil {
		p.rejectErr(list, i, err, raw)
		return
	}
	p.out = append(p.out, it)
}

// requiredImportance checks an item's importance, which it must have.
func requiredImportance(v *float64) error {
	if v == nil {
		return invalid("importance", missing)
	}
	return validateImportance("importance", *v)
}

// itemText checks an item's text field, if it has it or it is required.
func itemText(field string, v *string, required bool, max int) error {
	if v == nil {
		if required {
			return invalid(field, missing)
		}
		return nil
	}
	return validateText(field, *v, required, max)
}

// fact reads an item of the list "facts".
func (p *answerParser) fact(raw json.RawMessage) (found, error) {
	lim := p.m.cfg.Limits
	var f struct {
		Content    *string  `json:"content"`
		Importance *float64 `json:"importance"`
		Tags       []string `json:"tags"`
	}
	err := json.Unmarshal(raw, &f)
	if err == nil {
		err = itemText("content", f.Content, true, lim.MaxContentBytes)
	}
	if err == nil {
		err = requiredImportance(f.Importance)
	}
	if err == nil {
		err = validateTags("tags", f.Tags, lim)
	}
	if err != nil {
		return found{}, err
	}
	return found{typ: TypeSemantic, content: strings.TrimSpace(*f.Content), importance: *f.Importance,
		tags: f.Tags, source: llmSource}, nil
}

// triple reads the item i of the list "triples".
func (p *answerParser) triple(list string, i int, raw json.RawMessage) (found, error) {
	var t struct {
		Subject   *string `json:"subject"`
		Predicate *string `json:"predicate"`
		Object    *string `json:"object"`
	}
	err := json.Unmarshal(raw, &t)
	for _, part := range []struct {
		name string
		v    *string
	}{{"subject", t.Subject}, {"predicate", t.Predicate}, {"object", t.Object}} {
		if err == nil && part.v == nil {
			err = invalid(part.name, missing)
		}
	}
	if err != nil {
		return found{}, err
	}
	user := p.m.cfg.Facts.UserEntity
	it := found{typ: TypeFact, content: strings.TrimSpace(string(raw)), source: llmSource,
		subject:   rules.UserEntity(strings.TrimSpace(*t.Subject), user),
		predicate: strings.TrimSpace(*t.Predicate),
		object:    rules.UserEntity(strings.TrimSpace(*t.Object), user),
		list:      list, index: i}
	if bad := p.m.checkTriple(it.subject, it.predicate, it.object); bad != nil {
		return found{}, bad
	}
	return it, nil
}

// episode reads an item of the list "episodes".
func (p *answerParser) episode(raw json.RawMessage) (found, error) {
	var e struct {
		Content    *string  `json:"content"`
		Type       string   `json:"type"`
		Importance *float64 `json:"importance"`
	}
	err := json.Unmarshal(raw, &e)
	if err == nil {
		err = itemText("content", e.Content, true, p.m.cfg.Limits.MaxContentBytes)
	}
	if err == nil {
		err = requiredImportance(e.Importance)
	}
	typ := EventType(e.Type)
	if typ == "" {
		typ = EventObservation
	}
	if err == nil && (typ.Validate() != nil || typ == EventDigest) {
		err = invalid("type", "unknown event type %q", e.Type)
	}
	if err != nil {
		return found{}, err
	}
	return found{typ: TypeEpisodic, content: strings.TrimSpace(*e.Content), event: typ, source: llmSource}, nil
}

// procedure reads an item of the list "procedures".
func (p *answerParser) procedure(raw json.RawMessage) (found, error) {
	lim := p.m.cfg.Limits
	var r struct {
		Name        *string  `json:"name"`
		Description *string  `json:"description"`
		Steps       *string  `json:"steps"`
		Tags        []string `json:"tags"`
	}
	err := json.Unmarshal(raw, &r)
	if err == nil {
		err = itemText("name", r.Name, true, 200)
	}
	if err == nil {
		err = itemText("description", r.Description, false, lim.MaxContentBytes)
	}
	if err == nil {
		err = itemText("steps", r.Steps, false, lim.MaxContentBytes)
	}
	if err == nil {
		err = validateTags("tags", r.Tags, lim)
	}
	if err != nil {
		return found{}, err
	}
	var desc, steps string
	if r.Description != nil {
		desc = *r.Description
	}
	if r.Steps != nil {
		steps = *r.Steps
	}
	return found{typ: TypeProcedural, content: strings.TrimSpace(desc), name: strings.TrimSpace(*r.Name),
		steps: steps, importance: 0.5, tags: r.Tags, source: llmSource}, nil
}

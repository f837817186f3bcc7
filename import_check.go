package engram

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/engram-go/engram/internal/store"
)

// A columnRule checks an imported column's value (not NULL; of the
// column's type, see decodeValue) as the store path of its table checks
// the field it comes from. The rules are by column name, shared by every
// table that has the column, or by "table.column" where a table's column
// means something else: a new kind whose columns are named as the other
// kinds' is checked with no new rule. A column with no rule is checked
// only for its type (and, as text, for UTF-8, NUL bytes and
// Limits.MaxContentBytes).
type columnRule func(m *Memory, field string, v any) error

// columnCheck returns the rule of table's column c.
func columnCheck(table, c string) columnRule {
	if r, ok := columnRules[table+"."+c]; ok {
		return r
	}
	if r, ok := columnRules[c]; ok {
		return r
	}
	return anyText
}

var columnRules = map[string]columnRule{
	"id":                           idRule(false),
	"source_id":                    idRule(false),
	"target_id":                    idRule(false),
	"merged_into":                  idRule(true),
	"task_id":                      idRule(true),
	"session_id":                   idRule(true),
	"session_snapshots.session_id": idRule(false),
	"extraction_rules.name":        idRule(false),
	"content":                      textRule(true, func(l Limits) int { return l.MaxContentBytes }),
	"summary":                      textRule(false, func(l Limits) int { return l.MaxContentBytes }),
	"description":                  textRule(false, func(l Limits) int { return l.MaxContentBytes }),
	"pattern":                      textRule(false, func(l Limits) int { return l.MaxContentBytes }),
	"source":                       textRule(false, func(l Limits) int { return l.MaxTagBytes }),
	"reason":                       textRule(true, func(l Limits) int { return l.MaxTagBytes }),
	"history.reason":               textRule(false, func(Limits) int { return maxActorBytes }),
	"history.actor":                lineRule(false, func(Limits) int { return maxActorBytes }),
	"history.at":                   timeRule,
	"name":                         lineRule(true, func(l Limits) int { return 4 * l.MaxTagBytes }),
	"subject":                      lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"predicate":                    lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"object":                       lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"extraction_rules.subject":     lineRule(false, func(l Limits) int { return l.MaxFactBytes }),
	"extraction_rules.predicate":   lineRule(false, func(l Limits) int { return l.MaxFactBytes }),
	"extraction_rules.object":      lineRule(false, func(l Limits) int { return l.MaxFactBytes }),
	"subject_key":                  lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"predicate_key":                lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"object_key":                   lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"alias_key":                    lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"entity_key":                   lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"alias":                        lineRule(true, func(l Limits) int { return l.MaxFactBytes }),
	"importance":                   unitRule,
	"success_rate":                 unitRule,
	"resonance":                    unitRule,
	"zettel_links.strength":        unitRule,
	"facts.strength":               func(_ *Memory, f string, v any) error { return rangeRule(f, v, 0, maxStrength, false) },
	"cost":                         func(_ *Memory, f string, v any) error { return rangeRule(f, v, 0, math.MaxFloat64, true) },
	"total_cost":                   func(_ *Memory, f string, v any) error { return rangeRule(f, v, 0, math.MaxFloat64, true) },
	"access_count":                 countRule,
	"use_count":                    countRule,
	"retrievals":                   countRule,
	"promoted_at_count":            countRule,
	"total_tokens":                 countRule,
	"duration_ns":                  countRule,
	"verified":                     boolRule,
	"disabled":                     boolRule,
	"active":                       boolRule,
	"created_at":                   timeRule,
	"updated_at":                   timeRule,
	"last_accessed_at":             timeRule,
	"started_at":                   timeRule,
	"ended_at":                     timeRule,
	"valid_from":                   timeRule,
	"valid_to":                     timeRule,
	"expired_at":                   timeRule,
	"archived_at":                  timeRule,
	"event_type":                   func(_ *Memory, f string, v any) error { return retag(f, EventType(v.(string)).Validate()) },
	"link_type":                    func(_ *Memory, f string, v any) error { return retag(f, LinkType(v.(string)).Validate()) },
	"source_type":                  endTypeRule,
	"target_type":                  endTypeRule,
	"extraction_rules.memory_type": anyText, // Rules' own check (checkRule)
	"tags":                         func(m *Memory, f string, v any) error { return listRule(m, f, v, true) },
	"merged_from":                  func(m *Memory, f string, v any) error { return listRule(m, f, v, false) },
	"key_decisions":                func(m *Memory, f string, v any) error { return listRule(m, f, v, false) },
	"task_ids":                     func(m *Memory, f string, v any) error { return listRule(m, f, v, false) },
	"sources":                      func(m *Memory, f string, v any) error { return listRule(m, f, v, false) },
	"metadata":                     metadataRule,
	"semantic_memory.metadata":     anyMetadataRule,
	"procedural_memory.metadata":   anyMetadataRule,
	"user_id":                      userRule,
	"messages":                     messagesRule,
	"row":                          func(*Memory, string, any) error { return nil }, // checked as a row (see importer.archived)
	"links":                        func(*Memory, string, any) error { return nil }, // checked as links
	"extraction_rules.pattern":     textRule(true, func(Limits) int { return 4096 }),
	"document_chunks.source":       lineRule(true, func(Limits) int { return maxDocumentSourceBytes }),
	"document_chunks.heading":      lineRule(false, func(l Limits) int { return l.MaxContentBytes }),
	"document_chunks.title":        textRule(false, func(l Limits) int { return l.MaxContentBytes }),
	"document_chunks.chunk":        countRule,
	"document_chunks.sources":      placesRule,
}

// userRule checks a memory's user: none, or a valid user ID.
func userRule(_ *Memory, f string, v any) error {
	s, ok := v.(string)
	if !ok {
		return invalid(f, "is not a string")
	}
	if s == "" {
		return nil
	}
	return validateUser(f, s)
}

// placesRule checks a document chunk's other places (see place).
func placesRule(m *Memory, f string, v any) error {
	s, ok := v.(string)
	if !ok {
		return invalid(f, "is not a string")
	}
	ps, err := decodePlaces(s)
	if err != nil {
		return invalid(f, "is not a list of places")
	}
	for i, p := range ps {
		switch {
		case validateText(f, p.Source, true, maxDocumentSourceBytes) != nil || strings.ContainsAny(p.Source, "\r\n"):
			return invalid(fmt.Sprintf("%s[%d].source", f, i), "is not a source")
		case validateText(f, p.Heading, false, m.cfg.Limits.MaxContentBytes) != nil:
			return invalid(fmt.Sprintf("%s[%d].heading", f, i), "is not a heading")
		case p.Index < 0:
			return invalid(fmt.Sprintf("%s[%d].chunk", f, i), "is negative")
		}
	}
	return nil
}

// retag names field in err, an *InvalidError of a Validate method.
func retag(field string, err error) error {
	if ie, ok := err.(*InvalidError); ok {
		return invalid(field, "%s", ie.Reason)
	}
	return err
}

func idRule(empty bool) columnRule {
	return func(_ *Memory, f string, v any) error {
		s, ok := v.(string)
		if !ok {
			return invalid(f, "is not a string")
		}
		if empty && s == "" {
			return nil
		}
		return validateID(f, s)
	}
}

func textRule(required bool, max func(Limits) int) columnRule {
	return func(m *Memory, f string, v any) error {
		s, ok := v.(string)
		if !ok {
			return invalid(f, "is not a string")
		}
		return validateText(f, s, required, max(m.cfg.Limits))
	}
}

// lineRule is textRule for text of one line.
func lineRule(required bool, max func(Limits) int) columnRule {
	text := textRule(required, max)
	return func(m *Memory, f string, v any) error {
		if err := text(m, f, v); err != nil {
			return err
		}
		if strings.ContainsAny(v.(string), "\r\n") {
			return invalid(f, "must be one line")
		}
		return nil
	}
}

// anyText checks a column no rule names: text is valid UTF-8 without NUL
// bytes, within Limits.MaxContentBytes.
func anyText(m *Memory, f string, v any) error {
	if s, ok := v.(string); ok {
		return validateText(f, s, false, m.cfg.Limits.MaxContentBytes)
	}
	return nil
}

func rangeRule(f string, v any, lo, hi float64, closedLo bool) error {
	x, ok := v.(float64)
	if !ok {
		return invalid(f, "is not a number")
	}
	if math.IsNaN(x) || x > hi || x < lo || x == lo && !closedLo {
		return invalid(f, "%v is out of range", x)
	}
	return nil
}

func unitRule(_ *Memory, f string, v any) error { return rangeRule(f, v, 0, 1, true) }

func countRule(_ *Memory, f string, v any) error {
	if n, ok := v.(int64); !ok || n < 0 {
		return invalid(f, "%v is not a non-negative integer", v)
	}
	return nil
}

func boolRule(_ *Memory, f string, v any) error {
	if n, ok := v.(int64); !ok || n != 0 && n != 1 {
		return invalid(f, "%v is not 0 or 1", v)
	}
	return nil
}

// timeRule checks a time in Unix milliseconds: within [MinTime, MaxTime],
// or the zero time.
func timeRule(_ *Memory, f string, v any) error {
	n, ok := v.(int64)
	if !ok || n != store.ZeroMS && (n < store.MS(MinTime) || n > store.MS(MaxTime)) {
		return invalid(f, "%v is not a time in Unix milliseconds within [%v, %v]", v, store.MS(MinTime), store.MS(MaxTime))
	}
	return nil
}

func endTypeRule(_ *Memory, f string, v any) error {
	t := MemoryType(v.(string))
	if k := kindOf(t); k == nil || !k.Linkable {
		return invalid(f, "%q is not a kind links may join", string(t))
	}
	return nil
}

// listRule checks a JSON list of strings: tags (within Limits.MaxTags and
// MaxTagBytes, one line each) or other texts (IDs, decisions, sources:
// each valid text within Limits.MaxContentBytes).
func listRule(m *Memory, f string, v any, tags bool) error {
	var list []string
	if err := json.Unmarshal([]byte(v.(string)), &list); err != nil || list == nil && v.(string) != "[]" {
		return invalid(f, "is not a list of strings")
	}
	if tags {
		return validateTags(f, list, m.cfg.Limits)
	}
	for i, s := range list {
		if err := validateText(fmt.Sprintf("%s[%d]", f, i), s, false, m.cfg.Limits.MaxContentBytes); err != nil {
			return err
		}
	}
	return nil
}

// metadataRule checks a JSON object of strings as encodeMetadata does.
func metadataRule(m *Memory, f string, v any) error {
	var md map[string]string
	if err := json.Unmarshal([]byte(v.(string)), &md); err != nil || md == nil {
		return invalid(f, "is not an object of strings")
	}
	_, err := encodeMetadata(f, md, m.cfg.Limits)
	return err
}

// messagesRule checks a snapshot's messages as SaveSnapshot does.
func messagesRule(m *Memory, f string, v any) error {
	s := v.(string)
	if len(s) > maxSnapshotBytes {
		return invalid(f, "is %d bytes, over the limit of %d", len(s), maxSnapshotBytes)
	}
	var msgs []Message
	if err := json.Unmarshal([]byte(s), &msgs); err != nil || msgs == nil && s != "[]" {
		return invalid(f, "is not a list of messages")
	}
	for i, msg := range msgs {
		if err := validateText(fmt.Sprintf("%s[%d].role", f, i), msg.Role, true, m.cfg.Limits.MaxTagBytes); err != nil {
			return err
		}
		if err := validateText(fmt.Sprintf("%s[%d].content", f, i), msg.Content, false, m.cfg.Limits.MaxContentBytes); err != nil {
			return err
		}
	}
	return nil
}

// checkMemory checks what concerns several columns of a memory's row.
func checkMemory(k *kind, v values) error {
	if _, ok := v["id"].(string); !ok {
		return invalid("row.id", "is missing")
	}
	for _, p := range [][2]string{{"started_at", "ended_at"}, {"valid_from", "valid_to"}} {
		from, ok1 := v[p[0]].(int64)
		to, ok2 := v[p[1]].(int64)
		if ok1 && ok2 && to < from {
			return invalid("row."+p[1], "%v is before %s (%v)", to, p[0], from)
		}
	}
	return nil
}

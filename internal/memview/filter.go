package memview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram"
)

// Filter is the JSON form of an [engram.Filter] that the servers take: in
// a request's body ("filter": {…}), in a tool's arguments, or made of a
// route's query parameters. Metadata is a condition tree (see
// [ParseMeta]).
type Filter struct {
	User     string              `json:"user_id,omitempty"`
	Session  string              `json:"session_id,omitempty"`
	Types    []engram.MemoryType `json:"types,omitempty"`
	Tags     []string            `json:"tags,omitempty"`
	Since    time.Time           `json:"since,omitzero"`
	Until    time.Time           `json:"until,omitzero"`
	Metadata json.RawMessage     `json:"metadata,omitempty"`
}

// FilterFields are the JSON names of engram.Filter's fields, by their Go
// names: what an error about a filter is renamed by.
var FilterFields = map[string]string{
	"UserID": "user_id", "SessionID": "session_id", "Types": "types", "Tags": "tags", "Since": "since", "Until": "until", "Metadata": "metadata",
}

// Engram returns the engram.Filter f stands for, validated, or nil when f
// filters nothing. prefix names f in errors ("filter" gives
// "filter.metadata.and[1].gt"; "" names its fields alone). Errors are an
// [*engram.InvalidError] whose Field is the JSON path of the bad part.
func (f Filter) Engram(prefix string) (*engram.Filter, error) {
	out := engram.Filter{UserID: f.User, SessionID: f.Session, Types: f.Types, Tags: f.Tags, Since: f.Since, Until: f.Until}
	if len(f.Metadata) > 0 && !bytes.Equal(bytes.TrimSpace(f.Metadata), []byte("null")) {
		c, err := ParseMeta(join(prefix, "metadata"), f.Metadata)
		if err != nil {
			return nil, err
		}
		out.Metadata = c
	}
	if err := out.Validate(); err != nil {
		if ie, ok := err.(*engram.InvalidError); ok {
			field := strings.TrimPrefix(ie.Field, "Filter.")
			name, rest, _ := strings.Cut(field, ".")
			name, idx, _ := strings.Cut(name, "[")
			if jf, ok := FilterFields[name]; ok {
				if idx != "" {
					jf += "[" + idx
				}
				if rest != "" {
					jf += "." + rest
				}
				return nil, &engram.InvalidError{Field: join(prefix, jf), Reason: ie.Reason}
			}
		}
		return nil, err
	}
	if out.IsZero() {
		return nil, nil
	}
	return &out, nil
}

// WithScope returns f with user and session (a tool's own arguments, or
// a route's) put in, or an [*engram.InvalidError] when f names another
// user or session already.
func (f Filter) WithScope(prefix, user, session string) (Filter, error) {
	for _, p := range []struct {
		name     string
		dst      *string
		given    string
		filtered string
	}{{"user_id", &f.User, user, f.User}, {"session_id", &f.Session, session, f.Session}} {
		if p.given == "" {
			continue
		}
		if p.filtered != "" && p.filtered != p.given {
			return f, &engram.InvalidError{Field: join(prefix, p.name),
				Reason: fmt.Sprintf("%q differs from %s %q: give one", p.filtered, p.name, p.given)}
		}
		*p.dst = p.given
	}
	return f, nil
}

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// metaOps are the comparisons of a condition tree's leaf, by JSON name.
var metaOps = []string{"eq", "ne", "in", "gt", "gte", "lt", "lte", "exists"}

// ParseMeta reads a metadata condition tree, the JSON form of an
// [engram.MetaCond]:
//
//	{"key": "lang", "eq": "go"}            and ne, gt, gte, lt, lte
//	{"key": "lang", "in": ["go", "rust"]}
//	{"key": "lang", "exists": true}        false: the key is missing
//	{"and": [cond, …]}, {"or": [cond, …]}, {"not": cond}
//
// A value compared is a string, a number or a bool. Errors are an
// [*engram.InvalidError] whose Field is the JSON path of the bad part
// under path ("filter.metadata.and[1].gt").
func ParseMeta(path string, raw json.RawMessage) (*engram.MetaCond, error) {
	n := 0
	return parseMeta(path, raw, 1, &n)
}

func metaErr(path, format string, args ...any) error {
	return &engram.InvalidError{Field: path, Reason: fmt.Sprintf(format, args...)}
}

func parseMeta(path string, raw json.RawMessage, depth int, n *int) (*engram.MetaCond, error) {
	if *n++; *n > engram.MaxMetaConds {
		return nil, metaErr(path, "is one condition more than the limit of %d", engram.MaxMetaConds)
	}
	var node map[string]json.RawMessage
	if err := json.Unmarshal(raw, &node); err != nil || node == nil {
		return nil, metaErr(path, `want a condition object: {"key": …, "eq": …}, {"and": […]}, {"or": […]} or {"not": …}`)
	}
	for _, comb := range []string{"and", "or", "not"} {
		if _, ok := node[comb]; ok {
			return parseComb(path, node, comb, depth, n)
		}
	}
	return parseLeaf(path, node)
}

// parseComb reads a node that combines conditions: comb ("and", "or" or
// "not") and nothing beside it.
func parseComb(path string, node map[string]json.RawMessage, comb string, depth int, n *int) (*engram.MetaCond, error) {
	if len(node) > 1 {
		return nil, metaErr(path, "%q combines conditions and takes nothing beside it, not %s", comb, others(node, comb))
	}
	if depth > engram.MaxMetaDepth {
		return nil, metaErr(path, "nests deeper than the limit of %d", engram.MaxMetaDepth)
	}
	if comb == "not" {
		c, err := parseMeta(path+".not", node[comb], depth+1, n)
		if err != nil {
			return nil, err
		}
		return engram.MetaNot(c), nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(node[comb], &list); err != nil || len(list) == 0 {
		return nil, metaErr(path+"."+comb, "want an array of at least one condition")
	}
	conds := make([]*engram.MetaCond, len(list))
	for i, s := range list {
		c, err := parseMeta(fmt.Sprintf("%s.%s[%d]", path, comb, i), s, depth+1, n)
		if err != nil {
			return nil, err
		}
		conds[i] = c
	}
	if comb == "and" {
		return engram.MetaAnd(conds...), nil
	}
	return engram.MetaOr(conds...), nil
}

// parseLeaf reads a condition on a key: "key" and one comparison.
func parseLeaf(path string, node map[string]json.RawMessage) (*engram.MetaCond, error) {
	rawKey, ok := node["key"]
	if !ok {
		return nil, metaErr(path, `want "key" and one of %s, or "and", "or" or "not"; got %s`, strings.Join(metaOps, ", "), others(node, ""))
	}
	var key string
	if err := json.Unmarshal(rawKey, &key); err != nil {
		return nil, metaErr(path+".key", "want a string")
	}
	var op string
	for name := range node {
		switch {
		case name == "key":
		case !slices.Contains(metaOps, name):
			return nil, metaErr(path+"."+name, "unknown; a condition on a key takes one of %s", strings.Join(metaOps, ", "))
		case op != "":
			return nil, metaErr(path, "takes one comparison, not %s and %s", min(op, name), max(op, name))
		default:
			op = name
		}
	}
	if op == "" {
		return nil, metaErr(path, "names key %q but no comparison: give one of %s", key, strings.Join(metaOps, ", "))
	}
	c, err := leafCond(path, key, op, node[op])
	if err != nil {
		return nil, err
	}
	leaf := c
	if op == "exists" && c.Op == engram.MetaOpNot {
		leaf = c.Conds[0]
	}
	if err := leaf.Validate(); err != nil {
		return nil, leafErr(path, op, err)
	}
	return c, nil
}

// leafCond returns the condition that key compares by op with raw.
func leafCond(path, key, op string, raw json.RawMessage) (*engram.MetaCond, error) {
	switch op {
	case "exists":
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, metaErr(path+".exists", "want true or false")
		}
		if !b {
			return engram.MetaNot(engram.MetaExists(key)), nil
		}
		return engram.MetaExists(key), nil
	case "in":
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, metaErr(path+".in", "want an array of strings, numbers or bools")
		}
		vals := make([]any, len(list))
		for i, v := range list {
			var err error
			if vals[i], err = metaValue(fmt.Sprintf("%s.in[%d]", path, i), v); err != nil {
				return nil, err
			}
		}
		return engram.MetaIn(key, vals...), nil
	}
	v, err := metaValue(path+"."+op, raw)
	if err != nil {
		return nil, err
	}
	return map[string]func(string, any) *engram.MetaCond{"eq": engram.MetaEq, "ne": engram.MetaNe, "gt": engram.MetaGt,
		"gte": engram.MetaGte, "lt": engram.MetaLt, "lte": engram.MetaLte}[op](key, v), nil
}

// leafErr names an error of engram.MetaCond.Validate about a leaf as the
// tree names its parts: "Metadata.Key", "Metadata.Value",
// "Metadata.Values[2]" and "Metadata" become path's ".key", "."+op,
// ".in[2]" and path.
func leafErr(path, op string, err error) error {
	ie, ok := err.(*engram.InvalidError)
	if !ok {
		return err
	}
	part := strings.TrimPrefix(ie.Field, "Metadata")
	switch {
	case part == ".Key":
		part = ".key"
	case part == ".Value":
		part = "." + op
	case strings.HasPrefix(part, ".Values"):
		part = ".in" + strings.TrimPrefix(part, ".Values")
	}
	return metaErr(path+part, "%s", ie.Reason)
}

// metaValue reads a value a condition compares with: a string, a number
// or a bool.
func metaValue(path string, raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, metaErr(path, "want a string, a number or a bool")
	}
	switch x := v.(type) {
	case string, bool:
		return x, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, metaErr(path, "%s is not a number a condition can compare", x)
		}
		return f, nil
	}
	return nil, metaErr(path, "want a string, a number or a bool, not %s", strings.TrimSpace(string(raw)))
}

// others lists the names of node's fields but skip, sorted.
func others(node map[string]json.RawMessage, skip string) string {
	var names []string
	for k := range node {
		if k != skip {
			names = append(names, fmt.Sprintf("%q", k))
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

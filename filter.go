package engram

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/store"
)

// Scopes and filters: every memory of an agent may belong to a user and a
// session of that agent and carry metadata, and one Filter type says which
// memories a search, a listing, a context block, a recall, an export or a
// count looks at.

// Filter narrows what [Memory.Search], [Memory.Context],
// [Memory.RecallWith], the listings ([MemoryQuery], [ListOptions]) and
// [Memory.Export]
// look at, below the agent. The zero value filters nothing; every field
// set must hold (AND). Where an options struct also has fields of its
// own of the same meaning (SearchOptions.Types, Tags, Since and Until),
// both apply.
//
// Semantic entries, episodes and procedures have a user, a session and
// metadata; snapshots have a session; facts have metadata; document
// chunks have none of them. A filter naming a user leaves out the kinds
// without a user, one naming a session those without a session, and one
// with metadata conditions those without metadata, as a tag filter leaves
// out the kinds without tags. The working set belongs to no user, session
// or metadata either: such a filter leaves it out too.
type Filter struct {
	// UserID keeps only the memories of this user (see [ValidateUserID]);
	// "" keeps every user's and those of none.
	UserID string
	// SessionID keeps only the memories of this session; "" keeps every
	// session's.
	SessionID string
	// Types keeps only memories of these kinds; empty means all of them.
	Types []MemoryType
	// Tags keeps only memories carrying at least one of these tags.
	Tags []string
	// Since and Until keep memories created in [Since, Until); a zero
	// value leaves that side open.
	Since, Until time.Time
	// Metadata is a condition on the memories' metadata (see
	// [MetaCond]); nil keeps all.
	Metadata *MetaCond
}

// clone returns a copy of f that shares no slice or condition with it.
func (f Filter) clone() Filter {
	f.Types, f.Tags = slices.Clone(f.Types), slices.Clone(f.Tags)
	f.Metadata = f.Metadata.clone()
	return f
}

// IsZero reports whether f filters nothing.
func (f Filter) IsZero() bool {
	return f.UserID == "" && f.SessionID == "" && len(f.Types) == 0 && len(f.Tags) == 0 &&
		f.Since.IsZero() && f.Until.IsZero() && f.Metadata == nil
}

// Validate returns an error matching [ErrInvalid] that names the first bad
// part of f ("Filter.UserID", "Filter.Metadata.Conds[1].Key", …), or nil.
// Tags are checked against the default [Limits]; the calls that take a
// Filter check them against their Memory's.
func (f Filter) Validate() error { return f.validate("Filter", DefaultConfig().Limits) }

func (f Filter) validate(field string, lim Limits) error {
	if f.UserID != "" {
		if err := validateUser(field+".UserID", f.UserID); err != nil {
			return err
		}
	}
	if f.SessionID != "" {
		if err := validateID(field+".SessionID", f.SessionID); err != nil {
			return err
		}
	}
	for i, t := range f.Types {
		if err := t.Validate(); err != nil {
			return invalid(fmt.Sprintf("%s.Types[%d]", field, i), "unknown memory type %q", string(t))
		}
	}
	if err := validateTags(field+".Tags", f.Tags, lim); err != nil {
		return err
	}
	if err := validateTime(field+".Since", f.Since); err != nil {
		return err
	}
	if err := validateTime(field+".Until", f.Until); err != nil {
		return err
	}
	if !f.Until.IsZero() && !f.Until.After(f.Since) {
		return invalid(field+".Until", "%v is not after Since (%v)", f.Until, f.Since)
	}
	if f.Metadata != nil {
		n := 0
		if err := f.Metadata.validate(field+".Metadata", 1, &n); err != nil {
			return err
		}
	}
	return nil
}

// userIDPattern is what a user ID may look like: as an agent ID.
var userIDPattern = agentIDPattern

// ValidateUserID returns an error matching [ErrInvalid] unless id is a
// valid user ID: as an agent ID (see [ValidateAgentID]), 1 to 128 ASCII
// letters, digits and '.', '_', '@', '+', '-', starting with a letter or
// digit. User IDs are case-sensitive.
func ValidateUserID(id string) error { return validateUser("user ID", id) }

func validateUser(field, id string) error {
	if !userIDPattern.MatchString(id) {
		return invalid(field, "%q must be 1 to 128 letters, digits and . _ @ + -, starting with a letter or digit", id)
	}
	return nil
}

// validateScope checks a memory's user and session as the write paths
// take them: either may be empty.
func validateScope(field, user, session string) error {
	name := func(f string) string { // made only for an error: a write pays nothing
		if field == "" {
			return f
		}
		return field + "." + f
	}
	if user != "" {
		if err := validateUser(name("UserID"), user); err != nil {
			return err
		}
	}
	if session != "" {
		if err := validateID(name("SessionID"), session); err != nil {
			return err
		}
	}
	return nil
}

// MetaOp is the operation of a [MetaCond].
type MetaOp string

// Metadata operations. The comparisons (Eq, Ne, In, Gt, Gte, Lt, Lte)
// compare the value of a top-level key of a memory's metadata with the
// condition's value(s): a string with strings, bytewise (so times in one
// fixed format, such as RFC 3339 in UTC, compare as times), a number with
// numbers, a bool (Eq, Ne and In only) with bools; a value of another type
// never matches. An episode's metadata holds strings only.
const (
	MetaOpEq     MetaOp = "eq"     // the key's value equals Value
	MetaOpNe     MetaOp = "ne"     // not Eq: the key is missing or holds another value
	MetaOpIn     MetaOp = "in"     // the key's value equals one of Values
	MetaOpGt     MetaOp = "gt"     // the key's value is greater than Value
	MetaOpGte    MetaOp = "gte"    // … greater than or equal to Value
	MetaOpLt     MetaOp = "lt"     // … less than Value
	MetaOpLte    MetaOp = "lte"    // … less than or equal to Value
	MetaOpExists MetaOp = "exists" // the key is present (null included)
	MetaOpAnd    MetaOp = "and"    // every one of Conds holds
	MetaOpOr     MetaOp = "or"     // at least one of Conds holds
	MetaOpNot    MetaOp = "not"    // the one condition of Conds does not hold
)

// MetaCond is a condition on a memory's metadata: a comparison of one
// top-level key (Op, Key and Value or Values) or a combination of
// conditions (MetaOpAnd, MetaOpOr, MetaOpNot with Conds). Build it with
// [MetaEq], [MetaIn], [MetaAnd] and the other constructors, or decode it
// from JSON ({"op": "eq", "key": "lang", "value": "go"}); any use
// validates it.
//
// A condition is bounded: at most [MaxMetaConds] conditions in all, nested
// at most [MaxMetaDepth] deep, an In of at most [MaxMetaValues] values.
// Keys are 1 to 64 ASCII letters, digits and '_', '-', '.', ':';
// values are strings (valid UTF-8 of at most 1 KiB), finite numbers (of
// any Go numeric type), bools or [time.Time] (compared as its RFC 3339
// text in UTC, as encoding/json writes a UTC time).
type MetaCond struct {
	Op     MetaOp      `json:"op"`
	Key    string      `json:"key,omitempty"`
	Value  any         `json:"value,omitzero"`
	Values []any       `json:"values,omitempty"`
	Conds  []*MetaCond `json:"conds,omitempty"`
}

// Bounds of a [MetaCond].
const (
	MaxMetaConds  = 64  // conditions in all, combinations included
	MaxMetaDepth  = 8   // nesting of combinations
	MaxMetaValues = 100 // values of one In
)

// maxMetaValueBytes bounds a string a condition compares with.
const maxMetaValueBytes = 1024

// MetaEq is the condition that metadata key holds v.
func MetaEq(key string, v any) *MetaCond { return &MetaCond{Op: MetaOpEq, Key: key, Value: v} }

// MetaNe is the condition that metadata key does not hold v (or is missing).
func MetaNe(key string, v any) *MetaCond { return &MetaCond{Op: MetaOpNe, Key: key, Value: v} }

// MetaIn is the condition that metadata key holds one of vs.
func MetaIn(key string, vs ...any) *MetaCond {
	return &MetaCond{Op: MetaOpIn, Key: key, Values: slices.Clone(vs)}
}

// MetaGt is the condition that metadata key holds a value greater than v.
func MetaGt(key string, v any) *MetaCond { return &MetaCond{Op: MetaOpGt, Key: key, Value: v} }

// MetaGte is the condition that metadata key holds a value of at least v.
func MetaGte(key string, v any) *MetaCond { return &MetaCond{Op: MetaOpGte, Key: key, Value: v} }

// MetaLt is the condition that metadata key holds a value less than v.
func MetaLt(key string, v any) *MetaCond { return &MetaCond{Op: MetaOpLt, Key: key, Value: v} }

// MetaLte is the condition that metadata key holds a value of at most v.
func MetaLte(key string, v any) *MetaCond { return &MetaCond{Op: MetaOpLte, Key: key, Value: v} }

// MetaExists is the condition that metadata has key.
func MetaExists(key string) *MetaCond { return &MetaCond{Op: MetaOpExists, Key: key} }

// MetaAnd is the condition that every one of conds holds.
func MetaAnd(conds ...*MetaCond) *MetaCond {
	return &MetaCond{Op: MetaOpAnd, Conds: slices.Clone(conds)}
}

// MetaOr is the condition that at least one of conds holds.
func MetaOr(conds ...*MetaCond) *MetaCond {
	return &MetaCond{Op: MetaOpOr, Conds: slices.Clone(conds)}
}

// MetaNot is the condition that c does not hold.
func MetaNot(c *MetaCond) *MetaCond { return &MetaCond{Op: MetaOpNot, Conds: []*MetaCond{c}} }

// clone returns a deep copy of c.
func (c *MetaCond) clone() *MetaCond {
	if c == nil {
		return nil
	}
	out := *c
	out.Values = slices.Clone(c.Values)
	if c.Conds != nil {
		out.Conds = make([]*MetaCond, len(c.Conds))
		for i, sub := range c.Conds {
			out.Conds[i] = sub.clone()
		}
	}
	return &out
}

// metaKeyPattern is what a metadata key a condition names may look like
// (and a top-level key of a semantic entry's or procedure's metadata).
var metaKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// Validate returns an error matching [ErrInvalid] that names the first bad
// part of c ("Metadata.Conds[0].Value", …), or nil.
func (c *MetaCond) Validate() error {
	n := 0
	return c.validate("Metadata", 1, &n)
}

// validate checks c at the given depth; n counts the conditions seen.
func (c *MetaCond) validate(field string, depth int, n *int) error {
	if c == nil {
		return invalid(field, "is nil")
	}
	if *n++; *n > MaxMetaConds {
		return invalid(field, "is one condition more than the limit of %d", MaxMetaConds)
	}
	switch c.Op {
	case MetaOpAnd, MetaOpOr, MetaOpNot:
		return c.validateGroup(field, depth, n)
	case MetaOpEq, MetaOpNe, MetaOpIn, MetaOpGt, MetaOpGte, MetaOpLt, MetaOpLte, MetaOpExists:
		return c.validateLeaf(field)
	case "":
		return invalid(field+".Op", "is empty")
	}
	return invalid(field+".Op", "unknown operation %q", string(c.Op))
}

// validateGroup checks an And, Or or Not and the conditions in it.
func (c *MetaCond) validateGroup(field string, depth int, n *int) error {
	if depth > MaxMetaDepth {
		return invalid(field, "nests deeper than the limit of %d", MaxMetaDepth)
	}
	if c.Key != "" || c.Value != nil || c.Values != nil {
		return invalid(field, "%q takes Conds only, not Key, Value or Values", c.Op)
	}
	if c.Op == MetaOpNot && len(c.Conds) != 1 {
		return invalid(field+".Conds", "%q takes one condition, not %d", c.Op, len(c.Conds))
	}
	if len(c.Conds) == 0 {
		return invalid(field+".Conds", "%q needs at least one condition", c.Op)
	}
	for i, sub := range c.Conds {
		if err := sub.validate(fmt.Sprintf("%s.Conds[%d]", field, i), depth+1, n); err != nil {
			return err
		}
	}
	return nil
}

// validateLeaf checks a comparison of one key.
func (c *MetaCond) validateLeaf(field string) error {
	if !metaKeyPattern.MatchString(c.Key) {
		return invalid(field+".Key", "%q must be 1 to 64 letters, digits and _ - . :", c.Key)
	}
	if c.Conds != nil {
		return invalid(field+".Conds", "%q takes no conditions", c.Op)
	}
	switch c.Op {
	case MetaOpExists:
		if c.Value != nil || c.Values != nil {
			return invalid(field, "%q takes a Key only", c.Op)
		}
	case MetaOpIn:
		if c.Value != nil {
			return invalid(field+".Value", "%q takes Values, not Value", c.Op)
		}
		if len(c.Values) == 0 || len(c.Values) > MaxMetaValues {
			return invalid(field+".Values", "has %d values, not 1 to %d", len(c.Values), MaxMetaValues)
		}
		for i, v := range c.Values {
			if _, err := metaValue(fmt.Sprintf("%s.Values[%d]", field, i), v, false); err != nil {
				return err
			}
		}
	default:
		if c.Values != nil {
			return invalid(field+".Values", "%q takes Value, not Values", c.Op)
		}
		ordered := c.Op != MetaOpEq && c.Op != MetaOpNe
		if _, err := metaValue(field+".Value", c.Value, ordered); err != nil {
			return err
		}
	}
	return nil
}

// metaValue returns the value v a condition compares with as SQL takes
// it (a string, a float64, or a bool), or an error matching ErrInvalid;
// ordered says the comparison orders values, which bools are not.
func metaValue(field string, v any, ordered bool) (any, error) {
	var f float64
	switch x := v.(type) {
	case nil:
		return nil, invalid(field, "is missing")
	case string:
		if !utf8.ValidString(x) || strings.IndexByte(x, 0) >= 0 || len(x) > maxMetaValueBytes {
			return nil, invalid(field, "must be valid UTF-8 without NUL of at most %d bytes", maxMetaValueBytes)
		}
		return x, nil
	case time.Time:
		if err := validateTime(field, x); err != nil {
			return nil, err
		}
		return x.UTC().Format(time.RFC3339Nano), nil
	case bool:
		if ordered {
			return nil, invalid(field, "a bool has no order")
		}
		return x, nil
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		f = reflect.ValueOf(x).Convert(reflect.TypeFor[float64]()).Float()
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return nil, invalid(field, "%q is not a number", string(x))
		}
	default:
		return nil, invalid(field, "has a type (%T) a condition cannot compare; use a string, number, bool or time.Time", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, invalid(field, "%v is not a finite number", f)
	}
	return f, nil
}

// stored returns c (validated) as the store takes it: its values as
// metaValue makes them.
func (c *MetaCond) stored() *store.MetaCond {
	if c == nil {
		return nil
	}
	out := &store.MetaCond{Op: string(c.Op), Key: c.Key}
	if c.Value != nil {
		out.Value, _ = metaValue("", c.Value, false)
	}
	if c.Values != nil {
		out.Values = make([]any, len(c.Values))
		for i, v := range c.Values {
			out.Values[i], _ = metaValue("", v, false)
		}
	}
	if c.Conds != nil {
		out.Conds = make([]*store.MetaCond, len(c.Conds))
		for i, sub := range c.Conds {
			out.Conds[i] = sub.stored()
		}
	}
	return out
}

// scope is a validated Filter, ready for SQL: what a query adds to its
// agent's condition.
type scope struct {
	kinds        []MemoryType
	tags         string // a JSON list, or ""
	since, until int64  // Unix ms; until is math.MaxInt64 when open
	user         string
	session      string
	meta         *store.MetaCond
	dialect      store.Dialect // of the engine the conditions run on
}

// newScope compiles a validated filter, for an engine of dialect d.
func newScope(f Filter, d store.Dialect) scope {
	sc := scope{kinds: slices.Clone(f.Types), since: store.MS(f.Since), until: math.MaxInt64,
		user: f.UserID, session: f.SessionID, meta: f.Metadata.stored(), dialect: d}
	if !f.Until.IsZero() {
		sc.until = store.MS(f.Until)
	}
	if len(f.Tags) > 0 {
		b, _ := json.Marshal(f.Tags)
		sc.tags = string(b)
	}
	return sc
}

// admits reports whether the scope may hold memories of kind k: one of its
// kinds, with every column its conditions read.
func (sc *scope) admits(k *kind) bool {
	return sc.admitsType(k.typ) && (sc.tags == "" || k.Tagged) && (sc.user == "" || k.UserCol != "") &&
		(sc.session == "" || k.SessionCol != "") && (sc.meta == nil || k.MetaCol != "")
}

// admitsKind is admits for a scope that may be nil (no filter).
func (sc *scope) admitsKind(k *kind) bool { return sc == nil || sc.admits(k) }

// admitsType reports whether the scope's kinds hold t.
func (sc *scope) admitsType(t MemoryType) bool {
	return len(sc.kinds) == 0 || slices.Contains(sc.kinds, t)
}

// empty reports whether the scope keeps every row of a kind it admits.
func (sc *scope) empty() bool {
	return sc.tags == "" && sc.since <= store.ZeroMS && sc.until == math.MaxInt64 && sc.user == "" && sc.session == "" && sc.meta == nil
}

// byRow reports whether the scope has conditions beyond the user and the
// session, which the in-memory text index does not hold.
func (sc *scope) byRow() bool {
	return sc.tags != "" || sc.since > store.ZeroMS || sc.until != math.MaxInt64 || sc.meta != nil
}

// where returns the SQL condition that the row of kind k (which the scope
// admits) named alias is in the scope, with its arguments numbered from
// base: "1" when it keeps every row (see store.Scope.Where).
func (sc *scope) where(k *kind, alias string, base int) (string, []any) {
	return sc.stored().Where(k.Kind, alias, base)
}

// storedOrNil is stored for a scope that may be nil (no filter).
func (sc *scope) storedOrNil() *store.Scope {
	if sc == nil {
		return nil
	}
	s := sc.stored()
	return &s
}

// stored returns the scope as the store takes it.
func (sc *scope) stored() store.Scope {
	return store.Scope{User: sc.user, Session: sc.session, Since: sc.since, Until: sc.until, Tags: sc.tags, Meta: sc.meta, Dialect: sc.dialect}
}

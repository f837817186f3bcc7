package memview_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// TestParseMeta: every form of the condition tree reads as the engram
// condition it names.
func TestParseMeta(t *testing.T) {
	for tree, want := range map[string]*engram.MetaCond{
		`{"key": "lang", "eq": "go"}`:                 engram.MetaEq("lang", "go"),
		`{"key": "n", "ne": 3}`:                       engram.MetaNe("n", 3.0),
		`{"key": "pinned", "eq": true}`:               engram.MetaEq("pinned", true),
		`{"key": "lang", "in": ["go", 2, false]}`:     engram.MetaIn("lang", "go", 2.0, false),
		`{"key": "n", "gt": 1.5}`:                     engram.MetaGt("n", 1.5),
		`{"key": "n", "gte": 1}`:                      engram.MetaGte("n", 1.0),
		`{"key": "at", "lt": "2026-01-01T00:00:00Z"}`: engram.MetaLt("at", "2026-01-01T00:00:00Z"),
		`{"key": "n", "lte": -2}`:                     engram.MetaLte("n", -2.0),
		`{"key": "n", "exists": true}`:                engram.MetaExists("n"),
		`{"key": "n", "exists": false}`:               engram.MetaNot(engram.MetaExists("n")),
		`{"not": {"key": "a", "eq": "b"}}`:            engram.MetaNot(engram.MetaEq("a", "b")),
		`{"and": [{"key": "a", "eq": "b"}, {"or": [{"key": "c", "gt": 1}, {"key": "d", "exists": true}]}]}`: engram.MetaAnd(
			engram.MetaEq("a", "b"), engram.MetaOr(engram.MetaGt("c", 1.0), engram.MetaExists("d"))),
	} {
		got, err := memview.ParseMeta("metadata", json.RawMessage(tree))
		require.NoError(t, err, tree)
		assert.Equal(t, want, got, tree)
	}
}

// TestParseMetaNamesTheBadPart: a bad tree is an invalid-input error
// whose field is the JSON path of the bad part.
func TestParseMetaNamesTheBadPart(t *testing.T) {
	deep := `{"key": "a", "eq": 1}`
	for range engram.MaxMetaDepth + 1 {
		deep = `{"not": ` + deep + `}`
	}
	many := strings.Repeat(`{"key": "a", "eq": 1}, `, engram.MaxMetaConds)
	for tree, field := range map[string]string{
		`[]`:                                           "f.metadata",
		`{}`:                                           "f.metadata",
		`{"key": "a"}`:                                 "f.metadata",
		`{"key": 1, "eq": 1}`:                          "f.metadata.key",
		`{"key": "a b", "eq": 1}`:                      "f.metadata.key",
		`{"key": "a", "like": "b"}`:                    "f.metadata.like",
		`{"key": "a", "eq": 1, "ne": 2}`:               "f.metadata",
		`{"key": "a", "eq": null}`:                     "f.metadata.eq",
		`{"key": "a", "eq": [1]}`:                      "f.metadata.eq",
		`{"key": "a", "gt": true}`:                     "f.metadata.gt",
		`{"key": "a", "in": []}`:                       "f.metadata.in",
		`{"key": "a", "in": "x"}`:                      "f.metadata.in",
		`{"key": "a", "in": [1, {}]}`:                  "f.metadata.in[1]",
		`{"key": "a", "exists": "yes"}`:                "f.metadata.exists",
		`{"and": []}`:                                  "f.metadata.and",
		`{"and": [{"key": "a", "eq": 1}, {}]}`:         "f.metadata.and[1]",
		`{"or": [{"not": {"key": "a", "lt": false}}]}`: "f.metadata.or[0].not.lt",
		`{"and": [{"key": "a", "eq": 1}], "key": "b"}`: "f.metadata",
		deep:                        "f.metadata" + strings.Repeat(".not", engram.MaxMetaDepth),
		`{"and": [` + many + `{}]}`: "f.metadata.and[63]",
	} {
		_, err := memview.ParseMeta("f.metadata", json.RawMessage(tree))
		var ie *engram.InvalidError
		require.ErrorAs(t, err, &ie, tree)
		assert.Equal(t, field, ie.Field, "%s: %v", tree, err)
	}
}

// TestFilterEngram: the JSON filter is the engram filter, validated and
// named by its JSON fields; one that filters nothing is nil.
func TestFilterEngram(t *testing.T) {
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f, err := memview.Filter{User: "u1", Session: "s1", Types: []engram.MemoryType{engram.TypeSemantic}, Tags: []string{"x"},
		Since: since, Metadata: json.RawMessage(`{"key": "lang", "eq": "go"}`)}.Engram("filter")
	require.NoError(t, err)
	assert.Equal(t, &engram.Filter{UserID: "u1", SessionID: "s1", Types: []engram.MemoryType{engram.TypeSemantic}, Tags: []string{"x"},
		Since: since, Metadata: engram.MetaEq("lang", "go")}, f)
	f, err = memview.Filter{Metadata: json.RawMessage(`null`)}.Engram("filter")
	require.NoError(t, err)
	assert.Nil(t, f)

	for field, bad := range map[string]memview.Filter{
		"filter.user_id":            {User: "no spaces"},
		"filter.session_id":         {Session: strings.Repeat("s", 300)},
		"filter.types[0]":           {Types: []engram.MemoryType{"notes"}},
		"filter.until":              {Since: since, Until: since},
		"filter.metadata.and[0].eq": {Metadata: json.RawMessage(`{"and": [{"key": "a", "eq": {}}]}`)},
	} {
		_, err := bad.Engram("filter")
		var ie *engram.InvalidError
		require.ErrorAs(t, err, &ie, field)
		assert.Equal(t, field, ie.Field)
	}

	scoped, err := memview.Filter{User: "u1"}.WithScope("", "u1", "s1")
	require.NoError(t, err)
	assert.Equal(t, memview.Filter{User: "u1", Session: "s1"}, scoped)
	_, err = memview.Filter{User: "u1"}.WithScope("filter", "u2", "")
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "filter.user_id", ie.Field)
}

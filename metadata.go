package engram

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The metadata of semantic entries and procedures: a JSON object that a
// [Filter]'s [MetaCond] can select on.

// Bounds of a semantic entry's or procedure's Metadata.
const (
	// MaxMetadataBytes bounds the metadata as JSON.
	MaxMetadataBytes = 16 << 10
	// MaxMetadataDepth bounds how deep objects and lists nest in it, the
	// metadata itself being depth 1.
	MaxMetadataDepth = 4
)

// encodeAnyMetadata validates a semantic entry's or procedure's metadata
// and returns it as JSON ("{}" when empty). Its top-level keys are at
// most maxMetadataKeys and each as a condition's key (see MetaCond); the
// keys of nested objects are valid UTF-8 of 1 to 64 bytes. Values are
// nil, strings (valid UTF-8 without NUL), bools, finite numbers,
// time.Time (written as RFC 3339 in UTC), and lists and objects of them
// ([]any, []string, map[string]any, map[string]string).
func encodeAnyMetadata(field string, md map[string]any) (string, error) {
	if len(md) == 0 {
		return "{}", nil
	}
	if len(md) > maxMetadataKeys {
		return "", invalid(field, "has %d keys, over the limit of %d", len(md), maxMetadataKeys)
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		if !metaKeyPattern.MatchString(k) {
			return "", invalid(field, "key %q must be 1 to 64 letters, digits and _ - . :", k)
		}
		if err := checkMetaValue(field+"["+k+"]", md[k], 2); err != nil {
			return "", err
		}
	}
	b, err := json.Marshal(normalMeta(md))
	if err != nil {
		return "", invalid(field, "%v", err)
	}
	if len(b) > MaxMetadataBytes {
		return "", invalid(field, "is %d bytes of JSON, over the limit of %d", len(b), MaxMetadataBytes)
	}
	return string(b), nil
}

// checkMetaList checks the n values of a list of metadata at the given
// depth, the i-th being at(i).
func checkMetaList(field string, n int, at func(int) any, depth int) error {
	if depth > MaxMetadataDepth {
		return invalid(field, "nests deeper than %d", MaxMetadataDepth)
	}
	for i := range n {
		if err := checkMetaValue(fmt.Sprintf("%s[%d]", field, i), at(i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkMetaValue checks a value of metadata at the given depth.
func checkMetaValue(field string, v any, depth int) error {
	switch x := v.(type) {
	case nil, bool:
		return nil
	case string:
		if !utf8.ValidString(x) || strings.IndexByte(x, 0) >= 0 {
			return invalid(field, "is not valid UTF-8 without NUL")
		}
		return nil
	case time.Time:
		return validateTime(field, x)
	case []string:
		return checkMetaList(field, len(x), func(i int) any { return x[i] }, depth)
	case []any:
		return checkMetaList(field, len(x), func(i int) any { return x[i] }, depth)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return checkMetaValue(field, m, depth)
	case map[string]any:
		if depth > MaxMetadataDepth {
			return invalid(field, "nests deeper than %d", MaxMetadataDepth)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k == "" || len(k) > 64 || !utf8.ValidString(k) || strings.IndexByte(k, 0) >= 0 {
				return invalid(field, "key %q must be valid UTF-8 of 1 to 64 bytes", k)
			}
			if err := checkMetaValue(field+"["+k+"]", x[k], depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := metaValue(field, v, false) // numbers
	return err
}

// normalMeta returns a checked value with its times as RFC 3339 text in
// UTC, so that the JSON holds what a condition compares with.
func normalMeta(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalMeta(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalMeta(e)
		}
		return out
	}
	return v
}

// decodeAnyMetadata decodes metadata as stored: nil for none. Numbers
// come back as float64, lists as []any, objects as map[string]any.
func decodeAnyMetadata(s string) (map[string]any, error) {
	if s == "" || s == "{}" {
		return nil, nil
	}
	var md map[string]any
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	if err := d.Decode(&md); err != nil {
		return nil, fmt.Errorf("decoding metadata: %w", err)
	}
	return md, nil
}

// anyMetadataRule checks a semantic entry's or procedure's metadata in an
// import as the write paths do.
func anyMetadataRule(_ *Memory, f string, v any) error {
	md, err := decodeAnyMetadata(v.(string))
	if err != nil || md == nil && v.(string) != "{}" {
		return invalid(f, "is not an object")
	}
	_, err = encodeAnyMetadata(f, md)
	return err
}

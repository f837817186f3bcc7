package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// MS encodes a time as Unix milliseconds. Every time engram stores is in
// [engram.MinTime, engram.MaxTime], where this cannot overflow; the zero
// time, which stands for "unset", encodes as its own Unix milliseconds
// (those of year 1), so it never meets the Unix epoch, which is 0.
func MS(t time.Time) int64 { return t.UnixMilli() }

// ZeroMS is the zero time's encoding.
var ZeroMS = time.Time{}.UnixMilli()

// FromMS decodes Unix milliseconds as a UTC time, and ZeroMS as the zero
// time.
func FromMS(v int64) time.Time {
	if v == ZeroMS {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// EncodeTags encodes a list of tags as a JSON array ("[]" for none).
func EncodeTags(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags) // a []string always marshals
	return string(b)
}

// DecodeTags decodes what EncodeTags made; it returns an error when s is
// not a JSON array of strings.
func DecodeTags(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var tags []string
	if err := json.Unmarshal([]byte(s), &tags); err != nil {
		return nil, fmt.Errorf("decoding tags: %w", err)
	}
	return tags, nil
}

// JSONSet runs query, which returns one row holding a JSON list of
// strings (one row costs less than a row each), and returns the strings.
// Errors are the driver's, or a decoding error when the row is not a
// JSON list of strings.
func JSONSet(q Querier, query string, args ...any) (map[string]bool, error) {
	var list string
	if err := q.QueryRow(query, args, &list); err != nil {
		return nil, err
	}
	var got []string
	if err := json.Unmarshal([]byte(list), &got); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(got))
	for _, s := range got {
		out[s] = true
	}
	return out, nil
}

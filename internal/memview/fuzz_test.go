package memview

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/engram-go/engram"
)

// FuzzParseMeta reads any bytes as the JSON of a metadata condition, as
// every transport takes it: it never panics; what it accepts engram
// accepts too (a valid condition); what it refuses is refused with an
// error matching engram.ErrInvalid.
func FuzzParseMeta(f *testing.F) {
	for _, seed := range []string{
		`{"key":"lang","eq":"go"}`, `{"key":"n","gt":3}`, `{"key":"t","in":["a","b"]}`, `{"key":"x","exists":false}`,
		`{"and":[{"key":"a","ne":true},{"or":[{"key":"b","lte":2.5},{"not":{"key":"c","exists":true}}]}]}`,
		`{"key":"a"}`, `{"and":[]}`, `{"not":[1]}`, `{"key":"bad key","eq":1}`, `[]`, `null`, `{"key":"a","eq":{"x":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		c, err := ParseMeta("metadata", json.RawMessage(data))
		if err != nil {
			if !errors.Is(err, engram.ErrInvalid) {
				t.Fatalf("ParseMeta(%s): %v does not match ErrInvalid", data, err)
			}
			return
		}
		if c == nil {
			t.Fatalf("ParseMeta(%s): no condition and no error", data)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseMeta(%s) accepted a condition engram refuses: %v", data, err)
		}
	})
}

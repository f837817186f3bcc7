package engram

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzPatchFields gives the history's reader of JSON objects (which
// splits them without encoding/json) arbitrary bytes: it never panics,
// and on two JSON objects it answers the object encoding/json would make
// of the fields with the old values in place: every member of fields,
// old's value where old has one, and old's members fields lacks.
func FuzzPatchFields(f *testing.F) {
	f.Add(`{"id":"a","content":"new","importance":0.5}`, `{"content":"old"}`)
	f.Add(`{"tags":["x","y"],"metadata":{"k":[1,{"a":"}"}]}}`, `{"tags":[],"gone":null}`)
	f.Add(`{ "a" : "\"}" , "b":true }`, `{}`)
	f.Add(`{"a":1}`, `not json`)
	f.Add(`{"a":1`, `{"a":2}`)
	f.Fuzz(func(t *testing.T, fields, old string) {
		got, err := patchFields(json.RawMessage(fields), json.RawMessage(old))
		var fm, om map[string]any
		if json.Unmarshal([]byte(fields), &fm) != nil || json.Unmarshal([]byte(old), &om) != nil {
			return // not two objects: an error or a guess, but no panic
		}
		fms, err1 := jsonMembers([]byte(fields))
		oms, err2 := jsonMembers([]byte(old))
		if err1 != nil || err2 != nil {
			t.Fatalf("jsonMembers refuses an object encoding/json reads: %v, %v", err1, err2)
		}
		if len(fms) != len(fm) || len(oms) != len(om) {
			return // a repeated key: encoding/json keeps the last, the history never writes one
		}
		if err != nil {
			t.Fatalf("patchFields(%s, %s): %v", fields, old, err)
		}
		want := map[string]any{}
		for k, v := range fm {
			want[k] = v
		}
		for k, v := range om {
			want[k] = v
		}
		var gm map[string]any
		if err := json.Unmarshal(got, &gm); err != nil {
			t.Fatalf("patchFields(%s, %s) = %s, not JSON: %v", fields, old, got, err)
		}
		if !reflect.DeepEqual(gm, want) {
			t.Fatalf("patchFields(%s, %s) = %s, want %v", fields, old, got, want)
		}
	})
}

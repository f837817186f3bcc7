package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

const head = `{"type":"header","format":"engram-export","version":1,"engram":"x","schema":7,"agent":"a","tier":1,"time":"t"}` + "\n"

// TestAppendStringIsJSON writes strings as encoding/json reads them back.
func TestAppendStringIsJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" and \\ back", "ctl \x00\x01\x1f\n\r\t", "ünï 日本 🎉", "sep \u2028\u2029", "bad \xff\xfe utf8"} {
		b := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, b, err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if s == "bad \xff\xfe utf8" {
			want = "bad \uFFFD\uFFFD utf8"
		}
		if got != want {
			t.Errorf("%q: read back as %q", s, got)
		}
		if bytes.ContainsAny(b, "\n\r") {
			t.Errorf("%q: %s holds a line break", s, b)
		}
	}
}

// TestRowFloatsReadBackExactly writes numbers so that they read back as
// the same float64.
func TestRowFloatsReadBackExactly(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 1.0 / 3, 1e-300, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.10000000000100001} {
		var r Row
		r.Float("f", f)
		var got map[string]float64
		if err := json.Unmarshal(r.Bytes(), &got); err != nil {
			t.Fatalf("%v: %s: %v", f, r.Bytes(), err)
		}
		if got["f"] != f {
			t.Errorf("%v read back as %v", f, got["f"])
		}
	}
}

// TestObjectFindsDuplicateKeys finds a key given twice in a small object
// and in a large one (where it stops comparing every pair of keys).
func TestObjectFindsDuplicateKeys(t *testing.T) {
	for _, n := range []int{3, 31, 32, 33, 5000} {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		ok := b.String()
		fs, err := Object([]byte(strings.TrimSuffix(ok, ",") + "}"))
		if err != nil || len(fs) != n {
			t.Fatalf("%d keys: %d fields, %v", n, len(fs), err)
		}
		if _, err := Object([]byte(ok + `"k1":"again"}`)); err == nil {
			t.Errorf("%d keys: a key twice is not refused", n+1)
		}
	}
	for _, bad := range []string{``, `[]`, `"s"`, `{"a":1} {}`, `{"a":1`, `{"a" 1}`, `{'a':1}`} {
		if _, err := Object([]byte(bad)); err == nil {
			t.Errorf("%q is not refused", bad)
		}
	}
}

// TestWriterReaderRoundTrip reads back what a writer wrote.
func TestWriterReaderRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Header(Header{Engram: "x", Schema: 7, Agent: "a", Tier: 1, Time: "t"}); err != nil {
		t.Fatal(err)
	}
	var r Row
	r.String("id", "m1")
	r.Int("n", 3)
	r.Null("z")
	if err := r.Raw("tags", []byte(` [ "a" , "b" ] `)); err != nil {
		t.Fatal(err)
	}
	if err := w.Record(TypeMemory, "semantic", &r); err != nil {
		t.Fatal(err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), head) {
		t.Fatalf("header:\n%s", b.String())
	}
	rd := NewReader(&b, 1<<20)
	if _, err := rd.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	tags, _ := rec.Row.Get("tags")
	z, _ := rec.Row.Get("z")
	if rec.Type != TypeMemory || rec.Kind != "semantic" || rec.Line != 2 || string(tags) != `["a","b"]` || string(z) != "null" {
		t.Fatalf("read %+v", rec)
	}
	if _, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last record: %v", err)
	}
}

// TestReaderRefuses is the reader's table of malformed files: each is
// refused with an *Error naming its line.
func TestReaderRefuses(t *testing.T) {
	rec := `{"type":"link","row":{"source_type":"a","source_id":"b","target_type":"c","target_id":"d","link_type":"e"}}` + "\n"
	for _, c := range []struct {
		name, file string
		line       int
	}{
		{"long line", head + `{"type":"memory","kind":"k","row":{"id":"` + strings.Repeat("x", 200) + `"}}` + "\n", 2},
		{"long header", strings.Repeat(" ", 300) + head, 1},
		{"missing kind", head + `{"type":"memory","row":{"id":"x"}}` + "\n", 2},
		{"kind where none", head + `{"type":"link","kind":"k","row":{}}` + "\n", 2},
		{"no row", head + `{"type":"rule"}` + "\n", 2},
		{"row not an object", head + `{"type":"rule","row":[1]}` + "\n", 2},
		{"key not a string", head + `{"type":"rule","row":{"name":5}}` + "\n", 2},
		{"key missing", head + `{"type":"rule","row":{"pattern":"x"}}` + "\n", 2},
		{"duplicate link", head + rec + rec, 3},
		{"duplicate by escape", head + `{"type":"memory","kind":"k","row":{"id":"ab"}}` + "\n" + `{"type":"memory","kind":"k","row":{"id":"a\u0062"}}` + "\n", 3},
		{"unknown field", head + `{"type":"rule","row":{"name":"r"},"extra":1}` + "\n", 2},
		{"history reserved", head + `{"type":"history","row":{}}` + "\n", 2},
		{"end with a kind", head + `{"type":"end","kind":"k","records":0}` + "\n", 2},
		{"records on a record", head + `{"type":"rule","row":{"name":"r"},"records":1}` + "\n", 2},
		{"two headers", head + head, 2},
		{"CRLF line ends are whitespace: then no end", head + strings.TrimSuffix(rec, "\n") + "\r\n", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(c.file), 150)
			_, err := rd.ReadHeader()
			for err == nil {
				_, err = rd.Next()
			}
			var e *Error
			if !errors.As(err, &e) || e.Line != c.line {
				t.Fatalf("got %v, want an *Error at line %d", err, c.line)
			}
		})
	}
	// The same key in two kinds, or of two types, is no duplicate.
	ok := head + `{"type":"memory","kind":"a","row":{"id":"x"}}` + "\n" + `{"type":"memory","kind":"b","row":{"id":"x"}}` + "\n" +
		`{"type":"vector","kind":"a","row":{"id":"x"}}` + "\n" + `{"type":"end","records":3}` + "\n"
	rd := NewReader(strings.NewReader(ok), 150)
	_, err := rd.ReadHeader()
	for err == nil {
		_, err = rd.Next()
	}
	if !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
}

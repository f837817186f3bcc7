package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decode reads the request's JSON body into v, at most limit bytes of it.
// Unknown fields, a value of the wrong type, anything after the object
// and a body that is not JSON are an invalid_argument error; a body over
// the limit is too_large. Requiring the JSON media type also keeps
// browsers from posting to the API from other sites without asking first
// (a form's text/plain post needs no CORS preflight; JSON does).
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return invalidf("the body holds more than one JSON value")
	}
	return nil
}

// requireJSON refuses a request whose body is not declared JSON.
func requireJSON(r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return &apiError{http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "the body must be JSON, with Content-Type: application/json"}
	}
	return nil
}

// jsonError describes a decoding error for the client.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return invalidf("the body is not valid JSON")
	case errors.Is(err, io.EOF):
		return invalidf("the body is empty; a JSON object is required")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return invalidf("the body must be a JSON object, not %s", typ.Value)
		}
		return invalidf("field %s: want %s, not %s", typ.Field, typeName(typ.Type.String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return invalidf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return invalidf("the body is not a valid request: %v", err)
}

// typeName names a Go type as JSON does.
func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "httpapi."), strings.HasPrefix(goType, "engram."):
		return "an object"
	case goType == "string", goType == "*string":
		return "a string"
	case goType == "bool", goType == "*bool":
		return "a boolean"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	case goType == "time.Time":
		return "an RFC 3339 time"
	}
	return goType
}

// query reads a request's query parameters, refusing those the route does
// not take, and a parameter given twice.
type query struct {
	v   url.Values
	err error
}

// params checks r's query parameters against the names allowed. Seed
// 004's camelCase names are accepted as aliases of the snake_case ones
// (maxDepth for max_depth, includeHistory for include_history, …), and
// profileId of profile; an alias and its name both given must agree.
func params(r *http.Request, allowed ...string) *query {
	q := &query{v: url.Values{}}
	from := map[string]string{} // the name each parameter was given by
	query := r.URL.Query()
	// In the order of their names, so that an error names them always alike.
	for _, name := range slices.Sorted(maps.Keys(query)) {
		vals := query[name]
		canon := name
		if !slices.Contains(allowed, name) {
			canon = aliasOf(name)
		}
		switch {
		case !slices.Contains(allowed, canon):
			q.fail(invalidf("unknown query parameter %q (this route takes: %s)", name, strings.Join(allowed, ", ")))
		case len(vals) > 1:
			q.fail(invalidf("query parameter %q is given %d times", name, len(vals)))
		case q.v.Has(canon) && q.v.Get(canon) != vals[0]:
			q.fail(invalidf("query parameters %s and %s are one parameter, and differ", from[canon], name))
		default:
			q.v.Set(canon, vals[0])
			from[canon] = name
		}
	}
	return q
}

// aliasOf returns the snake_case name a camelCase query parameter is an
// alias of ("maxDepth" → "max_depth", "profileId" → "profile"), the
// word kind is an alias of (type: see internal/vocab), or name itself.
func aliasOf(name string) string {
	switch name {
	case "profileId":
		return "profile"
	case "kind":
		return "type"
	}
	var b strings.Builder
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (q *query) fail(err error) {
	if q.err == nil {
		q.err = err
	}
}

// str returns parameter name, or "" when absent.
func (q *query) str(name string) string { return q.v.Get(name) }

// integer returns parameter name as an integer in [lo, hi], or def when
// absent.
func (q *query) integer(name string, def, lo, hi int) int {
	s := q.v.Get(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		q.fail(invalidf("query parameter %s: want an integer in [%d, %d], not %q", name, lo, hi, s))
		return def
	}
	return n
}

// boolean returns parameter name as a boolean ("true", "false", "1",
// "0"), or false when absent.
func (q *query) boolean(name string) bool {
	switch s := q.v.Get(name); s {
	case "", "false", "0":
		return false
	case "true", "1":
		return true
	default:
		q.fail(invalidf("query parameter %s: want true or false, not %q", name, s))
		return false
	}
}

// time returns parameter name as an RFC 3339 time, or the zero time when
// absent.
func (q *query) time(name string) time.Time {
	s := q.v.Get(name)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		q.fail(invalidf("query parameter %s: want an RFC 3339 time, not %q", name, s))
	}
	return t
}

// required returns parameter name, failing when it is absent.
func (q *query) required(name string) string {
	s := q.v.Get(name)
	if s == "" {
		q.fail(invalidf("query parameter %s is required", name))
	}
	return s
}

// oneOf returns parameter name, failing unless it is one of the values.
func (q *query) oneOf(name string, values ...string) string {
	s := q.v.Get(name)
	if s != "" && !slices.Contains(values, s) {
		q.fail(invalidf("query parameter %s: want one of %s, not %q", name, strings.Join(values, ", "), s))
	}
	return s
}

package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
)

// The OpenAPI document, loaded and validated once, and its router.
var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

// spec returns the server's OpenAPI document, validated by kin-openapi,
// and a router over it.
func spec(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	specOnce.Do(func() {
		openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
		loader := openapi3.NewLoader()
		specDoc, specErr = loader.LoadFromData(httpapi.OpenAPI())
		if specErr != nil {
			return
		}
		if specErr = specDoc.Validate(context.Background()); specErr != nil {
			return
		}
		// The router matches requests whatever their host.
		specDoc.Servers = nil
		specRouter, specErr = legacy.NewRouter(specDoc)
	})
	require.NoError(t, specErr, "the OpenAPI document")
	return specDoc, specRouter
}

// env is a server under test: the API over a real store of agents, on a
// loopback httptest server.
type env struct {
	t      testing.TB
	agents *testutil.Agents
	api    *httpapi.Server
	srv    *httptest.Server
	token  string // sent as the bearer token when not empty
}

// newEnv starts a server with opts over a new store of agents.
func newEnv(t testing.TB, opts httpapi.Options) *env {
	t.Helper()
	return newEnvOver(t, testutil.NewAgents(t), opts)
}

// newEnvOver starts a server with opts over agents.
func newEnvOver(t testing.TB, agents *testutil.Agents, opts httpapi.Options) *env {
	t.Helper()
	api, err := httpapi.New(agents, opts)
	require.NoError(t, err)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return &env{t: t, agents: agents, api: api, srv: srv}
}

// response is an answer, its body read.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &v), "body %s", r.Body)
	return v
}

// Code returns an error response's code ("" when the body is no error).
func (r response) Code() string {
	var v struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(r.Body, &v)
	return v.Error.Code
}

// do sends a request with a JSON body (a string, []byte or a value to
// marshal; nil for none), and checks the answer against the OpenAPI
// document when the request is one of its operations.
func (e *env) do(method, path string, body any, header ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		require.NoError(e.t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	require.NoError(e.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := e.srv.Client().Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	r := response{resp.StatusCode, resp.Header, data}
	checkSpec(e.t, req, r)
	return r
}

// checkSpec validates a response against the OpenAPI document: its status,
// content type and body. A request that is none of the document's
// operations (an unknown route, a method a route does not take) must
// have been answered with a JSON error.
func checkSpec(t testing.TB, req *http.Request, r response) {
	t.Helper()
	_, router := spec(t)
	route, pathParams, err := router.FindRoute(req)
	if err != nil {
		require.Contains(t, []int{http.StatusNotFound, http.StatusMethodNotAllowed}, r.Status, "%s %s is not in the OpenAPI document: %s", req.Method, req.URL.Path, r.Body)
		require.Contains(t, []string{httpapi.CodeNotFound, httpapi.CodeMethodNotAllowed}, r.Code())
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route},
		Status:                 r.Status,
		Header:                 r.Header,
		Body:                   io.NopCloser(bytes.NewReader(r.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), in),
		"%s %s answered %d %s, which the OpenAPI document does not allow", req.Method, req.URL.Path, r.Status, r.Body)
}

// requireError checks that r is an error of the status and code.
func requireError(t testing.TB, r response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Status, "body %s", r.Body)
	require.Equal(t, code, r.Code(), "body %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
}

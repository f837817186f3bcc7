package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/engram-go/engram"
)

// The codes of error responses. A client classifies a failure by its code,
// which stays the same from release to release; the message is for people.
const (
	CodeInvalidArgument  = "invalid_argument"   // 400: bad JSON, a bad field or parameter
	CodeUnauthorized     = "unauthorized"       // 401: no bearer token, or a wrong one
	CodeForbidden        = "forbidden"          // 403: the token does not allow the agent, or the route is off
	CodeNotFound         = "not_found"          // 404: no such memory, fact, rule or route
	CodeMethodNotAllowed = "method_not_allowed" // 405
	CodeConflict         = "conflict"           // 409: the ID or name exists already
	CodeTooLarge         = "too_large"          // 413: the request body is over the limit
	CodeUnsupportedMedia = "unsupported_media"  // 415: a body that is not JSON where JSON is asked for
	CodeInternal         = "internal"           // 500: engram failed; the server's log says why
	CodeUpstream         = "upstream"           // 502: a model's API (LLM, embedder) failed
	CodeUnavailable      = "unavailable"        // 503: shutting down, or the database is busy
)

// apiError is an error a handler answers with, as
// {"error":{"code":"...","message":"..."}}.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// errorBody is the JSON of an error response.
type errorBody struct {
	Error errorView `json:"error"`
}

type errorView struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func invalidf(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, CodeInvalidArgument, fmt.Sprintf(format, args...)}
}

func notFoundf(format string, args ...any) *apiError {
	return &apiError{http.StatusNotFound, CodeNotFound, fmt.Sprintf(format, args...)}
}

func forbiddenf(format string, args ...any) *apiError {
	return &apiError{http.StatusForbidden, CodeForbidden, fmt.Sprintf(format, args...)}
}

// classify maps an error to the response it gets. engram's errors are
// classified with errors.Is and errors.As, never by their text; their
// messages are passed on only for bad input (engram's own description of
// the field at fault) and for what was not found, and never for a
// database's or a file system's failure, which is logged instead.
func classify(err error) *apiError {
	var ae *apiError
	var mbe *http.MaxBytesError
	var ie *engram.ImportError
	var apiErr *engram.APIError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe):
		return &apiError{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("the request body is over %d bytes", mbe.Limit)}
	case errors.As(err, &ie):
		if errors.Is(ie, engram.ErrExists) {
			return &apiError{http.StatusConflict, CodeConflict, ie.Error()}
		}
		return invalidf("%s", ie.Error())
	case errors.Is(err, engram.ErrInvalid), errors.Is(err, engram.ErrInvalidQuery):
		return invalidf("%s", err.Error())
	case errors.Is(err, engram.ErrTierUnsupported):
		return invalidf("%s", engram.ErrTierUnsupported.Error())
	case errors.Is(err, engram.ErrNotFound):
		return notFoundf("%s", err.Error())
	case errors.Is(err, engram.ErrExists):
		return &apiError{http.StatusConflict, CodeConflict, err.Error()}
	case errors.Is(err, engram.ErrClosed), errors.Is(err, engram.ErrBusy),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &apiError{http.StatusServiceUnavailable, CodeUnavailable, "the service is unavailable; try again"}
	case errors.As(err, &apiErr), errors.Is(err, engram.ErrBadAnswer), errors.Is(err, engram.ErrEmbedding):
		return &apiError{http.StatusBadGateway, CodeUpstream, "a model's API failed; the server's log says why"}
	case errors.Is(err, fs.ErrNotExist):
		return notFoundf("no such file or directory")
	}
	return &apiError{http.StatusInternalServerError, CodeInternal, "internal error; the server's log says why"}
}

// writeError answers with err as a JSON error, logging what is not the
// client's fault.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := classify(err)
	if ae.Status >= 500 {
		s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", ae.Status), slog.Any("err", err))
	}
	writeJSON(w, ae.Status, errorBody{errorView{ae.Code, ae.Message}})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	body := buf.Bytes()
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"internal","message":"internal error; the server's log says why"}}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

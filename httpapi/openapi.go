package httpapi

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 description of the API.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.1 document that describes the API (the one
// served at /openapi.json). The caller may keep and change the slice.
func OpenAPI() []byte { return append([]byte(nil), openAPIDoc...) }

// openAPI answers GET /openapi.json.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	if err := params(r).err; err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(openAPIDoc)
	return nil
}

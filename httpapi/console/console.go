// Package console is engram's web console: static pages (HTML, JavaScript
// modules and CSS, embedded in the binary) that show a person what an
// agent remembers and let them mend it, through the HTTP API of package
// httpapi and its authorisation. The browser signs in with a bearer token,
// keeps it in sessionStorage and sends it on every API call in the
// Authorization header, so another site's form cannot act for it. Pages
// are drawn with DOM calls and textContent only: a memory's text never
// becomes markup.
//
// Handler serves the files under /ui/ with a strict Content-Security-
// Policy: scripts, styles and fetches from the same origin only, no
// inline script or style, no frames.
package console

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Prefix is the path the console is served under.
const Prefix = "/ui/"

// CSP is the Content-Security-Policy of every console response.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler returns the handler of the console's files, for requests under
// Prefix. Every answer, a 404 included, carries CSP, nosniff, no referrer
// and no caching by shared caches.
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static
	}
	files := http.StripPrefix(Prefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// Package cors answers CORS for one origin, the site's home: the WordPress
// plugin's widget on the site's pages, when the server answers at another
// origin, may read the JSON endpoint, and no other origin may.
package cors

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/wploadmore/wploadmore/server/compress"
)

// Home is the origin of the site's home address as last set, the one
// origin allowed. It is safe for concurrent use.
type Home struct{ origin atomic.Pointer[string] }

// NewHome returns the Home of the site whose home address is home.
func NewHome(home string) *Home {
	h := &Home{}
	h.Set(home)
	return h
}

// Set makes the origin of the home address home the one allowed; made
// once per change of the site's options, not once per request. An
// address that is no absolute http(s) URL allows none.
func (h *Home) Set(home string) {
	origin := SerializedOrigin(home)
	h.origin.Store(&origin)
}

// allows reports whether a request's Origin header is the home origin.
// The header is compared as browsers send it, serialized (RFC 6454 6.1):
// any other spelling, "null" (a sandboxed frame, a file) and "" never
// match.
func (h *Home) allows(origin string) bool {
	home := *h.origin.Load()
	return home != "" && origin == home
}

// Allow sets the CORS headers of an answer to r: the origin allowed when
// r comes from the home origin, and in any case "Vary: Origin", so that a
// cache never serves one origin's answer to another. No credentials: the
// widget asks without cookies from another origin. Link, which tells the
// widget whether there is a next batch, is exposed to it.
func (h *Home) Allow(w http.ResponseWriter, r *http.Request) {
	header := w.Header()
	compress.Vary(header, "Origin")
	if origin := r.Header.Get("Origin"); h.allows(origin) {
		header.Set("Access-Control-Allow-Origin", origin)
		header.Set("Access-Control-Expose-Headers", "Link")
	}
}

// preflightMaxAge is how long, in seconds, a browser may keep a preflight's
// answer: Chromium caps it at 7200.
const preflightMaxAge = "7200"

// Preflight answers a CORS preflight (OPTIONS with
// Access-Control-Request-Method) from the home origin, allowing GET and
// HEAD and no request headers; every other OPTIONS request, from any
// other origin or none, goes to refused, with no CORS header.
func (h *Home) Preflight(refused http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := r.Header.Get("Access-Control-Request-Method")
		origin := r.Header.Get("Origin")
		if !h.allows(origin) || (method != http.MethodGet && method != http.MethodHead) {
			refused.ServeHTTP(w, r)
			return
		}
		header := w.Header()
		compress.Vary(header, "Origin")
		header.Set("Access-Control-Allow-Origin", origin)
		header.Set("Access-Control-Allow-Methods", "GET, HEAD")
		header.Set("Access-Control-Max-Age", preflightMaxAge)
		w.WriteHeader(http.StatusNoContent)
	})
}

// SerializedOrigin is the origin of an absolute http(s) address as a
// browser serializes it in the Origin header: the scheme and host in
// lower case, and the port only when it is not the scheme's default; ""
// for anything else.
func SerializedOrigin(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.User != nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return ""
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

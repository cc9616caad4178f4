package main

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
)

// homeOrigin is the origin of the site's home address as last read, the
// one origin whose pages may read the JSON endpoint from another origin:
// the WordPress plugin's widget, on the site's own pages, when the server
// answers at another address. It is safe for concurrent use.
type homeOrigin struct{ origin atomic.Pointer[string] }

func newHomeOrigin(site listing.Site) *homeOrigin {
	h := &homeOrigin{}
	h.set(site)
	return h
}

// set keeps site's home origin; made once per change of the options, not
// once per request.
func (h *homeOrigin) set(site listing.Site) {
	origin := serializedOrigin(site.Links.Home)
	h.origin.Store(&origin)
}

// allows reports whether a request's Origin header is the home origin.
// The header is compared as browsers send it, serialized (RFC 6454 6.1):
// any other spelling, "null" (a sandboxed frame, a file) and "" never
// match.
func (h *homeOrigin) allows(origin string) bool {
	home := *h.origin.Load()
	return home != "" && origin == home
}

// allowJSON sets the CORS headers of a JSON answer to r: the origin
// allowed when r comes from the home origin, and in any case
// "Vary: Origin", so that a cache never serves one origin's answer to
// another. No credentials: the widget asks without cookies from another
// origin. Link, which tells the widget whether there is a next batch, is
// exposed to it.
func (h *homeOrigin) allowJSON(w http.ResponseWriter, r *http.Request) {
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

// handlePreflight answers a CORS preflight (OPTIONS with
// Access-Control-Request-Method) for the JSON endpoint from the home
// origin, allowing GET and HEAD and no request headers; every other
// OPTIONS request, from any other origin or none, goes to refused as
// before, with no CORS header.
func handlePreflight(home *homeOrigin, refused http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := r.Header.Get("Access-Control-Request-Method")
		origin := r.Header.Get("Origin")
		if !home.allows(origin) || (method != http.MethodGet && method != http.MethodHead) {
			refused.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		compress.Vary(h, "Origin")
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Methods", "GET, HEAD")
		h.Set("Access-Control-Max-Age", preflightMaxAge)
		w.WriteHeader(http.StatusNoContent)
	})
}

// serializedOrigin is the origin of an absolute http(s) address as a
// browser serializes it in the Origin header: the scheme and host in
// lower case, and the port only when it is not the scheme's default; ""
// for anything else.
func serializedOrigin(raw string) string {
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

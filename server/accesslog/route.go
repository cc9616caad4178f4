package accesslog

import (
	"context"
	"net/http"
)

// The route a request matched, for its log line and its metrics. The
// middleware sits outside the ServeMux, which sets Request.Pattern only on
// the request it hands a route's handler; so each route's handler writes the
// pattern into a holder that the outermost middleware put in the context,
// beside the request id: one context value for both, as every request
// pays for each.
// The pattern, unlike the path, is one of the few this file's mux was
// given, so the labels it makes stay bounded whatever paths clients send.

type requestInfoKey struct{}

// requestInfo is what the middleware learns of a request beyond the
// request itself: the id Handler gave it, and the pattern of the route
// that answered, "" when none did. The handler's goroutine writes pattern
// before the middleware reads it.
type requestInfo struct {
	id      string
	pattern string
}

// withRequestInfo returns r with info in its context.
func withRequestInfo(r *http.Request, info *requestInfo) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
}

// Unmatched is the route label of requests no route pattern matched
// (404s, the mux's own 405s and path-cleaning redirects): the raw path
// would give every scanner's guess a time series of its own.
const Unmatched = "unmatched"

// label is the route for logs and metrics: the pattern, or Unmatched.
func (m *requestInfo) label() string {
	if m.pattern == "" {
		return Unmatched
	}
	return m.pattern
}

// Mux is a ServeMux whose Handle wraps each route's handler to record its
// pattern for Handler. Register routes with Handle only: HandleFunc is the
// ServeMux's own and records nothing.
type Mux struct{ *http.ServeMux }

// NewMux returns an empty Mux.
func NewMux() Mux { return Mux{http.NewServeMux()} }

// Handle registers h for pattern, as http.ServeMux.Handle does.
func (m Mux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if held, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
			held.pattern = r.Pattern
		}
		h.ServeHTTP(w, r)
	}))
}

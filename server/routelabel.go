package main

import (
	"context"
	"net/http"
)

// The route a request matched, for its log line and its metrics. The
// middleware sits outside the ServeMux, which sets Request.Pattern only on
// the request it hands a route's handler; so each route's handler writes the
// pattern into a holder that the outermost middleware put in the context.
// The pattern, unlike the path, is one of the few this file's mux was
// given, so the labels it makes stay bounded whatever paths clients send.

type routeKey struct{}

// matchedRoute holds the pattern of the route that answered, "" when none
// did. The handler's goroutine writes it before the middleware reads it.
type matchedRoute struct{ pattern string }

// withRoute returns r with a holder for its route in the context, the one
// already there if an outer middleware put one.
func withRoute(r *http.Request) (*http.Request, *matchedRoute) {
	if m, ok := r.Context().Value(routeKey{}).(*matchedRoute); ok {
		return r, m
	}
	m := &matchedRoute{}
	return r.WithContext(context.WithValue(r.Context(), routeKey{}, m)), m
}

// label is the route for logs and metrics: the pattern, or unmatchedRoute.
func (m *matchedRoute) label() string {
	if m.pattern == "" {
		return unmatchedRoute
	}
	return m.pattern
}

// patternMux is a ServeMux whose Handle wraps each route's handler to
// record its pattern. Register routes with Handle only: HandleFunc is
// the ServeMux's own and records nothing.
type patternMux struct{ *http.ServeMux }

func (m patternMux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if held, ok := r.Context().Value(routeKey{}).(*matchedRoute); ok {
			held.pattern = r.Pattern
		}
		h.ServeHTTP(w, r)
	}))
}

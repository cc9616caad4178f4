package main

import (
	"log/slog"
	"net/http"

	"github.com/wploadmore/wploadmore/server/accesslog"
)

// recoverPanics turns a handler's panic into a generic 500 and a log line
// with the value, so one bad request never takes the process down and the
// client never sees a stack trace.
func recoverPanics(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil || v == http.ErrAbortHandler {
				if v != nil {
					panic(v)
				}
				return
			}
			logger.Error("panic", "method", accesslog.Method(r), "path", accesslog.Path(r), "request_id", accesslog.RequestID(r.Context()), "value", v)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("internal error\n"))
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders are the headers every answer carries; the page adds its
// Content-Security-Policy itself, as only it needs one.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		// No other site may frame ours (clickjacking); pageCSP's
		// frame-ancestors says the same to browsers that read CSP, this to
		// those that do not, and for every route rather than the page alone.
		h.Set("X-Frame-Options", "SAMEORIGIN")
		next.ServeHTTP(w, r)
	})
}

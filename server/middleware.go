package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/netip"
	"time"
)

// requestID is the id logRequests gave the request, for log lines written
// deeper down.
func requestID(ctx context.Context) string {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info.id
	}
	return ""
}

// statusRecorder remembers what a handler answered, for the request log
// and the metrics: 499 when its client was gone before the answer was
// begun (see loggedStatus), whatever the answer. One whose client leaves
// later, in the middle of a long body, keeps its status, as in nginx.
type statusRecorder struct {
	http.ResponseWriter
	client context.Context // the request's, as the server made it
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(status int) {
	if s.status == 0 {
		s.status = loggedStatus(s.client, status)
	}
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = loggedStatus(s.client, http.StatusOK)
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequests gives each request an id (the caller's X-Request-Id when it
// sent a sane one, so a proxy's id carries through) and logs one line to
// logger, the access log, when it ends, bounded as requestlog.go explains.
// trusted are the proxies whose X-Forwarded-For names the client (see
// clientIP).
// When it ends it also hands its route, status and duration to counter,
// if any (the metrics): one status recorder and one clock for both.
func logRequests(logger *slog.Logger, trusted []netip.Prefix, counter requestCounter, next http.Handler) http.Handler {
	return logRequestsLimited(logger, defaultLogLimits(), trusted, counter, next)
}

// requestLineMessage is the message of request lines, by which the access
// log tells them from its summaries (see requestLines).
const requestLineMessage = "request"

// requestCounter is what logRequests needs of the metrics.
type requestCounter interface {
	observeRequest(route string, status int, took time.Duration)
}

func logRequestsLimited(logger *slog.Logger, limits logLimits, trusted []netip.Prefix, counter requestCounter, next http.Handler) http.Handler {
	clientErrors := newClientErrorLog(logger, limits)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w, client: r.Context()}
		info := &requestInfo{id: id} // the mux's route fills in its pattern
		r = withRequestInfo(r, info)
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			// Nothing written: net/http sends a 200 now, unless the
			// handler gave up because its client was gone.
			rec.status = loggedStatus(rec.client, http.StatusOK)
		}
		took := time.Since(start)
		if counter != nil {
			counter.observeRequest(info.label(), rec.status, took)
		}
		// Enabled first: a line the access log drops (-access-log off) must
		// not spend a token.
		if !logger.Enabled(r.Context(), slog.LevelInfo) {
			return
		}
		if rec.status >= 400 && rec.status < 500 && !clientErrors.allow() {
			return
		}
		method, _ := cutForLog(r.Method, maxLoggedMethod)
		path, query := loggedURL(r.URL.Path, r.URL.RawQuery)
		userAgent := r.UserAgent()
		loggedAgent, _ := cutForLog(userAgent, maxLoggedUserAgent)
		route, _ := cutForLog(info.label(), maxLoggedRoute)
		attrs := make([]slog.Attr, 0, 13)
		attrs = append(attrs,
			slog.String("method", method),
			slog.String("path", path),
			slog.String("query", query),
			slog.String("route", route),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			// Milliseconds as a number, to the microsecond: what a log
			// query sums and compares, unlike "1.234567ms" or nanoseconds.
			slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			slog.String("client_ip", clientIP(r, trusted)),
			slog.String("user_agent", loggedAgent),
			slog.String("request_id", id),
		)
		if len(path) < len(r.URL.Path) {
			attrs = append(attrs, slog.Int("path_len", len(r.URL.Path)))
		}
		if len(query) < len(r.URL.RawQuery) {
			attrs = append(attrs, slog.Int("query_len", len(r.URL.RawQuery)))
		}
		if len(loggedAgent) < len(userAgent) {
			attrs = append(attrs, slog.Int("user_agent_len", len(userAgent)))
		}
		logger.LogAttrs(r.Context(), slog.LevelInfo, requestLineMessage, attrs...)
	})
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:]) // crypto/rand.Read never fails on Linux (Go 1.24+)
	return hex.EncodeToString(b[:])
}

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
			method, _ := cutForLog(r.Method, maxLoggedMethod)
			path, _ := loggedURL(r.URL.Path, "")
			logger.Error("panic", "method", method, "path", path, "request_id", requestID(r.Context()), "value", v)
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

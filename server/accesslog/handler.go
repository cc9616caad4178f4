package accesslog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/server/proxy"
)

// StatusClientClosedRequest is nginx's 499: the client hung up before its
// answer was written. Logs and metrics say it in place of the status the
// answer had, which nobody read: an abandoned request is counted neither as
// our failure (the 503 or 500 its cancelled query or command ended in)
// nor as a success. It is never sent.
const StatusClientClosedRequest = 499

// Status is the status logs and metrics give an answer of status
// whose request has the context ctx: 499 once the client is gone.
// net/http cancels a request's context when its connection fails, read or
// write, and for nothing else; a handler's own deadlines are derived
// contexts that end with DeadlineExceeded and never cancel it. So the
// context says the client left, whatever error the handler got on the way
// (a client that half-closes after sending looks gone too).
func Status(ctx context.Context, status int) int {
	if errors.Is(ctx.Err(), context.Canceled) {
		return StatusClientClosedRequest
	}
	return status
}

// RequestID is the id Handler gave the request, for log lines written
// deeper down.
func RequestID(ctx context.Context) string {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info.id
	}
	return ""
}

// statusRecorder remembers what a handler answered, for the request log
// and the metrics: 499 when its client was gone before the answer was
// begun (see Status), whatever the answer. One whose client leaves
// later, in the middle of a long body, keeps its status, as in nginx.
type statusRecorder struct {
	http.ResponseWriter
	client context.Context // the request's, as the server made it
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(status int) {
	if s.status == 0 {
		s.status = Status(s.client, status)
	}
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = Status(s.client, http.StatusOK)
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Handler gives each request an id (the caller's X-Request-Id when it
// sent a sane one, so a proxy's id carries through) and logs one line to
// logger, the access log, when it ends, bounded as bounds.go explains.
// trusted are the proxies whose X-Forwarded-For names the client.
// When it ends it also hands its route, status and duration to counter,
// if any (the metrics): one status recorder and one clock for both.
func Handler(logger *slog.Logger, trusted proxy.Trusted, counter Counter, next http.Handler) http.Handler {
	return handler(logger, defaultLimits(), trusted, counter, next)
}

// requestLineMessage is the message of request lines, by which the access
// log tells them from its summaries (see requestLines).
const requestLineMessage = "request"

// Counter is what Handler needs of the metrics.
type Counter interface {
	ObserveRequest(route string, status int, took time.Duration)
}

func handler(logger *slog.Logger, limits Limits, trusted proxy.Trusted, counter Counter, next http.Handler) http.Handler {
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
			rec.status = Status(rec.client, http.StatusOK)
		}
		took := time.Since(start)
		if counter != nil {
			counter.ObserveRequest(info.label(), rec.status, took)
		}
		// Enabled first: a line the access log drops (-access-log off) must
		// not spend a token.
		if !logger.Enabled(r.Context(), slog.LevelInfo) {
			return
		}
		if rec.status >= 400 && rec.status < 500 && !clientErrors.allow() {
			return
		}
		method, _ := cut(r.Method, maxLoggedMethod)
		path, query := loggedURL(r.URL.Path, r.URL.RawQuery)
		userAgent := r.UserAgent()
		loggedAgent, _ := cut(userAgent, maxLoggedUserAgent)
		route, _ := cut(info.label(), maxLoggedRoute)
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

// clientIP is the visitor's address (see proxy.Trusted.Client), or the
// peer's as it is, cut, when it is no IP address (a Unix socket's "@").
// It is at most an IPv6 address's 39 bytes or maxLoggedRemoteAddr.
func clientIP(r *http.Request, trusted proxy.Trusted) string {
	if addr, ok := trusted.Client(r); ok {
		return addr.String()
	}
	s, _ := cut(r.RemoteAddr, maxLoggedRemoteAddr)
	return s
}

// maxLoggedRemoteAddr cuts a peer address that is no IP.
const maxLoggedRemoteAddr = 64

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

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/accesslog"
	"github.com/wploadmore/wploadmore/server/errorpage"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// clientError is a request we refuse, with the status and the text its
// client sees: bad input (400), a method the URL never took (405) or a
// query string too long to read (414).
type clientError struct {
	status  int
	message string
}

func (e *clientError) Error() string { return e.message }

// errQueryTooLong refuses a query string past maxQueryBytes or
// maxQueryPairs. It is made once: a flood of them allocates nothing for
// the error.
var errQueryTooLong error = &clientError{
	status:  http.StatusRequestURITooLong,
	message: fmt.Sprintf("query string too long: at most %d bytes and %d parameters", maxQueryBytes, maxQueryPairs),
}

func badRequest(format string, args ...any) error {
	return &clientError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

// errorStatus maps err, by kind, to the status and the short text a client
// may see, and the Retry-After it is sent with ("" for none). A dependency
// that failed is 503, naming the dependency but never why; anything the
// handlers did not expect is a bug, a generic 500.
//
// A server too busy (listing.ErrBusy: a query or a render refused at once,
// not queued) is 503 with Retry-After: 1, or a refused new search's wait
// (busyRetryAfter). The work it refused is queries
// of tens of milliseconds and renders of a few: a second later there is
// room, and a client or proxy that honours the header does not come back
// sooner.
func errorStatus(err error) (status int, message, retryAfter string) {
	if ce, ok := errors.AsType[*clientError](err); ok {
		return ce.status, ce.message, ""
	}
	// An archive's query var that is malformed, or names what the site
	// does not have: the client's words, never the database's.
	if qe, ok := errors.AsType[*blog.QueryVarError](err); ok {
		return http.StatusBadRequest, qe.Var + ": " + qe.Reason, ""
	}
	if nf, ok := errors.AsType[*blog.NotFoundError](err); ok {
		return http.StatusNotFound, fmt.Sprintf("no %s %q", nf.Kind, nf.Name), ""
	}
	switch {
	case errors.Is(err, wpdb.ErrUnavailable):
		return http.StatusServiceUnavailable, "database unavailable", ""
	case errors.Is(err, session.ErrUnavailable):
		return http.StatusServiceUnavailable, "session store unavailable", ""
	case errors.Is(err, listing.ErrBusy):
		return http.StatusServiceUnavailable, "server busy, try again", busyRetryAfter(err)
	case errors.Is(err, errStarting):
		return http.StatusServiceUnavailable, "starting, try again", ""
	}
	return http.StatusInternalServerError, "internal error", ""
}

// busyRetryAfter is Retry-After for a busy server's err: the wait a refused
// new search was told of (listing.BusyError), in whole seconds rounded up,
// else 1.
func busyRetryAfter(err error) string {
	if be, ok := errors.AsType[*listing.BusyError](err); ok && be.Wait > time.Second {
		return strconv.Itoa(int((be.Wait + time.Second - 1) / time.Second))
	}
	return "1"
}

// logError logs err once, where it ends: only 5xx errors are ours to look
// at, and a request its client gave up on is not an error at all. Nor is a
// refusal of a busy server (listing.ErrBusy): it is the server shedding
// load as designed, counted in the metrics, and under a flood a line per
// refusal would make the log the next thing to give way.
func logError(logger *slog.Logger, r *http.Request, status int, err error) {
	if status < 500 {
		return
	}
	level, msg := slog.LevelError, "request failed"
	if logged := accesslog.Status(r.Context(), status); logged != status {
		level, msg, status = slog.LevelDebug, "request abandoned by its client", logged
	} else if errors.Is(err, listing.ErrBusy) {
		level = slog.LevelDebug
	}
	logger.Log(r.Context(), level, msg,
		"method", r.Method, "path", r.URL.Path, "status", status,
		"request_id", accesslog.RequestID(r.Context()), "err", err)
}

// jsonErrors adapts a handler that returns its error into an http.Handler
// answering the error as {"error": "..."}, as the JSON endpoint's callers
// parse it.
func jsonErrors(logger *slog.Logger, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			writeJSONError(w, r, logger, err)
		}
	})
}

// htmlErrors is jsonErrors for the page: the error is a small HTML page.
func htmlErrors(logger *slog.Logger, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			writeHTMLError(w, r, logger, err)
		}
	})
}

func writeJSONError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	status, message, retryAfter := errorStatus(err)
	logError(logger, r, status, err)
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{message})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// errorPages are the pages of errorStatus's 5xx answers, whose text never
// varies, made once; a 4xx's is rendered for its request.
var errorPages = errorpage.Make(errorStatus, wpdb.ErrUnavailable, session.ErrUnavailable, listing.ErrBusy, errStarting, errors.New("a bug"))

func writeHTMLError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	status, message, retryAfter := errorStatus(err)
	logError(logger, r, status, err)
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(errorPages.HTML(status, message)) // a failed write is the client gone
}

// handleMethodNotAllowed answers methods the PHP URL never took, in JSON,
// since that is what its callers parse.
func handleMethodNotAllowed(logger *slog.Logger, allow string) http.Handler {
	return jsonErrors(logger, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Allow", allow)
		return &clientError{
			status:  http.StatusMethodNotAllowed,
			message: fmt.Sprintf("method %s not allowed; use %s", r.Method, allow),
		}
	})
}

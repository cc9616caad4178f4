package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// clientError is a request we refuse, with the status and the text its
// client sees: bad input (400) or a method the URL never took (405).
type clientError struct {
	status  int
	message string
}

func (e *clientError) Error() string { return e.message }

// errBusy is a request the server could not start on in time: it waited
// for a place among the page renders in flight (see renderBudget).
var errBusy = errors.New("server busy")

func badRequest(format string, args ...any) error {
	return &clientError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

// errorStatus maps err, by kind, to the status and the short text a client
// may see. A dependency that failed is 503, naming the dependency but never
// why; anything the handlers did not expect is a bug, a generic 500.
func errorStatus(err error) (int, string) {
	if ce, ok := errors.AsType[*clientError](err); ok {
		return ce.status, ce.message
	}
	switch {
	case errors.Is(err, wpdb.ErrUnavailable):
		return http.StatusServiceUnavailable, "database unavailable"
	case errors.Is(err, session.ErrUnavailable):
		return http.StatusServiceUnavailable, "session store unavailable"
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable, "server busy, try again"
	}
	return http.StatusInternalServerError, "internal error"
}

// logError logs err once, where it ends: only 5xx errors are ours to look
// at, and a request its client gave up on is not an error at all.
func logError(logger *slog.Logger, r *http.Request, status int, err error) {
	if status < 500 {
		return
	}
	level := slog.LevelError
	if errors.Is(r.Context().Err(), context.Canceled) {
		level = slog.LevelDebug
	}
	logger.Log(r.Context(), level, "request failed",
		"method", r.Method, "path", r.URL.Path, "status", status,
		"request_id", requestID(r.Context()), "err", err)
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
	status, message := errorStatus(err)
	logError(logger, r, status, err)
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{message})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

var errorPage = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Status}} {{.Text}}</title></head>
<body><h1>{{.Status}} {{.Text}}</h1><p>{{.Message}}</p></body></html>
`))

func writeHTMLError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	status, message := errorStatus(err)
	logError(logger, r, status, err)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	errorPage.Execute(w, struct {
		Status        int
		Text, Message string
	}{status, http.StatusText(status), message})
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

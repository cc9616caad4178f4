package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
)

// httpError is an error with the status and the short text a client may
// see. Whatever it wraps stays in the logs.
type httpError struct {
	status  int
	message string
	err     error
}

func (e *httpError) Error() string {
	if e.err == nil {
		return e.message
	}
	return fmt.Sprintf("%s: %v", e.message, e.err)
}

func (e *httpError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

// unavailable is a dependency failing: the database or the session store.
// The client learns which, never why; the cause goes to the log.
func unavailable(message string, err error) error {
	return &httpError{status: http.StatusServiceUnavailable, message: message, err: err}
}

// errorStatus is the status and client-facing message for err. Errors that
// are not httpErrors are bugs: the client sees a generic 500.
func errorStatus(err error) (int, string) {
	if he, ok := errors.AsType[*httpError](err); ok {
		return he.status, he.message
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

// writeJSONError answers err as {"error": "..."}.
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

// writeHTMLError answers err as a small page.
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeJSONError(w, r, logger, &httpError{
			status:  http.StatusMethodNotAllowed,
			message: fmt.Sprintf("method %s not allowed; use %s", r.Method, allow),
		})
	})
}

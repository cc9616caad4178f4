package main

import (
	"log/slog"
	"net/http"
)

// refuseBodies answers 400 to any request that carries a body (a
// Content-Length over 0 or any Transfer-Encoding) and closes its
// connection, and closes every HTTP/1.0 request's connection after its
// answer; others go to next. The server answers GET and HEAD only, so a
// body is a mistake or an attempt at request smuggling, and closing leaves
// no byte of it to be read as the next request, as RFC 9112 sections 6.1
// and 6.3 ask ("Connection: close" is what makes net/http close). The answer
// on the PHP script's URL (jsonPath) is JSON, as its other errors are;
// elsewhere it is text, as net/http's own 400s. docs/design.md, "Requests
// with a body", says why.
func refuseBodies(jsonPath string, logger *slog.Logger, next http.Handler) http.Handler {
	refused := &clientError{status: http.StatusBadRequest, message: "a request body is not accepted"}
	refuseJSON := jsonErrors(logger, func(http.ResponseWriter, *http.Request) error { return refused })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
			if !r.ProtoAtLeast(1, 1) {
				w.Header().Set("Connection", "close")
			}
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		if r.URL.Path == jsonPath {
			refuseJSON.ServeHTTP(w, r)
			return
		}
		http.Error(w, refused.message, refused.status)
	})
}

package main

import (
	"log/slog"
	"net/http"
)

// refuseBodies answers 400 to any request that carries a body, a
// Content-Length over 0 or any Transfer-Encoding, and closes its
// connection; others go to next.
//
// The server answers GET and HEAD only, which have no body to send. A
// request that frames one anyway is either a mistake or an attempt at
// smuggling: with both Content-Length and Transfer-Encoding: chunked,
// net/http reads the body as chunked while a proxy in front may have read
// Content-Length, so the bytes after it are a request the proxy never saw.
// RFC 9112 section 6.3 has the server close the connection after such a
// request; closing after every request with a body leaves no bytes of it to
// be read as the next request, whatever its framing. "Connection: close"
// in the answer is what makes net/http close it. What never reaches here:
// transfer codings other than chunked, which net/http refuses itself (501,
// and closes).
//
// Nor does Transfer-Encoding on an HTTP/1.0 request: net/http drops it from
// the header and reads no body, so on a kept-alive connection the bytes a
// proxy took for its chunked body would be read as the next request. RFC
// 9112 section 6.1 has the server close the connection after such a
// message; as nothing here can see the header, every HTTP/1.0 request's
// connection is closed after its answer. That costs HTTP/1.0 keep-alive
// alone, which is rare: nginx's upstreams speak HTTP/1.0 without it.
//
// The answer on the PHP script's URL is JSON, as its other errors are
// (jsonPath); elsewhere it is text, as net/http's own 400s.
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

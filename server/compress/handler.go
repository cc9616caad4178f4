package compress

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// Handler compresses next's answers with gzip or zstd, as the request's
// Accept-Encoding allows (zstd on a tie), when they are at least MinSize
// bytes, at the fastest levels, as they are written. It adds
// "Vary: Accept-Encoding" to every answer, and passes HEAD answers and
// answers that carry a Content-Encoding or Content-Range through: the
// bodies compressed with Encode, so that only the error answers are
// compressed here. gzhttp reads the whole Accept-Encoding, twice, so it is
// given only the head Choose reads.
func Handler(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(MinSize), gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		// The options are constants: an error is a bug, found by every test.
		panic(fmt.Sprintf("gzhttp options: %v", err))
	}
	compressed := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding := r.Header.Get("Accept-Encoding")
		if head := acceptEncodingHead(acceptEncoding); head != acceptEncoding {
			// A copy: handlers do not change the request they are given.
			r = r.Clone(r.Context())
			r.Header.Set("Accept-Encoding", head)
		}
		compressed.ServeHTTP(w, r)
	})
}

// ETag is the tag of a body in coding whose plain body is tagged etag:
// another representation, another tag (RFC 9110 8.8.3), as gzhttp tags
// its own.
func ETag(etag, coding string) string {
	return strings.TrimSuffix(etag, `"`) + "-" + coding + `"`
}

// SetCoding sets the headers of an answer whose body Accept-Encoding
// chose: Vary, and the body's Content-Encoding when coding is not "" (the
// plain body). It is the one place the server sets them; gzhttp, around
// the page and the JSON, has said Vary already, which is not said twice.
func SetCoding(h http.Header, coding string) {
	Vary(h, "Accept-Encoding")
	if coding != "" {
		h.Set("Content-Encoding", coding)
	}
}

// SetBody sets SetCoding's headers for an answer built whole before it is
// written, body, and for a GET its Content-Length: sent chunked, an answer
// over 2 KB takes a write to the connection more, for the chunks' end, a
// cost each request of a flood pays. gzhttp, which may still compress an
// answer left plain, then drops it. A HEAD's is left to net/http: the body
// a GET gets may be coded where the HEAD's is not.
func SetBody(r *http.Request, h http.Header, coding string, body []byte) {
	SetCoding(h, coding)
	if r.Method != http.MethodHead {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
}

// Vary adds name to h's Vary unless it is there already. Every Vary the
// server says goes through it (Accept-Encoding here, Origin for the JSON
// endpoint's CORS), so that none is said twice and none replaces another:
// gzhttp adds its own line, never setting the header over ours.
func Vary(h http.Header, name string) {
	if !varies(h, name) {
		h.Add("Vary", name)
	}
}

// varies tells whether h's Vary names name.
func varies(h http.Header, name string) bool {
	for _, v := range h.Values("Vary") {
		for n := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(n), name) {
				return true
			}
		}
	}
	return false
}

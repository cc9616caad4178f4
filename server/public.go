package main

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/internal/headlist"
	"github.com/wploadmore/wploadmore/server/compress"
)

// publicAnswer is an answer any cache may keep: an archive's, which holds
// nothing of the visitor. It is tagged by a strong validator of its plain
// body and Link header, the same on every instance, so a proxy in front of
// several revalidates with any.
type publicAnswer struct {
	contentType string
	etag        string // of the plain body and the link: see publicETag
	link        string // the Link header, "" for none
	body        []byte // in the coding, or plain when it is ""
	coding      string
}

// publicETag hashes what write writes, the plain body, and the Link
// header, which says whether more posts follow: the same body with and
// without a next batch are two answers.
func publicETag(write func(io.Writer), link string) string {
	h := sha256.New()
	write(h)
	h.Write([]byte{0})
	h.Write([]byte(link))
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:15]) + `"`
}

// answeredNotModified answers 304 when the client holds the answer, before
// anything of the body is built or compressed, and reports whether it did.
func (p publicAnswer) answeredNotModified(w http.ResponseWriter, r *http.Request, maxAge time.Duration) bool {
	return notModified(w, r, p.etag, func(tag string) { p.setHeaders(w, tag, maxAge) })
}

// writePublic writes a public answer. gzhttp, around the handler, passes a
// coded body through.
func writePublic(w http.ResponseWriter, r *http.Request, answer publicAnswer, maxAge time.Duration) {
	etag := answer.etag
	if answer.coding != "" {
		// Another representation, another tag (RFC 9110 8.8.3), as
		// gzhttp and the static files tag theirs.
		etag = compress.ETag(answer.etag, answer.coding)
	}
	answer.setHeaders(w, etag, maxAge)
	compress.SetBody(r, w.Header(), answer.coding, answer.body)
	w.Write(answer.body)
}

// setHeaders sets the headers of p's answer, 200 or 304 alike (RFC 9110
// 15.4.5): kept by any cache for maxAge, validated by etag.
func (p publicAnswer) setHeaders(w http.ResponseWriter, etag string, maxAge time.Duration) {
	h := w.Header()
	h.Set("Content-Type", p.contentType)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(maxAge/time.Second)))
	h.Set("ETag", etag)
	if p.link != "" {
		h.Set("Link", p.link)
	}
}

// notModified answers 304 when the request's If-None-Match names etag or
// one of its coded representations (the compressed bodies' tags end in
// -gzip or -zstd), and reports whether it did. If-None-Match compares
// weakly (RFC 9110 13.1.2): W/ is ignored. Only the header's head is read
// (see headlist.ETags).
func notModified(w http.ResponseWriter, r *http.Request, etag string, set func(etag string)) bool {
	header := headlist.ETags(r.Header.Get("If-None-Match"))
	if header == "" {
		return false
	}
	plain := strings.TrimSuffix(etag, `"`)
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag || tag == plain+`-gzip"` || tag == plain+`-zstd"` {
			if tag == "*" {
				tag = etag
			}
			set(tag)
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/zstd"
)

// Compression comes in two kinds, by what the answer is.
//
// Static files (the widget's script, styles, vendored mustache.mjs and the
// template) never change while the server runs, so each is compressed once
// at start into a gzip body (best level) and a zstd one (default level),
// each with an ETag of its own (RFC 9110 8.8.3: a coded representation is
// another representation). A request then costs no CPU for compression, and
// http.ServeContent serves the chosen body as it serves the plain one:
// If-None-Match, If-Modified-Since, Range and HEAD all apply to the
// representation sent.
//
// The JSON endpoint is answered per request, so each answer is compressed
// whole, at the fastest levels, before it is written (jsoncompress.go): a
// slow reader then holds the coded bytes, not a compressor. A page is
// compressed once and kept with the rendered page (pagecompress.go).
// gzhttp passes their coded bodies through, and compresses their error
// answers.
//
// The request log's bytes are the body's bytes as sent, after compression:
// logRequests wraps the writer that gzhttp writes to.

// dynamicMinSize is the smallest answer of the page or the JSON endpoint
// that is compressed. Below it, the body and its ~400 bytes of headers fit
// in one TCP segment (an MSS of 1460 bytes) either way, so compressing
// would save neither a packet nor a round trip, only spend CPU. The hot
// JSON answer (start=0&desiredPosts=2) is near it: 562 bytes in the
// embedded demo, sent as it is; 1 049 in the bench's seeded posts,
// compressed to 535, at no cost the bench could see (the "Accept-Encoding
// gzip" row: 101% and 105% of the plain one's throughput). It is gzhttp's
// own default, named here because the reason is ours.
const dynamicMinSize = 1024

// compressAnswers compresses next's answers with gzip or zstd, as the
// request's Accept-Encoding allows (zstd when both are equally welcome:
// faster and smaller), when they are at least dynamicMinSize bytes. It
// adds "Vary: Accept-Encoding" to every answer, and leaves HEAD answers
// and answers that carry a Content-Encoding or Content-Range alone.
func compressAnswers(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(dynamicMinSize), gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		// The options are constants: an error is a bug, found by every test.
		panic(fmt.Sprintf("gzhttp options: %v", err))
	}
	return wrap(next)
}

// encodedBody is one compressed representation of a static file.
type encodedBody struct {
	coding string // the Content-Encoding: "zstd" or "gzip"
	body   []byte
	etag   string // the plain ETag with "-" and coding before its closing quote
}

// precompress returns the compressed representations of body that are
// smaller than it, smallest first; none for a file that does not shrink
// (an image already compressed, a few bytes of text).
func precompress(body []byte, etag string) ([]encodedBody, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	// A window no larger than the file: browsers decode zstd with a bounded
	// window (Chromium's is 8 MiB), and a file of ours is far smaller. Not
	// the best level: its encoder takes 37 MB, which more than doubled the
	// server's peak RSS (TestPageViewsAtCapRSS), for a few bytes; the
	// default takes 1.3 MB.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(zstdWindow(len(body))))
	if err != nil {
		return nil, err
	}
	zs := enc.EncodeAll(body, nil)
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var out []encodedBody
	for _, e := range []encodedBody{{coding: "zstd", body: zs}, {coding: "gzip", body: gz.Bytes()}} {
		if len(e.body) >= len(body) {
			continue
		}
		e.etag = strings.TrimSuffix(etag, `"`) + "-" + e.coding + `"`
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b encodedBody) int { return len(a.body) - len(b.body) })
	return out, nil
}

// zstdWindow is the smallest window zstd takes that holds n bytes.
func zstdWindow(n int) int {
	w := zstd.MinWindowSize
	for w < n && w < 8<<20 {
		w <<= 1
	}
	return w
}

// chooseEncoding returns the index in offered of the representation to
// send for acceptEncoding, or -1 for the plain one. Per RFC 9110 12.5.3:
// a coding is welcome with its q-value, or "*"'s when it is not named;
// identity is always acceptable, and preferred only when named (or "*")
// with a higher q-value than every coding offered; the most welcome coding
// wins, the smaller body (first in offered) on a tie. An empty or absent header gets the plain body, as most
// servers answer: a client that sends none may not decode anything.
func chooseEncoding(acceptEncoding string, offered []encodedBody) int {
	if acceptEncoding == "" || len(offered) == 0 {
		return -1
	}
	identity, star := -1.0, -1.0 // -1: not named
	q := make([]float64, len(offered))
	for i := range q {
		q[i] = -1
	}
	for part := range strings.SplitSeq(acceptEncoding, ",") {
		coding, weight, ok := parseCoding(part)
		if !ok {
			continue
		}
		switch coding {
		case "identity":
			identity = weight
		case "*":
			star = weight
		default:
			for i, e := range offered {
				if e.coding == coding || coding == "x-gzip" && e.coding == "gzip" {
					q[i] = weight
				}
			}
		}
	}
	if identity < 0 {
		// Unnamed, identity is acceptable but not preferred: "gzip;q=0.9"
		// alone asks for gzip.
		identity = max(star, 0)
	}
	best, bestQ := -1, 0.0
	for i := range offered {
		w := q[i]
		if w < 0 {
			w = max(star, 0)
		}
		if w > bestQ {
			best, bestQ = i, w
		}
	}
	if best >= 0 && bestQ >= identity {
		return best
	}
	return -1
}

// parseCoding reads one element of Accept-Encoding: a coding, lowercased,
// and its q-value (1 when absent). ok is false for an empty element or a
// q-value that does not parse, which is then ignored.
func parseCoding(s string) (coding string, q float64, ok bool) {
	coding, params, _ := strings.Cut(s, ";")
	coding = strings.ToLower(strings.TrimSpace(coding))
	if coding == "" {
		return "", 0, false
	}
	q = 1
	for param := range strings.SplitSeq(params, ";") {
		name, value, found := strings.Cut(param, "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || v < 0 || v > 1 {
			return "", 0, false
		}
		q = v
	}
	return coding, q, true
}

// Package compress is the server's one home for compression: the codings
// answers are offered in (zstd, then gzip), the choice among them by
// Accept-Encoding, the size below which an answer goes plain, and the
// encoders, shared by the JSON answers, the rendered pages and the static
// files.
package compress

import (
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/internal/headlist"
)

// The codings answers are offered in.
const (
	Zstd = "zstd"
	Gzip = "gzip"
)

// Codings are the codings offered, zstd first: as small as gzip and faster
// to make, so it wins a tie.
var Codings = [...]string{Zstd, Gzip}

// MinSize is the smallest answer of the page or the JSON endpoint that is
// compressed. Below it, the body and its headers fit in one TCP segment
// either way, so compressing would save neither a packet nor a round trip,
// only spend CPU. It is gzhttp's default too, for the error answers.
const MinSize = 1024

// Accept-Encoding is read only so far: a header may be tens of KB, and
// browsers send four or five codings. An element cut by the bound is left
// out whole, so a q-value is never read half.
const (
	maxAcceptEncodingBytes    = 1 << 10
	maxAcceptEncodingElements = 32
)

// Negotiate returns the coding of Codings to send an answer of size bytes
// in, for acceptEncoding: "" for the plain answer, when none offered is
// welcome or the answer is under MinSize.
func Negotiate(acceptEncoding string, size int) string {
	if size < MinSize {
		return ""
	}
	if i := Choose(acceptEncoding, Codings[:]); i >= 0 {
		return Codings[i]
	}
	return ""
}

// Choose returns the index in offered of the coding to send for
// acceptEncoding, or -1 for the plain body. Per RFC 9110 12.5.3: a coding
// is welcome with its q-value, or "*"'s when it is not named; identity is
// always acceptable, and preferred only when named (or "*") with a higher
// q-value than every coding offered; the most welcome coding wins, the
// first in offered on a tie. An empty or absent header gets the plain
// body, as most servers answer: a client that sends none may not decode
// anything. Only the header's first elements are read (see
// maxAcceptEncodingBytes).
func Choose(acceptEncoding string, offered []string) int {
	if acceptEncoding == "" || len(offered) == 0 {
		return -1
	}
	acceptEncoding = cutAcceptEncoding(acceptEncoding)
	identity, star := -1.0, -1.0 // -1: not named
	q := make([]float64, len(offered))
	for i := range q {
		q[i] = -1
	}
	elements := 0
	for part := range strings.SplitSeq(acceptEncoding, ",") {
		coding, weight, ok := parseCoding(part)
		if !ok {
			continue
		}
		if elements++; elements > maxAcceptEncodingElements {
			break
		}
		switch coding {
		case "identity":
			identity = weight
		case "*":
			star = weight
		default:
			for i, name := range offered {
				if coding == name || coding == "x-gzip" && name == Gzip {
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

// cutAcceptEncoding is acceptEncoding up to its last whole element within
// maxAcceptEncodingBytes.
func cutAcceptEncoding(acceptEncoding string) string {
	if len(acceptEncoding) <= maxAcceptEncodingBytes {
		return acceptEncoding
	}
	acceptEncoding = acceptEncoding[:maxAcceptEncodingBytes]
	return acceptEncoding[:max(strings.LastIndexByte(acceptEncoding, ','), 0)]
}

// acceptEncodingHead is what gzhttp is given of acceptEncoding: its whole
// elements within maxAcceptEncodingBytes, no more than
// maxAcceptEncodingElements of them.
func acceptEncodingHead(acceptEncoding string) string {
	return headlist.Head(acceptEncoding, ',', maxAcceptEncodingBytes, maxAcceptEncodingElements)
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

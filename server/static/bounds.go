package static

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/internal/headlist"
)

// maxRanges is how many ranges one Range header may ask for, as nginx's
// max_ranges: past it the whole file is sent, with 200. Readers of a file
// resume one download; none asks for its bytes a few at a time. net/http
// takes headers of up to 64 KB, so a client could otherwise ask for
// thousands.
const maxRanges = 8

// rangesWithinBounds reports whether a Range header may be answered as
// http.ServeContent answers it, for a body of size bytes of contentType:
// at most maxRanges ranges, and, when there are several, a multipart
// answer no larger than the body itself. Each part of a multipart answer
// carries a boundary and two header lines, so a thousand one-byte ranges
// would make of a small file an answer many times its size. A header that
// is no byte range, or does not parse, is left to ServeContent, which
// ignores it or answers 416.
func rangesWithinBounds(header string, size int64, contentType string) bool {
	spec, ok := strings.CutPrefix(header, "bytes=")
	if !ok {
		return true
	}
	n := strings.Count(spec, ",") + 1
	if n > maxRanges {
		return false
	}
	if n == 1 {
		return true // one range is at most the body
	}
	// mime/multipart's boundary is 60 characters: "--" boundary "--" and
	// a line break close the body, and each part opens with a line break,
	// "--" boundary, its Content-Range and Content-Type lines and an empty
	// line.
	const boundary = 60
	// The range's first and last byte and the size, none longer than the
	// size's digits.
	contentRange := int64(len("Content-Range: bytes -/\r\n") + 3*len(strconv.FormatInt(size, 10)))
	partHeaders := int64(2+2+boundary+2) + contentRange + int64(len("Content-Type: \r\n")+len(contentType)+2)
	total := int64(2 + 2 + boundary + 2 + 2)
	for part := range strings.SplitSeq(spec, ",") {
		length, ok := rangeLength(strings.TrimSpace(part), size)
		if !ok {
			return true
		}
		total += partHeaders + length
	}
	return total <= size
}

// rangeLength is how many bytes of a body of size bytes one range ("a-b",
// "a-" or "-n") asks for: 0 for one that starts past the end, which
// ServeContent leaves out. ok is false for one that does not parse.
func rangeLength(r string, size int64) (length int64, ok bool) {
	if r == "" {
		return 0, true // ServeContent skips an empty element
	}
	first, last, found := strings.Cut(r, "-")
	if !found {
		return 0, false
	}
	if first == "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		return min(n, size), true
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 {
		return 0, false
	}
	if start >= size {
		return 0, true
	}
	end := size - 1
	if last != "" {
		if end, err = strconv.ParseInt(last, 10, 64); err != nil || end < start {
			return 0, false
		}
		end = min(end, size-1)
	}
	return end - start + 1, true
}

// boundRequest returns r with the headers ServeContent reads cut to
// the server's bounds for a body of size bytes of contentType: the tag
// lists to their heads, and a Range past its bounds dropped, so that the
// whole body is sent. It returns r itself when nothing is past them, and
// a copy otherwise, as handlers do not change the request they are given.
func boundRequest(r *http.Request, size int64, contentType string) *http.Request {
	noneMatch, match := r.Header.Get("If-None-Match"), r.Header.Get("If-Match")
	noneMatchHead, matchHead := headlist.ETags(noneMatch), headlist.ETags(match)
	keepRange := rangesWithinBounds(r.Header.Get("Range"), size, contentType)
	if noneMatchHead == noneMatch && matchHead == match && keepRange {
		return r
	}
	r = r.Clone(r.Context())
	if noneMatchHead != noneMatch {
		r.Header.Set("If-None-Match", noneMatchHead)
	}
	if matchHead != match {
		r.Header.Set("If-Match", matchHead)
	}
	if !keepRange {
		r.Header.Del("Range")
	}
	return r
}

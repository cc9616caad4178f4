package main

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/internal/headlist"
)

// What the server reads of the request headers it parses. net/http takes
// headers of up to 64 KB, which the client fills as it likes; every list
// the server walks is read only as far as these bounds, so a long header
// costs no more than a short one.
const (
	// maxETagListBytes and maxETagListElements bound If-None-Match and
	// If-Match. A browser sends one tag and a cache a few, one for each
	// representation it keeps; a tag past the bounds is not seen, so the
	// answer is the whole body rather than a 304.
	maxETagListBytes    = 2 << 10
	maxETagListElements = 32
	// maxRanges is how many ranges one Range header may ask for, as nginx's
	// max_ranges: past it the whole file is sent, with 200. Readers of a
	// file resume one download; none asks for its bytes a few at a time.
	maxRanges = 8
	// maxUnfilteredCookies is the size of Cookie header the session layer
	// reads as it is; a longer one is first cut down to the session's own
	// cookies (see sessionCookiesOnly).
	maxUnfilteredCookies = 1 << 10
	// maxSessionCookies is how many cookies named like the session's a
	// long Cookie header keeps: a browser sends one of each.
	maxSessionCookies = 8
)

// etagListHead is the part of an If-None-Match or If-Match the server
// reads.
func etagListHead(value string) string {
	return headlist.Head(value, ',', maxETagListBytes, maxETagListElements)
}

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

// boundStaticRequest returns r with the headers ServeContent reads cut to
// the server's bounds for a body of size bytes of contentType: the tag
// lists to their heads, and a Range past its bounds dropped, so that the
// whole body is sent. It returns r itself when nothing is past them, and
// a copy otherwise, as handlers do not change the request they are given.
func boundStaticRequest(r *http.Request, size int64, contentType string) *http.Request {
	noneMatch, match := r.Header.Get("If-None-Match"), r.Header.Get("If-Match")
	noneMatchHead, matchHead := etagListHead(noneMatch), etagListHead(match)
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

// sessionCookiesOnly returns r with its Cookie header cut down to the
// cookies whose names begin with name, the session cookie and its
// companion, in the order sent, and at most maxSessionCookies of them.
// net/http's r.Cookie walks every cookie, checking each name, for each
// cookie asked for, and the session layer asks for two; a header of
// thousands of cookies then costs several answers' worth, where a search
// for the name costs a few microseconds. It returns r itself when the
// header is short, and a copy otherwise, as handlers do not change the
// request they are given.
func sessionCookiesOnly(r *http.Request, name string) *http.Request {
	lines := r.Header["Cookie"]
	size := 0
	for _, line := range lines {
		size += len(line)
	}
	if size <= maxUnfilteredCookies || name == "" {
		return r
	}
	var kept []string
	for _, line := range lines {
		for i := 0; i < len(line) && len(kept) < maxSessionCookies; {
			at := strings.Index(line[i:], name)
			if at < 0 {
				break
			}
			start := i + at
			end := strings.IndexByte(line[start:], ';')
			if end < 0 {
				end = len(line)
			} else {
				end += start
			}
			// A cookie's name begins the line or follows a ';' and
			// spaces; elsewhere the name is inside another's value.
			before := start
			for before > 0 && (line[before-1] == ' ' || line[before-1] == '\t') {
				before--
			}
			if before == 0 || line[before-1] == ';' {
				kept = append(kept, line[start:end])
			}
			i = end
		}
	}
	r = r.Clone(r.Context())
	if len(kept) == 0 {
		r.Header.Del("Cookie")
	} else {
		r.Header["Cookie"] = []string{strings.Join(kept, "; ")}
	}
	return r
}

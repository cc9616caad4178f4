package main

import (
	"net/http"
	"strings"
)

// What the server reads of a long Cookie header. net/http takes headers of
// up to 64 KB, which the client fills as it likes; the session layer reads
// only its own cookies of a long one, so that it costs no more than a
// short one.
const (
	// maxUnfilteredCookies is the size of Cookie header the session layer
	// reads as it is; a longer one is first cut down to the session's own
	// cookies (see sessionCookiesOnly).
	maxUnfilteredCookies = 1 << 10
	// maxSessionCookies is how many cookies named like the session's a
	// long Cookie header keeps: a browser sends one of each.
	maxSessionCookies = 8
)

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

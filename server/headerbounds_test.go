package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session"
)

func TestRangesWithinBounds(t *testing.T) {
	const size = 23522
	for _, tt := range []struct {
		name, header string
		want         bool
	}{
		{"none", "", true},
		{"one range", "bytes=0-99", true},
		{"one open range", "bytes=100-", true},
		{"a suffix", "bytes=-500", true},
		{"two ranges", "bytes=0-99,200-299", true},
		{"maxRanges ranges", "bytes=" + ranges(maxRanges, 1000, 100), true},
		{"one range more", "bytes=" + ranges(maxRanges+1, 1000, 100), false},
		{"5 000 one-byte ranges", manyRanges(5000), false},
		{"two ranges of the whole file", "bytes=0-,0-", false},
		{"overlapping ranges past the size", "bytes=0-20000,100-20000", false},
		{"tiny ranges of a tiny answer's worth", "bytes=0-0,2-2", true},
		{"not bytes", "pages=1-2", true},
		{"malformed, left to ServeContent", "bytes=a-b,c-d", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := rangesWithinBounds(tt.header, size, "text/javascript; charset=utf-8"); got != tt.want {
				t.Errorf("rangesWithinBounds(%.60q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
	// Two one-byte ranges of a 100-byte file: the multipart answer would
	// be several times the file.
	if rangesWithinBounds("bytes=0-0,2-2", 100, "text/plain") {
		t.Error("two ranges of a 100-byte file: want the whole file")
	}
}

// ranges is n ranges of length bytes, every step bytes.
func ranges(n, step, length int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%d-%d", i*step, i*step+length-1)
	}
	return strings.Join(parts, ",")
}

// TestStaticRangesBounded: whatever Range a client sends for a static file
// (an asset, the template), the answer is never larger than the file; past
// the bounds it is the whole file with 200, and within them the ranges as
// before.
func TestStaticRangesBounded(t *testing.T) {
	h, _ := fakeServer(t, fakePosts{}, &fakeSessions{})
	for _, path := range []string{"/assets/" + vendoredMustache, "/load-more.mustache"} {
		// The plain file and its gzip representation, each its own size.
		for _, coding := range []string{"", "gzip"} {
			whole := httptest.NewRequest(http.MethodGet, path, nil)
			whole.Header.Set("Accept-Encoding", coding)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, whole)
			size := rec.Body.Len()
			if rec.Header().Get("Content-Encoding") != coding {
				t.Fatalf("%s: Content-Encoding %q, want %q", path, rec.Header().Get("Content-Encoding"), coding)
			}
			for _, tt := range []struct {
				name       string
				header     string
				wantStatus int // for the plain file; 0: either
			}{
				{"one range", "bytes=0-99", http.StatusPartialContent},
				{"two ranges", "bytes=0-99,200-299", 0},
				{"5 000 one-byte ranges", manyRanges(5000), http.StatusOK},
				{"maxRanges+1 ranges", "bytes=" + ranges(maxRanges+1, 200, 10), http.StatusOK},
				{"the whole file twice", "bytes=0-,0-", http.StatusOK},
				{"past the end", fmt.Sprintf("bytes=%d-", size+10), http.StatusRequestedRangeNotSatisfiable},
			} {
				t.Run(path+"/"+coding+"/"+tt.name, func(t *testing.T) {
					req := httptest.NewRequest(http.MethodGet, path, nil)
					req.Header.Set("Accept-Encoding", coding)
					req.Header.Set("Range", tt.header)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if tt.wantStatus != 0 && rec.Code != tt.wantStatus {
						t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
					}
					if rec.Body.Len() > size {
						t.Errorf("an answer of %d bytes for a representation of %d", rec.Body.Len(), size)
					}
					if rec.Code == http.StatusOK && rec.Body.Len() != size {
						t.Errorf("200 with %d bytes, want the whole representation's %d", rec.Body.Len(), size)
					}
					if req.Header.Get("Range") != tt.header {
						t.Error("the handler changed the request's own Range header")
					}
				})
			}
		}
	}
}

// TestLongETagLists: a tag within the bounds of If-None-Match is seen, on
// a static file and on a public answer alike; one past them is not, and
// the answer is the whole body.
func TestLongETagLists(t *testing.T) {
	h, _ := fakeServer(t, fakePosts{}, &fakeSessions{})
	const path = "/assets/" + vendoredMustache
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	etag := rec.Header().Get("ETag")
	filler := strings.Repeat(`"x", `, maxETagListElements)
	for _, tt := range []struct {
		name, header string
		want         int
	}{
		{"the tag alone", etag, http.StatusNotModified},
		{"after a few others", `"a", "b", ` + etag, http.StatusNotModified},
		{"past the bound", filler + etag, http.StatusOK},
		{"60 KB of tags", strings.Repeat(`"x", `, 60<<10/5) + etag, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("If-None-Match", tt.header)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("static file: status %d, want %d", rec.Code, tt.want)
			}
			rec = httptest.NewRecorder()
			set := ""
			if notModified(rec, req, etag, func(tag string) { set = tag }) != (tt.want == http.StatusNotModified) {
				t.Errorf("notModified: %d, set %q, want %d", rec.Code, set, tt.want)
			}
		})
	}
}

// TestSessionCookiesOnly: cut down or not, the request carries the same
// session id and companion for the session layer, and a long header is
// cut to the session's cookies.
func TestSessionCookiesOnly(t *testing.T) {
	cookie := session.Cookie{Name: "PHPSESSID", Path: "/"}
	filler := strings.Repeat("abcdefghijklmnop=b; ", 2900)
	for _, tt := range []struct {
		name  string
		lines []string
		want  session.Visitor
		cut   bool
		// unlike net/http reading the whole header, for a header no
		// browser sends
		unlike bool
	}{
		{"none", nil, session.Visitor{}, false, false},
		{"a short header", []string{"a=b; PHPSESSID=abc; PHPSESSID_posts_start=v1"}, session.Visitor{ID: "abc", Carried: "v1"}, false, false},
		{"after 2 900 cookies", []string{filler + "PHPSESSID=abc; PHPSESSID_posts_start=v1"}, session.Visitor{ID: "abc", Carried: "v1"}, true, false},
		{"the first of two", []string{"PHPSESSID=first; " + filler + "PHPSESSID=second"}, session.Visitor{ID: "first"}, true, false},
		{"a bad value skipped, as net/http does", []string{`PHPSESSID=a\b; ` + filler + "PHPSESSID=good"}, session.Visitor{ID: "good"}, true, false},
		{"several lines", []string{filler, "x=y; PHPSESSID=abc", "PHPSESSID_posts_start=v1"}, session.Visitor{ID: "abc", Carried: "v1"}, true, false},
		{"none of ours", []string{filler}, session.Visitor{}, true, false},
		// net/http reads no cookie of a header of more than 3 000.
		{"after 12 000 cookies", []string{strings.Repeat("a=b; ", 12000) + "PHPSESSID=abc"}, session.Visitor{ID: "abc"}, true, true},
		{"the name inside a value", []string{filler + "x=PHPSESSID=no; PHPSESSID=yes"}, session.Visitor{ID: "yes"}, true, false},
		{"ours past maxSessionCookies", []string{strings.Repeat("PHPSESSIDx=1; ", maxSessionCookies) + filler + "PHPSESSID=late"}, session.Visitor{}, true, true},
		{"a name that begins alike", []string{filler + "PHPSESSIDX=no; PHPSESSID=yes"}, session.Visitor{ID: "yes"}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/load-more.php", nil)
			for _, line := range tt.lines {
				r.Header.Add("Cookie", line)
			}
			before := cookie.Visitor(r)
			got := sessionCookiesOnly(r, cookie.Name)
			// Only the two values the request carries, not the Visitor's
			// own state.
			seen := func(v session.Visitor) [2]string { return [2]string{v.ID, v.Carried} }
			if diff := cmp.Diff(seen(tt.want), seen(cookie.Visitor(got))); diff != "" {
				t.Errorf("cut down: (-want +got)\n%s", diff)
			}
			if !tt.unlike {
				if diff := cmp.Diff(seen(before), seen(cookie.Visitor(got))); diff != "" {
					t.Errorf("not as net/http reads the whole header: (-whole +cut)\n%s", diff)
				}
			}
			if cut := got != r; cut != tt.cut {
				t.Errorf("cut %v, want %v", cut, tt.cut)
			}
			if n := len(strings.Join(got.Header["Cookie"], "")); tt.cut && n > 200 {
				t.Errorf("the cut header is %d bytes", n)
			}
			if strings.Join(r.Header["Cookie"], "\n") != strings.Join(tt.lines, "\n") {
				t.Error("the request's own Cookie header changed")
			}
		})
	}
}

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLongETagLists: a tag within the bounds of If-None-Match is seen, on
// a static file and on a public answer alike; one past them is not, and
// the answer is the whole body.
func TestLongETagLists(t *testing.T) {
	h, _ := fakeServer(t, fakePosts{}, &fakeSessions{})
	const path = "/assets/" + vendoredMustache
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	etag := rec.Header().Get("ETag")
	// Past both of headlist.ETags's bounds; its own test pins them.
	filler := strings.Repeat(`"x", `, 500)
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

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session"
)

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

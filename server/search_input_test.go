package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wploadmore/wploadmore/blog"
)

// FuzzSearchQuery reads any query string as a search: it is a 400 naming
// s or another var, a 404 for a date past the calendar, a 414 past the
// query's bounds, or a search of UTF-8 text within WordPress's bound,
// whose canonical spelling, the one its Link and form carry, reads again
// as the same search.
func FuzzSearchQuery(f *testing.F) {
	for _, seed := range []string{
		"s=apple", "s=%FF", "s[]=x", "s=%zz", "s=a&s=b", "s=%22apple+pie%22&category_name=news", "s=-x&cat=-3",
		"s=%00%27%22%5C%25_", "s=" + strings.Repeat("-", 1601), "s=x&monthnum=13", "s=x&category_name=nope", "start=0&s=",
	} {
		f.Add(seed)
	}
	terms := fuzzTerms()
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseLoadMoreQuery(raw, 2, 100)
		var a archiveRequest
		if err == nil && q.search != nil {
			a, err = terms.resolveSearch(q.archive, *q.search, nil)
		}
		if err != nil {
			status, _, _ := errorStatus(err)
			if status != http.StatusBadRequest && status != http.StatusNotFound && status != http.StatusRequestURITooLong {
				t.Fatalf("error %v is a %d", err, status)
			}
			return
		}
		if a.search == nil {
			return
		}
		text := a.search.Text()
		if !utf8.ValidString(text) || len(text) > blog.MaxSearchBytes {
			t.Fatalf("searches for %q", text)
		}
		again, err := terms.resolveSearch(a.canonical, a.canonical.Get("s"), nil)
		if err != nil || again.search.Key() != a.search.Key() && !a.search.Nothing() {
			t.Fatalf("canonical %q reads as %q, %v; want %q", a.canonical.Encode(), again.search.Key(), err, a.search.Key())
		}
	})
}

// TestSearchBadInput sends searches of every kind of hostile text to the
// JSON endpoint and the page: s that is not UTF-8, not URL-encoded or an
// array is a 400 that names s (JSON on the JSON endpoint); anything else
// is answered, never with a 5xx.
func TestSearchBadInput(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	for _, c := range []struct {
		query string
		bad   bool
	}{
		{"s=%FF", true}, {"s=%C3%28", true}, {"s[]=x", true}, {"s=%zz", true},
		{"s=%27%22%5C", false}, {"s=%00", false}, {"s=100%25", false}, {"s=_", false}, {"s=%5C%5C%25", false},
		{"s=" + url.QueryEscape("'; DROP TABLE wp_posts; --"), false}, {"s=" + url.QueryEscape(`x" OR 1=1 -- \`), false},
		{"s=" + strings.Repeat("-", 1600), false}, {"s=" + strings.Repeat("-", 1601), false},
		{"s=" + strings.Repeat("%22", 900), false}, {"s=" + strings.Repeat("a+", 700), false}, {"s=" + strings.Repeat("%E6%9D%B1", 600), false},
		{"s=%0D%0A", false}, {"s=+", false}, {"s=", false}, {"s=x&lastPost=999999", false}, {"s=x&category_name=nope", false},
	} {
		for _, path := range []string{"/load-more.php?start=0&" + c.query, "/load-more.php?" + c.query} {
			resp := srv.get(t, path)
			switch {
			case c.bad && resp.Status != http.StatusBadRequest:
				t.Errorf("%.80s: %d; want 400", path, resp.Status)
			case c.bad && !strings.Contains(resp.Body, "s "):
				t.Errorf("%.80s: %q does not name s", path, resp.Body)
			case c.bad && strings.Contains(path, "start=") && !json.Valid([]byte(resp.Body)):
				t.Errorf("%.80s: %q is not JSON", path, resp.Body)
			case !c.bad && resp.Status != http.StatusOK:
				t.Errorf("%.80s: %d %.200s; want 200", path, resp.Status, resp.Body)
			}
		}
	}
}

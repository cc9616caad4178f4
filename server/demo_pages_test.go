package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestDemoPages reads the embedded demo site's pages as a newcomer would
// on `make run`: each archive and search page links back to the main
// list, which does not link to itself, and a search that finds nothing
// says so once.
func TestDemoPages(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	script := regexp.MustCompile(`(?s)<script.*?</script>`)
	tests := []struct {
		path     string
		home     bool   // the link back to the main list
		nothing  string // the one message of a page without posts
		articles bool
	}{
		{path: "/load-more.php", articles: true},
		{path: "/load-more.php?category_name=food-drink", home: true, articles: true},
		{path: "/load-more.php?tag=summer", home: true, articles: true},
		{path: "/load-more.php?author_name=lea-marchand", home: true, articles: true},
		{path: "/load-more.php?year=2023&monthnum=2&day=14", home: true, articles: true},
		{path: "/load-more.php?s=apple+pie", home: true, articles: true},
		{path: "/load-more.php?s=nothing+like+this", home: true, nothing: "No results found."},
		{path: "/load-more.php?s=pie&tag=bikes", home: true, nothing: "No results found."},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			page := srv.get(t, tt.path)
			if page.Status != http.StatusOK {
				t.Fatalf("%d\n%s", page.Status, page.Body)
			}
			if got := strings.Contains(page.Body, `<a href="load-more.php" rel="home">`); got != tt.home {
				t.Errorf("link back to the main list: %v, want %v", got, tt.home)
			}
			if got := strings.Contains(page.Body, "<article"); got != tt.articles {
				t.Errorf("articles: %v, want %v", got, tt.articles)
			}
			visible := script.ReplaceAllString(page.Body, "") // the widget's words hold every message
			for _, message := range []string{"No results found.", "No posts yet."} {
				want := 0
				if message == tt.nothing {
					want = 1
				}
				if got := strings.Count(visible, message); got != want {
					t.Errorf("%q shown %d times, want %d", message, got, want)
				}
			}
		})
	}
}

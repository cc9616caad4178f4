package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestSearchTTLHonoured: a search's ranking is paged through for
// -search-ttl, well past -cache-ttl: a post published meanwhile is not in
// it, however often its pages are read again; once -search-ttl has
// passed, the search is ranked again and lists it.
func TestSearchTTLHonoured(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out -search-ttl")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 8)
	const searchTTL = 3 * time.Second
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)},
		"-cache-ttl", "50ms", "-search-ttl", searchTTL.String())
	titles := func(start int) []string {
		t.Helper()
		got := srv.get(t, "/load-more.php?s=post&desiredPosts=2&start="+strconv.Itoa(start))
		var titles []string
		for _, p := range got.posts(t) {
			titles = append(titles, p.Title)
		}
		return titles
	}

	first := time.Now()
	if diff := cmp.Diff([]string{"Post 8", "Post 7"}, titles(0)); diff != "" {
		t.Fatalf("the search's first page (-want +got):\n%s", diff)
	}
	wpdbtest.Insert(t, cfg, wpsite.Post{Title: "Post 9", Name: "post-9", Content: "<p>Newer.</p>", Date: "2024-02-01 10:00:00"})
	for _, start := range []int{0, 2} {
		time.Sleep(200 * time.Millisecond) // past -cache-ttl: the page is read again
		got := titles(start)
		if time.Since(first) >= searchTTL {
			t.Fatalf("the machine is too slow: %v passed", time.Since(first))
		}
		if slices.Contains(got, "Post 9") || len(got) != 2 {
			t.Errorf("the search from %d within -search-ttl: %q, want the ranking of the first request, without Post 9", start, got)
		}
	}
	if got := srv.get(t, "/load-more.php?start=0&desiredPosts=1"); !strings.Contains(got.Body, "Post 9") {
		t.Fatalf("the blog past -cache-ttl does not list the new post: %s", got.Body)
	}
	time.Sleep(time.Until(first.Add(searchTTL + 100*time.Millisecond)))
	if diff := cmp.Diff([]string{"Post 9", "Post 8"}, titles(0)); diff != "" {
		t.Errorf("the search past -search-ttl (-want +got):\n%s", diff)
	}
}

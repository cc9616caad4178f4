package main

import (
	"net/url"
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

	first := time.Now()
	if diff := cmp.Diff([]string{"Post 8", "Post 7"}, searchTitles(t, srv, "post", 0)); diff != "" {
		t.Fatalf("the search's first page (-want +got):\n%s", diff)
	}
	wpdbtest.Insert(t, cfg, wpsite.Post{Title: "Post 9", Name: "post-9", Content: "<p>Newer.</p>", Date: "2024-02-01 10:00:00"})
	for _, start := range []int{0, 2} {
		time.Sleep(200 * time.Millisecond) // past -cache-ttl: the page is read again
		got := searchTitles(t, srv, "post", start)
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
	if diff := cmp.Diff([]string{"Post 9", "Post 8"}, searchTitles(t, srv, "post", 0)); diff != "" {
		t.Errorf("the search past -search-ttl (-want +got):\n%s", diff)
	}
}

// searchTitles returns the titles of the two posts of search s from start.
func searchTitles(t *testing.T, srv *testServer, s string, start int) []string {
	t.Helper()
	got := srv.get(t, "/load-more.php?s="+url.QueryEscape(s)+"&desiredPosts=2&start="+strconv.Itoa(start))
	var titles []string
	for _, p := range got.posts(t) {
		titles = append(titles, p.Title)
	}
	return titles
}

// TestSearchTTLOverCacheTTL: -search-ttl, and not -cache-ttl, is how long
// a search's ranking is paged through: past -cache-ttl, a post published
// meanwhile is on the blog but in none of the search's pages, cut from the
// first request's ranking. TestSearchTTLHonoured waits -search-ttl out.
func TestSearchTTLOverCacheTTL(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 8)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-cache-ttl", "50ms", "-search-ttl", "1h")
	if diff := cmp.Diff([]string{"Post 8", "Post 7"}, searchTitles(t, srv, "post", 0)); diff != "" {
		t.Fatalf("the search's first page (-want +got):\n%s", diff)
	}
	wpdbtest.Insert(t, cfg, wpsite.Post{Title: "Post 9", Name: "post-9", Content: "<p>Newer.</p>", Date: "2024-02-01 10:00:00"})
	time.Sleep(200 * time.Millisecond) // past -cache-ttl
	if got := srv.get(t, "/load-more.php?start=0&desiredPosts=1"); !strings.Contains(got.Body, "Post 9") {
		t.Fatalf("the blog past -cache-ttl does not list the new post: %s", got.Body)
	}
	for start, want := range map[int][]string{0: {"Post 8", "Post 7"}, 2: {"Post 6", "Post 5"}} {
		if diff := cmp.Diff(want, searchTitles(t, srv, "post", start)); diff != "" {
			t.Errorf("the search from %d past -cache-ttl, within -search-ttl (-want +got):\n%s", start, diff)
		}
	}
}

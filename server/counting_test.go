package main

// What the session counts, and what the page makes of the count: the
// counter grows by the posts a visitor was sent, and the page renders no
// more than -max-page-posts of them however high the counter is.

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestPageCapsPostsStart raises posts_start past -max-page-posts through
// the JSON endpoint, not through posts=N (TestPageMaxPosts covers that):
// the page still says what the session counts, but renders only the cap.
func TestPageCapsPostsStart(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 7)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_MAX_PAGE_POSTS": "3"})

	if got := badgeValue(t, srv.get(t, "/load-more.php").Body); got != "2" {
		t.Fatalf("first visit: badge %s, want 2", got)
	}
	for _, start := range []int{2, 4} {
		if n := len(srv.get(t, jsonPath(start, 2)).posts(t)); n != 2 {
			t.Fatalf("start=%d: %d posts, want 2", start, n)
		}
	}
	page := srv.get(t, "/load-more.php")
	if page.Status != http.StatusOK {
		t.Fatalf("page: %d %s", page.Status, page.Body)
	}
	if got := badgeValue(t, page.Body); got != "6" {
		t.Errorf("badge %s, want posts_start 6", got)
	}
	if got := countArticles(page.Body); got != 3 {
		t.Errorf("the page renders %d posts, want -max-page-posts 3", got)
	}
}

// TestCounterShortLastPage asks for more posts than are left: posts_start
// grows by the posts sent, not by desiredPosts, with and without lastPost,
// and Redis holds the count in PHP's form.
func TestCounterShortLastPage(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	ids := seedBlog(t, cfg, 5)
	tests := []struct {
		name      string
		query     string
		wantPosts int
	}{
		{"offset", "start=4&desiredPosts=2", 1},
		{"lastPost", fmt.Sprintf("start=4&desiredPosts=2&lastPost=%d", ids[3]), 1},
		{"far short", "start=3&desiredPosts=100", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := sessiontest.New(t)
			srv := startServer(t, map[string]string{
				"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": r.URL, "LOADMORE_SESSION_PREFIX": r.Prefix,
			})
			srv.get(t, "/load-more.php") // the session, at 2
			posts := srv.get(t, "/load-more.php?"+tt.query).posts(t)
			if len(posts) != tt.wantPosts {
				t.Fatalf("%d posts, want the %d left", len(posts), tt.wantPosts)
			}
			want := 2 + tt.wantPosts
			if got := badgeValue(t, srv.get(t, "/load-more.php").Body); got != fmt.Sprint(want) {
				t.Errorf("badge %s after %d posts, want %d", got, len(posts), want)
			}
			stored, _ := r.Get(r.Prefix + sessionCookie(t, srv))
			if got := string(stored); got != fmt.Sprintf("posts_start|i:%d;", want) {
				t.Errorf("Redis holds %q, want posts_start|i:%d;", got, want)
			}
		})
	}
}

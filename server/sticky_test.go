package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// stickySitePHP adds to archiveSitePHP's posts a twin of the post of
// 2024-03-01 08:00 (same date, higher ID), and sticks, in this order, the
// oldest post, a draft, that 2024-03-01 post and a page: WordPress shows
// two of them first, newest first, and ignores the draft and the page.
const stickySitePHP = `
$ids = get_posts(array('posts_per_page' => -1, 'orderby' => array('date' => 'ASC', 'ID' => 'ASC'), 'fields' => 'ids'));
wp_insert_post(array('post_title' => 'Twin', 'post_content' => '<p>Twin.</p>', 'post_status' => 'publish', 'post_date' => '2024-03-01 08:00:00'));
$draft = wp_insert_post(array('post_title' => 'Draft', 'post_content' => 'x', 'post_status' => 'draft'));
$page = wp_insert_post(array('post_type' => 'page', 'post_title' => 'About', 'post_content' => 'x', 'post_status' => 'publish'));
foreach (array($ids[0], $draft, $ids[6], $page) as $id) { stick_post($id); }
echo json_encode(array('old' => $ids[0], 'mid' => $ids[6], 'newest' => $ids[count($ids) - 1], 'second' => $ids[count($ids) - 2], 'page' => $page));
`

// homeIDsPHP prints the IDs of the blog's home, of the post types %s (a
// PHP array), as WP_Query lists it with every post on its first page: the
// sticky posts first, then the others.
const homeIDsPHP = `
$q = new WP_Query(array('post_type' => %s, 'post_status' => 'publish', 'posts_per_page' => -1,
	'orderby' => array('date' => 'DESC', 'ID' => 'DESC')));
echo json_encode(array('home' => $q->is_home, 'ids' => array_map(function ($p) { return (int) $p->ID; }, $q->posts)));
`

// stickySite installs archiveSitePHP's site with stickySitePHP's sticky
// posts, and returns it with the IDs of the oldest and the 2024-03-01
// sticky posts, of the two newest posts and of the sticky page.
func stickySite(t *testing.T) (*wpdbtest.WordPress, map[string]uint64) {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	wp.PHP(t, archiveSitePHP)
	var ids map[string]uint64
	if err := json.Unmarshal(wp.PHP(t, stickySitePHP), &ids); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return wp, ids
}

// wordpressHome asks WP_Query for the order of the blog home listing
// types, and checks that it is one: sticky posts first.
func wordpressHome(t *testing.T, wp *wpdbtest.WordPress, types ...string) []uint64 {
	t.Helper()
	var home struct {
		Home bool
		IDs  []uint64
	}
	quoted := make([]string, len(types))
	for i, pt := range types {
		quoted[i] = "'" + pt + "'"
	}
	php := fmt.Sprintf(homeIDsPHP, "array("+strings.Join(quoted, ", ")+")")
	if err := json.Unmarshal(wp.PHP(t, php), &home); err != nil {
		t.Fatal(err)
	}
	if !home.Home {
		t.Fatal("WP_Query is not is_home: it would not put sticky posts first")
	}
	return home.IDs
}

// walkOffsets pages the JSON endpoint by start alone, as the PHP script's
// clients do, until a batch comes back short.
func walkOffsets(t *testing.T, srv *testServer, batch int) []uint64 {
	t.Helper()
	var ids []uint64
	for i := 0; ; i++ {
		if i > 50 {
			t.Fatal("more than 50 batches")
		}
		got := postIDs(srv.get(t, fmt.Sprintf("/load-more.php?start=%d&desiredPosts=%d", len(ids), batch)).posts(t))
		ids = append(ids, got...)
		if len(got) < batch {
			return ids
		}
	}
}

// checkWalks walks srv's listing by start and by the Link headers, batch
// posts at a time: each walk must be want, WP_Query's order.
func checkWalks(t *testing.T, srv *testServer, batch int, want []uint64) {
	t.Helper()
	if diff := cmp.Diff(want, walkOffsets(t, srv, batch)); diff != "" {
		t.Errorf("walk by start (-WP_Query +got):\n%s", diff)
	}
	got, _ := walk(t, srv, fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d", batch))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk by Link, lastPost (-WP_Query +got):\n%s", diff)
	}
}

// TestStickyPostsWalks walks the listing of a real WordPress site with
// sticky posts, by start and by the Link headers (lastPost, a sticky post
// among them), at several batch sizes, with the cache and without it: each
// walk is WP_Query's home order, sticky posts first, no post twice, none
// missing. The page's first posts follow the same order; an archive
// keeps its own, sticky posts where their dates put them.
func TestStickyPostsWalks(t *testing.T) {
	if testing.Short() {
		t.Skip("installs WordPress (seconds); run without -short")
	}
	t.Parallel()
	wp, ids := stickySite(t)
	want := wordpressHome(t, wp, "post")
	if first := want[:2]; !cmp.Equal(first, []uint64{ids["mid"], ids["old"]}) {
		t.Fatalf("WP_Query's home starts %v, want the sticky posts %d and %d first", first, ids["mid"], ids["old"])
	}
	for _, ttl := range []string{"1s", "0"} {
		srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"},
			"-sticky-posts", "-cache-ttl", ttl, "-cache-depth", "4")
		for _, batch := range []int{1, 2, 3, 5, 20} {
			t.Run(fmt.Sprintf("ttl=%s/batch=%d", ttl, batch), func(t *testing.T) { checkWalks(t, srv, batch, want) })
		}
		news := wordpressArchives(t, wp, []map[string]string{{"category_name": "news"}})[0] // ignore_sticky_posts
		if got, _ := walk(t, srv, "/load-more.php?start=0&desiredPosts=2&category_name=news"); !cmp.Equal(news, got) {
			t.Errorf("ttl=%s: the archive news lists %v, want WP_Query's %v: no sticky post first", ttl, got, news)
		}
		for _, n := range []int{1, 2, 3, 7} {
			page := srv.get(t, fmt.Sprintf("/load-more.php?posts=%d", n)).Body
			if diff := cmp.Diff(want[:n], pagePostIDs(page)); diff != "" {
				t.Errorf("ttl=%s: the page of %d posts (-WP_Query +got):\n%s", ttl, n, diff)
			}
		}
	}
}

// TestStickyPostsTypes lists posts and pages: the sticky page, which a
// listing of posts ignores, comes first among the sticky posts by its
// date, as on a home that WP_Query lists both types on, and the walks by
// start and by Link follow WP_Query's order, with the cache and without.
func TestStickyPostsTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("installs WordPress (seconds); run without -short")
	}
	t.Parallel()
	wp, ids := stickySite(t)
	want := wordpressHome(t, wp, "post", "page")
	if len(want) < 3 || !slices.Contains(want[:3], ids["page"]) {
		t.Fatalf("WP_Query's home of posts and pages starts %v, want the sticky page %d among its three sticky posts", want, ids["page"])
	}
	for _, ttl := range []string{"1s", "0"} {
		srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"},
			"-sticky-posts", "-post-types", "post,page", "-cache-ttl", ttl, "-cache-depth", "4")
		for _, batch := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("ttl=%s/batch=%d", ttl, batch), func(t *testing.T) { checkWalks(t, srv, batch, want) })
		}
	}
}

// TestStickyPostsOff checks that without -sticky-posts the listing stays
// the PHP script's, newest first, sticky posts where their dates put them.
func TestStickyPostsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("installs WordPress (seconds); run without -short")
	}
	t.Parallel()
	wp, _ := stickySite(t)
	want := wordpressArchives(t, wp, []map[string]string{{}})[0] // ignore_sticky_posts
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_"})
	if diff := cmp.Diff(want, walkOffsets(t, srv, 3)); diff != "" {
		t.Errorf("walk by start (-WP_Query ignoring sticky posts +got):\n%s", diff)
	}
}

// TestStickyPostsFollowOption sticks and unsticks a post in WordPress
// while the server reads the options again as listing.WatchOptions does
// (every 50 ms here, every listing.OptionsEvery in production): the first
// batch follows within the refresh and the freshness bound.
// watchingServer is a server on wp's database, with flags, whose visitors'
// posts_start is postsStart, and which reads the site's options again
// every 50 ms, until t ends.
func watchingServer(t *testing.T, wp *wpdbtest.WordPress, postsStart int, flags ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	store, err := wpdb.Open(ctx, wp.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	options, err := store.Options(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(append([]string{"wploadmore"}, flags...), envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	h, err := newServer(serverDeps{Config: cfg, Logger: logger, Posts: store, Sessions: &fakeSessions{postsStart: postsStart},
		Templates: templates.FS, Public: public.FS, Options: options})
	if err != nil {
		t.Fatal(err)
	}
	go listing.WatchOptions(ctx, store, 50*time.Millisecond, h.useOptions, logger)
	return h
}

func TestStickyPostsFollowOption(t *testing.T) {
	if testing.Short() {
		t.Skip("installs WordPress (seconds); run without -short")
	}
	t.Parallel()
	wp, ids := stickySite(t)
	h := watchingServer(t, wp, 2, "-sticky-posts", "-cache-ttl", "200ms")
	first := func() []uint64 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/load-more.php?start=0&desiredPosts=3", nil))
		var posts []listing.Post
		if err := json.Unmarshal(w.Body.Bytes(), &posts); err != nil {
			t.Fatalf("%d %s: %v", w.Code, w.Body, err)
		}
		return postIDs(posts)
	}
	steps := []struct {
		name, php string
		want      []uint64 // how the first batch starts
	}{
		{"as installed", "", []uint64{ids["mid"], ids["old"], ids["newest"]}},
		{"old unstuck", fmt.Sprintf("unstick_post(%d);", ids["old"]), []uint64{ids["mid"], ids["newest"]}},
		{"newest stuck", fmt.Sprintf("stick_post(%d);", ids["newest"]), []uint64{ids["newest"], ids["mid"]}},
		// The option unchanged: the sticky posts are read again after the
		// freshness bound, and a draft is no longer listed, first or not.
		{"mid unpublished", fmt.Sprintf("wp_update_post(array('ID' => %d, 'post_status' => 'draft'));", ids["mid"]), []uint64{ids["newest"], ids["second"]}},
	}
	for _, step := range steps {
		if step.php != "" {
			wp.PHP(t, step.php)
		}
		var got []uint64
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			got = first()
			if len(got) >= len(step.want) && cmp.Equal(step.want, got[:len(step.want)]) || time.Now().After(deadline) {
				break
			}
		}
		if len(got) < len(step.want) || !cmp.Equal(step.want, got[:len(step.want)]) {
			t.Errorf("%s: first batch %v, want it to start %v", step.name, got, step.want)
		}
	}
}

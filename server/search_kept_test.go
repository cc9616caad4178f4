package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// keptSearchServer is a server on n posts, "Content of post N." each,
// trusting 127.0.0.1's X-Forwarded-For, with its metrics served.
func keptSearchServer(t *testing.T, n int, args ...string) *testServer {
	t.Helper()
	cfg := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(n)...)
	return startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_METRICS_ADDR": "127.0.0.1:0"},
		append([]string{"-trusted-proxies", "127.0.0.1"}, args...)...)
}

// searchAs asks for the first posts of search s as client, forwarded by
// the trusted proxy, and fails unless they are answered.
func searchAs(t *testing.T, srv *testServer, client, s string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/load-more.php?start=0&desiredPosts=2&s="+url.QueryEscape(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", client)
	resp, err := srv.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("%s's search %q: %d %s", client, s, resp.StatusCode, body)
	}
}

// cacheReads are the posts cache's hits and misses so far, as its
// metrics count them: a hit answered from memory, a miss waited for the
// database (a scan, or a read of posts).
func cacheReads(t *testing.T, srv *testServer) (hits, misses int) {
	t.Helper()
	families := scrape(t, metricsURL(t, srv))
	count := func(name string) int {
		f, ok := families[name]
		if !ok || len(f.GetMetric()) != 1 {
			t.Fatalf("no %s among the metrics", name)
		}
		return int(value(f.GetMetric()[0]))
	}
	return count("wploadmore_posts_cache_hits_total"), count("wploadmore_posts_cache_misses_total")
}

// TestKeptSearchRepeatedFromMemory: a search asked 20 times, each past
// -cache-ttl, waits for the database once (its scan, then its posts'
// read); the rest are answered from memory.
func TestKeptSearchRepeatedFromMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits past -cache-ttl 20 times")
	}
	t.Parallel()
	srv := keptSearchServer(t, 40, "-cache-ttl", "100ms", "-search-ttl", "1m")
	for range 20 {
		searchAs(t, srv, "192.0.2.1", "post")
		time.Sleep(120 * time.Millisecond)
	}
	if hits, misses := cacheReads(t, srv); hits != 19 || misses != 1 {
		t.Errorf("20 repeats of a search past -cache-ttl: %d hits, %d misses; want 19 and 1", hits, misses)
	}
}

// TestSearchClientsShare: one client's nine searches of every post, each
// a ranking of about a seventh of -search-bytes, leave another client's
// ranking kept: its repeat is answered from memory.
func TestSearchClientsShare(t *testing.T) {
	t.Parallel()
	srv := keptSearchServer(t, 400, "-search-bytes", "65536", "-search-ttl", "1m")
	searchAs(t, srv, "192.0.2.2", "post 7.")
	for i := 1; i <= 9; i++ {
		searchAs(t, srv, "192.0.2.1", fmt.Sprintf("content -z%d", i))
	}
	hits, misses := cacheReads(t, srv)
	if hits != 0 || misses != 10 {
		t.Fatalf("ten distinct searches: %d hits, %d misses; want 0 and 10", hits, misses)
	}
	searchAs(t, srv, "192.0.2.2", "post 7.")
	if hits, misses := cacheReads(t, srv); hits != 1 || misses != 10 {
		t.Errorf("192.0.2.2's search again after 192.0.2.1's nine: %d hits, %d misses in all; want 1 and 10, answered from memory", hits, misses)
	}
}

// TestSearchBytesSetting: -search-bytes bounds the rankings kept. The
// search of each of 3 000 posts, a ranking of about 72 KB, past 64 KiB of
// -search-bytes, is answered and not kept: asked again, it waits for the
// database again; a small search is kept, and repeated from memory.
func TestSearchBytesSetting(t *testing.T) {
	t.Parallel()
	srv := keptSearchServer(t, 3000, "-search-bytes", "65536", "-search-ttl", "1m")
	for range 2 {
		if got := postIDs(srv.get(t, "/load-more.php?s=post&start=0&desiredPosts=2").posts(t)); !slices.Equal(got, []uint64{3000, 2999}) {
			t.Errorf("the search of every post: %v, want [3000 2999]", got)
		}
	}
	for range 2 {
		searchAs(t, srv, "192.0.2.1", "post 7.")
	}
	if hits, misses := cacheReads(t, srv); hits != 1 || misses != 3 {
		t.Errorf("the search of every post twice, then a small one twice: %d hits, %d misses; want 1 and 3: the first not kept, the second kept", hits, misses)
	}
}

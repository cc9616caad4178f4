package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestRedisFull fills the sessions' Redis to its maxmemory with
// noeviction under a running server: a visitor with a stored session and
// a new one are still answered 200 and their counts go on, /readyz says
// Redis is degraded (200), and a metric counts the answers; once Redis
// has room again, their next clicks store the exact counts.
func TestRedisFull(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 40)
	rs := sessiontest.StartServer(t, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
	srv := startServer(t, map[string]string{
		"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": rs.URL,
		"LOADMORE_METRICS_ADDR": "127.0.0.1:0", "LOADMORE_ACCESS_LOG": "off",
	})

	stored := newFloodVisitor(t, srv.URL)
	stored.click(t)
	if stored.carried(t) {
		t.Fatal("with room, the visitor's session was not stored")
	}
	fillRedisFull(t, rs.URL)

	for range 3 {
		stored.click(t) // fails the test on anything but 200
	}
	stored.checkPage(t)
	newcomer := newFloodVisitor(t, srv.URL)
	for range 2 {
		newcomer.click(t)
	}
	newcomer.checkPage(t)
	if !stored.carried(t) || !newcomer.carried(t) {
		t.Errorf("in a full Redis, companions: stored visitor %v, new one %v; want both carried", stored.carried(t), newcomer.carried(t))
	}
	if ready := srv.get(t, "/readyz"); ready.Status != http.StatusOK || !strings.Contains(ready.Body, `"redis":"degraded"`) {
		t.Errorf("readyz with Redis full: %d %s, want 200 and redis degraded", ready.Status, ready.Body)
	}
	full := scrape(t, metricsURL(t, srv))["wploadmore_session_store_full_total"]
	if full == nil || value(full.GetMetric()[0]) < 5 {
		t.Errorf("wploadmore_session_store_full_total = %v, want one for each refused write", full)
	}

	// Room again.
	if _, err := redisDo(t, rs.URL, "CONFIG", "SET", "maxmemory", "0"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []*floodVisitor{stored, newcomer} {
		v.click(t)
		if v.carried(t) {
			t.Error("with room again, a visitor still carries its count")
		}
		v.checkPage(t)
		id := ""
		for _, c := range v.client.Jar.Cookies(mustParseURL(t, v.url)) {
			if c.Name == "PHPSESSID" {
				id = c.Value
			}
		}
		got, err := redis.String(redisDo(t, rs.URL, "GET", "PHPREDIS_SESSION:"+id))
		if want := fmt.Sprintf("posts_start|i:%d;", v.shown); err != nil || got != want {
			t.Errorf("stored under %s: %q, %v; want %q", id, got, err, want)
		}
	}
	if ready := srv.get(t, "/readyz"); ready.Status != http.StatusOK || !strings.Contains(ready.Body, `"redis":"ok"`) {
		t.Errorf("readyz with room again: %d %s", ready.Status, ready.Body)
	}
}

// fillRedisFull writes values into the Redis at url until it refuses one
// for want of memory, then lowers maxmemory under what it holds: at the
// edge, a refused big write frees its query buffer and leaves room for
// the next small one.
func fillRedisFull(t *testing.T, url string) {
	t.Helper()
	value := strings.Repeat("x", 16<<10)
	for i := 0; ; i++ {
		if i > 100_000 {
			t.Fatal("Redis took 1.6 GB without refusing a write: no maxmemory?")
		}
		if _, err := redisDo(t, url, "SET", fmt.Sprintf("filler:%d", i), value); err != nil {
			if !strings.Contains(err.Error(), "OOM ") {
				t.Fatalf("filling Redis: %v", err)
			}
			break
		}
	}
	if _, err := redisDo(t, url, "CONFIG", "SET", "maxmemory", "1mb"); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestDatabaseOutage cuts MariaDB off under a running server: what the
// cache read less than its freshness bound ago is still served, then
// requests get a 503 with a JSON error and no SQL, and the server recovers
// on its own when the database is back.
func TestDatabaseOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for the database to come back")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 4)
	cfg, proxy := wpdbtest.ThroughProxy(t, cfg)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_QUERY_TIMEOUT": "2s"})

	if n := len(srv.get(t, jsonPath(0, 2)).posts(t)); n != 2 {
		t.Fatalf("before the outage: %d posts", n)
	}
	proxy.Refuse()
	if cached := srv.get(t, jsonPath(0, 2)); cached.Status != http.StatusOK {
		t.Errorf("at once: %d %s, want the posts read a moment ago, from memory", cached.Status, cached.Body)
	}
	time.Sleep(1100 * time.Millisecond) // -cache-ttl's default, and a margin
	down := srv.get(t, jsonPath(0, 2))
	if down.Status != http.StatusServiceUnavailable || down.Body != `{"error":"database unavailable"}`+"\n" {
		t.Errorf("during the outage: %d %q, want 503 database unavailable", down.Status, down.Body)
	}
	if ready := srv.get(t, "/readyz"); ready.Status != http.StatusServiceUnavailable {
		t.Errorf("readyz during the outage: %d %s", ready.Status, ready.Body)
	}
	if page := srv.get(t, "/load-more.php"); page.Status != http.StatusServiceUnavailable || strings.Contains(page.Body, "SELECT") {
		t.Errorf("page during the outage: %d %s", page.Status, page.Body)
	}
	if health := srv.get(t, "/healthz"); health.Status != http.StatusOK {
		t.Errorf("healthz during the outage: %d", health.Status)
	}
	if strings.Contains(down.Body, "SELECT") || strings.Contains(down.Body, "wp_posts") {
		t.Errorf("the error shows SQL: %s", down.Body)
	}

	proxy.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := srv.get(t, jsonPath(0, 2))
		if got.Status == http.StatusOK {
			if n := len(got.posts(t)); n != 2 {
				t.Errorf("after the outage: %d posts", n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered 10s after the database came back: %d %s", got.Status, got.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ready := srv.get(t, "/readyz"); ready.Status != http.StatusOK {
		t.Errorf("readyz after the outage: %d %s", ready.Status, ready.Body)
	}
}

// TestRedisOutage stops the session store's Redis: a JSON request fails
// with 503 rather than return posts the counter does not count, and the
// server recovers when Redis is back.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 4)
	redis := sessiontest.StartServer(t)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": redis.URL})

	srv.get(t, "/load-more.php")
	if n := len(srv.get(t, jsonPath(2, 2)).posts(t)); n != 2 {
		t.Fatalf("before the outage: %d posts", n)
	}
	redis.Stop()
	down := srv.get(t, jsonPath(0, 2))
	if down.Status != http.StatusServiceUnavailable || down.Body != `{"error":"session store unavailable"}`+"\n" {
		t.Errorf("during the outage: %d %q, want 503 session store unavailable", down.Status, down.Body)
	}
	if ready := srv.get(t, "/readyz"); ready.Status != http.StatusServiceUnavailable || !strings.Contains(ready.Body, `"redis":"unavailable"`) {
		t.Errorf("readyz during the outage: %d %s", ready.Status, ready.Body)
	}
	redis.Start()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := srv.get(t, jsonPath(0, 2))
		if got.Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered 10s after Redis came back: %d %s", got.Status, got.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGracefulShutdown cancels run while a slow request is in flight: the
// request completes, then run returns without error.
func TestGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process shut down mid-request")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 4)
	cfg, proxy := wpdbtest.ThroughProxy(t, cfg)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
	proxy.Refuse() // drop the pool's idle connections, so the next query dials anew, slowly
	proxy.SetDelay(500 * time.Millisecond)
	proxy.Restore()

	type result struct {
		status int
		err    error
	}
	inFlight := make(chan result, 1)
	go func() {
		resp, err := http.Get(srv.URL + jsonPath(0, 2))
		if err != nil {
			inFlight <- result{err: err}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		inFlight <- result{status: resp.StatusCode}
	}()
	time.Sleep(200 * time.Millisecond) // the request is now waiting on the database
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop() }()

	got := <-inFlight
	if got.err != nil || got.status != http.StatusOK {
		t.Errorf("in-flight request: %d %v, want 200", got.status, got.err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("run: %v", err)
	}
	if _, err := http.Get(srv.URL + "/healthz"); err == nil {
		t.Error("still serving after shutdown")
	}
}

// TestStartRefusals checks that a server that cannot serve properly says so
// at start, in one line naming the setting, instead of starting half-broken.
// A busy port and refused passwords are rows of TestConfigurationMistakes;
// an unreachable database or Redis is waited for, not refused
// (TestStartBeforeDependencies).
func TestStartRefusals(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() }) // not defer: the parallel subtests run after this function returns
	empty := wpdbtest.SQLite(t)

	tests := []struct {
		name     string
		env      map[string]string
		wantText string
	}{
		// The metrics port is taken before the database, which is not there
		// either, is tried (the main port's rows: TestConfigurationMistakes).
		{"busy metrics port", map[string]string{"LOADMORE_METRICS_ADDR": busy.Addr().String(), "LOADMORE_DB": "mysql://root@127.0.0.1:1/wordpress"}, "-metrics-addr"},
		{"bad database URL", map[string]string{"LOADMORE_DB": "postgres://x/y"}, "-db"},
		{"missing wp-config", map[string]string{"LOADMORE_WP_CONFIG": "/nonexistent/wp-config.php"}, "-wp-config"},
		{"wrong table prefix", map[string]string{"LOADMORE_DB": dbURL(t, empty), "LOADMORE_TABLE_PREFIX": "blog_"}, "blog_posts"},
		{"bad Redis URL", map[string]string{"LOADMORE_REDIS": "http://127.0.0.1:6379"}, "-redis"},
		{"missing templates folder", map[string]string{"LOADMORE_TEMPLATES": "/nonexistent"}, "-templates"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"LOADMORE_ADDR": "127.0.0.1:0", "LOADMORE_DATA_DIR": t.TempDir()}
			for k, v := range tt.env {
				env[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := run(ctx, []string{"wploadmore"}, envFunc(env), io.Discard)
			if err == nil {
				t.Fatalf("run started; want an error containing %q", tt.wantText)
			}
			if !strings.Contains(err.Error(), tt.wantText) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, tt.wantText)
			}
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestStartBeforeDependencies starts the server before its Redis (a
// redis-server started a moment later on its port) and before its
// database (MariaDB behind a proxy that refuses, then forwards): it
// listens, /healthz is 200, /readyz 503 naming the dependency and why,
// requests 503 with Retry-After; once the dependency answers it serves,
// without a restart.
func TestStartBeforeDependencies(t *testing.T) {
	t.Parallel()
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		rs := sessiontest.StartServer(t)
		rs.Stop() // its port is free until it starts again, below
		db := wpdbtest.SQLite(t)
		seedBlog(t, db, 4)
		srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, db), "LOADMORE_REDIS": rs.URL})
		checkStarting(t, srv, "redis", "unavailable: connection refused", `{"error":"session store unavailable"}`)
		rs.Start()
		waitServing(t, srv, 10*time.Second)
		checkCameUp(t, srv)
	})
	t.Run("database", func(t *testing.T) {
		t.Parallel()
		db := wpdbtest.MySQL(t)
		seedBlog(t, db, 4)
		proxied, proxy := wpdbtest.ThroughProxy(t, db)
		proxy.Refuse()
		srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, proxied)})
		checkStarting(t, srv, "database", "unavailable: connection refused", `{"error":"database unavailable"}`)
		proxy.Restore()
		waitServing(t, srv, 10*time.Second)
		checkCameUp(t, srv)
	})
	t.Run("a mistake found once the database answers stops the run", func(t *testing.T) {
		t.Parallel()
		db := wpdbtest.MySQL(t)
		proxied, proxy := wpdbtest.ThroughProxy(t, db)
		proxy.Refuse()
		env := map[string]string{"LOADMORE_ADDR": "127.0.0.1:0", "LOADMORE_DATA_DIR": t.TempDir(),
			"LOADMORE_DB": dbURL(t, proxied), "LOADMORE_TABLE_PREFIX": "blog_"}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		logs := &testkit.SyncBuffer{}
		done := make(chan error, 1)
		go func() { done <- run(ctx, []string{"wploadmore"}, envFunc(env), logs) }()
		for !strings.Contains(logs.String(), `msg=listening`) {
			select {
			case err := <-done:
				t.Fatalf("run returned before it waited: %v\n%s", err, logs)
			case <-time.After(10 * time.Millisecond):
			}
		}
		proxy.Restore()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "table blog_posts not found") {
				t.Errorf("run: %v, want the missing table", err)
			}
		case <-ctx.Done():
			t.Fatalf("run still waiting 10s after the database answered:\n%s", logs)
		}
	})
}

// TestStartBeforeCluster starts the server before its Redis Cluster forms
// (six nodes up, not joined yet), then forms the cluster: the server
// serves once it does. Then it starts the server 20 times in a row right
// after the new cluster says cluster_state:ok, while the other nodes may
// not agree yet (redisc: failed to get a connection): each must end serving.
func TestStartBeforeCluster(t *testing.T) {
	sessiontest.NeedRedisTools(t)
	if testing.Short() {
		t.Skip("-short: forms a Redis Cluster of six nodes")
	}
	t.Parallel()
	cl, err := sessiontest.StartNodes(6)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	db := wpdbtest.SQLite(t)
	seedBlog(t, db, 4)
	env := map[string]string{"LOADMORE_DB": dbURL(t, db), "LOADMORE_REDIS": cl.URL()}
	early := startServer(t, env)
	checkStarting(t, early, "redis", "unavailable: …", `{"error":"session store unavailable"}`)

	if err := cl.Create(1); err != nil {
		t.Fatal(err)
	}
	// As a roll-out's health check sees it: one node says
	// cluster_state:ok, the others may not agree yet (the replicas say it
	// first).
	for deadline := time.Now().Add(30 * time.Second); !slices.ContainsFunc(cl.Addrs, clusterOK); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no node says cluster_state:ok 30s after the cluster was created")
		}
	}
	formed := time.Now()
	servers := make([]*testServer, 20)
	for i := range servers {
		servers[i] = startServer(t, env)
	}
	started := time.Since(formed)
	waitServing(t, early, 30*time.Second)
	waited := 0
	for _, srv := range servers {
		waitServing(t, srv, 30*time.Second)
		if strings.Contains(srv.Logs.String(), `"msg":"waiting for redis"`) {
			waited++
		}
	}
	t.Logf("20 starts within %v of cluster_state:ok: %d waited for the cluster, all serve %v after it",
		started.Round(time.Millisecond), waited, time.Since(formed).Round(time.Millisecond))
}

func clusterOK(addr string) bool { return sessiontest.NodeInfo(addr, "cluster_state") == "ok" }

// checkStarting checks a server waiting for dependency: /healthz 200,
// /readyz 503 with the dependency's state as want says (up to a tail that
// varies when it ends in "…"), the JSON endpoint 503 with body and the
// page 503 in HTML, both with Retry-After.
func checkStarting(t *testing.T, srv *testServer, dependency, want, body string) {
	t.Helper()
	if got := srv.get(t, "/healthz"); got.Status != http.StatusOK {
		t.Errorf("healthz: %d %s, want 200", got.Status, got.Body)
	}
	ready := srv.get(t, "/readyz")
	var report map[string]any
	if err := json.Unmarshal([]byte(ready.Body), &report); err != nil {
		t.Fatalf("readyz: %v: %s", err, ready.Body)
	}
	got, _ := report[dependency].(string)
	if prefix, varies := strings.CutSuffix(want, "…"); ready.Status != http.StatusServiceUnavailable || report["starting"] != true ||
		varies && !strings.HasPrefix(got, prefix) || !varies && got != want {
		t.Errorf("readyz: %d %s, want 503 starting with %s %q", ready.Status, ready.Body, dependency, want)
	}
	answer := srv.get(t, jsonPath(0, 2))
	if answer.Status != http.StatusServiceUnavailable || answer.Body != body+"\n" || answer.Header.Get("Retry-After") == "" {
		t.Errorf("JSON: %d %q (Retry-After %q), want 503 %s with Retry-After", answer.Status, answer.Body, answer.Header.Get("Retry-After"), body)
	}
	page := srv.get(t, "/load-more.php")
	if page.Status != http.StatusServiceUnavailable || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(page.Body, "503 Service Unavailable") || page.Header.Get("Retry-After") == "" {
		t.Errorf("page: %d %s (Retry-After %q), want the 503 HTML page with Retry-After", page.Status, page.Body, page.Header.Get("Retry-After"))
	}
}

// waitServing waits up to within for srv to say it is ready, then checks
// that it serves posts and the page.
func waitServing(t *testing.T, srv *testServer, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ready := srv.get(t, "/readyz")
		if ready.Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready %v after its dependencies started: %d %s\n%s", within, ready.Status, ready.Body, srv.Logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(srv.get(t, jsonPath(0, 2)).posts(t)); n != 2 {
		t.Errorf("JSON: %d posts, want 2", n)
	}
	if page := srv.get(t, "/load-more.php"); page.Status != http.StatusOK {
		t.Errorf("page: %d, want 200", page.Status)
	}
}

// checkCameUp checks that srv logged that it waited, and when it served.
func checkCameUp(t *testing.T, srv *testServer) {
	t.Helper()
	logs := srv.Logs.String()
	for _, want := range []string{`"msg":"waiting for `, `"msg":"dependencies up: serving"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("no %s in the log:\n%s", want, logs)
		}
	}
}

// TestWaitLogSpaced: a failed attempt is logged when its reason is new;
// the same reason again is logged only once waitLogEvery has passed, with
// the attempts that failed since the last line.
func TestWaitLogSpaced(t *testing.T) {
	var logs strings.Builder
	s := &starter{wiring: &wiring{logger: slog.New(slog.NewJSONHandler(&logs, nil))}}
	refused := []dependencyError{{"database", fmt.Errorf("dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED)}}
	silent := []dependencyError{{"database", context.DeadlineExceeded}}
	lines := func() int { return strings.Count(logs.String(), "\n") }
	for attempt := 1; attempt <= 5; attempt++ {
		s.logFailed(refused, attempt, time.Second)
	}
	if got := lines(); got != 1 {
		t.Fatalf("5 attempts refused alike: %d lines, want 1:\n%s", got, logs.String())
	}
	s.logFailed(silent, 6, time.Second)
	if got := lines(); got != 2 || !strings.Contains(logs.String(), `"reason":"no answer, timed out"`) {
		t.Fatalf("a new reason: %d lines, want 2:\n%s", got, logs.String())
	}
	s.lastLine = s.lastLine.Add(-waitLogEvery)
	s.logFailed(silent, 7, time.Second)
	if got := lines(); got != 3 || !strings.Contains(logs.String(), `"attempt":7,"failed_since_last_line":1`) {
		t.Fatalf("the same reason %v later: %d lines, want 3:\n%s", waitLogEvery, got, logs.String())
	}
}

// TestShortReason: /readyz's reasons are words of ours, whatever the
// error says; a password in it never shows.
func TestShortReason(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("wpdb: connect to mysql://wp:hunter2@db: %w", syscall.ECONNREFUSED), "connection refused"},
		{fmt.Errorf("wpdb: connect: no answer, timed out: %w", context.DeadlineExceeded), "no answer, timed out"},
		{&net.DNSError{Err: "no such host", Name: "db", IsNotFound: true}, "host name not found"},
		{errors.New("session: redis CLUSTER INFO: the cluster does not serve every slot: cluster_state:fail"), "cluster not serving every slot yet"},
		{errors.New("redisc: failed to get a connection"), "no cluster node answered"},
		{errors.New("redigo: no sentinels available; last error: dial tcp 10.0.0.1:26379: connect: connection refused"), "connection refused"},
		{errors.New("something hunter2 said"), "unavailable"},
	} {
		if got := shortReason(tt.err); got != tt.want {
			t.Errorf("shortReason(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// startAt runs the server on a port picked beforehand, for a -log-level
// at which the "listening" line that startServer waits for is not written.
// It returns the base URL and the log; the server stops with the test.
func startAt(t *testing.T, env map[string]string) (string, *testkit.SyncBuffer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	full := map[string]string{"LOADMORE_ADDR": addr, "LOADMORE_DATA_DIR": t.TempDir(), "LOADMORE_LOG_FORMAT": "json"}
	maps.Copy(full, env)
	logs := &testkit.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"wploadmore"}, envFunc(full), logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v\n%s", err, logs)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return "http://" + addr, logs
			}
		}
		select {
		case err := <-done:
			t.Fatalf("server did not start: %v\n%s", err, logs)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz did not answer in 30s: %v\n%s", err, logs)
		}
	}
}

// TestAccessLog runs the real server with -log-level and -access-log
// combinations and checks that request lines follow -access-log alone,
// and carry what an operator looks for: the client (from a trusted proxy's
// X-Forwarded-For), the user agent, the route, status, bytes and
// duration_ms as a number.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       map[string]string
		wantLines bool
	}{
		{"defaults", nil, true},
		{"-log-level warn keeps request lines", map[string]string{"LOADMORE_LOG_LEVEL": "warn"}, true},
		{"-log-level error keeps request lines", map[string]string{"LOADMORE_LOG_LEVEL": "error"}, true},
		{"-access-log off drops them at debug", map[string]string{"LOADMORE_ACCESS_LOG": "off", "LOADMORE_LOG_LEVEL": "debug"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"LOADMORE_TRUSTED_PROXIES": "127.0.0.1"}
			maps.Copy(env, tt.env)
			url, logs := startAt(t, env)
			req, err := http.NewRequest(http.MethodGet, url+"/load-more.php?start=2&desiredPosts=2", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("User-Agent", "access-test/1.0")
			req.Header.Set("X-Forwarded-For", "198.51.100.23")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var lines []map[string]any
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				if level := tt.env["LOADMORE_LOG_LEVEL"]; (level == "warn" || level == "error") && rec["msg"] != "request" && rec["level"] == "INFO" {
					t.Errorf("an info line at -log-level %s: %s", level, line)
				}
				if rec["msg"] == "request" && rec["user_agent"] == "access-test/1.0" {
					lines = append(lines, rec)
				}
			}
			if !tt.wantLines {
				if len(lines) > 0 || strings.Contains(logs.String(), `"msg":"request"`) {
					t.Fatalf("request lines with -access-log off:\n%s", logs)
				}
				return
			}
			if len(lines) != 1 {
				t.Fatalf("%d request lines, want 1:\n%s", len(lines), logs)
			}
			got := lines[0]
			if _, ok := got["duration_ms"].(float64); !ok {
				t.Errorf("duration_ms %#v is not a number", got["duration_ms"])
			}
			if bytes, _ := got["bytes"].(float64); bytes <= 0 {
				t.Errorf("bytes %v", got["bytes"])
			}
			for _, k := range []string{"time", "duration_ms", "bytes", "request_id"} {
				delete(got, k)
			}
			want := map[string]any{
				"level": "INFO", "msg": "request", "method": "GET", "path": "/load-more.php", "query": "start=2&desiredPosts=2",
				"route": "GET /load-more.php", "status": float64(200), "client_ip": "198.51.100.23", "user_agent": "access-test/1.0",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request line (-want +got)\n%s", diff)
			}
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	tests := []struct {
		name    string
		remote  string
		xff     []string // X-Forwarded-For header lines
		trusted []netip.Prefix
		want    string
	}{
		{"direct", "203.0.113.7:5000", nil, proxies, "203.0.113.7"},
		{"direct, header ignored: the peer is no proxy", "203.0.113.7:5000", []string{"198.51.100.1"}, proxies, "203.0.113.7"},
		{"no trusted proxies: header ignored", "10.0.0.2:5000", []string{"198.51.100.1"}, nil, "10.0.0.2"},
		{"one trusted proxy", "10.0.0.2:5000", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"a client's own entry on the left is not believed", "10.0.0.2:5000", []string{"1.2.3.4, 198.51.100.1"}, proxies, "198.51.100.1"},
		{"through two trusted proxies", "10.0.0.2:5000", []string{"198.51.100.1, 10.0.0.9"}, proxies, "198.51.100.1"},
		{"several header lines", "10.0.0.2:5000", []string{"6.6.6.6, 198.51.100.1", "10.0.0.9"}, proxies, "198.51.100.1"},
		{"all trusted: the leftmost", "10.0.0.2:5000", []string{"10.1.1.1, 10.0.0.9"}, proxies, "10.1.1.1"},
		{"junk stops at the last proxy", "10.0.0.2:5000", []string{"198.51.100.1, not-an-ip, 10.0.0.9"}, proxies, "10.0.0.9"},
		{"junk right away: the peer", "10.0.0.2:5000", []string{"<script>"}, proxies, "10.0.0.2"},
		{"empty entries skipped", "10.0.0.2:5000", []string{"198.51.100.1,, "}, proxies, "198.51.100.1"},
		{"entry with a port", "10.0.0.2:5000", []string{"198.51.100.1:4711"}, proxies, "198.51.100.1"},
		{"IPv6 peer", "[2001:db8::1]:5000", nil, proxies, "2001:db8::1"},
		{"IPv6 behind an IPv6 proxy", "[fd00::1]:5000", []string{"[2001:db8::2]:80"}, proxies, "2001:db8::2"},
		{"IPv4-mapped peer, unmapped", "[::ffff:10.0.0.2]:5000", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"zone dropped", "10.0.0.2:5000", []string{"fe80::1%" + strings.Repeat("z", 500)}, proxies, "fe80::1"},
		{"a Unix socket's peer", "@", nil, proxies, "@"},
		{"trusted entries read to the bound", "10.0.0.2:5000", []string{"198.51.100.1, " + trustedChain(maxForwardedEntries)}, proxies, "10.0.0.16"},
		{"past the bound: the last proxy read", "10.0.0.2:5000", []string{"198.51.100.1, " + trustedChain(maxForwardedEntries+1)}, proxies, "10.0.0.16"},
		{"tens of KB of trusted entries", "10.0.0.2:5000", []string{"198.51.100.1, " + trustedChain(5000)}, proxies, "10.0.0.16"},
		{"tens of KB of empty entries", "10.0.0.2:5000", []string{"198.51.100.1" + strings.Repeat(",", 30000)}, proxies, "10.0.0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientIP(r, tt.trusted); got != tt.want {
				t.Errorf("clientIP = %q, want %q", got, tt.want)
			}
		})
	}
}

// trustedChain is n X-Forwarded-For entries of trusted proxies, the
// rightmost 10.0.0.1, the leftmost 10.0.0.n (for n up to 255).
func trustedChain(n int) string {
	entries := make([]string, n)
	for i := range entries {
		entries[n-1-i] = fmt.Sprintf("10.0.%d.%d", (i+1)/256, (i+1)%256)
	}
	return strings.Join(entries, ", ")
}

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

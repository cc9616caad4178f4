package deploy_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestNginxArchiveCache runs Debian's nginx with wploadmore.conf including
// wploadmore-cache.conf, as their comments say, in front of the server,
// and counts what reaches the server: a repeated archive or search answer
// is served by nginx, and the main listing's answers, which carry the visitor's
// session, always reach the server.
func TestNginxArchiveCache(t *testing.T) {
	nginx := requireTool(t, "nginx", "nginx", "/usr/sbin/nginx")
	direct := startServer(t, "-trusted-proxies", "127.0.0.1", "-cache-ttl", "3s")
	counter, counterAddr := countRequests(t, direct)

	prefix := t.TempDir()
	copyFile(t, "/etc/nginx/mime.types", prefix, "mime.types")
	writeFile(t, prefix, "snippets/wploadmore.conf", templated(t, "nginx/wploadmore.conf",
		"# include snippets/wploadmore-cache.conf;", "include snippets/wploadmore-cache.conf;"))
	writeFile(t, prefix, "snippets/wploadmore-cache.conf", templated(t, "nginx/wploadmore-cache.conf"))
	conf := filepath.Join(prefix, "nginx.conf")
	front, server := startWebServer(t, "nginx", "/load-more.mustache", func(port int) *exec.Cmd {
		writeFile(t, prefix, "nginx.conf", nginxConf(prefix, fmt.Sprintf(`upstream wploadmore { server %[2]s; keepalive 16; }
    proxy_cache_path %[1]s/cache levels=1:2 keys_zone=wploadmore:10m max_size=256m inactive=10m use_temp_path=off;
    server {
        listen 127.0.0.1:%[3]d;
        include snippets/wploadmore.conf;
    }`, prefix, counterAddr, port)))
		if out, err := exec.Command(nginx, "-t", "-p", prefix, "-e", "stderr", "-c", conf).CombinedOutput(); err != nil {
			t.Fatalf("nginx -t: %v\n%s", err, out)
		}
		return exec.Command(nginx, "-p", prefix, "-e", "stderr", "-c", conf, "-g", "daemon off;")
	})
	defer func() {
		if t.Failed() {
			t.Logf("nginx's log:\n%s", server.output.String())
		}
	}()

	get := func(path string, header http.Header) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, front+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/load-more.php?start=0&desiredPosts=2&year=2024", "/load-more.php?year=2024",
		"/load-more.php?start=0&desiredPosts=2&s=post", "/load-more.php?s=post+%22a+b%22", "/load-more.php?s=post&category_name=none"} {
		t.Run(path, func(t *testing.T) {
			first := get(path, nil)
			second := get(path, nil)
			if first.StatusCode != 200 || second.StatusCode != 200 {
				t.Fatalf("statuses %d, %d", first.StatusCode, second.StatusCode)
			}
			if got := counter.count(path); got != 1 {
				t.Errorf("two requests through nginx reached the server %d times, want 1", got)
			}
			if s := second.Header.Get("X-Cache-Status"); s != "HIT" {
				t.Errorf("second answer's X-Cache-Status %q, want HIT", s)
			}
			if first.Header.Get("ETag") == "" || first.Header.Get("ETag") != second.Header.Get("ETag") {
				t.Errorf("ETags %q and %q, want the same", first.Header.Get("ETag"), second.Header.Get("ETag"))
			}
			// Each coding is its own entry, as the answer varies on it.
			gz := get(path, http.Header{"Accept-Encoding": {"gzip"}})
			if gz.StatusCode != 200 {
				t.Errorf("gzip: status %d", gz.StatusCode)
			}
		})
	}
	t.Run("the main listing is never kept", func(t *testing.T) {
		const path = "/load-more.php?start=0&desiredPosts=2"
		for i := range 3 {
			resp := get(path, nil)
			if resp.Header.Get("Set-Cookie") == "" {
				t.Errorf("answer %d through nginx sets no session cookie: served from the cache", i+1)
			}
		}
		if got := counter.count(path); got != 3 {
			t.Errorf("three requests reached the server %d times, want 3", got)
		}
	})
}

// requestCounter stands between nginx and the server and counts the
// requests per path and query.
type requestCounter struct {
	mu   sync.Mutex
	seen map[string]int
}

func (c *requestCounter) count(pathQuery string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[pathQuery]
}

// countRequests starts a requestCounter in front of target and returns it
// with its host:port.
func countRequests(t *testing.T, target *url.URL) (*requestCounter, string) {
	t.Helper()
	c := &requestCounter{seen: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.seen[r.URL.RequestURI()]++
		c.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return c, srv.Listener.Addr().String()
}

package deploy_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// wordpressRoot is a document root standing in for a WordPress install:
// the PHP files php-fpm would run, a theme's stylesheet, and the old
// load-more.php in the folder base ("" or "/blog"), still in place as it
// is on a site being migrated. A web server that hands /load-more.php to
// PHP runs that file instead of asking the Go server.
func wordpressRoot(t *testing.T, base string) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, "index.php", "<?php require __DIR__ . '/wp-blog-header.php';\n")
	writeFile(t, root, "wp-login.php", "<?php // log in\n")
	writeFile(t, root, strings.TrimPrefix(base+"/load-more.php", "/"), "<?php // the old script\n")
	writeFile(t, root, "wp-content/themes/demo/style.css", "body { color: teal }\n")
	return root
}

// fetched is one answer, read whole.
type fetched struct {
	status      int
	contentType string
	body        string
}

func fetch(t *testing.T, method, url string, header http.Header) fetched {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	// No redirects followed, no cookies kept: each answer as sent.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return fetched{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(b)}
}

// checkRouting requests front (a web server in front of the Go server at
// direct, through rec, and of the PHP stand-in with wordpressRoot as its
// document root) and checks each URL reached the right one. base is the
// server's -base-path, "" or "/blog"; wantHost the Host the server should
// see: the site's own.
func checkRouting(t *testing.T, front, base string, direct *url.URL, rec *headerRecorder, wantHost string) {
	t.Helper()
	same := func(path string) func(t *testing.T, got fetched) {
		return func(t *testing.T, got fetched) {
			want := fetch(t, "GET", direct.String()+path, nil)
			if got.status != want.status || got.body != want.body {
				t.Errorf("through the web server: %d, %d bytes; from the server itself: %d, %d bytes", got.status, len(got.body), want.status, len(want.body))
			}
		}
	}
	wordpress := func(script string) func(t *testing.T, got fetched) {
		return func(t *testing.T, got fetched) {
			if want := "wordpress " + script; got.status != http.StatusOK || got.body != want {
				t.Errorf("got %d %q, want 200 %q (PHP running %s)", got.status, got.body, want, script)
			}
		}
	}
	tests := []struct {
		name   string
		method string
		path   string
		check  func(t *testing.T, got fetched)
	}{
		{"JSON endpoint", "GET", base + "/load-more.php?start=0&desiredPosts=2", func(t *testing.T, got fetched) {
			if got.status != http.StatusOK || !strings.HasPrefix(got.contentType, "application/json") ||
				!strings.HasPrefix(got.body, "[") || !strings.Contains(got.body, `"post_title"`) {
				t.Errorf("got %d %s %.200q, want the server's JSON posts", got.status, got.contentType, got.body)
			}
		}},
		{"page", "GET", base + "/load-more.php", func(t *testing.T, got fetched) {
			if got.status != http.StatusOK || !strings.HasPrefix(got.contentType, "text/html") ||
				!strings.Contains(got.body, `id="load-more"`) {
				t.Errorf("got %d %s %.200q, want the server's page", got.status, got.contentType, got.body)
			}
		}},
		{"POST is the server's 405, not PHP's", "POST", base + "/load-more.php", func(t *testing.T, got fetched) {
			if got.status != http.StatusMethodNotAllowed {
				t.Errorf("got %d %.100q, want the server's 405", got.status, got.body)
			}
		}},
		{"template", "GET", base + "/load-more.mustache", same(base + "/load-more.mustache")},
		{"script", "GET", base + "/assets/load-more.js", same(base + "/assets/load-more.js")},
		{"vendored mustache.js", "GET", base + "/assets/vendor/mustache.mjs", same(base + "/assets/vendor/mustache.mjs")},
		{"home", "GET", "/", wordpress("index.php")},
		{"index.php", "GET", "/index.php", wordpress("index.php")},
		{"wp-login.php", "GET", "/wp-login.php?redirect_to=%2F", wordpress("wp-login.php")},
		{"permalink", "GET", "/2024/06/hello-world/", wordpress("index.php")},
		{"probes stay off the site", "GET", "/readyz", wordpress("index.php")},
		{"theme file", "GET", "/wp-content/themes/demo/style.css", func(t *testing.T, got fetched) {
			if got.status != http.StatusOK || got.body != "body { color: teal }\n" {
				t.Errorf("got %d %q, want the stylesheet from the document root", got.status, got.body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, fetch(t, tt.method, front+tt.path, nil))
		})
	}

	t.Run("forwarding headers", func(t *testing.T) {
		// A visitor's own X-Forwarded-For must not reach the server as if
		// the proxy had said it.
		fetch(t, "GET", front+base+"/load-more.mustache", http.Header{"X-Forwarded-For": {"203.0.113.9"}})
		got, ok := rec.last(base + "/load-more.mustache")
		if !ok {
			t.Fatalf("the server saw no request for %s/load-more.mustache", base)
		}
		want := forwarded{Host: wantHost, For: "127.0.0.1", Proto: "http"}
		if got != want {
			t.Errorf("the server saw %+v, want %+v", got, want)
		}
	})
}

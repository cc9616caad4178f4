package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTemplateRoute checks the template is served as text, with the
// validators that let a browser revalidate it for a 304.
func TestTemplateRoute(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	got := srv.get(t, "/load-more.mustache")
	if got.Status != http.StatusOK || !strings.Contains(got.Body, "{{#data}}") || !strings.Contains(got.Body, "{{title}}") {
		t.Fatalf("%d %q", got.Status, got.Body)
	}
	if strings.Contains(got.Body, "{{{") || strings.Contains(got.Body, "{{&") {
		t.Error("the template renders a field unescaped")
	}
	etag, lastModified := got.Header.Get("ETag"), got.Header.Get("Last-Modified")
	if etag == "" || lastModified == "" {
		t.Fatalf("ETag %q, Last-Modified %q: want both", etag, lastModified)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/load-more.mustache", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", resp.StatusCode)
	}
}

func TestAssets(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	tests := []struct {
		path, wantType string
	}{
		{"/assets/load-more.js", "text/javascript; charset=utf-8"},
		{"/assets/load-more.css", "text/css; charset=utf-8"},
		{"/assets/vendor/mustache.mjs", "text/javascript; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := srv.get(t, tt.path)
			if got.Status != http.StatusOK || got.Header.Get("Content-Type") != tt.wantType || got.Body == "" {
				t.Errorf("%d %q, %d bytes; want 200 %q", got.Status, got.Header.Get("Content-Type"), len(got.Body), tt.wantType)
			}
		})
	}
	for _, path := range []string{"/assets/embed.go", "/assets/../server/main.go", "/assets/nope.js"} {
		if got := srv.get(t, path); got.Status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, got.Status)
		}
	}
}

// TestBasePath serves the URLs under /blog, as when the PHP file lived in
// the blog's folder.
func TestBasePath(t *testing.T) {
	t.Parallel()
	srv := startServer(t, map[string]string{"LOADMORE_BASE_PATH": "/blog"})
	for _, path := range []string{"/blog/load-more.php", "/blog/load-more.php?start=0", "/blog/load-more.mustache", "/blog/assets/load-more.js"} {
		if got := srv.get(t, path); got.Status != http.StatusOK {
			t.Errorf("%s: %d, want 200", path, got.Status)
		}
	}
	if got := srv.get(t, "/load-more.php"); got.Status != http.StatusNotFound {
		t.Errorf("/load-more.php outside the base path: %d, want 404", got.Status)
	}
}

// TestOperatorTemplates restyles the posts from a folder holding only the
// mustache template; the page template comes from the binary.
func TestOperatorTemplates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	custom := "{{#data}}<article class=\"mine\">{{post_title}}</article>{{/data}}{{^data}}none{{/data}}"
	if err := os.WriteFile(filepath.Join(dir, "load-more.mustache"), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_TEMPLATES": dir})
	if got := srv.get(t, "/load-more.mustache"); got.Body != custom {
		t.Errorf("template route serves %q, want the operator's", got.Body)
	}
	page := srv.get(t, "/load-more.php")
	if page.Status != http.StatusOK || strings.Count(page.Body, `<article class="mine">`) != 2 {
		t.Errorf("page does not use the operator's template: %d\n%s", page.Status, page.Body)
	}
}

func TestProbes(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	if got := srv.get(t, "/healthz"); got.Status != http.StatusOK {
		t.Errorf("healthz %d", got.Status)
	}
	if got := srv.get(t, "/readyz"); got.Status != http.StatusOK || got.Body != `{"database":"ok"}`+"\n" {
		t.Errorf("readyz %d %q", got.Status, got.Body)
	}
}

// TestProfiles checks that profiles are served only on their own listener,
// and only when asked for.
func TestProfiles(t *testing.T) {
	t.Parallel()
	plain := startServer(t, nil)
	if got := plain.get(t, "/debug/pprof/"); got.Status != http.StatusNotFound {
		t.Errorf("without -pprof: %d, want 404", got.Status)
	}
	profiled := startServer(t, map[string]string{"LOADMORE_PPROF": "127.0.0.1:0"})
	if got := profiled.get(t, "/debug/pprof/"); got.Status != http.StatusNotFound {
		t.Errorf("on the site's listener: %d, want 404", got.Status)
	}
	m := regexp.MustCompile(`"msg":"profiles","url":"([^"]+)"`).FindStringSubmatch(profiled.Logs.String())
	if m == nil {
		t.Fatalf("no profiles line in the log:\n%s", profiled.Logs)
	}
	resp, err := http.Get(m[1] + "goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("goroutine profile: %d", resp.StatusCode)
	}
}

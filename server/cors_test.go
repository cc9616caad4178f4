package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestCORSHomeOrigin runs the server on a MariaDB site whose home option
// is each of a few spellings, and asks the JSON endpoint from origins as
// browsers send them: only the home origin, exactly, gets
// Access-Control-Allow-Origin; every JSON answer says Vary: Origin, and
// its body is the same whoever asks.
func TestCORSHomeOrigin(t *testing.T) {
	t.Parallel()
	const json = "/load-more.php?start=0&desiredPosts=2"
	tests := []struct {
		name, home, path, origin string
		wantAllowed              bool
	}{
		{"no Origin, an old client or a same-origin GET", "https://example.org", json, "", false},
		{"same origin: the server's own", "https://example.org", json, "self", false},
		{"home origin", "https://example.org", json, "https://example.org", true},
		{"other origin", "https://example.org", json, "https://evil.example", false},
		{"null, a sandboxed frame", "https://example.org", json, "null", false},
		{"http where home is https", "https://example.org", json, "http://example.org", false},
		{"a subdomain of home", "https://example.org", json, "https://www.example.org", false},
		{"home origin with a trailing slash, not a browser's", "https://example.org", json, "https://example.org/", false},
		{"home with a path, its origin", "https://example.org/blog/", json, "https://example.org", true},
		{"home with a port, its origin", "http://example.org:8080", json, "http://example.org:8080", true},
		{"home with a port, the origin without it", "http://example.org:8080", json, "http://example.org", false},
		{"home with its default port, as browsers omit it", "https://example.org:443/", json, "https://example.org", true},
		{"home in capitals, as browsers lower it", "HTTPS://Example.ORG", json, "https://example.org", true},
		{"a search's public JSON", "https://example.org", "/load-more.php?start=0&s=post", "https://example.org", true},
		{"a JSON error", "https://example.org", "/load-more.php?start=x", "https://example.org", true},
		{"the page, not the JSON", "https://example.org", "/load-more.php", "https://example.org", false},
	}
	servers := map[string]*testServer{}
	for _, tt := range tests {
		if servers[tt.home] != nil {
			continue
		}
		cfg := wpdbtest.MySQL(t)
		wpdbtest.Insert(t, cfg, wpdbtest.Posts(5)...)
		wpdbtest.Options(t, cfg, map[string]string{"home": tt.home, "siteurl": tt.home})
		servers[tt.home] = startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := servers[tt.home]
			if tt.origin == "self" {
				tt.origin = srv.URL
			}
			got := corsGet(t, srv.URL+tt.path, tt.origin)
			want := ""
			if tt.wantAllowed {
				want = tt.origin
			}
			if acao := got.Header.Get("Access-Control-Allow-Origin"); acao != want {
				t.Errorf("Access-Control-Allow-Origin %q; want %q", acao, want)
			}
			if tt.wantAllowed && got.Header.Get("Access-Control-Expose-Headers") != "Link" {
				t.Errorf("Access-Control-Expose-Headers %q; want Link", got.Header.Get("Access-Control-Expose-Headers"))
			}
			if got.Header.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("Access-Control-Allow-Credentials %q: the widget asks without cookies", got.Header.Get("Access-Control-Allow-Credentials"))
			}
			vary := varyNames(got.Header)
			if isJSON := strings.Contains(tt.path, "start="); isJSON != slices.Contains(vary, "origin") {
				t.Errorf("Vary %q; want Origin: %v", got.Header.Values("Vary"), isJSON)
			}
			if isJSON := strings.Contains(tt.path, "start="); isJSON && !slices.Contains(vary, "accept-encoding") {
				t.Errorf("Vary %q lost Accept-Encoding", got.Header.Values("Vary"))
			}
			// The body is the same for every origin: CORS only says who may read it.
			if plain := corsGet(t, srv.URL+tt.path, ""); plain.Status != got.Status || (strings.Contains(tt.path, "start=0") && plain.Body != got.Body) {
				t.Errorf("%d %.200s; without Origin %d %.200s", got.Status, got.Body, plain.Status, plain.Body)
			}
		})
	}
}

// TestCORSPreflight checks OPTIONS on the endpoint: a preflight from the
// home origin is allowed GET and HEAD; one from any other origin, one for
// another method, and OPTIONS with no preflight are refused as before,
// 405, with no CORS header.
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(2)...)
	wpdbtest.Options(t, cfg, map[string]string{"home": "https://example.org/blog", "siteurl": "https://example.org/blog"})
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
	tests := []struct {
		name, origin, method string
		wantStatus           int
	}{
		{"home origin, GET", "https://example.org", "GET", http.StatusNoContent},
		{"home origin, HEAD", "https://example.org", "HEAD", http.StatusNoContent},
		{"home origin, POST", "https://example.org", "POST", http.StatusMethodNotAllowed},
		{"other origin, GET", "https://evil.example", "GET", http.StatusMethodNotAllowed},
		{"null, GET", "null", "GET", http.StatusMethodNotAllowed},
		{"http for https, GET", "http://example.org", "GET", http.StatusMethodNotAllowed},
		{"no preflight", "", "", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodOptions, srv.URL+"/load-more.php?start=0", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.method != "" {
				req.Header.Set("Access-Control-Request-Method", tt.method)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d; want %d", resp.StatusCode, tt.wantStatus)
			}
			h := resp.Header
			if tt.wantStatus != http.StatusNoContent {
				for name := range h {
					if strings.HasPrefix(name, "Access-Control-") {
						t.Errorf("%s: %q on a refusal", name, h.Get(name))
					}
				}
				if h.Get("Allow") != "GET, HEAD" {
					t.Errorf("Allow %q; want the 405's as before", h.Get("Allow"))
				}
				return
			}
			if h.Get("Access-Control-Allow-Origin") != tt.origin || h.Get("Access-Control-Allow-Methods") != "GET, HEAD" ||
				!slices.Contains(varyNames(h), "origin") {
				t.Errorf("headers %v", h)
			}
		})
	}
}

// TestCORSHomeFollowsOptions hands the server new options, as the options
// watch does once a minute: the new home origin is allowed, and the old
// one no longer.
func TestCORSHomeFollowsOptions(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"wploadmore", "-cache-ttl", "0"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newServer(serverDeps{
		Config: cfg, Logger: slog.New(slog.DiscardHandler), Posts: fakePosts{posts: threePosts()},
		Sessions: &fakeSessions{}, Templates: templates.FS, Public: public.FS,
		Options: blog.Options{Home: "https://old.example"},
	})
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(origin string) string {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/load-more.php?start=0", nil)
		r.Header.Set("Origin", origin)
		h.ServeHTTP(w, r)
		return w.Header().Get("Access-Control-Allow-Origin")
	}
	if got := allowed("https://old.example"); got != "https://old.example" {
		t.Fatalf("before: Access-Control-Allow-Origin %q", got)
	}
	h.useOptions(blog.Options{Home: "https://new.example"})
	for deadline := time.Now().Add(10 * time.Second); allowed("https://new.example") != "https://new.example"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the new home origin is not allowed")
		}
	}
	if got := allowed("https://old.example"); got != "" {
		t.Errorf("the old home origin is still allowed: %q", got)
	}
}

// corsGet asks url with origin as the Origin header ("" for none), as a
// browser's fetch from that origin would, without cookies.
func corsGet(t *testing.T, url, origin string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

// varyNames is every name h's Vary lines list, in lower case.
func varyNames(h http.Header) []string {
	var names []string
	for _, v := range h.Values("Vary") {
		for n := range strings.SplitSeq(v, ",") {
			names = append(names, strings.ToLower(strings.TrimSpace(n)))
		}
	}
	return names
}

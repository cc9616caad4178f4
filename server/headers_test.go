package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSecurityHeaders checks that every route, errors and redirects
// included, forbids framing by other sites, and that the page's CSP says
// so too for browsers that go by CSP alone.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	// Not the server's client: it would follow the redirect.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		method, path string
		wantStatus   int
	}{
		{http.MethodGet, "/load-more.php", http.StatusOK},
		{http.MethodGet, "/load-more.php?start=0&desiredPosts=2", http.StatusOK},
		{http.MethodGet, "/load-more.php?start=x", http.StatusBadRequest},
		{http.MethodPost, "/load-more.php", http.StatusMethodNotAllowed},
		{http.MethodGet, "/load-more.mustache", http.StatusOK},
		{http.MethodGet, "/assets/load-more.js", http.StatusOK},
		{http.MethodGet, "/", http.StatusFound},
		{http.MethodGet, "/healthz", http.StatusOK},
		{http.MethodGet, "/readyz", http.StatusOK},
		{http.MethodGet, "/nope", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			got := map[string]any{
				"status":                 resp.StatusCode,
				"X-Frame-Options":        resp.Header.Get("X-Frame-Options"),
				"X-Content-Type-Options": resp.Header.Get("X-Content-Type-Options"),
			}
			want := map[string]any{
				"status":                 tt.wantStatus,
				"X-Frame-Options":        "SAMEORIGIN",
				"X-Content-Type-Options": "nosniff",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	page := srv.get(t, "/load-more.php")
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'self'") {
		t.Errorf("page CSP %q has no frame-ancestors 'self'", csp)
	}
}

// TestProfilesListener checks the -pprof listener: no command line, which
// holds -db's password when given as a flag, and one warning when it is not
// on loopback.
func TestProfilesListener(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr     string
		wantWarn bool
	}{
		{"127.0.0.1:0", false},
		{"localhost:0", false},
		{"0.0.0.0:0", true},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			stop, err := serveProfiles(tt.addr, slog.New(slog.NewJSONHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			if got := strings.Count(logs.String(), `"level":"WARN"`); got != map[bool]int{false: 0, true: 1}[tt.wantWarn] {
				t.Errorf("%d warnings, want warning %v:\n%s", got, tt.wantWarn, logs.String())
			}
			var rec struct{ URL string }
			line, _, _ := strings.Cut(logs.String(), "\n")
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.URL == "" {
				t.Fatalf("no profiles URL in %q: %v", line, err)
			}
			// 0.0.0.0 is not an address to dial; loopback reaches it.
			base := strings.Replace(rec.URL, "0.0.0.0", "127.0.0.1", 1)
			for path, want := range map[string]int{"cmdline": http.StatusNotFound, "goroutine?debug=1": http.StatusOK} {
				resp, err := http.Get(base + path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
				}
				if path == "cmdline" && strings.Contains(string(body), os.Args[0]) {
					t.Errorf("cmdline shows the command line: %.200s", body)
				}
			}
		})
	}
}

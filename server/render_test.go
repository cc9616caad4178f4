package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestRenderBusy: a render that found no place among the renders in
// flight fails with listing.ErrBusy (listing's TestRenderRefusedAtOnce),
// which is answered 503, as a server that is saturated: a proxy or the
// reader can retry.
func TestRenderBusy(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("page of 2 posts: %w: %w", listing.ErrBusy, context.DeadlineExceeded)
	if status, text, _ := errorStatus(err); status != http.StatusServiceUnavailable || text != "server busy, try again" {
		t.Errorf("a busy render is answered %d %q, want 503 \"server busy, try again\"", status, text)
	}
}

// TestBusyRetryAfter: a refusal of a busy server, a query past the
// cache's admission or a render, is answered 503 with Retry-After: 1, as
// JSON and as the page, a new search with the wait it was told of in
// whole seconds rounded up; a database that is down gets no Retry-After.
func TestBusyRetryAfter(t *testing.T) {
	t.Parallel()
	busy := fmt.Errorf("listing: page of 2 posts after offset 9000: 8 queries in flight: %w", listing.ErrBusy)
	down := fmt.Errorf("wpdb: posts: %w", wpdb.ErrUnavailable)
	logger := slog.New(slog.DiscardHandler)
	for _, tt := range []struct {
		name       string
		err        error
		retryAfter string
	}{
		{"busy", busy, "1"},
		{"a new search let in soon", &listing.BusyError{Wait: 300 * time.Millisecond, Err: busy}, "1"},
		{"a new search let in after 2.5 s", fmt.Errorf("search: %w", &listing.BusyError{Wait: 2500 * time.Millisecond, Err: busy}), "3"},
		{"database down", down, ""},
	} {
		for format, adapt := range map[string]func(*slog.Logger, func(http.ResponseWriter, *http.Request) error) http.Handler{
			"json": jsonErrors, "html": htmlErrors,
		} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				w := httptest.NewRecorder()
				adapt(logger, func(http.ResponseWriter, *http.Request) error { return tt.err }).
					ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/load-more.php?start=9000", nil))
				if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != tt.retryAfter {
					t.Errorf("answered %d with Retry-After %q, want 503 with %q", w.Code, w.Header().Get("Retry-After"), tt.retryAfter)
				}
			})
		}
	}
}

// testPageRenderer is the page renderer of a server with the defaults and
// the embedded templates, titled "Title", and the format of its posts.
func testPageRenderer(t *testing.T) (*listing.Renderer, *listing.Format) {
	t.Helper()
	cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	mustache, err := templates.FS.ReadFile(loadMoreTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := listing.NewRenderer("Title", cfg.listingSettings, templates.FS, string(mustache), compress.New())
	if err != nil {
		t.Fatal(err)
	}
	return p, listing.NewFormat(cfg.site(blog.Options{}, listing.Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
}

// pageViewsRSS is the bound TestPageViewsAtCapRSS holds the server to: what
// it takes idle (docs/performance.md), plus what renders in flight allocate
// (listing's renderBudget, 16 MB), plus the rendered pages kept (8 MB),
// rounded up. Unbounded renders would pass it.
const pageViewsRSS = 56 << 20

// TestPageViewsAtCapRSS: 16 visitors who raised posts_start past 1 000
// with desiredPosts=100 view the page at once, over 200 KB posts; the
// server, a process of its own, stays under pageViewsRSS at its peak
// (VmHWM). Renders past the bound are refused with 503 and Retry-After;
// each visitor tries again until served, as a reader would.
func TestPageViewsAtCapRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process under a flood of page views")
	}
	t.Parallel()
	const visitors, postBytes = 16, 200 << 10
	cfg := wpdbtest.MySQL(t)
	rows := wpdbtest.Posts(1001) // enough to fill a page at the former cap of 1 000
	for i := range rows {
		words := strings.Repeat(fmt.Sprintf("post %d word ", i), postBytes/8)
		rows[i].Content = "<p>" + words[:postBytes-7] + "</p>"
	}
	for batch := range slices.Chunk(rows, 50) { // a transaction of 10 MB each
		wpdbtest.Insert(t, cfg, batch...)
	}
	srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})

	// Each visitor raises its posts_start past the cap, to its own value:
	// then every page differs (its badge) and none is one the renderer kept.
	clients := make([]*http.Client, visitors)
	for i := range clients {
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = &http.Client{Jar: jar, Timeout: 30 * time.Second}
		for k := range 11 {
			desired := 100
			if k == 10 {
				desired = i + 1
			}
			srv.get(t, clients[i], fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d", desired))
		}
	}
	stop := srv.watch(t)
	var wg sync.WaitGroup
	for round := range 3 {
		for i, c := range clients {
			wg.Go(func() {
				body := srv.getServed(t, c, "/load-more.php")
				if n := countArticles(body); n != 200 {
					t.Errorf("round %d, visitor %d: %d posts on the page, want the cap, 200", round, i, n)
				}
			})
		}
		wg.Wait()
	}
	peak := stop()
	t.Logf("server VmHWM over %d concurrent page views at the cap, 3 rounds: %.1f MB", visitors, float64(peak)/(1<<20))
	if peak > pageViewsRSS {
		t.Errorf("server VmHWM %.1f MB, want at most %d MB", float64(peak)/(1<<20), pageViewsRSS>>20)
	}
}

// getServed GETs path with c until it is not answered 503, for at most
// 20 s, and returns the body of its 200 answer.
func (s *childServer) getServed(t *testing.T, c *http.Client, path string) string {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := c.Get(s.URL + path)
		if err != nil {
			t.Error(err)
			return ""
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && time.Now().Before(deadline) {
			continue
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s, %v: %.200s", path, resp.Status, err, body)
		}
		return string(body)
	}
}

// get GETs path with c and returns the body of its 200 answer.
func (s *childServer) get(t *testing.T, c *http.Client, path string) string {
	resp, err := c.Get(s.URL + path)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s, %v: %.200s", path, resp.Status, err, body)
	}
	return string(body)
}

// watch resets the server's peak RSS (VmHWM, through clear_refs: exact,
// where sampling VmRSS would miss a short peak) and returns a function that
// reads it.
func (s *childServer) watch(t *testing.T) func() uint64 {
	t.Helper()
	pid := s.pid
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
	return func() uint64 {
		p, err := procfs.NewProc(pid)
		if err != nil {
			t.Fatal(err)
		}
		status, err := p.NewStatus()
		if err != nil {
			t.Fatal(err)
		}
		return status.VmHWM
	}
}

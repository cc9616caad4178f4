package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestPageRenderWaits: with every render place taken, a page that is not in
// the memo waits, and is answered 503 once its request's context ends; a
// page in the memo is still served at once, and once the places are given
// back the render goes ahead.
func TestPageRenderWaits(t *testing.T) {
	t.Parallel()
	p, cfg := testPageRenderer(t)
	views := mustViews(t, []wpdb.Post{{ID: 2, Title: "A", Date: "2024-01-01 00:00:00"}, {ID: 1, Title: "B", Date: "2024-01-01 00:00:00"}},
		defaultPostFormat(t))
	kept := pageView{PostsStart: 2, Posts: views, MaxPosts: cfg.MaxPagePosts}
	ctx := context.Background()
	if _, err := p.render(ctx, kept); err != nil {
		t.Fatal(err)
	}
	all := int64(max(renderBudget/renderBytesPerPost, cfg.MaxPagePosts))
	if !p.renders.TryAcquire(all) {
		t.Fatal("the render places are not all free")
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err := p.render(short, pageView{PostsStart: 3, Posts: views, MaxPosts: cfg.MaxPagePosts})
	if status, _ := errorStatus(err); !errors.Is(err, errBusy) || status != http.StatusServiceUnavailable {
		t.Errorf("render with no place free = %v (status %d), want errBusy, 503", err, status)
	}
	if _, err := p.render(short, kept); err != nil {
		t.Errorf("render of a kept page with no place free: %v", err)
	}
	p.renders.Release(all)
	if _, err := p.render(ctx, pageView{PostsStart: 3, Posts: views, MaxPosts: cfg.MaxPagePosts}); err != nil {
		t.Errorf("render once the places are free: %v", err)
	}
}

// pageViewsRSS is the bound TestPageViewsAtCapRSS holds the server to: what
// it takes idle (about 25 MB, the bench's figures), plus what renders in
// flight allocate (renderBudget, 16 MB), plus the page memo (8 MB), rounded
// up. Before the cap was lowered and renders bounded, the same views (of
// 1 000 posts) took 77 MB.
const pageViewsRSS = 56 << 20

// TestPageViewsAtCapRSS: 16 visitors who raised posts_start past 1 000
// with desiredPosts=100 view the page at once, over 200 KB posts; the
// server, a process of its own, stays under pageViewsRSS at its peak
// (VmHWM).
func TestPageViewsAtCapRSS(t *testing.T) {
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
	// then every page differs (its badge) and none comes from the memo.
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
				body := srv.get(t, c, "/load-more.php")
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

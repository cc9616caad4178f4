package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// A flood of distinct page renders, at test size: renderFloodMonths date
// archives of renderFloodPerMonth posts each, and renderFloodAttackers
// keep-alive connections, each phase renderFloodFor long.
const (
	renderFloodMonths    = 12
	renderFloodPerMonth  = 200
	renderFloodAttackers = 16
	renderFloodFor       = 4 * time.Second
	// renderFloodShare is the least share of their rate under a /healthz
	// flood from as many connections that visitors keep under a render
	// flood.
	renderFloodShare = 0.5
)

// TestVisitorsDuringRenderFlood runs the server as a process of its own
// with visitors reading their page (posts_start 2 to 20) and two archives'
// first pages, while renderFloodAttackers connections flood it, in turn,
// with /healthz; with HEADs of the page whose session count changes before
// each, so no page is one rendered before; with /healthz again; and with
// archive pages of distinct posts=N. Under each render flood the visitors
// keep at least renderFloodShare of their rate under the /healthz flood
// before it, and are not refused: their pages are kept, and served as
// copies.
func TestVisitorsDuringRenderFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process under four floods of about 4 s")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	var rows []wpdb.SeedRow
	for m := 1; m <= renderFloodMonths; m++ {
		for d := range renderFloodPerMonth {
			rows = append(rows, wpdb.SeedRow{
				Title:   fmt.Sprintf("Post %d of month %d", d, m),
				Name:    fmt.Sprintf("post-%d-%d", m, d),
				Content: "<p>" + strings.Repeat(fmt.Sprintf("Words of post %d. ", d), 20) + "</p>",
				Date:    fmt.Sprintf("2024-%02d-%02d %02d:%02d:00", m, 1+d%28, d%24, d%60),
			})
		}
	}
	wpdbtest.Insert(t, cfg, rows...)
	srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_ACCESS_LOG": "off"})
	waitHealthy(t, srv.URL)

	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	withJar := func() *http.Client {
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		return &http.Client{Transport: transport, Jar: jar, Timeout: 10 * time.Second}
	}

	// Visitors: four sessions at their own posts_start, and two readers
	// of an archive's first page.
	var visitorPaths []func() (*http.Client, string)
	for _, count := range []int{2, 6, 12, 20} {
		c := withJar()
		srv.get(t, c, jsonPath(0, count))
		visitorPaths = append(visitorPaths, func() (*http.Client, string) { return c, "/load-more.php" })
	}
	for m := range 2 {
		c := withJar()
		visitorPaths = append(visitorPaths, func() (*http.Client, string) { return c, fmt.Sprintf("/load-more.php?year=2024&monthnum=%d", m+1) })
	}

	healthz := func(stop <-chan struct{}, sent *atomic.Int64) {
		c := &http.Client{Transport: transport, Timeout: 10 * time.Second}
		for !stopped(stop) {
			renderFloodDo(c, http.MethodGet, srv.URL+"/healthz")
			sent.Add(1)
		}
	}
	// Each render flood follows a /healthz flood, which its visitors'
	// rate is measured against: the machine's other load changes less in
	// between.
	floods := []struct {
		name   string
		attack func(stop <-chan struct{}, sent *atomic.Int64)
	}{
		{"healthz", healthz},
		{"head changing count", func(stop <-chan struct{}, sent *atomic.Int64) {
			// A session past the page's cap: each page shows 200 posts,
			// under a badge that changes with every JSON request.
			c := withJar()
			for range 3 {
				renderFloodDo(c, http.MethodGet, srv.URL+jsonPath(0, 100))
			}
			for !stopped(stop) {
				renderFloodDo(c, http.MethodGet, srv.URL+jsonPath(0, 1))
				renderFloodDo(c, http.MethodHead, srv.URL+"/load-more.php")
				sent.Add(2)
			}
		}},
		{"healthz", healthz},
		{"archive posts=N", func(stop <-chan struct{}, sent *atomic.Int64) {
			c := &http.Client{Transport: transport, Timeout: 10 * time.Second}
			for !stopped(stop) {
				renderFloodDo(c, http.MethodGet, srv.URL+fmt.Sprintf("/load-more.php?year=2024&monthnum=%d&posts=%d",
					1+rand.IntN(renderFloodMonths), 100+rand.IntN(101)))
				sent.Add(1)
			}
		}},
	}
	var healthzRate float64
	for _, flood := range floods {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var sent atomic.Int64
		for range renderFloodAttackers {
			wg.Go(func() { flood.attack(stop, &sent) })
		}
		time.Sleep(500 * time.Millisecond) // the flood under way
		visitors := &floodStats{}
		var vg sync.WaitGroup
		visitorsStop := make(chan struct{})
		for _, next := range visitorPaths {
			vg.Go(func() {
				c, _ := next()
				visitors.run(c, visitorsStop, func() string { _, p := next(); return srv.URL + p })
			})
		}
		time.Sleep(renderFloodFor)
		close(visitorsStop)
		vg.Wait()
		close(stop)
		wg.Wait()
		rate := float64(len(visitors.took)) / renderFloodFor.Seconds()
		t.Logf("%s flood (%d requests): visitors %.0f req/s, %v, p50 %v, p99 %v", flood.name, sent.Load(), rate,
			visitors.statuses, visitors.percentile(0.5), visitors.percentile(0.99))
		if flood.name == "healthz" {
			healthzRate = rate
			continue
		}
		share := rate / healthzRate
		t.Logf("%s flood: visitors keep %.0f%% of their rate under the /healthz flood", flood.name, 100*share)
		if share < renderFloodShare {
			t.Errorf("%s flood: visitors at %.0f%% of their /healthz-flood rate, want at least %.0f%%", flood.name, 100*share, 100*renderFloodShare)
		}
		if refused := len(visitors.took) - visitors.statuses[http.StatusOK]; refused > len(visitors.took)/100 {
			t.Errorf("%s flood: %d of %d visitors' requests not answered 200: %v", flood.name, refused, len(visitors.took), visitors.statuses)
		}
	}
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// renderFloodDo sends one request with c and reads its answer.
func renderFloodDo(c *http.Client, method, url string) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return
	}
	if resp, err := c.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

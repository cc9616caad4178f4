package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// publishFloodPublishes new posts are published, publishFloodEvery apart,
// during a flood of distinct archive pages.
const (
	publishFloodPublishes = 5
	publishFloodEvery     = 1500 * time.Millisecond
)

// TestPublishDuringRenderFlood runs the server as a process of its own,
// with visitors reading their page (posts_start 2 to 20), while
// renderFloodAttackers connections flood it with archive pages of
// distinct posts=N, and publishes a new post publishFloodPublishes times.
// Each publish changes every visitor's page, whose render the flood has
// drained the render clock for; no visitor's page view is refused.
func TestPublishDuringRenderFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process under a flood for about 10 s")
	}
	t.Parallel()
	cfg, srv := startRenderFloodServer(t)

	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	attackTransport := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	var visitors []*http.Client
	for _, count := range []int{2, 6, 12, 20} {
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: transport, Jar: jar, Timeout: 10 * time.Second}
		srv.get(t, c, jsonPath(0, count))
		// Read twice: a page visitors came back to before the flood.
		srv.get(t, c, "/load-more.php")
		srv.get(t, c, "/load-more.php")
		visitors = append(visitors, c)
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	var sent floodCount
	for range renderFloodAttackers {
		wg.Go(func() {
			c := &http.Client{Transport: attackTransport, Timeout: 10 * time.Second}
			for !stopped(stop) {
				sent.do(c, http.MethodGet, srv.URL+fmt.Sprintf("/load-more.php?year=2024&monthnum=%d&posts=%d",
					1+rand.IntN(renderFloodMonths), 100+rand.IntN(101)))
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	var seen floodStats
	var vg sync.WaitGroup
	visitorsStop := make(chan struct{})
	for _, c := range visitors {
		vg.Go(func() { seen.run(c, visitorsStop, func() string { return srv.URL + "/load-more.php" }) })
	}
	for i := range publishFloodPublishes {
		time.Sleep(publishFloodEvery)
		wpdbtest.Insert(t, cfg, wpsite.Post{
			Title:   fmt.Sprintf("Published %d", i),
			Name:    fmt.Sprintf("published-%d", i),
			Content: "<p>Published during the flood.</p>",
			Date:    fmt.Sprintf("2025-01-01 00:00:%02d", i),
		})
	}
	time.Sleep(publishFloodEvery)
	close(visitorsStop)
	vg.Wait()
	close(stop)
	wg.Wait()

	t.Logf("visitors: %d requests, %v, p50 %v, p99 %v; attack %d requests (%d refused)",
		len(seen.took), seen.statuses, seen.percentile(0.5), seen.percentile(0.99), sent.sent.Load(), sent.refused.Load())
	if failed := len(seen.took) - seen.statuses[http.StatusOK]; failed > 0 {
		t.Errorf("%d of %d ordinary page views across %d publishes not answered 200: %v",
			failed, len(seen.took), publishFloodPublishes, seen.statuses)
	}
	if seen.statuses[http.StatusOK] == 0 {
		t.Error("no ordinary page view answered")
	}
}

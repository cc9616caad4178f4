package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"
)

// searchAttackers are the connections of TestVisitorsDuringSearchFlood's
// flood, each asking a distinct search: a scan of every post.
const searchAttackers = 64

// TestVisitorsDuringSearchFlood floods the server with distinct searches
// from 64 connections while visitors read the blog's first batch: the
// searches' scans are admitted among the misses, so the visitors, served
// from memory, get only 200s within floodVisitorP99, and the searches past
// the bound are refused with 503 at once.
func TestVisitorsDuringSearchFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of a server process for about 10 s")
	}
	t.Parallel()
	srv, _ := startFloodServer(t)
	visitors := &floodStats{}
	attackers := &floodStats{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	visitorClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: floodVisitors}, Timeout: 10 * time.Second}
	attackClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: searchAttackers}, Timeout: 10 * time.Second}
	for range floodVisitors {
		wg.Go(func() { visitors.run(visitorClient, stop, func() string { return srv.URL + jsonPath(0, 2) }) })
	}
	time.Sleep(2 * time.Second) // the head loaded, as on a live site
	visitors.reset()
	for range searchAttackers {
		wg.Go(func() {
			attackers.run(attackClient, stop, func() string {
				return srv.URL + jsonPath(0, 2) + fmt.Sprintf("&s=post+%d", rand.IntN(1_000_000_000))
			})
		})
	}
	time.Sleep(floodFor)
	close(stop)
	wg.Wait()

	p99 := visitors.percentile(0.99)
	t.Logf("visitors: %d requests, %v, p50 %v, p99 %v", len(visitors.took), visitors.statuses, visitors.percentile(0.5), p99)
	t.Logf("attackers: %d requests, %v", len(attackers.took), attackers.statuses)
	if n := len(visitors.took); n < 100 {
		t.Errorf("visitors made only %d requests during the flood", n)
	}
	for status, n := range visitors.statuses {
		if status != http.StatusOK {
			t.Errorf("visitors got %d answers %d during the flood, want only 200", n, status)
		}
	}
	if p99 > floodVisitorP99 {
		t.Errorf("visitors' p99 during the flood: %v, want under %v", p99, floodVisitorP99)
	}
	if attackers.statuses[http.StatusServiceUnavailable] == 0 {
		t.Error("no search was refused: the flood did not reach the bound on queries")
	}
	for status := range attackers.statuses {
		if status >= 500 && status != http.StatusServiceUnavailable {
			t.Errorf("searches answered %d", status)
		}
	}
}

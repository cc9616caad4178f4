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

	visitorsServedThrough(t, visitors, attackers)
	for status := range attackers.statuses {
		if status >= 500 && status != http.StatusServiceUnavailable {
			t.Errorf("searches answered %d", status)
		}
	}
}

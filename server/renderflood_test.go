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
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// A flood of distinct page renders, at test size: renderFloodMonths date
// archives of renderFloodPerMonth posts each, and renderFloodAttackers
// keep-alive connections.
const (
	renderFloodMonths    = 12
	renderFloodPerMonth  = 200
	renderFloodAttackers = 16
	// Visitors are measured renderFloodFor under each flood, and as long
	// under a /healthz flood, in renderFloodSpells spells of each in turn.
	renderFloodFor    = 4 * time.Second
	renderFloodSpells = 4
	// renderFloodShare is the least share of their rate under a /healthz
	// flood from as many connections that visitors keep under a render
	// flood. It is well under half: a refused archive page still costs a
	// few /healthz (its posts are read from the cache and its view
	// hashed), so that even a flood of pages with no render at all leaves
	// visitors about half, and the machine's other load moves the share
	// by a tenth either way from one run to the next.
	renderFloodShare = 0.3
)

// TestVisitorsDuringRenderFlood runs the server as a process of its own
// with visitors reading their page (posts_start 2 to 20) and two archives'
// first pages, while renderFloodAttackers connections flood it with HEADs
// of the page (posts=N) whose session count changes before each, so no
// page is one rendered before, or with archive pages of distinct posts=N,
// each in turn
// with a /healthz flood. Under each render flood the visitors keep at
// least renderFloodShare of their rate under the /healthz flood, and are
// not refused: their pages are kept, and served as copies.
func TestVisitorsDuringRenderFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process under floods for about 25 s")
	}
	t.Parallel()
	_, srv := startRenderFloodServer(t)

	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	// The attackers ask for gzip, as browsers do, and never decode it: an
	// attacker's own work is not the server's, and runs elsewhere.
	attackTransport := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	withJar := func(transport http.RoundTripper) *http.Client {
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
		c := withJar(transport)
		srv.get(t, c, jsonPath(0, count))
		visitorPaths = append(visitorPaths, func() (*http.Client, string) { return c, "/load-more.php" })
	}
	for m := range 2 {
		c := withJar(transport)
		visitorPaths = append(visitorPaths, func() (*http.Client, string) { return c, fmt.Sprintf("/load-more.php?year=2024&monthnum=%d", m+1) })
	}
	for _, next := range visitorPaths {
		c, path := next()
		srv.get(t, c, path)
	}

	healthz := func(stop <-chan struct{}, n *floodCount) {
		c := &http.Client{Transport: attackTransport, Timeout: 10 * time.Second}
		for !stopped(stop) {
			n.do(c, http.MethodGet, srv.URL+"/healthz")
		}
	}
	// measure runs attack from renderFloodAttackers connections and, once
	// it is under way, the visitors for d; it adds their answers to
	// visitors and the attack's to sent.
	measure := func(attack func(<-chan struct{}, *floodCount), d time.Duration, visitors *floodStats, sent *floodCount) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range renderFloodAttackers {
			wg.Go(func() { attack(stop, sent) })
		}
		time.Sleep(300 * time.Millisecond)
		var vg sync.WaitGroup
		visitorsStop := make(chan struct{})
		for _, next := range visitorPaths {
			vg.Go(func() {
				c, _ := next()
				visitors.run(c, visitorsStop, func() string { _, p := next(); return srv.URL + p })
			})
		}
		time.Sleep(d)
		close(visitorsStop)
		vg.Wait()
		close(stop)
		wg.Wait()
	}
	floods := []struct {
		name   string
		attack func(stop <-chan struct{}, n *floodCount)
	}{
		{"head changing count", func(stop <-chan struct{}, n *floodCount) {
			// A session past the page's cap, whose badge changes with
			// every JSON request, over 100 to 200 posts: the attackers'
			// counts move in step, their pages do not.
			c := withJar(attackTransport)
			for range 3 {
				n.do(c, http.MethodGet, srv.URL+jsonPath(0, 100))
			}
			for !stopped(stop) {
				n.do(c, http.MethodGet, srv.URL+jsonPath(0, 1))
				n.do(c, http.MethodHead, srv.URL+fmt.Sprintf("/load-more.php?posts=%d", 100+rand.IntN(101)))
			}
		}},
		{"archive posts=N", func(stop <-chan struct{}, n *floodCount) {
			c := &http.Client{Transport: attackTransport, Timeout: 10 * time.Second}
			for !stopped(stop) {
				n.do(c, http.MethodGet, srv.URL+fmt.Sprintf("/load-more.php?year=2024&monthnum=%d&posts=%d",
					1+rand.IntN(renderFloodMonths), 100+rand.IntN(101)))
			}
		}},
	}
	// Each render flood alternates with a /healthz flood in short spells,
	// so that the machine's other load weighs on both alike.
	for _, flood := range floods {
		calm, attacked := &floodStats{}, &floodStats{}
		var healthzSent, attackSent floodCount
		for range renderFloodSpells {
			measure(healthz, renderFloodFor/renderFloodSpells, calm, &healthzSent)
			measure(flood.attack, renderFloodFor/renderFloodSpells, attacked, &attackSent)
		}
		share := float64(len(attacked.took)) / float64(len(calm.took))
		t.Logf("%s flood: visitors %d requests, %v, p50 %v, p99 %v; under /healthz: %d requests, p50 %v, p99 %v; attack %d requests (%d refused), /healthz %d",
			flood.name, len(attacked.took), attacked.statuses, attacked.percentile(0.5), attacked.percentile(0.99),
			len(calm.took), calm.percentile(0.5), calm.percentile(0.99), attackSent.sent.Load(), attackSent.refused.Load(), healthzSent.sent.Load())
		t.Logf("%s flood: visitors keep %.0f%% of their rate under the /healthz flood", flood.name, 100*share)
		if share < renderFloodShare {
			t.Errorf("%s flood: visitors at %.0f%% of their /healthz-flood rate, want at least %.0f%%", flood.name, 100*share, 100*renderFloodShare)
		}
		if refused := len(attacked.took) - attacked.statuses[http.StatusOK]; refused > len(attacked.took)/100 {
			t.Errorf("%s flood: %d of %d visitors' requests not answered 200: %v", flood.name, refused, len(attacked.took), attacked.statuses)
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

// floodCount counts an attack's requests, and those refused with 503.
type floodCount struct{ sent, refused atomic.Int64 }

// do sends one request with c, welcoming gzip, reads its answer as sent,
// and counts it.
func (n *floodCount) do(c *http.Client, method, url string) {
	n.sent.Add(1)
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Accept-Encoding", "gzip")
	if resp, err := c.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			n.refused.Add(1)
		}
	}
}

// startRenderFloodServer starts a server process on a MariaDB site of
// renderFloodMonths months of renderFloodPerMonth posts each, and waits
// until it is healthy.
func startRenderFloodServer(t *testing.T) (wpdb.Config, *childServer) {
	t.Helper()
	cfg := wpdbtest.MySQL(t)
	var rows []wpsite.Post
	for m := 1; m <= renderFloodMonths; m++ {
		for d := range renderFloodPerMonth {
			rows = append(rows, wpsite.Post{
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
	return cfg, srv
}

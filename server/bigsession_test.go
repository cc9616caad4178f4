package main

import (
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// The big-session flood: attackers on one session a PHP page grew to
// bigSessionBytes, against as many connections flooding /healthz.
const (
	bigSessionBytes     = 3 << 20
	bigSessionAttackers = 4
	bigSessionVisitors  = 8
	// The three floods take turns, bigSessionRounds rounds of
	// bigSessionFor each, so that a machine whose load moves during the
	// test moves all three alike.
	bigSessionRounds = 3
	bigSessionFor    = 2 * time.Second
)

// TestVisitorsBesideBigSession runs the server as a process of its own,
// its sessions in a Redis of the test's own, and measures visitors (each
// with a session of their own, clicking "More posts") while four
// connections flood /healthz, then while four connections click on one
// 3 MiB session, then send HEAD with it, in turns. Beside the big session the
// visitors must keep at least half their rate beside the /healthz flood
// and a p99 at most twice its (plus 5 ms for a shared machine's noise),
// get only 200, and the big session must count every post its clicks
// were shown.
func TestVisitorsBesideBigSession(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three floods of a server process for about 20 s")
	}
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 40)
	rs := sessiontest.StartServer(t)
	srv := startChildServer(t, map[string]string{
		"LOADMORE_DB":         dbURL(t, cfg),
		"LOADMORE_REDIS":      rs.URL,
		"LOADMORE_ACCESS_LOG": "off",
	})
	waitHealthy(t, srv.URL)

	const bigID = "0123456789abcdef0123456789abcdef"
	key := session.RedisKeyPrefix + bigID
	if _, err := redisDo(t, rs.URL, "SETEX", key, 1440, grownSession(bigSessionBytes)); err != nil {
		t.Fatal(err)
	}

	// flood adds one round of visitors beside attack to visitors and
	// attackers.
	flood := func(attack func(*http.Client) (*http.Response, error), visitors, attackers *floodStats) {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		transport := &http.Transport{MaxIdleConnsPerHost: bigSessionVisitors + bigSessionAttackers}
		defer transport.CloseIdleConnections()
		for range bigSessionVisitors {
			jar, _ := cookiejar.New(nil)
			client := &http.Client{Transport: transport, Jar: jar, Timeout: 10 * time.Second}
			wg.Go(func() { visitors.run(client, stop, func() string { return srv.URL + jsonPath(0, 2) }) })
		}
		for range bigSessionAttackers {
			client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
			wg.Go(func() { runRequests(attackers, client, stop, attack) })
		}
		time.Sleep(bigSessionFor)
		close(stop)
		wg.Wait()
	}
	healthz := func(c *http.Client) (*http.Response, error) { return c.Get(srv.URL + "/healthz") }
	bigSession := func(method string) func(c *http.Client) (*http.Response, error) {
		return func(c *http.Client) (*http.Response, error) {
			req, _ := http.NewRequest(method, srv.URL+jsonPath(0, 2), nil)
			req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: bigID})
			return c.Do(req)
		}
	}
	methods := []string{http.MethodGet, http.MethodHead}
	baseVisitors, baseAttackers := &floodStats{}, &floodStats{}
	visitorsBeside, attackersBeside := map[string]*floodStats{}, map[string]*floodStats{}
	for _, method := range methods {
		visitorsBeside[method], attackersBeside[method] = &floodStats{}, &floodStats{}
	}
	for range bigSessionRounds {
		flood(healthz, baseVisitors, baseAttackers)
		for _, method := range methods {
			flood(bigSession(method), visitorsBeside[method], attackersBeside[method])
		}
	}
	baseP99 := baseVisitors.percentile(0.99)
	t.Logf("beside the /healthz flood: visitors %d requests, p99 %v, %v; attackers %d, %v",
		len(baseVisitors.took), baseP99, baseVisitors.statuses, len(baseAttackers.took), baseAttackers.statuses)
	var clicks int
	for _, method := range methods {
		visitors, attackers := visitorsBeside[method], attackersBeside[method]
		p99 := visitors.percentile(0.99)
		t.Logf("beside %s on the 3 MiB session: visitors %d requests, p99 %v, %v; attackers %d, %v",
			method, len(visitors.took), p99, visitors.statuses, len(attackers.took), attackers.statuses)
		if len(visitors.took) < len(baseVisitors.took)/2 {
			t.Errorf("visitors made %d requests beside %s on the big session, under half of their %d beside the /healthz flood",
				len(visitors.took), method, len(baseVisitors.took))
		}
		if p99 > 2*baseP99+5*time.Millisecond {
			t.Errorf("visitors' p99 beside %s on the big session %v, over twice their %v beside the /healthz flood (+5ms)", method, p99, baseP99)
		}
		for status, n := range visitors.statuses {
			if status != http.StatusOK {
				t.Errorf("visitors got %d answers %d beside %s on the big session, want only 200", n, status, method)
			}
		}
		if method == http.MethodGet {
			clicks = attackers.statuses[http.StatusOK]
		}
	}
	v, err := redis.Bytes(redisDo(t, rs.URL, "GET", key))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^posts_start\|i:(\d+);`).FindSubmatch(v)
	if m == nil {
		t.Fatalf("the big session lost its posts_start: %.60q…", v)
	}
	counted, _ := strconv.Atoi(string(m[1]))
	if shown := 2 + 2*clicks; counted != shown {
		t.Errorf("the big session counts posts_start %d, want %d: 2 and the 2 posts of each of %d answers to GET (HEAD counts none)",
			counted, shown, clicks)
	}
}

// grownSession is a session of about size bytes in PHP's "php" format:
// posts_start first, as this server creates it, then a list of short
// records a PHP page appended.
func grownSession(size int) []byte {
	var list strings.Builder
	n := 0
	for list.Len() < size {
		item := "viewed:" + strconv.Itoa(n)
		list.WriteString("i:" + strconv.Itoa(n) + ";s:" + strconv.Itoa(len(item)) + `:"` + item + `";`)
		n++
	}
	return []byte("posts_start|i:2;history|a:" + strconv.Itoa(n) + ":{" + list.String() + "}")
}

package main

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// pushedBound is how old an answer may be while events flow: the event's
// round trip and the refresh, with room for a shared machine.
const pushedBound = 500 * time.Millisecond

// waitMode polls /readyz until it names mode, whatever its status: 503
// while Redis, which sessions need, is down.
func waitMode(t *testing.T, srv *testServer, mode string) {
	t.Helper()
	var last response
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if last = srv.get(t, "/readyz"); strings.Contains(last.Body, `"push":"`+mode+`"`) {
			return
		}
	}
	t.Fatalf("/readyz never said %s: %d %s", mode, last.Status, last.Body)
}

// evalOn runs each command on a new connection to the Redis at url, as
// each of the plugin's requests connects anew.
func evalOn(url string) func(cmd string, args ...any) (any, error) {
	return func(cmd string, args ...any) (any, error) {
		c, err := redis.DialURL(url, redis.DialConnectTimeout(500*time.Millisecond),
			redis.DialReadTimeout(500*time.Millisecond), redis.DialWriteTimeout(500*time.Millisecond))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		return c.Do(cmd, args...)
	}
}

// streamed starts the stream of posts, one every 500 ms, each a request
// of its own rather than a burst (which the server refreshes at most once
// per freshness bound), and a reader of each URL; the returned stop ends
// them and waits for them.
func streamed(t *testing.T, site *streamSite, urls ...func() string) (readers []*reader, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	dones := []<-chan struct{}{site.stream(ctx, t, 500*time.Millisecond)}
	for _, url := range urls {
		r := &reader{}
		readers = append(readers, r)
		dones = append(dones, r.run(ctx, site, url))
	}
	return readers, func() {
		cancel()
		for _, d := range dones {
			<-d
		}
	}
}

// TestPushFaultRedisRestart: two instances follow a stream of publishes
// on a Redis that is killed mid-stream and started again empty two
// seconds later. Before, and from a publish after both say pushed again,
// every answer is at most pushedBound old; across the outage none is
// older than the freshness bound. The publish that makes them pushed
// comes within a burst of the refresh of everything the subscription
// made again caused, so it may wait for the next publish (500 ms later)
// or the bound: the window starts after it.
func TestPushFaultRedisRestart(t *testing.T) {
	rds := sessiontest.StartServer(t)
	site := newStreamSite(t, "wploadmore:events", evalOn(rds.URL))
	const ttl = 5 * time.Second
	env := site.env(t, rds.URL, "fault:", ttl)
	a, b := startServer(t, env), startServer(t, env)
	readers, stop := streamed(t, site, func() string { return a.URL }, func() string { return b.URL })
	defer stop()
	waitReady(t, a, `"push":"pushed"`)
	waitReady(t, b, `"push":"pushed"`)
	from := time.Now()
	time.Sleep(2 * time.Second)
	checkWindow(t, "pushed, before the restart", from, time.Now(), pushedBound, readers...)

	rds.Stop()
	stopped := time.Now()
	waitMode(t, a, "polling")
	waitMode(t, b, "polling")
	t.Logf("both polling %v after Redis was killed", time.Since(stopped).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	rds.Start()
	waitReady(t, a, `"push":"pushed"`)
	waitReady(t, b, `"push":"pushed"`)
	again := time.Now()
	time.Sleep(2 * time.Second)
	checkWindow(t, "Redis down and back", stopped, time.Now(), ttl, readers...)
	checkWindow(t, "pushed after the restart, from the next publish", again.Add(600*time.Millisecond), time.Now(), pushedBound, readers...)
}

// TestPushFaultServerRestart: the server is stopped while publishes go
// on, and a new one started a second later on the same site: from its
// first answer no reader gets one older than the freshness bound, and
// once it says pushed, none older than pushedBound.
func TestPushFaultServerRestart(t *testing.T) {
	rds := sessiontest.New(t)
	channel := rds.Prefix + "events"
	t.Cleanup(func() { rds.Do("DEL", channel+":seq") })
	site := newStreamSite(t, channel, rds.Do)
	const ttl = 5 * time.Second
	env := site.env(t, rds.URL, rds.Prefix, ttl)
	var url atomic.Value
	a := startServer(t, env)
	url.Store(a.URL)
	readers, stop := streamed(t, site, func() string { return url.Load().(string) })
	defer stop()
	waitReady(t, a, `"push":"pushed"`)
	from := time.Now()
	time.Sleep(time.Second)
	checkWindow(t, "pushed, before the restart", from, time.Now(), pushedBound, readers...)

	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	started := time.Now()
	b := startServer(t, env)
	url.Store(b.URL)
	waitReady(t, b, `"push":"pushed"`)
	pushed := time.Now()
	t.Logf("the new server pushed %v after its start", pushed.Sub(started).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	checkWindow(t, "the new server, from its start", started, time.Now(), ttl, readers...)
	checkWindow(t, "the new server, pushed", pushed, time.Now(), pushedBound, readers...)
}

// TestPushFaultLostMessage: a publish whose message is lost (the counter
// INCRed past two instances, as the plugin's script would, without the
// PUBLISH reaching them) shows on both, in the blog, its category's and
// author's archives and a kept search, within the gap's bound of two
// counter checks, far under the 20 s freshness bound and the 5-minute
// search bound: the gap refreshes everything, once.
func TestPushFaultLostMessage(t *testing.T) {
	rds := sessiontest.New(t)
	channel := rds.Prefix + "events"
	t.Cleanup(func() { rds.Do("DEL", channel+":seq") })
	site := newStreamSite(t, channel, rds.Do)
	env := site.env(t, rds.URL, rds.Prefix, 20*time.Second)
	env["LOADMORE_SEARCH_TTL"] = "5m"
	servers := []*testServer{startServer(t, env), startServer(t, env)}
	ctx := context.Background()
	first, date, err := site.write(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := site.announce(first, date); err != nil {
		t.Fatal(err)
	}
	paths := []string{jsonPath(0, 3), jsonPath(0, 3) + "&cat=1", jsonPath(0, 3) + "&author=1", jsonPath(0, 3) + "&s=stream"}
	for _, srv := range servers {
		waitReady(t, srv, `"push":"pushed"`)
		for _, p := range paths {
			if ids := postIDs(srv.get(t, p).posts(t)); len(ids) == 0 || ids[0] != first {
				t.Fatalf("%s before the loss: %v, want %d first", p, ids, first)
			}
		}
	}

	// A server still subscribing when the first post was announced may
	// have missed that message and counted a gap of its own: the loss's
	// is counted from here.
	gapsBefore := make([]float64, len(servers))
	for i, srv := range servers {
		gapsBefore[i] = scrape(t, metricsURL(t, srv))["wploadmore_push_gaps_total"].GetMetric()[0].GetCounter().GetValue()
	}
	lost, _, err := site.write(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rds.Do("INCR", channel+":seq"); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	for i, srv := range servers {
		for _, p := range paths {
			for postIDs(srv.get(t, p).posts(t))[0] != lost {
				if time.Since(written) > 5*time.Second {
					t.Fatalf("instance %d, %s: post %d lost with its message not shown within 5 s", i+1, p, lost)
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("instance %d, %s: the lost post shown %v after its write", i+1, p, time.Since(written).Round(time.Millisecond))
		}
	}
	if d := time.Since(written); d > 3*time.Second {
		t.Errorf("the lost post shown everywhere after %v, want within two counter checks (2 s) and the reads", d)
	}
	time.Sleep(2 * time.Second) // a gap refreshes once, not at every check
	for i, srv := range servers {
		waitReady(t, srv, `"push":"pushed"`)
		families := scrape(t, metricsURL(t, srv))
		if n := families["wploadmore_push_gaps_total"].GetMetric()[0].GetCounter().GetValue() - gapsBefore[i]; n != 1 {
			t.Errorf("instance %d: wploadmore_push_gaps_total rose by %v with the lost message, want 1", i+1, n)
		}
	}
	if got := postIDs(servers[0].get(t, jsonPath(0, 3)).posts(t)); !slices.Equal(got[:2], []uint64{lost, first}) {
		t.Errorf("the blog after the gap: %v, want %d then %d", got, lost, first)
	}
}

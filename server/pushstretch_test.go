package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// stretchScript is the plugin's (WPLoadMore_Redis::SCRIPT).
const stretchScript = `local n = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], '{"seq":' .. n .. ',' .. ARGV[2])
return n`

// TestPushStretch: a reader reads the blog's and an archive's JSON every
// 20 ms with the default bound (1 s). The statements the server sends
// MariaDB (counted by the proxy in front of it, the server's own alone)
// are counted for 5 s without heartbeats (polling bounds), then for 5 s
// while heartbeats come every 500 ms (pushed): at least ten times fewer.
// A post inserted without an event then shows once the heartbeats stop,
// within -push-heartbeat-window (2 s here) and the bound after the last
// one, and not before the window (the stretch held), with one log line;
// the refreshes are counted by kind, a heartbeat's not at all; again
// pushed, Redis killed ends the stretch within the PING's bound, and an
// archive shows a post inserted without an event within it and the bound.
func TestPushStretch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: counts idle queries for seconds")
	}
	t.Parallel()
	const window = 2 * time.Second
	direct := wpdbtest.MySQL(t)
	seedBlog(t, direct, 12)
	cfg, proxy := wpdbtest.ThroughProxy(t, direct)
	rds := sessiontest.StartServer(t)
	channel := "wploadmore:events"
	env := map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": rds.URL, "LOADMORE_PUSH_CHANNEL": channel,
		"LOADMORE_PUSH_HEARTBEAT_WINDOW": window.String(), "LOADMORE_METRICS_ADDR": "127.0.0.1:0"}
	send := func(cmd string, args ...any) {
		c, err := redis.DialURL(rds.URL)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		if _, err := c.Do(cmd, args...); err != nil {
			t.Error(err)
		}
	}
	beat := func() { send("EVAL", stretchScript, 1, channel+":seq", channel, `"v":1,"kinds":["heartbeat"]}`) }
	beat() // the counter, as the plugin's activation leaves it
	srv := startServer(t, env)
	waitReady(t, srv, `"push":"pushed"`)

	const archive = "/load-more.php?start=0&desiredPosts=2&year=2024&monthnum=1"
	newest := func() uint64 { return postIDs(srv.get(t, jsonPath(0, 3)).posts(t))[0] }
	read := func(d time.Duration) (statements int, texts []string) {
		before, from := proxy.Queries(), len(proxy.QueryTexts())
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			newest()
			srv.get(t, archive).posts(t)
		}
		return proxy.Queries() - before, proxy.QueryTexts()[from:]
	}
	polling, _ := read(5 * time.Second)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	var mu sync.Mutex
	var last time.Time // the last heartbeat sent
	wg.Go(func() {
		for {
			beat()
			mu.Lock()
			last = time.Now()
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	})
	waitStretched(t, srv, true)
	pushed, texts := read(5 * time.Second)
	t.Logf("statements in 5 s of reads every 20 ms: %d polling (%.1f/s), %d pushed (%.1f/s): %q",
		polling, float64(polling)/5, pushed, float64(pushed)/5, texts)
	if polling < 10*max(pushed, 1) {
		t.Errorf("%d statements polling, %d pushed: want at least ten times fewer pushed", polling, pushed)
	}

	// Heartbeats stop; a post inserted without an event.
	logged := len(srv.Logs.String())
	close(stop)
	wg.Wait()
	silent := wpdbtest.Insert(t, direct, wpsite.Post{Title: "Silent", Name: "silent", Date: "2025-06-01 10:00:00"})[0]
	inserted := time.Now()
	shown := waitShown(t, newest, silent, window+3*time.Second)
	mu.Lock()
	sinceBeat, sinceInsert := shown.Sub(last), shown.Sub(inserted)
	mu.Unlock()
	t.Logf("heartbeats stopped: the silent post shown %v after the last heartbeat, %v after its insert", sinceBeat.Round(time.Millisecond), sinceInsert.Round(time.Millisecond))
	if sinceBeat < window-200*time.Millisecond || sinceBeat > window+time.Second+300*time.Millisecond {
		t.Errorf("shown %v after the last heartbeat, want after the window (%v) and within it and the 1 s bound", sinceBeat, window)
	}
	waitReady(t, srv, `"push":"polling"`)
	if n := strings.Count(srv.Logs.String()[logged:], `"mode":"polling","why":"no event nor heartbeat for 2s"`); n != 1 {
		t.Errorf("%d log lines of the silence, want 1", n)
	}

	// Refreshes by kind: a publish, and a gap (a message lost); the
	// heartbeats refreshed nothing.
	send("EVAL", stretchScript, 1, channel+":seq", channel, `"v":1,"kinds":["post"],"posts":[999],"post_types":["post"],"authors":[1],"dates":["2025-06-03"]}`)
	send("INCR", channel+":seq")
	beat()
	refreshes := map[string]float64{}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && refreshes["all"] == 0; time.Sleep(20 * time.Millisecond) {
		for _, m := range scrape(t, metricsURL(t, srv))["wploadmore_push_refreshes_total"].GetMetric() {
			refreshes[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if refreshes["post"] != 1 || refreshes["all"] != 1 || refreshes["term"] != 0 || len(refreshes) != 9 {
		t.Errorf("wploadmore_push_refreshes_total %v, want post 1, all 1 (the gap), each other kind 0", refreshes)
	}

	// Pushed again, an archive read and kept past the bound, a post
	// inserted in it without an event, then Redis killed: the stretch
	// ends within the PING's bound, and the archive, which needs no
	// session, shows the post within it and the bound (the blog's JSON
	// answers 503 meanwhile: sessions need Redis).
	beat()
	waitStretched(t, srv, true)
	archived := func() uint64 { return postIDs(srv.get(t, archive).posts(t))[0] }
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		archived()
	}
	beat() // the window would hold the stretch past the kill
	lost := wpdbtest.Insert(t, direct, wpsite.Post{Title: "Lost", Name: "lost", Date: "2024-01-20 10:00:00"})[0]
	time.Sleep(100 * time.Millisecond)
	if archived() == lost {
		t.Error("the archive showed the post inserted without an event while stretched: the stretch did not hold")
	}
	rds.Stop()
	stopped := time.Now()
	shown = waitShown(t, archived, lost, 5*time.Second)
	waitStretched(t, srv, false)
	t.Logf("Redis killed: the archive showed the post %v after", shown.Sub(stopped).Round(time.Millisecond))
	// A Redis killed closes the connection: noticed at once.
	if d := shown.Sub(stopped); d > 1500*time.Millisecond {
		t.Errorf("the archive showed the post %v after Redis was killed, want within the 1 s bound", d)
	}
	if t.Failed() {
		t.Logf("logs:\n%s", srv.Logs)
	}
}

// waitStretched polls the metrics until wploadmore_push_stretched is 1
// (want) or 0, for up to 5 s.
func waitStretched(t *testing.T, srv *testServer, want bool) {
	t.Helper()
	url := metricsURL(t, srv)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if g := scrape(t, url)["wploadmore_push_stretched"].GetMetric()[0].GetGauge().GetValue(); (g == 1) == want {
			return
		}
	}
	t.Fatalf("wploadmore_push_stretched never %v", want)
}

// waitShown polls newest until it is id, every 10 ms for up to within,
// and returns when.
func waitShown(t *testing.T, newest func() uint64, id uint64, within time.Duration) time.Time {
	t.Helper()
	var seen []uint64
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		got := newest()
		if got == id {
			return time.Now()
		}
		if !slices.Contains(seen, got) {
			seen = append(seen, got)
		}
	}
	t.Fatalf("post %d not the newest within %v (saw %v)", id, within, fmt.Sprint(seen))
	return time.Time{}
}

package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestPushTopologies: a server given a Sentinel setup or a Cluster as
// -redis follows a stream of publishes as on a single Redis: pushed, and
// no answer older than pushedBound.
func TestPushTopologies(t *testing.T) {
	sessiontest.NeedRedisTools(t)
	if testing.Short() {
		t.Skip("-short: a Sentinel setup and a Redis Cluster")
	}
	for _, tc := range []struct {
		name  string
		start func(t *testing.T) (url string, eval func(string, ...any) (any, error))
	}{
		{"sentinel", func(t *testing.T) (string, func(string, ...any) (any, error)) {
			sn := sessiontest.StartSentinels(t, time.Second, 5*time.Second)
			return sn.URL, evalOn(sn.Redis(t).URL)
		}},
		{"cluster", func(t *testing.T) (string, func(string, ...any) (any, error)) {
			c, err := sessiontest.StartCluster(6, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Stop)
			return c.URL(), c.Do
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, eval := tc.start(t)
			site := newStreamSite(t, "wploadmore:events", eval)
			srv := startServer(t, site.env(t, url, "topology:", 5*time.Second))
			readers, stop := streamed(t, site, func() string { return srv.URL })
			defer stop()
			waitReady(t, srv, `"push":"pushed"`)
			from := time.Now()
			time.Sleep(2 * time.Second)
			checkWindow(t, "pushed", from, time.Now(), pushedBound, readers...)
		})
	}
}

// TestPushFaultDeactivated: the real plugin deactivated in php-cli puts
// the server in polling within pushedBound of PHP's return, and a post
// published afterwards, which sends no event, shows within the freshness
// bound, as without the plugin.
func TestPushFaultDeactivated(t *testing.T) {
	wp, rds, channel := pushedWordPress(t)
	const ttl = 3 * time.Second
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": rds.URL, "LOADMORE_SESSION_PREFIX": rds.Prefix, "LOADMORE_PUSH_CHANNEL": channel,
		"LOADMORE_CACHE_TTL": ttl.String(), "LOADMORE_METRICS_ADDR": "127.0.0.1:0"})
	waitReady(t, srv, `"push":"pushed"`)
	php := func(code string) (id uint64, returned time.Time) {
		t.Helper()
		var got struct {
			ID       uint64
			Returned float64
		}
		out := wp.PHP(t, code+` echo json_encode(array('id' => $id, 'returned' => microtime(true)));`)
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("php: %s: %v", out, err)
		}
		return got.ID, time.Unix(0, int64(got.Returned*1e9))
	}

	_, returned := php(`require_once ABSPATH . 'wp-admin/includes/plugin.php'; deactivate_plugins('wploadmore/wploadmore.php'); $id = 0;`)
	waitMode(t, srv, "polling")
	polling := time.Since(returned)
	events := func() float64 {
		return scrape(t, metricsURL(t, srv))["wploadmore_push_events_total"].GetMetric()[0].GetCounter().GetValue()
	}
	before := events()
	srv.get(t, jsonPath(0, 3)) // the head kept, as readers keep it
	id, returned := php(`$id = wp_insert_post(array('post_title' => 'Unannounced', 'post_content' => 'x', 'post_status' => 'publish'));`)
	shown := waitNewestWithin(t, srv, id, returned, ttl+2*time.Second)
	t.Logf("polling %v after the deactivation returned; a publish then shown %v after its return (bound %v)",
		polling.Round(time.Millisecond), shown.Round(time.Millisecond), ttl)
	if polling > pushedBound {
		t.Errorf("polling %v after the deactivation, want within %v", polling, pushedBound)
	}
	if shown > ttl+500*time.Millisecond {
		t.Errorf("a publish after the deactivation shown after %v, want within the %v bound", shown, ttl)
	}
	if after := events(); after != before {
		t.Errorf("wploadmore_push_events_total went from %v to %v: the deactivated plugin sent an event", before, after)
	}
}

// waitNewestWithin polls the JSON until post id is its first, for up to
// limit, and returns the time from returned to then.
func waitNewestWithin(t *testing.T, srv *testServer, id uint64, returned time.Time, limit time.Duration) time.Duration {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if ids := postIDs(srv.get(t, jsonPath(0, 3)).posts(t)); len(ids) > 0 && ids[0] == id {
			return time.Since(returned)
		}
	}
	t.Fatalf("post %d not shown within %v", id, limit)
	return 0
}

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// pushPublishes is how many posts TestPushFromWordPress publishes.
const pushPublishes = 20

// TestPushFromWordPress: the real plugin, configured with
// WPLOADMORE_REDIS, sends an event when wp_insert_post() publishes a post
// in php-cli, and the JSON of both of two instances shows the post far
// within the freshness bound, here set to 20 s so that only the event can
// explain it; a trash is followed as fast. /readyz says pushed, then
// polling once the plugin is deactivated; the metrics count the events
// and one forged message.
func TestPushFromWordPress(t *testing.T) {
	t.Parallel()
	wp, rds, channel := pushedWordPress(t)

	env := map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": rds.URL, "LOADMORE_SESSION_PREFIX": rds.Prefix, "LOADMORE_PUSH_CHANNEL": channel,
		"LOADMORE_CACHE_TTL": "20s", "LOADMORE_METRICS_ADDR": "127.0.0.1:0"}
	srv, other := startServer(t, env), startServer(t, env) // two instances
	waitReady(t, srv, `"push":"pushed"`)
	waitReady(t, other, `"push":"pushed"`)

	var latencies []time.Duration
	for i := range pushPublishes {
		var got struct {
			ID       uint64
			Returned float64 // microtime(true) once wp_insert_post() returned
		}
		// The JSON is read (and the head cached) before each publish.
		if n := len(srv.get(t, jsonPath(0, 3)).posts(t)); n == 0 {
			t.Fatal("no posts before the publish")
		}
		out := wp.PHP(t, fmt.Sprintf(`$id = wp_insert_post(array('post_title' => 'Pushed %d', 'post_content' => 'x', 'post_status' => 'publish'));
echo json_encode(array('id' => $id, 'returned' => microtime(true)));`, i))
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("php: %s: %v", out, err)
		}
		latencies = append(latencies, max(waitNewest(t, srv, got.ID, got.Returned, true), waitNewest(t, other, got.ID, got.Returned, true)))
	}
	out := wp.PHP(t, `$id = get_posts(array('numberposts' => 1, 'fields' => 'ids'))[0]; wp_trash_post($id);
echo json_encode(array('id' => $id, 'returned' => microtime(true)));`)
	var trashed struct {
		ID       uint64
		Returned float64
	}
	if err := json.Unmarshal(out, &trashed); err != nil {
		t.Fatalf("php: %s: %v", out, err)
	}
	trash := max(waitNewest(t, srv, trashed.ID, trashed.Returned, false), waitNewest(t, other, trashed.ID, trashed.Returned, false))

	// A forged message is ignored and counted; the plugin deactivated is
	// polling at once.
	if _, err := rds.Do("PUBLISH", channel, `{"seq":999,"v":1,"kinds":["post"],"post_content":"forged"}`); err != nil {
		t.Fatal(err)
	}
	wp.PHP(t, `require_once ABSPATH . 'wp-admin/includes/plugin.php'; deactivate_plugins('wploadmore/wploadmore.php');`)
	waitReady(t, srv, `"push":"polling"`)
	waitReady(t, other, `"push":"polling"`)

	slices.Sort(latencies)
	t.Logf("publish → JSON on both instances, %d publishes: min %v, median %v, max %v; trash → JSON %v (each includes php's own exit)",
		len(latencies), latencies[0].Round(time.Millisecond), latencies[len(latencies)/2].Round(time.Millisecond),
		latencies[len(latencies)-1].Round(time.Millisecond), trash.Round(time.Millisecond))
	// Generous for a shared machine: the bound without events is 20 s.
	if median, worst := latencies[len(latencies)/2], latencies[len(latencies)-1]; median > 200*time.Millisecond || worst >= time.Second {
		t.Errorf("publish → JSON: median %v, slowest %v; want under 200 ms and the 1 s freshness bound", median, worst)
	}
	families := scrape(t, metricsURL(t, srv))
	if n := families["wploadmore_push_events_total"].GetMetric()[0].GetCounter().GetValue(); n < pushPublishes+1 {
		t.Errorf("wploadmore_push_events_total = %v, want at least %d", n, pushPublishes+1)
	}
	if n := families["wploadmore_push_malformed_events_total"].GetMetric()[0].GetCounter().GetValue(); n != 1 {
		t.Errorf("wploadmore_push_malformed_events_total = %v, want 1", n)
	}
	if g := families["wploadmore_push_pushed"].GetMetric()[0].GetGauge().GetValue(); g != 0 {
		t.Errorf("wploadmore_push_pushed = %v after the plugin's deactivation, want 0", g)
	}
}

// waitReady polls /readyz until its body holds want, for up to 10 s.
func waitReady(t *testing.T, srv *testServer, want string) {
	t.Helper()
	var last response
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if last = srv.get(t, "/readyz"); last.Status == http.StatusOK && strings.Contains(last.Body, want) {
			return
		}
	}
	t.Fatalf("/readyz never said %s: %d %s", want, last.Status, last.Body)
}

// waitNewest polls the JSON until post id is its first (shown) or is in
// none of its first three (not shown), for up to 5 s, and returns the time
// from returned (Unix seconds, PHP's clock, the same machine's) to then.
func waitNewest(t *testing.T, srv *testServer, id uint64, returned float64, shown bool) time.Duration {
	t.Helper()
	since := time.Unix(0, int64(returned*1e9))
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		ids := postIDs(srv.get(t, jsonPath(0, 3)).posts(t))
		if shown == (len(ids) > 0 && ids[0] == id) && (shown || !slices.Contains(ids, id)) {
			return time.Since(since)
		}
	}
	t.Fatalf("post %d: shown=%v not seen within 5 s", id, shown)
	return 0
}

// pushedWordPress is a WordPress site of the test's own with the real
// plugin active, sending its events to a Redis key prefix of the test's
// own on channel, whose counter key is removed when the test ends.
func pushedWordPress(t *testing.T) (wp *wpdbtest.WordPress, rds *sessiontest.Redis, channel string) {
	t.Helper()
	wp, rds = wpdbtest.NewWordPress(t), sessiontest.New(t)
	channel = rds.Prefix + "events"
	wp.Defines = map[string]string{"WPLOADMORE_REDIS": rds.URL, "WPLOADMORE_REDIS_CHANNEL": channel}
	wp.InstallPlugin(t, "../wordpress-plugin/wploadmore")
	t.Cleanup(func() { rds.Do("DEL", channel+":seq") })
	return wp, rds, channel
}

package push_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// script is the plugin's (WPLoadMore_Redis::SCRIPT): the counter INCRed
// and the event published with its new value, at once.
const script = `local n = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], '{"seq":' .. n .. ',' .. ARGV[2])
return n`

// refresher records what the subscriber hands on.
type refresher struct {
	mu     sync.Mutex
	events []push.Event
	all    int
}

func (r *refresher) Refresh(_ context.Context, e push.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *refresher) RefreshAll(context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all++
}

func (r *refresher) got() (events []push.Event, all int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]push.Event(nil), r.events...), r.all
}

// follow starts a Subscriber of a channel of t's own on the Redis at url
// and waits until it is subscribed; it stops when t ends.
func follow(t *testing.T, url string) (*push.Subscriber, *refresher, string) {
	t.Helper()
	feed, err := session.OpenFeed(url, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	channel := fmt.Sprintf("wploadmore-test:%s:%d:events", t.Name(), time.Now().UnixNano())
	r := &refresher{}
	s := push.New(feed, r, push.Config{Channel: channel, CheckEvery: 100 * time.Millisecond, RetryMax: 200 * time.Millisecond},
		slog.New(slog.NewTextHandler(logWriter{t}, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; feed.Close() })
	return s, r, channel
}

// logWriter writes the subscriber's log lines to t's log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// send publishes an event as the plugin does (body is its JSON after the
// opening brace, without seq) on conn and returns its seq.
func send(t *testing.T, conn redis.Conn, channel, body string) int64 {
	t.Helper()
	n, err := redis.Int64(conn.Do("EVAL", script, 1, channel+push.CounterSuffix, channel, body))
	if err != nil {
		t.Fatalf("EVAL: %v", err)
	}
	return n
}

// dial connects to the Redis at url; the connection closes when t ends.
func dial(t *testing.T, url string) redis.Conn {
	t.Helper()
	c, err := redis.DialURL(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("after 5 s: %s", what)
}

func subscribers(t *testing.T, conn redis.Conn, channel string) int {
	v, err := redis.Values(conn.Do("PUBSUB", "NUMSUB", channel))
	if err != nil || len(v) != 2 {
		t.Fatalf("PUBSUB NUMSUB: %v %v", v, err)
	}
	n, _ := redis.Int(v[1], nil)
	return n
}

const post = `"v":1,"time_ms":1,"kinds":["post"],"posts":[7],"post_types":["post"],"terms":[3],"taxonomies":[],"authors":[1],"dates":["2026-03-04"],"options":[]}`

// TestSubscriber: events in order are handed on and the mode is pushed; a
// malformed one is ignored and counted; a message lost (the counter
// INCRed past the subscriber) is a gap: one RefreshAll, polling, then
// pushed once the counter matches; "deactivated" is polling.
func TestSubscriber(t *testing.T) {
	r := sessiontest.New(t)
	conn := dial(t, r.URL)
	s, rec, channel := follow(t, r.URL)
	waitFor(t, "subscribed", func() bool { return subscribers(t, conn, channel) == 1 })
	if got := s.Mode(); got != push.Polling {
		t.Errorf("with no counter yet: mode %s, want polling", got)
	}
	t.Cleanup(func() { conn.Do("DEL", channel+push.CounterSuffix) })

	send(t, conn, channel, post)
	send(t, conn, channel, post)
	waitFor(t, "two events", func() bool { ev, _ := rec.got(); return len(ev) == 2 })
	waitFor(t, "pushed", func() bool { return s.Mode() == push.Pushed })
	if ev, all := rec.got(); ev[0].Seq != 1 || ev[1].Seq != 2 || ev[0].Posts[0] != 7 || all != 0 {
		t.Errorf("events %+v, RefreshAll %d; want seq 1 and 2, post 7, no RefreshAll", ev, all)
	}

	for _, bad := range []string{
		`not json`,
		`{"seq":9,"v":2,"kinds":["post"]}`,
		`{"seq":9,"v":1,"kinds":["reboot"]}`,
		`{"seq":9,"v":1,"kinds":["post"],"post_content":"<script>"}`,
		`{"seq":9,"v":1,"kinds":["post"],"posts":[0]}`,
		`{"seq":9,"v":1,"kinds":["post"],"dates":["yesterday"]}`,
		`{"seq":0,"v":1,"kinds":["post"]}`,
		`{"seq":9,"v":1,"kinds":["post"]} {}`,
	} {
		if _, err := conn.Do("PUBLISH", channel, bad); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "8 malformed", func() bool { return s.Stats().Malformed == 8 })
	if ev, all := rec.got(); len(ev) != 2 || all != 0 {
		t.Errorf("malformed events were handed on: %d events, %d RefreshAll", len(ev), all)
	}

	// Lost: the counter moves on without a message.
	conn.Do("INCR", channel+push.CounterSuffix)
	waitFor(t, "a gap from the counter alone", func() bool { _, all := rec.got(); return all == 1 })
	waitFor(t, "pushed again", func() bool { return s.Mode() == push.Pushed })
	conn.Do("INCR", channel+push.CounterSuffix)
	send(t, conn, channel, post)
	waitFor(t, "a gap from the event's seq", func() bool { _, all := rec.got(); return all == 2 })
	if st := s.Stats(); st.Gaps != 2 || st.Received != 3 {
		t.Errorf("stats %+v, want 2 gaps, 3 received", st)
	}

	send(t, conn, channel, `"v":1,"kinds":["deactivated"]}`)
	waitFor(t, "polling after deactivated", func() bool { return s.Mode() == push.Polling })
	send(t, conn, channel, `"v":1,"kinds":["activated"]}`)
	waitFor(t, "pushed after activated", func() bool { return s.Mode() == push.Pushed })
	if age := time.Since(s.Stats().LastEvent); age > 5*time.Second {
		t.Errorf("last event %v ago", age)
	}
}

// TestRedisRestart: a Redis stopped mid-stream is polling within the
// PING's bound; started again, the subscriber subscribes again, refreshes
// everything once, and follows the counter Redis starts afresh.
func TestRedisRestart(t *testing.T) {
	srv := sessiontest.StartServer(t)
	s, rec, channel := follow(t, srv.URL)
	conn := dial(t, srv.URL)
	waitFor(t, "subscribed", func() bool { return subscribers(t, conn, channel) == 1 })
	send(t, conn, channel, post)
	waitFor(t, "pushed", func() bool { return s.Mode() == push.Pushed })

	srv.Stop()
	stopped := time.Now()
	waitFor(t, "polling after the stop", func() bool { return s.Mode() == push.Polling })
	t.Logf("polling %v after Redis stopped", time.Since(stopped).Round(time.Millisecond))
	srv.Start()
	conn = dial(t, srv.URL)
	waitFor(t, "subscribed again", func() bool { _, all := rec.got(); return all == 1 })
	send(t, conn, channel, post) // seq 1: the counter went with Redis's memory
	waitFor(t, "the event after the restart", func() bool { ev, _ := rec.got(); return len(ev) == 2 })
	waitFor(t, "pushed again", func() bool { return s.Mode() == push.Pushed })
}

// TestSentinel: events reach a subscriber of the master Sentinel names.
func TestSentinel(t *testing.T) {
	sessiontest.NeedRedisTools(t)
	if testing.Short() {
		t.Skip("-short: a Sentinel setup")
	}
	sn := sessiontest.StartSentinels(t, time.Second, 5*time.Second)
	s, rec, channel := follow(t, sn.URL)
	conn := dial(t, sn.Redis(t).URL)
	waitFor(t, "subscribed", func() bool { return subscribers(t, conn, channel) == 1 })
	send(t, conn, channel, post)
	waitFor(t, "the event", func() bool { ev, _ := rec.got(); return len(ev) == 1 })
	waitFor(t, "pushed", func() bool { return s.Mode() == push.Pushed })
	fromPlugin(t, sn.URL, channel, rec, 1)
}

// fromPlugin installs the real plugin on a WordPress site with
// WPLOADMORE_REDIS url and the channel, and checks that its activation
// and a wp_insert_post() reach rec as the next two events, numbered on
// from had.
func fromPlugin(t *testing.T, url, channel string, rec *refresher, had int) {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	wp.Defines = map[string]string{"WPLOADMORE_REDIS": url, "WPLOADMORE_REDIS_CHANNEL": channel}
	wp.InstallPlugin(t, "../../wordpress-plugin/wploadmore")
	id := wp.PHP(t, `echo wp_insert_post(array('post_title' => 'x', 'post_status' => 'publish'));`)
	waitFor(t, "the plugin's two events", func() bool { ev, _ := rec.got(); return len(ev) == had+2 })
	ev, all := rec.got()
	activated, published := ev[had], ev[had+1]
	if !activated.Has(push.KindActivated) || !published.Has(push.KindPost) || fmt.Sprint(published.Posts) != "["+string(id)+"]" ||
		published.Seq != activated.Seq+1 || all != 0 {
		t.Errorf("the plugin's events %+v, %+v (RefreshAll %d); want activated, then post %s next in seq", activated, published, all, id)
	}
}

// TestCluster: an event published through one node reaches a subscriber
// of any node, and the counter is read on its key's node.
func TestCluster(t *testing.T) {
	sessiontest.NeedRedisTools(t)
	if testing.Short() {
		t.Skip("-short: a Redis Cluster of six nodes")
	}
	c, err := sessiontest.StartCluster(6, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	s, rec, channel := follow(t, c.URL())
	waitFor(t, "subscribed", func() bool { return s.Stats().Mode == push.Polling && clusterSubscribed(c, channel) })
	for i := range 3 {
		if _, err := c.Do("EVAL", script, 1, channel+push.CounterSuffix, channel, post); err != nil {
			t.Fatalf("EVAL %d: %v", i, err)
		}
	}
	waitFor(t, "three events", func() bool { ev, _ := rec.got(); return len(ev) == 3 })
	waitFor(t, "pushed", func() bool { return s.Mode() == push.Pushed })
	if _, all := rec.got(); all != 0 {
		t.Errorf("RefreshAll %d, want 0", all)
	}
	fromPlugin(t, c.URL(), channel, rec, 3)
}

// clusterSubscribed tells whether a node of c counts a subscriber of
// channel.
func clusterSubscribed(c *sessiontest.Cluster, channel string) bool {
	for _, addr := range c.Addrs {
		conn, err := redis.Dial("tcp", addr)
		if err != nil {
			continue
		}
		v, err := redis.Values(conn.Do("PUBSUB", "NUMSUB", channel))
		conn.Close()
		if err == nil && len(v) == 2 {
			if n, _ := redis.Int(v[1], nil); n == 1 {
				return true
			}
		}
	}
	return false
}

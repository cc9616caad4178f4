package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// The fault tests play the plugin without PHP: a post is written to a
// WordPress site's tables as wp_insert_post() leaves a published one, and
// announced by the plugin's own Lua script (WPLoadMore_Redis::SCRIPT), so
// a stream of changes can run every few milliseconds while Redis, the
// server or the messages fail. pushed_test.go and pushsearch_test.go hold
// the real plugin to the same wire format.

// pluginScript is WPLoadMore_Redis::SCRIPT: the counter INCRed and the
// event published with its new value, at once.
const pluginScript = `local n = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], '{"seq":' .. n .. ',' .. ARGV[2])
return n`

// streamSite is a WordPress site whose posts a test writes directly.
type streamSite struct {
	wp      *wpdbtest.WordPress
	db      *sql.DB
	channel string
	// eval runs a Redis command on the Redis the plugin would send to.
	eval func(cmd string, args ...any) (any, error)

	mu        sync.Mutex
	published map[uint64]time.Time // when each post's row was committed
	order     []uint64             // the posts in the order written
}

// newStreamSite installs WordPress for t; eval reaches its Redis.
func newStreamSite(t *testing.T, channel string, eval func(cmd string, args ...any) (any, error)) *streamSite {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	db, err := sql.Open("mysql", wp.Config.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &streamSite{wp: wp, db: db, channel: channel, eval: eval, published: map[uint64]time.Time{}}
}

// env is the server's environment on the site, with freshness bound ttl.
func (s *streamSite) env(t *testing.T, redisURL, prefix string, ttl time.Duration) map[string]string {
	return map[string]string{"LOADMORE_DB": dbURL(t, s.wp.Config), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": redisURL, "LOADMORE_SESSION_PREFIX": prefix, "LOADMORE_PUSH_CHANNEL": s.channel,
		"LOADMORE_CACHE_TTL": ttl.String(), "LOADMORE_METRICS_ADDR": "127.0.0.1:0"}
}

// write commits post n, published in category 1 by author 1 and dated
// 2030 plus n seconds so each is the newest, and returns its ID and date.
func (s *streamSite) write(ctx context.Context, n int) (uint64, string, error) {
	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Second).Format(time.DateTime)
	res, err := s.db.ExecContext(ctx, `INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title,
		post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type)
		VALUES (1, ?, ?, 'x', ?, '', 'publish', ?, '', '', ?, ?, '', 'post')`,
		date, date, fmt.Sprintf("Stream %d", n), fmt.Sprintf("stream-%d", n), date, date)
	if err != nil {
		return 0, "", err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, "", err
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO wp_term_relationships (object_id, term_taxonomy_id) VALUES (?, 1)", id); err != nil {
		return 0, "", err
	}
	s.mu.Lock()
	s.published[uint64(id)] = time.Now()
	s.order = append(s.order, uint64(id))
	s.mu.Unlock()
	return uint64(id), date, nil
}

// announce sends the event the plugin sends for a publish of post id on
// date: the error of a Redis that is down is the plugin's too, which it
// swallows.
func (s *streamSite) announce(id uint64, date string) error {
	body := fmt.Sprintf(`"v":1,"time_ms":%d,"kinds":["post"],"posts":[%d],"post_types":["post"],"terms":[1],"taxonomies":["category"],"authors":[1],"dates":["%s"],"options":[]}`,
		time.Now().UnixMilli(), id, date[:10])
	_, err := s.eval("EVAL", pluginScript, 1, s.channel+":seq", s.channel, body)
	return err
}

// stream writes and announces a post every every until ctx ends.
func (s *streamSite) stream(ctx context.Context, t *testing.T, every time.Duration) (done <-chan struct{}) {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for n := 0; ctx.Err() == nil; n++ {
			id, date, err := s.write(ctx, n)
			if err != nil {
				if ctx.Err() == nil {
					t.Errorf("writing post %d: %v", n, err)
				}
				return
			}
			s.announce(id, date)
			select {
			case <-ctx.Done():
			case <-time.After(every):
			}
		}
	}()
	return ch
}

// staleness is how old the answer read at start showing newest first is:
// from the commit of the oldest post written before start that it does
// not show, or 0 when it shows the newest.
func (s *streamSite) staleness(start time.Time, newest uint64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	shownAt, ok := s.published[newest]
	for _, id := range s.order {
		at := s.published[id]
		if at.After(start) {
			break
		}
		if !ok || at.After(shownAt) {
			return start.Sub(at)
		}
	}
	return 0
}

// sample is one reader's answer: when it was asked, and how old it was.
type sample struct {
	at    time.Time
	stale time.Duration
}

// reader asks srv's JSON for its newest post every millisecond until ctx
// ends; answers other than 200 (503 while Redis is down, refusals while
// the server is away) are counted, not sampled.
type reader struct {
	mu      sync.Mutex
	samples []sample
	failed  int
}

func (r *reader) run(ctx context.Context, site *streamSite, url func() string) <-chan struct{} {
	done := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			start := time.Now()
			var posts []listing.Post
			resp, err := client.Get(url() + jsonPath(0, 1))
			if err == nil {
				if resp.StatusCode == http.StatusOK {
					err = json.NewDecoder(resp.Body).Decode(&posts)
				}
				resp.Body.Close()
			}
			r.mu.Lock()
			if err != nil || len(posts) != 1 {
				r.failed++
			} else {
				r.samples = append(r.samples, sample{at: start, stale: site.staleness(start, posts[0].ID)})
			}
			r.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	return done
}

// worst returns the oldest answer asked within [from, to), and how many.
func (r *reader) worst(from, to time.Time) (worst time.Duration, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.samples {
		if !s.at.Before(from) && s.at.Before(to) {
			worst, n = max(worst, s.stale), n+1
		}
	}
	return worst, n
}

// checkWindow fails t unless the readers were answered in [from, to) and
// no answer there was older than bound.
func checkWindow(t *testing.T, what string, from, to time.Time, bound time.Duration, readers ...*reader) {
	t.Helper()
	for i, r := range readers {
		worst, n := r.worst(from, to)
		t.Logf("%s, instance %d: %d answers over %v, the oldest %v old", what, i+1, n, to.Sub(from).Round(time.Millisecond), worst.Round(time.Millisecond))
		if n == 0 {
			t.Errorf("%s, instance %d: no answer", what, i+1)
		}
		if worst > bound {
			t.Errorf("%s, instance %d: an answer %v old, want at most %v", what, i+1, worst, bound)
		}
	}
}

package main

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestPushOvertakenQuery: two posts published a few milliseconds apart,
// each announced as the plugin does, while a reader reads the blog's JSON
// every millisecond, both show within pushedBound, under a freshness
// bound of 20 s. Every answer of MariaDB is held back overtakenDelay (a
// proxy in front of it), so the head's query that the first event makes
// a reader start has read before the second post is written and answers
// after its event: the readers after that event must not get its answer,
// nor may it be kept, or the second post shows at the bound.
func TestPushOvertakenQuery(t *testing.T) {
	t.Parallel()
	const overtakenDelay = 25 * time.Millisecond
	direct := wpdbtest.MySQL(t)
	seedBlog(t, direct, 12)
	cfg, proxy := wpdbtest.ThroughProxy(t, direct)
	proxy.SetDelay(overtakenDelay)
	rds := sessiontest.New(t)
	db, err := sql.Open("mysql", direct.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	site := &streamSite{db: db, channel: rds.Prefix + "events", eval: evalOn(rds.URL), published: map[uint64]time.Time{}}
	t.Cleanup(func() { rds.Do("DEL", site.channel+":seq") })
	// The counter, as the plugin's activation leaves it.
	if _, err := site.eval("EVAL", pluginScript, 1, site.channel+":seq", site.channel, `"v":1,"kinds":["heartbeat"]}`); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": rds.URL, "LOADMORE_SESSION_PREFIX": rds.Prefix, "LOADMORE_PUSH_CHANNEL": site.channel,
		"LOADMORE_CACHE_TTL": "20s"})
	waitReady(t, srv, `"push":"pushed"`)
	ctx, cancel := context.WithCancel(context.Background())
	background := &reader{}
	done := background.run(ctx, site, func() string { return srv.URL })
	t.Cleanup(func() { cancel(); <-done })

	publish := func(n int) (id uint64, at time.Time) {
		t.Helper()
		id, date, err := site.write(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := site.announce(id, date); err != nil {
			t.Fatal(err)
		}
		return id, time.Now()
	}
	var worst time.Duration
	for round := range 3 {
		first, firstAt := publish(2 * round)
		time.Sleep(5 * time.Millisecond) // the reader's query of the head reads meanwhile
		second, secondAt := publish(2*round + 1)
		shown := waitNewestWithin(t, srv, second, secondAt, 5*time.Second)
		ids := postIDs(srv.get(t, jsonPath(0, 3)).posts(t))
		if len(ids) < 2 || ids[1] != first {
			t.Errorf("round %d: the JSON shows %v, want %d then %d", round, ids, second, first)
		}
		t.Logf("round %d: the second post shown %v after its event, %v after the first's", round,
			shown.Round(time.Millisecond), (shown + secondAt.Sub(firstAt)).Round(time.Millisecond))
		worst = max(worst, shown)
		time.Sleep(100 * time.Millisecond)
	}
	if worst > pushedBound {
		t.Errorf("the second post of a pair shown %v after its event, want within %v (the bound is 20 s)", worst, pushedBound)
	}
}

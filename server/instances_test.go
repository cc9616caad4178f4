package main

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestInstances runs three servers side by side, as behind a load balancer,
// on one Redis Cluster and one MariaDB primary with a replica. Visitors go
// round robin from server to server: each one's posts_start stays exact,
// every JSON answer is the next posts, none twice or skipped, and the page
// shows the same posts from any server. A post published on the primary
// then shows on every server within the freshness bound, and stays.
func TestInstances(t *testing.T) {
	t.Parallel()
	cl := sharedCluster(t)
	primary, replica := replication.Databases(t)
	const published = 150
	wpdbtest.Insert(t, primary, wpdbtest.Posts(published)...)
	replication.Sync(t)
	// wpdbtest.Posts dates post n n hours into 2024: the newest is the last.
	newestFirst := make([]uint64, published)
	for i := range newestFirst {
		newestFirst[i] = uint64(published - i)
	}

	// The servers read through proxies that count their SELECTs: the
	// replication's own queries and the test's writes do not pass there.
	viaPrimary, primaryProxy := wpdbtest.ThroughProxy(t, primary)
	viaReplica, replicaProxy := wpdbtest.ThroughProxy(t, replica)
	const ttl = time.Second
	env := map[string]string{
		"LOADMORE_DB":              dbURL(t, viaPrimary),
		"LOADMORE_DB_REPLICA":      dbURL(t, viaReplica),
		"LOADMORE_MAX_REPLICA_LAG": "2s",
		"LOADMORE_REDIS":           cl.URL(),
		"LOADMORE_CACHE_TTL":       ttl.String(),
	}
	instances := make([]*testServer, 3)
	for i := range instances {
		instances[i] = startServer(t, env)
	}
	replicaReads, primaryReads := replicaProxy.Selects(), primaryProxy.Selects()

	tests := []struct {
		name               string
		visitors, requests int
	}{
		{"one visitor", 1, 30},
		{"visitors in parallel", 8, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Goroutines, not t.Parallel: parallel subtests wait for one of
			// -parallel's slots (GOMAXPROCS, 2 here), and the visitors must
			// all click at once.
			var wg sync.WaitGroup
			for v := range tt.visitors {
				wg.Go(func() {
					t.Run(fmt.Sprintf("visitor %d", v), func(t *testing.T) {
						visitRoundRobin(t, cl, instances, newestFirst, v, tt.requests)
					})
				})
			}
			wg.Wait()
		})
	}

	// The posts came from the replica, never the primary, and every server
	// says it uses the replica.
	t.Run("reads from the replica", func(t *testing.T) {
		onReplica := replicaProxy.Selects() - replicaReads
		onPrimary := primaryProxy.Selects() - primaryReads
		t.Logf("SELECTs run while visitors clicked: %d on the replica, %d on the primary", onReplica, onPrimary)
		if onReplica < len(instances) || onPrimary != 0 {
			t.Errorf("%d SELECTs run on the replica and %d on the primary; want at least one per server (%d) on the replica, none on the primary",
				onReplica, onPrimary, len(instances))
		}
		for i, srv := range instances {
			if ready := srv.get(t, "/readyz"); ready.Status != http.StatusOK || !strings.Contains(ready.Body, `"in_use":true`) {
				t.Errorf("server %d: readyz %d %s, want the replica in use", i, ready.Status, ready.Body)
			}
		}
	})

	t.Run("a new post converges", func(t *testing.T) {
		ids := wpdbtest.Insert(t, primary, wpsite.Post{Title: "Breaking news", Name: "breaking-news",
			Date: "2025-01-01 00:00:00", Content: "<p>Newer than every other post.</p>"})
		committed := time.Now() // Insert returns once the row is committed
		news := ids[0]

		// The freshness bound: an answer shows the database it reads as it
		// was at most ttl ago (a cached page is served until the time its
		// query started plus ttl), and the server reads the replica, which
		// shows the primary as it was caughtUp ago. So every server shows
		// the post by committed + caughtUp + ttl, plus a margin for the
		// query, the answer and a poll (every 10 ms) on a shared machine.
		const margin = 500 * time.Millisecond
		var caughtUp time.Duration
		seen := make([]time.Duration, len(instances))
		polls := make([]int, len(instances))
		var wg sync.WaitGroup // as above: every server is watched from the start
		wg.Go(func() {
			t.Run("replica", func(t *testing.T) {
				replication.Sync(t)
				caughtUp = time.Since(committed)
			})
		})
		for i, srv := range instances {
			wg.Go(func() {
				t.Run(fmt.Sprintf("server %d", i), func(t *testing.T) {
					seen[i], polls[i] = watchNewest(t, srv, news, newestFirst[0], committed, ttl)
				})
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		bound := caughtUp + ttl + margin
		t.Logf("the replica caught up %v after the commit; the servers showed the post after %v (bound %v), polled %v times",
			caughtUp.Round(time.Millisecond), roundAll(seen), bound.Round(time.Millisecond), polls)
		for i, d := range seen {
			if d > bound {
				t.Errorf("server %d showed the new post %v after its commit, past the bound %v (replica %v + ttl %v + %v)",
					i, d.Round(time.Millisecond), bound.Round(time.Millisecond), caughtUp.Round(time.Millisecond), ttl, margin)
			}
		}
	})
}

// visitRoundRobin is one visitor with a cookie jar of its own: it opens the
// page on server first, then clicks "more" requests times, each on the next
// server, asking 1, 2 or 3 posts with start at the number it has been
// shown. Each answer must be the next posts, and in the end posts_start in
// the cluster and the page on every server must agree with what it saw.
func visitRoundRobin(t *testing.T, cl *sessiontest.Cluster, instances []*testServer, newestFirst []uint64, first, requests int) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The servers all listen on 127.0.0.1, and cookies ignore the port:
	// the jar sends the visitor's PHPSESSID to every one of them.
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	server := func(k int) *testServer { return instances[(first+k)%len(instances)] }

	page := fetch(t, client, http.MethodGet, server(0).URL+"/load-more.php")
	if page.Status != http.StatusOK {
		t.Fatalf("page: %d %s", page.Status, page.Body)
	}
	id := jarSession(t, client, server(0).URL)
	shown := 2 // a new session starts at posts_start 2, as the PHP script's does
	if diff := cmp.Diff(newestFirst[:shown], pagePostIDs(page.Body)); diff != "" {
		t.Fatalf("first page's posts (-want +got)\n%s", diff)
	}
	for k := 1; k <= requests; k++ {
		desired := 1 + k%3
		srv := server(k)
		got := postIDs(fetch(t, client, http.MethodGet, srv.URL+jsonPath(shown, desired)).posts(t))
		if diff := cmp.Diff(newestFirst[shown:shown+desired], got); diff != "" {
			t.Fatalf("click %d on %s, start=%d desiredPosts=%d (-want +got)\n%s", k, srv.URL, shown, desired, diff)
		}
		shown += desired
	}

	v, err := redis.String(cl.Do("GET", "PHPREDIS_CLUSTER_SESSION:"+id))
	if want := "posts_start|i:" + strconv.Itoa(shown) + ";"; err != nil || v != want {
		t.Errorf("cluster GET PHPREDIS_CLUSTER_SESSION:%s = %q, %v; want %q", id, v, err, want)
	}
	for i, srv := range instances {
		page := fetch(t, client, http.MethodGet, srv.URL+"/load-more.php")
		if page.Status != http.StatusOK {
			t.Fatalf("server %d: page %d %s", i, page.Status, page.Body)
		}
		if diff := cmp.Diff(newestFirst[:shown], pagePostIDs(page.Body)); diff != "" {
			t.Errorf("server %d: page's posts (-want +got)\n%s", i, diff)
		}
		if got := jarSession(t, client, srv.URL); got != id {
			t.Errorf("server %d moved the session from %s to %s", i, id, got)
		}
	}
	t.Logf("posts_start %d after the page and %d clicks, %d requests in all", shown, requests, 1+requests+len(instances))
}

// watchNewest asks srv for the newest post every 10 ms until it is news,
// and returns how long after committed that was, and how many times it
// asked. Before, the newest must be before (the newest until news); after,
// for 1.5 ttl, when every page cached before is gone, it must stay news:
// once shown, never unshown.
func watchNewest(t *testing.T, srv *testServer, news, before uint64, committed time.Time, ttl time.Duration) (shown time.Duration, polls int) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	const giveUp = 10 * time.Second
	for {
		polls++
		posts := fetch(t, client, http.MethodGet, srv.URL+jsonPath(0, 1)).posts(t)
		elapsed := time.Since(committed)
		switch ids := postIDs(posts); {
		case slices.Equal(ids, []uint64{news}):
			if shown == 0 {
				shown = elapsed
			}
		case !slices.Equal(ids, []uint64{before}):
			t.Fatalf("newest post %v, want %d or %d", ids, before, news)
		case shown > 0:
			t.Fatalf("post %d shown %v after its commit, then not %v after", news, shown, elapsed)
		case elapsed > giveUp:
			t.Fatalf("post %d not shown %v after its commit", news, giveUp)
		}
		if shown > 0 && elapsed > shown+ttl+ttl/2 {
			return shown, polls
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var pagePostRE = regexp.MustCompile(`<article class="post" id="post-\d+" data-id="(\d+)"`)

// pagePostIDs lists the posts of a rendered page, in order.
func pagePostIDs(page string) []uint64 {
	var ids []uint64
	for _, m := range pagePostRE.FindAllStringSubmatch(page, -1) {
		id, _ := strconv.ParseUint(m[1], 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// roundAll rounds durations to the millisecond, for the log.
func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

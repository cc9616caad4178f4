package main

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestAbandonedQueriesLeaveTheDatabase: 100 requests whose clients hang up
// after 30 ms, each a query the server must run (a new search, a deep page
// with no cache), leave no more queries running in MariaDB than the server
// admits at once, and none once they are gone, while WordPress, another
// client of the same database user, connects and queries throughout. The
// queries are made slow by a write lock held on the posts table.
func TestAbandonedQueriesLeaveTheDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process and 200 abandoned requests")
	}
	t.Parallel()
	for _, tc := range []struct {
		name     string
		env      map[string]string
		path     func(i int) string
		like     string // the text of the queries counted: every read of the posts
		admitted int
	}{
		{"new searches", nil, func(i int) string { return jsonPath(0, 2) + fmt.Sprintf("&s=rare%d", i) },
			"%posts%", max(runtime.GOMAXPROCS(0)/2, 1)},
		{"deep ranges with no cache", map[string]string{"LOADMORE_CACHE_TTL": "0s"}, func(i int) string { return jsonPath(100+i, 10) },
			"%posts%", wpdb.MySQLPoolSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := wpdbtest.MySQL(t)
			seedBlog(t, root, 20)
			cfg, user := wpdbtest.LimitedUser(t, root, wpdb.MySQLPoolSize+3)
			env := map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_ACCESS_LOG": "off"}
			for k, v := range tc.env {
				env[k] = v
			}
			srv := startServer(t, env)
			// The terms snapshot and the head, read before the lock: the
			// queries counted are the requests' own.
			for _, path := range []string{tc.path(-1), jsonPath(0, 2)} {
				if resp, err := http.Get(srv.URL + path); err == nil {
					resp.Body.Close()
				}
			}
			admin := wpdbtest.OpenDB(t, root)
			lock := wpdbtest.LockTable(t, admin, root.TablePrefix+"posts")
			running := func() int { return wpdbtest.RunningQueries(t, admin, user, tc.like) }
			ctx, stop := context.WithCancel(context.Background())
			most, wordpress := wpdbtest.WatchServer(ctx, running, cfg)

			var sent atomic.Int64
			var wg sync.WaitGroup
			sem := make(chan struct{}, 10)
			for i := range 100 {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
					defer cancel()
					req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+tc.path(i), nil)
					if err != nil {
						t.Error(err)
						return
					}
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
					sent.Add(1)
				})
			}
			wg.Wait()
			// The server sees each hang-up and stops its query at once.
			deadline := time.Now().Add(testkit.Scale(2 * time.Second))
			left := running()
			for left != 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
				left = running()
			}
			stop()
			lock.Close()
			if got := most.Load(); got > int64(tc.admitted) {
				t.Errorf("%d queries ran in MariaDB at once, want at most the %d admitted", got, tc.admitted)
			}
			if left != 0 {
				t.Errorf("%d queries still ran in MariaDB after their clients left, want 0: %q", left,
					wpdbtest.Rows(t, admin, "SELECT CONCAT(time, ' ', info) FROM information_schema.processlist WHERE user = ? AND info LIKE ?", user, tc.like))
			}
			if err := wordpress(); err != nil {
				t.Errorf("WordPress, another client of the same user: %v", err)
			}
		})
	}
}

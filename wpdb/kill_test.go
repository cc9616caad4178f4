package wpdb_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestAbandonedQueriesKilled: a statement the store stops waiting for,
// because its caller left or its time ran out, is gone from the server
// before the call returns, so that no more of them run at once than
// callers wait, and the database user's other clients (WordPress) can
// still connect. The statements are made slow by a write lock held on
// the posts table, so each waits in the server until it is killed.
func TestAbandonedQueriesKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out 100 abandoned queries and a timeout")
	}
	t.Parallel()
	const admitted = 4 // callers at once, as the server admits them
	search := blog.ParseSearch("post", nil)
	for _, tc := range []struct {
		name  string
		calls int
		wait  time.Duration // how long each caller waits; 0: the store's timeout
		read  func(context.Context, *wpdb.Store) error
	}{
		{"new searches whose clients hang up", 100, 30 * time.Millisecond, func(ctx context.Context, s *wpdb.Store) error {
			_, err := s.Rank(ctx, search)
			return err
		}},
		{"deep pages with no cache", 100, 30 * time.Millisecond, func(ctx context.Context, s *wpdb.Store) error {
			_, err := s.Posts(ctx, blog.Page{Offset: 5000, Limit: 10})
			return err
		}},
		{"a search past its timeout", 1, 0, func(ctx context.Context, s *wpdb.Store) error {
			_, err := s.Rank(ctx, search)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := wpdbtest.MySQL(t)
			wpdbtest.Insert(t, root, wpdbtest.Posts(3)...)
			cfg, user := wpdbtest.LimitedUser(t, root, wpdb.MySQLPoolSize+3)
			cfg.SearchTimeout = testkit.Scale(300 * time.Millisecond)
			cfg.QueryTimeout = testkit.Scale(300 * time.Millisecond)
			store := wpdbtest.Store(t, cfg)
			admin := wpdbtest.OpenDB(t, root)
			lock := wpdbtest.LockTable(t, admin, root.TablePrefix+"posts")
			running := func() int { return wpdbtest.RunningQueries(t, admin, user, "%posts%") }
			ctx, stop := context.WithCancel(context.Background())
			most, wordpress := wpdbtest.WatchServer(ctx, running, cfg)

			sem := make(chan struct{}, admitted)
			var wg sync.WaitGroup
			for range tc.calls {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					ctx := context.Background()
					if tc.wait > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, tc.wait)
						defer cancel()
					}
					if err := tc.read(ctx, store); !errors.Is(err, wpdb.ErrUnavailable) {
						t.Errorf("read: %v, want ErrUnavailable", err)
					}
				}()
			}
			wg.Wait()
			left := running()
			if left != 0 {
				t.Logf("still running: %q", wpdbtest.Rows(t, admin, "SELECT CONCAT(id, ' ', command, ' ', time_ms, ' ms ', info) FROM information_schema.processlist WHERE user = ?", user))
			}
			stop()
			lock.Close()
			if got := most.Load(); got > admitted {
				t.Errorf("%d queries ran in the server at once, want at most %d", got, admitted)
			}
			if left != 0 {
				t.Errorf("%d queries still ran after every caller left, want 0", left)
			}
			if err := wordpress(); err != nil {
				t.Errorf("another client of the same user: %v", err)
			}
		})
	}
}

// TestStatementTimeLimit: the server itself ends a statement at the
// longer of the store's timeouts, when no KILL reaches it.
func TestStatementTimeLimit(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	cfg.QueryTimeout = testkit.Scale(200 * time.Millisecond)
	cfg.SearchTimeout = testkit.Scale(400 * time.Millisecond)
	store := wpdbtest.Store(t, cfg)
	// A deadline past the limit and its slack, so that no KILL ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	err := wpdb.Sleep(ctx, store, time.Minute)
	took := time.Since(start)
	if took < cfg.SearchTimeout || took > cfg.SearchTimeout+testkit.Scale(time.Second) {
		t.Errorf("SLEEP(60) ended after %v (%v), want the search timeout, %v", took, err, cfg.SearchTimeout)
	}
}

// TestQueriesKilledAtClose: a server stopping past its shutdown timeout
// closes the store with queries still running; none stays behind in the
// database.
func TestQueriesKilledAtClose(t *testing.T) {
	t.Parallel()
	root := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, root, wpdbtest.Posts(3)...)
	cfg, user := wpdbtest.LimitedUser(t, root, wpdb.MySQLPoolSize+1)
	store := wpdbtest.Store(t, cfg)
	admin := wpdbtest.OpenDB(t, root)
	wpdbtest.LockTable(t, admin, root.TablePrefix+"posts")
	done := make(chan error, 1)
	go func() {
		_, err := store.Rank(context.Background(), blog.ParseSearch("post", nil))
		done <- err
	}()
	testkit.WaitFor(t, func() bool { return wpdbtest.RunningQueries(t, admin, user, "%posts%") == 1 })
	start := time.Now()
	store.Close()
	if n := wpdbtest.RunningQueries(t, admin, user, "%posts%"); n != 0 {
		t.Errorf("%d queries still ran after Close, want 0: %q", n, wpdbtest.Rows(t, admin,
			"SELECT CONCAT(id, ' ', command, ' ', time, ' ', info) FROM information_schema.processlist WHERE user = ?", user))
	}
	// Its error says the store closed, or the connection died.
	if err := <-done; err == nil || time.Since(start) > testkit.Scale(time.Second) {
		t.Errorf("Rank returned %v after %v, want an error at once", err, time.Since(start))
	}
}
